"""``yoi mcp``: a stdio MCP server giving an agent the retrieval tools of SPEC 5.

Tools (same inputs and outputs as the library functions in ``yoi_tui.core.retrieval.search``;
their schemas and calls live in ``mcp_tools``):

- ``knowledge_search(query, slug?, kind?, limit?, include_replaced?)``
- ``memory_search(query, slug?, kind?, limit?, include_replaced?)``
- ``read_record(slug, kind)`` — one record's frontmatter and body, read-only.

This module is the protocol: JSON-RPC 2.0 messages, one per line, on stdin/stdout (the MCP stdio
transport), with the ``initialize`` handshake of the protocol revisions 2024-11-05 to 2025-11-25.
It is written by hand on purpose: a client lists the tools it offers the model from the servers
that answered ``initialize`` and ``tools/list`` by then, and importing the pinned MCP SDK alone
took ~2 s of CPU here (3 s with yoi's modules), so the tools were missing from an agent's first
request (issue 23). ``initialize``, ``ping`` and ``tools/list`` need nothing but ``json`` and the
tool table; the search code is imported at the first ``tools/call``.
``tests/test_mcp_protocol.py`` checks which modules are loaded before ``initialize`` is answered.

Every record returned counts as one invoke in ``.yoi/usage/<session>.jsonl``; the session is
resolved at the first tool call (``mcp_tools.ToolContext``: ``--session``, ``$YOI_SESSION_ID``,
the session the client's hooks announced, ``$CLAUDE_CODE_SESSION_ID``, else one id for the
server's lifetime; docs/usage.md). Nothing but the protocol is written to stdout; logs go to stderr.
SIGINT and SIGTERM stop the server (the CLI maps SIGINT to exit status 130).
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

SERVER_NAME = "yoi-memory"
INSTRUCTIONS = (
    "Project memory for this repository: knowledge records (terms, policies, rules, facts, how-tos) "
    "and memory records (the summary, decisions, requests). Search before re-deriving project "
    "conventions or repeating a past attempt; read a record by slug when a #slug is mentioned."
)
# Revisions with the ``initialize`` handshake, oldest first. A client asking for one of them gets
# it; any other request is answered with the newest (the client then decides whether to go on).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = \
    -32700, -32600, -32601, -32602, -32603


def yoi_version() -> str:
    """The installed yoi-tui's version; ``pyproject``'s for a source tree that was never installed.

    Read from the dist-info folder beside the package (``importlib.metadata`` costs ~15 ms of
    imports, on the path to ``initialize``)."""
    import os

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        names = os.listdir(package_parent)
    except OSError:
        names = []
    for name in names:
        if name.startswith("yoi_tui-") and name.endswith(".dist-info"):
            return name[len("yoi_tui-"):-len(".dist-info")]
    try:
        with open(os.path.join(package_parent, "pyproject.toml"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("version = "):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"


class Server:
    """One MCP session over a pair of byte streams (stdin/stdout in ``run_stdio``)."""

    def __init__(self, tools: Any, out: BinaryIO) -> None:
        self.tools = tools  # an ``mcp_tools.ToolContext``
        self.out = out
        self.initialized = False

    # ------------------------------------------------------------------ transport

    def send(self, message: dict[str, Any]) -> None:
        # One line per message: json.dumps never writes a raw newline.
        self.out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        self.out.flush()

    def serve(self, stream: BinaryIO) -> None:
        """Answer every message until ``stream`` ends (the client closed stdin)."""
        for line in stream:
            if line.strip():
                reply = self.handle_line(line)
                if reply is not None:
                    self.send(reply)  # type: ignore[arg-type]

    def handle_line(self, line: bytes) -> dict[str, Any] | list[dict[str, Any]] | None:
        try:
            message = json.loads(line)
        except ValueError as exc:  # UnicodeDecodeError is one too
            return _error(None, PARSE_ERROR, f"parse error: {exc}")
        if isinstance(message, list):  # a batch (2025-03-26): the replies to its requests, as one array
            if not message:
                return _error(None, INVALID_REQUEST, "empty batch")
            replies = [r for r in (self.handle(m) for m in message) if r is not None]
            return replies or None  # type: ignore[return-value]
        return self.handle(message)

    # ------------------------------------------------------------------ dispatch

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The reply to one message (None for a notification or a client's reply to us)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(message.get("id") if isinstance(message, dict) else None, INVALID_REQUEST,
                          "not a JSON-RPC 2.0 message")
        method = message.get("method")
        msg_id = message.get("id")
        if method is None:
            return None  # a response to a request of ours: we send none, so nothing waits for it
        if not isinstance(method, str):
            return _error(msg_id, INVALID_REQUEST, "method must be a string")
        is_notification = "id" not in message
        params = message.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return None if is_notification else _error(msg_id, INVALID_PARAMS, "params must be an object")
        if is_notification:
            if method == "notifications/initialized":
                self.initialized = True
            return None  # notifications/cancelled and the rest: every request is answered at once anyway
        try:
            result = self.dispatch(method, params)
        except _RpcError as exc:
            return _error(msg_id, exc.code, exc.message)
        except Exception as exc:  # a bug of ours must not end the session
            print(f"yoi mcp: internal error in {method}: {exc!r}", file=sys.stderr)
            return _error(msg_id, INTERNAL_ERROR, f"internal error: {exc}")
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return self.initialize(params)
        if method == "ping":
            return {}
        if method == "tools/list":
            from .mcp_tools import TOOLS

            return {"tools": TOOLS}
        if method == "tools/call":
            name = params.get("name")
            arguments = params.get("arguments")
            if not isinstance(name, str):
                raise _RpcError(INVALID_PARAMS, "tools/call needs a tool name")
            if arguments is not None and not isinstance(arguments, dict):
                raise _RpcError(INVALID_PARAMS, "tool arguments must be an object")
            from .mcp_tools import TOOL_NAMES

            if name not in TOOL_NAMES:
                raise _RpcError(INVALID_PARAMS, f"unknown tool: {name}")
            return self.tools.call(name, arguments or {})
        raise _RpcError(METHOD_NOT_FOUND, f"method not found: {method}")

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
        return {"protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": SERVER_NAME, "version": yoi_version()},
                "instructions": INSTRUCTIONS}


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    if not (msg_id is None or isinstance(msg_id, str | int)) or isinstance(msg_id, bool):
        msg_id = None
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def run_stdio(ws: Any, session_id: str | None = None) -> None:
    """Serve on stdin/stdout until the client closes stdin (or SIGINT / SIGTERM)."""
    import signal

    from .mcp_tools import ToolContext

    # A client that stops the server with SIGTERM (Claude Code, after stdin is closed) gets the same
    # quiet exit as one that sends SIGINT.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    server = Server(ToolContext(ws, session_id), sys.stdout.buffer)
    server.serve(sys.stdin.buffer)
