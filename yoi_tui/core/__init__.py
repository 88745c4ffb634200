"""The memory core: records, config, linter, retrieval, usage, phases.

Never imports Textual: the CLI, the app, the MCP server and the tests all drive this package.
"""
