"""``yoi hook claude-code``: each hook event does its part and never blocks the agent."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from support import knowledge_meta, make_ws, run_yoi, wait_for_background, write_record

from yoi_tui.core.hooks import jobs as hook_jobs
from yoi_tui.core.runs.consolidation_lock import ConsolidationLock
from yoi_tui.core.store.staging import list_staging
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.text.markers import CONTEXT_BEGIN, knowledge_begin

SAMPLE = Path(__file__).resolve().parent / "data" / "samples" / "claude-code_v2.0.28_agtrace_claude_session.jsonl"


def _hook(ws_root: Path, payload: dict | str) -> tuple[int, str, str]:
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    result = run_yoi("hook", "claude-code", input=stdin, cwd=ws_root)
    return result.returncode, result.stdout, result.stderr


def _events(ws_root: Path, session: str) -> list[dict]:
    path = ws_root / ".yoi" / "usage" / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_session_start_prints_context_and_stop_advances_the_token_clock(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-python3.md", knowledge_meta(model_invokation=True,
                                                               description="Use python3 here; read before running scripts."))
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, out, err = _hook(ws.root, {"hook_event_name": "SessionStart", "session_id": "cc-1",
                                     "transcript_path": str(transcript), "cwd": str(ws.root)})
    assert code == 0, err
    assert CONTEXT_BEGIN in out and "#run-python3 — Use python3 here" in out
    # The clock is Phase 1's, in the background worker at the end of the turn: not on the prompt's path.
    assert [e for e in _events(ws.root, "cc-1") if e["type"] == "tokens"] == []
    _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-1", "transcript_path": str(transcript)})
    wait_for_background(ws)
    assert [e["input_tokens"] for e in _events(ws.root, "cc-1") if e["type"] == "tokens"] == [98_785]
    _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-1", "transcript_path": str(transcript)})
    wait_for_background(ws)
    assert [e["input_tokens"] for e in _events(ws.root, "cc-1") if e["type"] == "tokens"] == [98_785]


def test_user_prompt_submit_adds_only_the_knowledge_blocks(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-python3.md", knowledge_meta(), "\nAlways run scripts with python3.\n")
    code, out, _ = _hook(ws.root, {"hook_event_name": "UserPromptSubmit", "session_id": "cc-2",
                                   "prompt": "run hoge.py, see #run-python3"})
    assert code == 0
    assert out.startswith(knowledge_begin("run-python3")) and "Always run scripts with python3." in out
    assert "run hoge.py" not in out
    assert [e["slug"] for e in _events(ws.root, "cc-2") if e["type"] == "invoke"] == ["run-python3"]
    code, out, _ = _hook(ws.root, {"hook_event_name": "UserPromptSubmit", "session_id": "cc-2", "prompt": "hello"})
    assert code == 0 and out == ""


def test_pre_compact_queues_phase1_and_phase2_for_the_background(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, out, err = _hook(ws.root, {"hook_event_name": "PreCompact", "session_id": "cc-3",
                                     "transcript_path": str(transcript)})
    assert code == 0 and out == "" and err == ""  # nothing on the agent's console
    found = wait_for_background(ws)
    assert found["pending"] == []
    [entry] = found["recent"]
    assert entry["status"] == "done" and entry["event"] == "PreCompact"
    assert "phase1 7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9: written" in entry["message"]
    assert "phase2: applied" in entry["message"]
    assert list_staging(ws) == []  # the flush consumed it
    assert list(ws.requests_dir.glob("*.md"))


AGENT = """
import json, subprocess, sys
subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "hook", "claude-code"], input=sys.argv[1], text=True,
               check=True, capture_output=True)
"""


def test_pre_compact_flush_survives_the_agent_exiting_at_once(tmp_path: Path) -> None:
    """The agent runs PreCompact and is gone the moment the hook returns (its whole process group
    killed): the compacted range is still processed, by the worker in its own session."""
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    payload = json.dumps({"hook_event_name": "PreCompact", "session_id": "cc-5", "transcript_path": str(transcript),
                          "cwd": str(ws.root)})
    agent = subprocess.Popen([sys.executable, "-c", AGENT, payload], start_new_session=True)
    assert agent.wait(timeout=120) == 0
    try:
        os.killpg(agent.pid, signal.SIGKILL)  # whatever the agent's group still holds
    except ProcessLookupError:
        pass
    found = wait_for_background(ws)
    assert [e["status"] for e in found["recent"]] == ["done"]
    assert list_staging(ws) == [] and list(ws.requests_dir.glob("*.md"))


def test_stop_below_threshold_writes_nothing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[phase1]\ntoken_threshold = 10000000\n")
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, _, err = _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-4", "transcript_path": str(transcript)})
    assert code == 0 and err == ""
    found = wait_for_background(ws)
    assert "below-threshold" in found["recent"][-1]["message"]
    assert list_staging(ws) == []


def test_a_failed_job_is_shown_by_yoi_status_and_retried_at_the_next_hook(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    with ConsolidationLock(ws, purpose="gc"):  # a Phase 2 or GC of someone else runs meanwhile
        _hook(ws.root, {"hook_event_name": "PreCompact", "session_id": "cc-6", "transcript_path": str(transcript)})
        found = wait_for_background(ws)
    [job] = found["pending"]
    assert job["attempts"] == 1 and "phase2" in job["last_error"]
    shown = run_yoi("status", "--workspace", str(ws.root))
    assert shown.returncode == 1 and "failed 1x, retried at the next hook" in shown.stdout
    assert json.loads(run_yoi("status", "--json", "-w", str(ws.root)).stdout)["pending"][0]["job"].startswith("cc-6-")
    # The next trigger (a Stop of the same session) retries it, the flush included.
    _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-6", "transcript_path": str(transcript)})
    found = wait_for_background(ws)
    assert found["pending"] == [] and found["recent"][-1]["status"] == "done"
    assert list_staging(ws) == [] and list(ws.requests_dir.glob("*.md"))
    shown = run_yoi("status", "--workspace", str(ws.root))
    assert shown.returncode == 0 and "pending jobs: none" in shown.stdout


def test_a_subagents_stop_does_not_replace_its_sessions_job(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    held = _hold_worker_lock(ws)
    try:
        _hook(ws.root, {"hook_event_name": "PreCompact", "session_id": "cc-8", "transcript_path": str(transcript)})
        _hook(ws.root, {"hook_event_name": "SubagentStop", "session_id": "cc-8",
                        "transcript_path": str(tmp_path / "agent-1.jsonl")})
        pending = hook_jobs.status(ws)["pending"]
        assert sorted((j["event"], j["transcript"]) for j in pending) == [
            ("PreCompact", str(transcript)), ("SubagentStop", str(tmp_path / "agent-1.jsonl"))]
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)


def _hold_worker_lock(ws: Workspace) -> int:
    """Hold the worker lock as a running worker does (jobs then stay queued)."""
    folder = hook_jobs.folder_of(ws)
    folder.mkdir(parents=True, exist_ok=True)
    held = os.open(folder / "worker.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)
    return held


def test_never_two_workers_and_a_killed_worker_is_retried(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    folder = hook_jobs.folder_of(ws)
    folder.mkdir(parents=True)
    held = os.open(folder / "worker.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # a worker is running
    try:
        _hook(ws.root, {"hook_event_name": "PreCompact", "session_id": "cc-7", "transcript_path": str(transcript)})
        time.sleep(1.0)  # give a (wrong) second worker the time to start; none may take the job
        [job] = hook_jobs.status(ws)["pending"]
        assert job["job"].startswith("cc-7-")
        assert list_staging(ws) == []
        # That worker dies mid-job: it had claimed the job.
        (folder / f"{job['job']}.json").rename(folder / f"{job['job']}.json.999999.running")
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)
    _hook(ws.root, {"hook_event_name": "Stop", "session_id": "other", "transcript_path": str(tmp_path / "none.jsonl")})
    found = wait_for_background(ws)
    assert [e["status"] for e in found["recent"] if e["job"] == job["job"]] == ["interrupted", "done"]
    # The trigger's own job names a transcript that does not exist: skipped, not retried for ever.
    assert [e["status"] for e in found["recent"] if e["job"].startswith("other-")] == ["skipped"]
    assert found["pending"] == []
    assert list(ws.requests_dir.glob("*.md"))


def test_bad_input_and_missing_workspace_never_block(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    code, out, err = _hook(ws.root, "{not json")
    assert code == 0 and out == "" and "not JSON" in err
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    code, out, err = _hook(empty, {"hook_event_name": "SessionStart", "cwd": str(empty)})
    assert code == 0 and "no yoi workspace" in err and "Traceback" not in err
