"""Codex 0.169 rollouts (issue 23 item 5), on a real one the contract test recorded (tests/data/contract).

0.169 writes no ``user_message`` event: the prompt is a ``response_item`` user message followed by an
``item_completed`` ``UserMessage``; each model call's usage is a ``token_usage_record`` before its
``token_count`` twin. One prompt, counted once; usage counted once; no warnings.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import make_ws, run_yoi

from yoi_tui.core.sessions import load_session

ROLLOUT = Path(__file__).parent / "data" / "contract" / "codex_0.169.0_contract_rollout.jsonl"
PROMPT = "Make the check pass, see #config-layout"


def _lines() -> list[dict]:
    return [json.loads(line) for line in ROLLOUT.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_prompt_is_read_once_and_usage_once_without_warnings() -> None:
    log = load_session(ROLLOUT)
    assert log.format == "codex" and log.problems == []
    assert [e.text for e in log.entries if e.role == "user"] == [PROMPT]
    records = [line["payload"]["usage"]["input_tokens"] for line in _lines() if line["type"] == "token_usage_record"]
    assert len(records) == 5
    assert [e.input_tokens for e in log.entries if e.kind == "usage"] == records


def test_a_user_message_event_as_well_is_still_one_prompt(tmp_path: Path) -> None:
    """A build writing both twins (user_message and item_completed UserMessage) is not double counted."""
    lines = _lines()
    at = next(i for i, line in enumerate(lines) if line["type"] == "response_item"
              and line["payload"].get("role") == "user" and PROMPT in json.dumps(line))
    event = {"timestamp": lines[at]["timestamp"], "type": "event_msg",
             "payload": {"type": "user_message", "message": PROMPT, "images": []}}
    log = load_session(_write(tmp_path / "both.jsonl", [*lines[:at + 1], event, *lines[at + 1:]]))
    assert [e.text for e in log.entries if e.role == "user"] == [PROMPT] and log.problems == []


def test_a_lone_role_user_message_is_not_a_prompt(tmp_path: Path) -> None:
    """Without a twin (as in builds before 0.169, where injected context the prefixes miss sits there)."""
    lines = [line for line in _lines() if not (line["type"] == "event_msg"
                                               and line["payload"].get("type") == "item_completed"
                                               and line["payload"]["item"].get("type") == "UserMessage")]
    log = load_session(_write(tmp_path / "lone.jsonl", lines))
    assert [e for e in log.entries if e.role == "user"] == []


def test_appending_lines_never_changes_earlier_entries(tmp_path: Path) -> None:
    lines = _lines()
    whole = load_session(ROLLOUT).entries
    for cut in range(1, len(lines)):
        head = load_session(_write(tmp_path / f"cut{cut}.jsonl", lines[:cut])).entries
        assert head == whole[:len(head)], cut


def test_phase1_finds_the_request_and_the_fixed_check(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    done = run_yoi("phase1", "--force", str(ROLLOUT), cwd=ws.root)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    staged = [json.loads(p.read_text(encoding="utf-8")) for p in ws.staging_dir.glob("*.json")]
    assert [r["summary"] for s in staged for r in s["activity"]["requests"]] == [PROMPT + "."]  # whole sentences
    attempts = [a for s in staged for a in s["activity"]["attempts"]]
    assert len(attempts) == 1 and "python3 check.py" in attempts[0]["trial"] and attempts[0]["outcome"] == "success"
