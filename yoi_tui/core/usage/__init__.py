"""Usage wing: what agents did with the memory — the usage event log under ``.yoi/usage/`` (token
clock ticks, invokes and injections of records, the session id they go under), what is computed
from it (frequency, protection, the knowledge candidate report), its monthly compaction, and which
agent session a ``yoi mcp`` server records for.

Modules: ``log`` (appending and reading events, the arithmetic), ``compact`` (folding finished
months into ``_month-YYYY-MM.jsonl``), ``month_file`` (the line format of those files),
``agent_session`` (the hooks announce their session, the MCP server finds its client's).

Imports ``core.store`` (and errors/diagnostics/notices) only: retrieval, lint, sessions (the token
clock), phase1, phase2, gc and the hooks record or read usage through it.
"""
