"""``yoi hook claude-code``: each hook event does its part and never blocks the agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.retrieval.markers import CONTEXT_BEGIN, knowledge_begin
from yoi_tui.core.store.staging import list_staging

SAMPLE = Path(__file__).resolve().parent / "data" / "samples" / "claude-code_v2.0.28_agtrace_claude_session.jsonl"


def _hook(ws_root: Path, payload: dict | str) -> tuple[int, str, str]:
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    result = run_yoi("hook", "claude-code", input=stdin, cwd=ws_root)
    return result.returncode, result.stdout, result.stderr


def _events(ws_root: Path, session: str) -> list[dict]:
    path = ws_root / ".yoi" / "usage" / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_session_start_prints_context_and_advances_the_token_clock(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-python3.md", knowledge_meta(model_invokation=True,
                                                               description="Use python3 here; read before running scripts."))
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, out, err = _hook(ws.root, {"hook_event_name": "SessionStart", "session_id": "cc-1",
                                     "transcript_path": str(transcript), "cwd": str(ws.root)})
    assert code == 0, err
    assert CONTEXT_BEGIN in out and "#run-python3 — Use python3 here" in out
    tokens = [e["input_tokens"] for e in _events(ws.root, "cc-1") if e["type"] == "tokens"]
    assert tokens == [98_785]
    _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-1", "transcript_path": str(transcript)})
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


def test_pre_compact_runs_phase1_and_phase2(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, _, err = _hook(ws.root, {"hook_event_name": "PreCompact", "session_id": "cc-3",
                                   "transcript_path": str(transcript)})
    assert code == 0, err
    assert "phase1 7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9: written" in err
    assert list_staging(ws) == []  # the flush consumed it
    assert list(ws.requests_dir.glob("*.md"))


def test_stop_below_threshold_writes_nothing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[phase1]\ntoken_threshold = 10000000\n")
    transcript = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, transcript)
    code, _, err = _hook(ws.root, {"hook_event_name": "Stop", "session_id": "cc-4", "transcript_path": str(transcript)})
    assert code == 0 and "below-threshold" in err
    assert list_staging(ws) == []


def test_bad_input_and_missing_workspace_never_block(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    code, out, err = _hook(ws.root, "{not json")
    assert code == 0 and out == "" and "not JSON" in err
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    code, out, err = _hook(empty, {"hook_event_name": "SessionStart", "cwd": str(empty)})
    assert code == 0 and "no yoi workspace" in err and "Traceback" not in err
