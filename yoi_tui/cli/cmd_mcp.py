"""``yoi mcp``: serve knowledge_search, memory_search and read_record over stdio (MCP)."""

from __future__ import annotations

import argparse

from .common import workspace_from
from .session_opt import session_from, session_parent, show_library_warnings


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp", parents=[*parents, session_parent(no_record=False)],
        help="run the stdio MCP server (knowledge_search, memory_search, read_record)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a Model Context Protocol server on stdin/stdout exposing the retrieval tools: "
                    "knowledge_search, memory_search and read_record(slug, kind). Records are scanned on "
                    "every call; each record returned is recorded as an invoke in .yoi/usage/<session>.jsonl. "
                    "The workspace is --workspace or found from the current directory at start.",
        epilog="register with Claude Code (from the project root):\n"
               "  claude mcp add --scope project yoi -- yoi mcp\n"
               "other clients: command 'yoi', args ['mcp', '--workspace', '/path/to/project']")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..mcp_server import run_stdio

    show_library_warnings()  # stdout carries the protocol: library warnings go to stderr
    ws = workspace_from(args)
    session_id = session_from(args)
    try:
        run_stdio(ws, session_id)
    except KeyboardInterrupt:  # SIGINT: a client stopping its server, or a person pressing Ctrl-C
        return 130
    return 0
