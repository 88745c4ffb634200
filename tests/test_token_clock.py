"""The token clock moves from session logs without hooks, once per session, agreeing with the hook path;
a person's CLI use records nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import knowledge_meta, make_ws, run_yoi, wait_for_background, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events, usage_report

SAMPLES = Path(__file__).resolve().parent / "data" / "samples"
CLAUDE = SAMPLES / "claude-code_v2.1.38_spotter_tool_heavy.jsonl"
CODEX = SAMPLES / "codex_0.104.0-alpha.1_localpush_rollout-2026-02-23T20-34-25_redacted.jsonl"


def claude_input_tokens(path: Path) -> tuple[str, int]:
    """Independent count: fresh input + cache writes + cache reads, once per model call (message id)."""
    seen: set[tuple[str, str]] = set()
    total, session = 0, ""
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        session = session or row.get("sessionId", "")
        message = row.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        key = (message.get("id") or row.get("uuid"), row.get("requestId") or "")
        if key in seen:
            continue
        seen.add(key)
        usage = message["usage"]
        total += sum(usage.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return session, total


def codex_input_tokens(path: Path) -> int:
    """Independent count: the rollout's last cumulative ``total_token_usage.input_tokens``."""
    last = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        payload = json.loads(line).get("payload") or {}
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
            last = info["total_token_usage"]["input_tokens"]
    return last


def clock(ws: Workspace) -> int:
    return usage_report(ws)[1].clock


def test_phase1_moves_the_clock_by_the_logs_input_tokens_once(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    session, expected = claude_input_tokens(CLAUDE)
    assert expected > 0
    done = run_yoi("phase1", str(CLAUDE), "-w", str(ws.root))
    assert done.returncode == 0, done.stderr
    assert clock(ws) == expected and f"token clock +{expected:,}" in done.stdout
    assert [p.name for p in ws.usage_dir.iterdir()] == [f"{session}.jsonl"]
    for again in (("phase1", str(CLAUDE)), ("phase1", str(CLAUDE), "--force")):
        assert run_yoi(*again, "-w", str(ws.root)).returncode == 0
    assert clock(ws) == expected  # re-reading never counts twice


def test_phase1_reads_codex_token_count_events(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    done = run_yoi("phase1", str(CODEX), "--json", "-w", str(ws.root))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["clock_tokens"] == codex_input_tokens(CODEX) == clock(ws)


def test_a_growing_log_counts_only_what_is_new(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    lines = CLAUDE.read_text(encoding="utf-8").splitlines(keepends=True)
    log = tmp_path / "growing.jsonl"
    log.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    _, first = claude_input_tokens(log)
    run_yoi("phase1", str(log), "-w", str(ws.root))
    assert clock(ws) == first
    log.write_text("".join(lines), encoding="utf-8")
    run_yoi("phase1", str(log), "-w", str(ws.root))
    assert clock(ws) == claude_input_tokens(CLAUDE)[1]


def test_hook_path_and_phase1_agree_on_the_same_session(tmp_path: Path) -> None:
    session, expected = claude_input_tokens(CLAUDE)
    for order in (("hook", "phase1"), ("phase1", "hook")):
        ws = make_ws(tmp_path / "-".join(order))
        transcript = ws.root.parent / "t.jsonl"
        shutil.copy(CLAUDE, transcript)
        for step in order:
            if step == "hook":  # the end of a turn: the hooks' background worker moves the clock
                payload = {"hook_event_name": "Stop", "session_id": session,
                           "transcript_path": str(transcript), "cwd": str(ws.root)}
                assert run_yoi("hook", "claude-code", input=json.dumps(payload), cwd=ws.root).returncode == 0
                wait_for_background(ws)
            else:
                assert run_yoi("phase1", str(transcript), "-w", str(ws.root)).returncode == 0
        assert clock(ws) == expected, order
        assert {e["session_id"] for e in load_events(ws)[0]} == {session}


def test_a_persons_cli_use_creates_no_usage_files(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md", knowledge_meta(model_invokation=True), "\nRun pytest.\n")
    person = {"YOI_SESSION_ID": ""}
    for args in (("search", "knowledge", "pytest"), ("search", "knowledge", "pytest"), ("context",), ("expand", "-")):
        done = run_yoi(*args, "-w", str(ws.root), input="see #run-tests", env=person)
        assert done.returncode == 0, done.stderr  # before #14 each call wrote a usage file of its own
    assert not ws.usage_dir.exists() or list(ws.usage_dir.iterdir()) == []
    agent = run_yoi("search", "knowledge", "pytest", "-w", str(ws.root), env={"YOI_SESSION_ID": "agent-1"})
    assert agent.returncode == 0
    assert [(e["slug"], e["session_id"]) for e in load_events(ws)[0]] == [("run-tests", "agent-1")]


def test_session_start_exports_the_session_for_the_agents_own_calls(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    env_file = tmp_path / "session-env.sh"
    payload = {"hook_event_name": "SessionStart", "session_id": "cc-42", "cwd": str(ws.root)}
    for _ in range(2):
        done = run_yoi("hook", "claude-code", input=json.dumps(payload), cwd=ws.root,
                       env={"CLAUDE_ENV_FILE": str(env_file)})
        assert done.returncode == 0, done.stderr
    assert env_file.read_text() == "export YOI_SESSION_ID=cc-42\n"


def test_a_hook_naming_the_session_differently_still_never_double_counts(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _, expected = claude_input_tokens(CLAUDE)
    payload = {"hook_event_name": "Stop", "session_id": "harness-name", "transcript_path": str(CLAUDE),
               "cwd": str(ws.root)}
    assert run_yoi("hook", "claude-code", input=json.dumps(payload), cwd=ws.root).returncode == 0
    wait_for_background(ws)
    assert run_yoi("phase1", str(CLAUDE), "-w", str(ws.root)).returncode == 0
    assert clock(ws) == expected
