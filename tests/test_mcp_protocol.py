"""``yoi mcp`` on the wire: the handshake without the heavy imports, JSON-RPC errors, SIGINT, the
version, and one session id with the client's hooks (issue 23, items 2 and 7).

Driven with raw JSON-RPC lines over a real subprocess (tests/test_mcp.py drives it with the MCP
SDK's client, which checks the results against the tools' output schemas)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest
from support import knowledge_meta, make_ws, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events

REPO = Path(__file__).resolve().parent.parent
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("YOI_SESSION_ID", "CLAUDE_CODE_SESSION_ID")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env["YOI_SERVER"] = "0"
    return {**env, **extra}


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path / "project")
    write_record(ws, "knowledge/run-tests.md",
                 knowledge_meta(kind="howto", description="How to run the tests.", model_invokation=True),
                 "\nRun `pytest -q` from the root.\n")
    return ws


def converse(ws: Workspace, messages: list[Any], *, env: dict[str, str] | None = None) -> list[Any]:
    """Send ``messages`` (dicts, or raw bytes lines) to one ``yoi mcp``; its replies, one per line."""
    lines = b"".join(m if isinstance(m, bytes) else json.dumps(m).encode() + b"\n" for m in messages)
    done = subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "mcp", "--workspace", str(ws.root)],
                          input=lines, capture_output=True, env=env or child_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_handshake_and_tool_list_import_no_sdk_and_no_search_code(ws: Workspace) -> None:
    """What a client waits for before it lists the tools to the model (initialize, tools/list) loads
    none of the heavy modules: not the MCP SDK, not pydantic, not the search code or YAML."""
    script = textwrap.dedent("""
        import io, json, sys
        msgs = [INIT_MESSAGE, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
        sys.stdin = io.TextIOWrapper(io.BytesIO("".join(json.dumps(m) + "\\n" for m in msgs).encode()))
        out = io.BytesIO()
        sys.stdout = io.TextIOWrapper(out)
        from yoi_tui.cli.main import main
        code = main(["mcp", "--workspace", sys.argv[1]])
        sys.stdout.flush()
        sys.__stdout__.write(json.dumps({"code": code, "replies": out.getvalue().decode().splitlines(),
                                         "modules": sorted(sys.modules)}))
    """).replace("INIT_MESSAGE", repr(INIT))
    done = subprocess.run([sys.executable, "-c", script, str(ws.root)], capture_output=True, text=True,
                          env=child_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["code"] == 0
    replies = [json.loads(line) for line in report["replies"]]
    assert [r["id"] for r in replies] == [1, 2]
    assert {t["name"] for t in replies[1]["result"]["tools"]} == {"knowledge_search", "memory_search", "read_record"}
    loaded = set(report["modules"])
    heavy = {"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "yaml", "sqlite3", "asyncio", "textual",
             "importlib.metadata", "yoi_tui.core.retrieval.search", "yoi_tui.core.store.records"}
    assert loaded & heavy == set()


def test_protocol_negotiation_errors_and_results(ws: Workspace) -> None:
    replies = converse(ws, [
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}},
        b"{not json\n",
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "knowledge_search", "arguments": {"limit": "many"}}},
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
         "params": {"name": "read_record", "arguments": {"slug": "run-tests"}}},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "knowledge_search", "arguments": {"query": "pytest"}}},
        [{"jsonrpc": "2.0", "id": 8, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/cancelled"}],
        {"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}},
        {"id": 10, "method": "ping"},
    ])
    init, ping, discover, parse, unknown_tool, bad_type, missing, hits, batch, old, not_rpc = replies
    assert init["id"] == 1
    result = init["result"]
    assert result["protocolVersion"] == "2025-06-18"  # the client's, when we speak it
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert result["serverInfo"] == {"name": "yoi-memory", "version": version}
    assert "knowledge records" in result["instructions"]
    assert ping == {"jsonrpc": "2.0", "id": "p", "result": {}}
    # The SDK's clients probe the stateless era first; method-not-found sends them to initialize.
    assert discover["error"]["code"] == -32601
    assert parse["id"] is None and parse["error"]["code"] == -32700
    assert unknown_tool["error"]["code"] == -32602 and "nope" in unknown_tool["error"]["message"]
    assert bad_type["result"]["isError"] is True
    assert "'limit' must be an integer or null" in bad_type["result"]["content"][0]["text"]
    assert missing["result"]["isError"] is True and "missing required argument 'kind'" in \
        missing["result"]["content"][0]["text"]
    found = hits["result"]
    assert found["isError"] is False
    assert [h["slug"] for h in found["structuredContent"]["result"]] == ["run-tests"]
    assert json.loads(found["content"][0]["text"]) == found["structuredContent"]
    assert batch == [{"jsonrpc": "2.0", "id": 8, "result": {}}]
    assert old["result"]["protocolVersion"] == "2025-11-25"  # unknown: our newest, the client decides
    assert not_rpc["id"] == 10 and not_rpc["error"]["code"] == -32600


def _sigint_as_a_client_leaves_it() -> None:
    """A background job of a non-interactive shell (``cmd &``, ``nohup``) starts with SIGINT
    ignored, and Python then installs no handler: the server is started as a client starts it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_stops_the_server(ws: Workspace) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "yoi_tui.cli.main", "mcp", "--workspace", str(ws.root)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(),
                            preexec_fn=_sigint_as_a_client_leaves_it)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving, stdin still open
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 130
    assert b"Traceback" not in proc.stderr.read()  # type: ignore[union-attr]


CLIENT = """
import json, subprocess, sys
ws, session, mcp_env = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
yoi = [sys.executable, "-m", "yoi_tui.cli.main"]
if session != "-":  # the client's SessionStart hook, as Claude Code and Codex run it
    hook = {"hook_event_name": "SessionStart", "session_id": session, "cwd": ws, "source": "startup"}
    subprocess.run([*yoi, "hook", "claude-code"], input=json.dumps(hook), text=True, check=True,
                   capture_output=True)
msgs = [INIT_MESSAGE, {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "knowledge_search", "arguments": {"slug": "run-tests"}}}]
done = subprocess.run([*yoi, "mcp", "--workspace", ws], input="".join(json.dumps(m) + "\\n" for m in msgs),
                      text=True, capture_output=True, env=mcp_env, check=True)
print(done.stdout)
""".replace("INIT_MESSAGE", repr(INIT))


def run_client(ws: Workspace, session: str, **mcp_env: str) -> list[str]:
    """A stand-in for an agent client: runs its SessionStart hook, then its MCP server (both its own
    children, as the real clients spawn them), calls a tool; the sessions the call was recorded under."""
    before = len(load_events(ws)[0])
    env = child_env()
    subprocess.run([sys.executable, "-c", CLIENT, str(ws.root), session, json.dumps(child_env(**mcp_env))],
                   check=True, capture_output=True, env=env, timeout=120)
    events = load_events(ws)[0][before:]
    return [e["session_id"] for e in events if e["type"] == "invoke"]


def test_mcp_records_under_the_session_its_clients_hooks_announced(ws: Workspace) -> None:
    assert run_client(ws, "claude-session-1") == ["claude-session-1"]
    # Another client, another session: never the first client's.
    assert run_client(ws, "codex-thread-2") == ["codex-thread-2"]
    # A client whose hooks announced nothing: Claude Code's own variable, else the server's own id.
    assert run_client(ws, "-", CLAUDE_CODE_SESSION_ID="from-claude-env") == ["from-claude-env"]
    [own] = run_client(ws, "-")
    assert own not in ("claude-session-1", "codex-thread-2", "from-claude-env")
    # An explicit session wins over everything.
    assert run_client(ws, "hook-session", YOI_SESSION_ID="explicit") == ["explicit"]
