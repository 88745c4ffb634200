"""End to end: ``yoi mcp`` as a subprocess, driven by the real MCP client over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from support import decision_meta, knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md",
                 knowledge_meta(kind="howto", description="How to run the tests.", model_invokation=True),
                 "\nRun `pytest -q` from the root.\n")
    write_record(ws, "knowledge/money.md", knowledge_meta(kind="rule", description="Money is integer cents."),
                 "\nNever use float for money.\n")
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, "\nAn invoicing API.\n")
    write_record(ws, "memory/decisions/use-postgres.md", decision_meta(status="resolved"),
                 "\n# Use Postgres\n\nSQLite was too slow.\n")
    return ws


def server(ws: Workspace, *extra: str, cwd: Path | None = None) -> StdioServerParameters:
    args = ["-m", "yoi_tui.cli.main", "mcp", *extra]
    # The client passes only a few variables on; the server must import this checkout from any cwd.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("YOI_SESSION_ID", None)
    env.pop("CLAUDE_CODE_SESSION_ID", None)
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(cwd) if cwd else None, env=env)


def result_of(call: Any) -> Any:
    assert not call.is_error, call.content
    return call.structured_content["result"] if "result" in call.structured_content else call.structured_content


async def test_tools_end_to_end(ws: Workspace) -> None:
    with anyio.fail_after(120):
        async with Client(server(ws, "--workspace", str(ws.root), "--session", "e2e")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {"knowledge_search", "memory_search", "read_record"}
            for name in ("knowledge_search", "memory_search"):
                assert set(tools[name].input_schema["properties"]) == {"query", "slug", "kind", "limit",
                                                                       "include_replaced"}
            assert sorted(tools["read_record"].input_schema["required"]) == ["kind", "slug"]

            hits = result_of(await client.call_tool("knowledge_search", {"query": "PYTEST root"}))
            assert hits == [{"slug": "run-tests", "kind": "howto", "description": "How to run the tests.",
                             "model_invokation": True, "excerpt": "Run `pytest -q` from the root.",
                             "replaced_by": None}]
            hits = result_of(await client.call_tool("knowledge_search", {"slug": "money"}))
            assert [h["slug"] for h in hits] == ["money"]
            assert result_of(await client.call_tool("knowledge_search", {"kind": "policy"})) == []

            hits = result_of(await client.call_tool("memory_search", {"query": "sqlite", "kind": "decision"}))
            assert [(h["slug"], h["kind"], h["status"]) for h in hits] == [("use-postgres", "decision", "resolved")]

            record = result_of(await client.call_tool("read_record", {"slug": "money", "kind": "knowledge"}))
            assert record["path"] == "knowledge/money.md"
            assert record["meta"]["kind"] == "rule"
            assert record["body"] == "\nNever use float for money.\n"

            # files are scanned on every call: a record written now is found at once
            write_record(ws, "knowledge/new-fact.md", knowledge_meta(), "\nFreshly written zebra.\n")
            hits = result_of(await client.call_tool("knowledge_search", {"query": "zebra"}))
            assert [h["slug"] for h in hits] == ["new-fact"]

            # expected failures come back as tool errors with a readable message, never a crash
            bad = await client.call_tool("read_record", {"slug": "nope", "kind": "knowledge"})
            assert bad.is_error and "no knowledge record named 'nope'" in bad.content[0].text
            bad = await client.call_tool("memory_search", {"kind": "knowledge"})
            assert bad.is_error
            bad = await client.call_tool("knowledge_search", {"limit": 0})
            assert bad.is_error and "limit must be" in bad.content[0].text

    events, problems = load_events(ws)
    assert problems == []
    assert [(e["slug"], e["record_kind"], e["via"], e["session_id"]) for e in events] == [
        ("run-tests", "knowledge", "search", "e2e"),
        ("money", "knowledge", "slug", "e2e"),
        ("use-postgres", "decision", "search", "e2e"),
        ("money", "knowledge", "slug", "e2e"),
        ("new-fact", "knowledge", "search", "e2e"),
    ]


async def test_workspace_found_from_cwd_and_generated_session(ws: Workspace) -> None:
    with anyio.fail_after(120):
        async with Client(server(ws, cwd=ws.root / "knowledge")) as client:
            record = result_of(await client.call_tool("read_record", {"slug": "ignored", "kind": "summary"}))
            assert record["body"] == "\nAn invoicing API.\n"
            result_of(await client.call_tool("memory_search", {"slug": "summary"}))
    events, _ = load_events(ws)
    assert len(events) == 2 and len({e["session_id"] for e in events}) == 1  # one session per server


def test_mcp_without_workspace_exits_2(tmp_path: Path) -> None:
    done = run_yoi("mcp", cwd=tmp_path, input="")
    assert done.returncode == 2 and "no yoi workspace" in done.stderr and "Traceback" not in done.stderr
