"""The Phase 1 rules engine's fourth round on attempts, mechanism by mechanism, each on a small
constructed log (no line copied from a benchmark session); each test fails without its rule.

A log too long for one chunk is cut, and a fix loop can be cut with it: each chunk's attempts are
followed into the chunks around it, so a failure fixed in the next chunk is fixed, and a loop cut in
two is one story.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import make_ws
from test_phase1_rules import Log

from yoi_tui.core.phase1.chunking import chunk_entries
from yoi_tui.core.phase1.rules_engine import extract_chunk
from yoi_tui.core.phase1.runner import RulesEngine, run_session
from yoi_tui.core.store.staging import Attempt, list_staging, read_staging
from yoi_tui.core.store.workspace import Workspace

_WORDS = "the parser keeps the offsets of every token it reads so the error can point at its column " * 6


def _long_fix_loop(log: Log) -> tuple[int, int]:
    """A test run that fails, a long stretch of reading and thinking, a second failing run, more of
    the same, an edit, and the run passing: long enough to be cut into several chunks."""
    log.user("make the parser tests pass")
    first = log.bash("pytest tests/test_parser.py", "FAILED tests/test_parser.py::test_offsets - AssertionError: "
                     "expected column 7, got 6", exit_code=1)
    for number in range(8):
        log.say(f"Reading part {number}: {_WORDS}")
        log.call("Read", {"file_path": f"/w/parser/part{number}.py"}, _WORDS)
    log.bash("pytest tests/test_parser.py", "FAILED tests/test_parser.py::test_offsets - AssertionError: "
             "expected column 7, got 6", exit_code=1)
    for number in range(8):
        log.say(f"Thinking about step {number}: {_WORDS}")
    log.edit("/w/parser/lexer.py")
    fixed = log.bash("pytest tests/test_parser.py", "3 passed")
    log.say("The offsets are now 1-based, as the tests expect.")
    return first, fixed


def _chunked_attempts(log: Log, max_tokens: int) -> tuple[int, list[Attempt]]:
    """The attempts of ``log`` cut into chunks of ``max_tokens``, as the rules engine gives them."""
    chunks = list(chunk_entries(log.entries, max_tokens))
    engine = RulesEngine()
    found = [a for number, chunk in enumerate(chunks, start=1)
             for a in engine.extract(chunk, session_id="s", last=number == len(chunks)).attempts]
    return len(chunks), found


def test_a_fix_loop_cut_across_chunks_is_one_story_fixed_in_the_later_chunk() -> None:
    log = Log()
    first, fixed = _long_fix_loop(log)
    [whole] = log.extract().attempts  # the log read as one chunk: one story, fixed
    assert whole.outcome == "success" and whole.range == (first, fixed + 1)
    count, found = _chunked_attempts(log, 900)
    assert count >= 3  # the failure, its retry and the passing run each land in another chunk
    assert [(a.outcome, a.range) for a in found] == [("success", (first, fixed + 1))]
    assert found[0].result == whole.result


def test_a_failure_never_fixed_is_told_once_at_the_last_chunk_and_a_one_chunk_log_is_unchanged() -> None:
    log = Log()
    first, _fixed = _long_fix_loop(log)
    log.user("now the docs")
    never = log.bash("mkdocs build --strict", "ERROR - Config value 'nav': page docs/old.md not found", exit_code=1)
    log.say("The docs build needs the old page; I will leave that for the docs change.")
    [chunk] = chunk_entries(log.entries, 100_000)
    assert extract_chunk(chunk, None, last=True)[0].attempts == log.extract().attempts
    _count, found = _chunked_attempts(log, 900)
    assert [(a.outcome, a.range) for a in found] == [("success", (first, _fixed + 1)), ("failure", (never, never + 1))]
    assert found[1].result.endswith("not fixed in this range")


def _transcript(path: Path) -> None:
    """The fix loop of ``_long_fix_loop`` as a Claude Code transcript, for the runner's two paths."""
    lines: list[str] = []

    def add(kind: str, message: dict[str, Any]) -> None:
        lines.append(json.dumps({"type": kind, "uuid": f"u{len(lines)}", "sessionId": "s-loop",
                                 "timestamp": "2026-01-01T00:00:00Z", "message": message}))

    def tool(name: str, data: dict[str, Any], output: str, error: bool = False) -> None:
        call_id = f"t{len(lines)}"
        add("assistant", {"role": "assistant", "id": f"m{len(lines)}", "content": [
            {"type": "tool_use", "id": call_id, "name": name, "input": data}]})
        add("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": error}]})

    def say(text: str) -> None:
        add("assistant", {"role": "assistant", "id": f"m{len(lines)}", "content": [{"type": "text", "text": text}]})

    failing = "Exit code 1\nFAILED tests/test_parser.py::test_offsets - AssertionError: expected column 7, got 6"
    add("user", {"role": "user", "content": "make the parser tests pass"})
    tool("Bash", {"command": "pytest tests/test_parser.py"}, failing, error=True)
    for number in range(8):
        say(f"Reading part {number}: {_WORDS}")
        tool("Read", {"file_path": f"/w/parser/part{number}.py"}, _WORDS)
    tool("Bash", {"command": "pytest tests/test_parser.py"}, failing, error=True)
    for number in range(8):
        say(f"Thinking about step {number}: {_WORDS}")
    tool("Edit", {"file_path": "/w/parser/lexer.py", "old_string": "a", "new_string": "b"}, "updated")
    tool("Bash", {"command": "pytest tests/test_parser.py"}, "3 passed")
    say("The offsets are now 1-based, as the tests expect.")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _small_chunks(root: Path) -> Workspace:
    ws = make_ws(root)
    ws.config_path.write_text("[phase1]\nchunk_tokens = 900\n")
    return Workspace(ws.root)


def _attempts(ws: Workspace) -> list[Attempt]:
    staged = [read_staging(p) for p in list_staging(ws)]
    return sorted((a for s in staged for a in s.activity.attempts), key=lambda a: a.range or (0, 0))


def test_the_streamed_and_whole_file_runs_follow_a_fix_loop_across_chunks_alike(tmp_path: Path) -> None:
    log = tmp_path / "loop.jsonl"
    _transcript(log)
    streamed, whole = _small_chunks(tmp_path / "a"), _small_chunks(tmp_path / "b")
    one = run_session(streamed, log, RulesEngine(), force=True)
    other = run_session(whole, log, RulesEngine(), force=True, streaming=False)
    assert [s.range for s in one.staging] == [s.range for s in other.staging]
    # The request's chunk and the chunk where the loop ends hold something; the chunks between, nothing.
    assert len(one.staging) == 2 and one.staging[1].counts["attempts"] == 1
    [attempt] = _attempts(streamed)
    assert attempt.outcome == "success" and "fixed — after editing lexer.py" in attempt.result and "(2 times)" in attempt.result
    assert [a.model_dump() for a in _attempts(whole)] == [attempt.model_dump()]
