"""Session-log adapters: the eight real samples, format detection, stable indices, bad input."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from yoi_tui.core.sessions import (
    Entry,
    LogProblem,
    ParsedLog,
    SessionLogError,
    detect_format,
    load_session,
    native,
)
from yoi_tui.core.sessions.codex import parse_output

# The copies in tests/data keep the suite independent of ../shared; the shared folder is the
# fallback (a sibling of the clone in CI).
_LOCAL = Path(__file__).parent / "data" / "samples"
_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "samples"
SAMPLES = _LOCAL if _LOCAL.is_dir() else _SHARED

CC_TWO = "claude-code_v2.0.26_agentcmd_full-session-two.jsonl"
CC_FOUR = "claude-code_v2.0.27_agentcmd_full-session-four.jsonl"
CC_AGTRACE = "claude-code_v2.0.28_agtrace_claude_session.jsonl"
CC_SHORT = "claude-code_v2.1.38_spotter_short.jsonl"
CC_SUBAGENT = "claude-code_v2.1.38_spotter_subagent_agent-afc096d.jsonl"
CC_TOOL_HEAVY = "claude-code_v2.1.38_spotter_tool_heavy.jsonl"
CODEX_104 = "codex_0.104.0-alpha.1_localpush_rollout-2026-02-23T20-34-25_redacted.jsonl"
CODEX_066 = "codex_0.66.0_agtrace_codex_session.jsonl"

# name: (format, session_id, entries, tool calls, failures (is_error true), input tokens)
EXPECTED: dict[str, tuple[str, str, int, int, int, int]] = {
    CC_TWO: ("claude_code", "8a2518dd-ff41-4d5f-83a1-407b03598cc6", 34, 10, 1, 371011),
    CC_FOUR: ("claude_code", "2d984148-cddb-4605-aac1-13e720fe613c", 81, 27, 1, 1243308),
    CC_AGTRACE: ("claude_code", "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9", 22, 4, 1, 98785),
    CC_SHORT: ("claude_code", "55604662-cf2a-4331-851a-ec234028f8ca", 10, 2, 2, 25353),
    CC_SUBAGENT: (
        "claude_code",
        "6c2214d7-b87e-4432-8e41-22ba294ea584.agent-afc096d",
        115,
        48,
        2,
        497515,
    ),
    CC_TOOL_HEAVY: ("claude_code", "d6e0bada-1959-4eec-a9d2-0bfade768d8f", 23, 6, 0, 105981),
    CODEX_104: ("codex", "019c8bfe-ec25-79e0-97d7-bda6a9c575ff", 33, 5, 0, 298373),
    CODEX_066: ("codex", "019b04ae-b1c6-7c72-a134-a4c2de66058c", 28, 5, 2, 26740),
}


def _sample(name: str) -> Path:
    return SAMPLES / name


def _calls(log: ParsedLog) -> list[Entry]:
    return [e for e in log.entries if e.kind == "tool_call"]


def _failures(log: ParsedLog) -> list[Entry]:
    return [e for e in log.entries if e.role == "tool" and e.is_error is True]


def _tool_results(log: ParsedLog) -> list[Entry]:
    return [e for e in log.entries if e.role == "tool"]


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line if line.endswith("\n") else line + "\n" for line in lines), encoding="utf-8")
    return path


# -- the samples -------------------------------------------------------------------------------


def test_all_eight_samples_present() -> None:
    assert sorted(p.name for p in SAMPLES.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_counts(name: str) -> None:
    fmt, session_id, n_entries, n_calls, n_failures, tokens = EXPECTED[name]
    log = load_session(_sample(name))
    assert log.problems == []
    assert log.format == fmt
    assert detect_format(_sample(name)) == fmt
    assert log.session_id == session_id
    assert len(log.entries) == n_entries
    assert len(_calls(log)) == n_calls
    assert len(_failures(log)) == n_failures
    assert sum(e.input_tokens or 0 for e in log.entries) == tokens
    assert [e.index for e in log.entries] == list(range(n_entries))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_call_has_one_result_with_its_name(name: str) -> None:
    log = load_session(_sample(name))
    calls = {e.tool_call_id: e for e in _calls(log)}
    results = _tool_results(log)
    assert len(results) == len(calls)
    for result in results:
        call = calls[result.tool_call_id]
        assert result.tool_name == call.tool_name
        assert result.index > call.index


@pytest.mark.parametrize("name", [n for n in EXPECTED if n.startswith("claude-code")])
def test_claude_tokens_counted_once_per_model_call(name: str) -> None:
    """Independent recount from the raw lines: one usage per (message.id, requestId)."""
    seen: dict[tuple[str, str], int] = {}
    for raw in _sample(name).read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        message = line.get("message") or {}
        usage = message.get("usage") if line.get("type") == "assistant" else None
        if usage:
            key = (message["id"], line.get("requestId", ""))
            seen.setdefault(
                key,
                usage.get("input_tokens", 0)
                + usage.get("cache_creation_input_tokens", 0)
                + usage.get("cache_read_input_tokens", 0),
            )
    log = load_session(_sample(name))
    assert sum(e.input_tokens or 0 for e in log.entries) == sum(seen.values())
    assert len([e for e in log.entries if e.input_tokens is not None]) == len(seen)
    assert all(e.role == "assistant" for e in log.entries if e.input_tokens is not None)


def test_full_session_four_tool_mix_and_vitest_failure() -> None:
    log = load_session(_sample(CC_FOUR))
    assert Counter(e.tool_name for e in _calls(log)) == {
        "Edit": 10,
        "Read": 9,
        "Glob": 3,
        "Grep": 2,
        "Bash": 2,
        "Write": 1,
    }
    bash_results = [e for e in _tool_results(log) if e.tool_name == "Bash"]
    # 2.0.x: the failed vitest run has is_error but no "Exit code" prefix; the re-run passes.
    assert [(e.is_error, e.exit_code) for e in bash_results] == [(True, None), (False, None)]
    assert "Failed Tests 1" in bash_results[0].text
    assert log.entries[0].kind == "meta" and log.entries[1].text == "/clear"


def test_full_session_two_rejected_plan_image_and_interrupts() -> None:
    log = load_session(_sample(CC_TWO))
    plans = [e for e in _tool_results(log) if e.tool_name == "ExitPlanMode"]
    assert [(e.kind, e.is_error) for e in plans] == [("rejected", True), ("tool_result", False)]
    assert "approved your plan" in plans[1].text
    images = [e for e in log.entries if e.text == "[image]"]
    assert len(images) == 1 and images[0].tool_name == "Read"
    assert not any("iVBORw0KGgo" in e.text for e in log.entries)  # no base64 leaks through
    assert [e.text for e in log.entries if e.kind == "interrupt"] == [
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
    ]
    answer = next(e for e in _tool_results(log) if e.tool_name == "AskUserQuestion")
    assert "Right of ⌘J kbd" in answer.text


def test_agtrace_claude_python_fails_then_python3_works() -> None:
    log = load_session(_sample(CC_AGTRACE))
    runs = [
        (call.tool_input["command"], result.is_error, result.text)
        for call in _calls(log)
        for result in _tool_results(log)
        if result.tool_call_id == call.tool_call_id
        and call.tool_name == "Bash"
        and "hoge.py" in call.tool_input["command"]
    ]
    assert runs == [
        ("cd myapp && python hoge.py", True, "error: target shim binary not found"),
        ("cd myapp && python3 hoge.py", False, "2"),
    ]
    assert [e.text for e in log.entries if e.role == "user"] == [
        "add myapp directory and create myapp/hoge.py which shows result of print(1+1).",
        "cd to myapp and run python hoge.py",
        "/exit",
    ]
    assert sum(1 for e in log.entries if e.kind == "thinking") == 6


def test_spotter_short_two_rejections_interrupt_and_model_command() -> None:
    log = load_session(_sample(CC_SHORT))
    rejected = [e for e in log.entries if e.kind == "rejected"]
    assert [(e.tool_name, e.is_error) for e in rejected] == [("Bash", True), ("Glob", True)]
    assert [(e.kind, e.text) for e in log.entries[-3:-1]] == [
        ("interrupt", "[Request interrupted by user for tool use]"),
        ("command", "/model"),
    ]
    # The four lines of one API response carry usage once; the "\n\n" text block is skipped.
    assert [e.input_tokens for e in log.entries if e.input_tokens] == [25353]


def test_subagent_file_id_parent_and_failures() -> None:
    log = load_session(_sample(CC_SUBAGENT))
    assert log.parent_session_id == "6c2214d7-b87e-4432-8e41-22ba294ea584"
    assert log.entries[0].role == "user" and log.entries[0].kind == "agent_prompt"
    assert log.entries[0].text.startswith("Explore the Elixir/Phoenix project structure")
    assert Counter(e.tool_name for e in _calls(log)) == {"Read": 30, "Bash": 18}
    tree, too_big = _failures(log)
    assert (tree.tool_name, tree.exit_code) == ("Bash", 127)
    assert "command not found: tree" in tree.text
    assert too_big.tool_name == "Read" and too_big.exit_code is None
    assert too_big.text.startswith("<tool_use_error>File content (806.5KB)")


def test_tool_heavy_no_failures_queue_operations_skipped() -> None:
    log = load_session(_sample(CC_TOOL_HEAVY))
    assert _failures(log) == []
    assert Counter(e.tool_name for e in _calls(log)) == {
        "Bash": 2,
        "WebSearch": 1,
        "Glob": 1,
        "Read": 1,
        "WebFetch": 1,
    }
    # The typed-ahead "/mcp" (queue-operation) is not an entry; the two real /mcp commands are.
    assert [e.text for e in log.entries if e.kind == "command"] == ["/mcp", "/mcp"]
    assert [e.text for e in log.entries if e.kind == "command_output"] == [
        "Reconnected to tidewave.",
        "MCP dialog dismissed",
    ]


def test_codex_066_matched_pair_failures_and_exit_codes() -> None:
    log = load_session(_sample(CODEX_066))
    results = _tool_results(log)
    assert [(e.tool_name, e.exit_code, e.is_error) for e in results] == [
        ("shell_command", 0, False),
        ("apply_patch", 0, False),
        ("shell_command", 1, True),
        ("shell_command", 1, True),
        ("shell_command", 0, False),
    ]
    calls = _calls(log)
    assert calls[1].tool_input.startswith("*** Begin Patch")  # freeform input kept as text
    assert calls[3].tool_input["with_escalated_permissions"] is True
    assert results[1].text == "Success. Updated the following files:\nA myapp/hoge.py\n"
    assert [e.text for e in log.entries if e.role == "user"] == [
        "add myapp directory and create myapp/hoge.py which shows result of print(1+1).",
        "cd to myapp and run python hoge.py",
    ]
    # agent_message events repeat the response_item text: each reply appears once.
    replies = [e.text for e in log.entries if e.role == "assistant" and e.kind == "message"]
    assert len(replies) == len(set(replies)) == 2
    assert [e.kind for e in log.entries if e.role == "system"] == ["context"]
    # 14 token_count events, 7 distinct counts; their sum is the session's final total.
    assert [e.input_tokens for e in log.entries if e.kind == "usage"] == [
        3505,
        3711,
        3815,
        3708,
        3845,
        4017,
        4139,
    ]


def test_codex_0104_structure_without_readable_text() -> None:
    log = load_session(_sample(CODEX_104))
    assert [e.tool_name for e in _calls(log)] == [
        "mcp__cloud-associates__search_workflows",
        "[REDACTED_NAME len=43 sha=c186413b]",
        "mcp__cloud-associates__execute_workflow",
        "mcp__cloud-associates__execute_workflow",
        "mcp__cloud-associates__execute_workflow",
    ]
    # Redacted outputs carry no exit code: unknown, never guessed as success.
    assert [e.is_error for e in _tool_results(log)] == [None] * 5
    assert sum(1 for e in log.entries if e.kind == "developer") == 4
    assert [e.role for e in log.entries if e.kind == "message"].count("user") == 1


# -- stable indices -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_appending_lines_never_changes_earlier_entries(name: str, tmp_path: Path) -> None:
    lines = _sample(name).read_text(encoding="utf-8").splitlines(keepends=True)
    full = load_session(_sample(name)).entries
    target = tmp_path / "growing.jsonl"
    for cut in range(1, len(lines)):
        target.write_text("".join(lines[:cut]), encoding="utf-8")
        prefix = load_session(target).entries
        assert full[: len(prefix)] == prefix, f"entries changed after appending to line {cut}"


def test_truncated_last_line_is_reported_then_completed(tmp_path: Path) -> None:
    lines = _sample(CODEX_066).read_text(encoding="utf-8").splitlines(keepends=True)
    full = load_session(_sample(CODEX_066))
    target = tmp_path / "rollout.jsonl"
    target.write_text("".join(lines[:33]) + lines[33][:40], encoding="utf-8")
    partial = load_session(target)
    assert len(partial.problems) == 1
    assert partial.problems[0].line == 34
    assert "truncated" in partial.problems[0].message
    assert partial.entries == full.entries[: len(partial.entries)]
    target.write_text("".join(lines), encoding="utf-8")
    assert load_session(target).entries == full.entries


def test_appending_to_a_native_log(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = [
        Entry(index=0, role="user", text="hello"),
        Entry(index=1, role="assistant", text="hi", input_tokens=10),
    ]
    native.write_log(path, "s1", first)
    before = load_session(path).entries
    native.append_entries(path, [Entry(index=2, role="user", text="more")])
    after = load_session(path).entries
    assert after[:2] == before == first
    assert after[2].index == 2 and after[2].text == "more"


# -- malformed input ----------------------------------------------------------------------------


def test_unknown_type_and_bad_json_are_problems_with_line_numbers(tmp_path: Path) -> None:
    lines = _sample(CC_AGTRACE).read_text(encoding="utf-8").splitlines()
    damaged = lines[:5] + ['{"type": "hologram", "sessionId": "x"}', "{not json"] + lines[5:]
    log = load_session(_write_lines(tmp_path / "t.jsonl", damaged))
    assert log.problems == [
        LogProblem(line=6, message="unknown record type 'hologram'; skipped"),
        LogProblem(line=7, message=log.problems[1].message),
    ]
    assert "invalid JSON" in log.problems[1].message
    assert log.entries == load_session(_sample(CC_AGTRACE)).entries


def test_codex_unknown_items_are_problems(tmp_path: Path) -> None:
    lines = _sample(CODEX_066).read_text(encoding="utf-8").splitlines()
    extra = [
        '{"timestamp": "t", "type": "teleport", "payload": {}}',
        '{"timestamp": "t", "type": "response_item", "payload": {"type": "hologram"}}',
        '{"timestamp": "t", "type": "event_msg", "payload": {"type": "some_new_ui_event"}}',
        "[1, 2]",
    ]
    log = load_session(_write_lines(tmp_path / "r.jsonl", lines + extra))
    n = len(lines)
    assert [(p.line, p.message) for p in log.problems] == [
        (n + 1, "unknown record type 'teleport'; skipped"),
        (n + 2, "unknown response_item type 'hologram'; skipped"),
        (n + 4, "not a JSON object; skipped"),
    ]
    assert len(log.entries) == EXPECTED[CODEX_066][2]


def test_empty_and_blank_files(tmp_path: Path) -> None:
    for content in ("", "\n\n  \n"):
        path = tmp_path / "empty.jsonl"
        path.write_text(content, encoding="utf-8")
        log = load_session(path)
        assert (log.format, log.entries, log.problems, log.session_id) == ("empty", [], [], "empty")
        assert detect_format(path) == "empty"


def test_bad_utf8_in_one_line_is_replaced_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "n.jsonl"
    path.write_bytes(
        b'{"yoi_session": 1, "session_id": "u"}\n'
        b'{"role": "user", "text": "caf\xe9 ok"}\n'
        b'{"role": "assistant", "text": "fine"}\n'
    )
    log = load_session(path)
    assert [p.line for p in log.problems] == [2]
    assert log.entries[0].text == "caf\ufffd ok"
    assert log.entries[1].text == "fine"


def test_whole_file_errors_raise_session_log_error(tmp_path: Path) -> None:
    with pytest.raises(SessionLogError) as missing:
        load_session(tmp_path / "nope.jsonl")
    assert missing.value.path == tmp_path / "nope.jsonl"
    assert "no such file" in missing.value.message
    with pytest.raises(SessionLogError, match="directory"):
        load_session(tmp_path)
    binary = tmp_path / "x.jsonl.zst"
    binary.write_bytes(b"\x28\xb5\x2f\xfd\x00\x00\xff\xfe")
    with pytest.raises(SessionLogError, match="not a session log"):
        load_session(binary)
    other = _write_lines(tmp_path / "other.jsonl", ['{"foo": 1}', '{"bar": 2}'])
    with pytest.raises(SessionLogError, match="not a recognised session log format"):
        detect_format(other)
    with pytest.raises(SessionLogError):
        load_session(other)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulated: the suite may run as root, which reads files whatever their mode bits.
    path = tmp_path / "locked.jsonl"
    path.write_text('{"yoi_session": 1}\n', encoding="utf-8")
    real_open = os.open

    def refuse(name: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if Path(str(name)) == path:
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(SessionLogError, match="permission denied"):
        load_session(path)
    with pytest.raises(SessionLogError, match="permission denied"):
        detect_format(path)


# -- detection ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection_ignores_the_file_name(name: str, tmp_path: Path) -> None:
    misleading = tmp_path / ("rollout-2026.jsonl" if name.startswith("claude") else "agent-x.jsonl")
    misleading.write_bytes(_sample(name).read_bytes())
    assert detect_format(misleading) == EXPECTED[name][0]
    # Session ids come from content, not from the (misleading) name.
    assert load_session(misleading).session_id == EXPECTED[name][1]


def test_detection_skips_a_damaged_first_line(tmp_path: Path) -> None:
    lines = _sample(CODEX_066).read_text(encoding="utf-8").splitlines()
    path = _write_lines(tmp_path / "r.jsonl", ["{oops"] + lines)
    assert detect_format(path) == "codex"
    log = load_session(path)
    assert log.problems[0].line == 1 and len(log.entries) == EXPECTED[CODEX_066][2]


def test_native_detection_and_forced_format(tmp_path: Path) -> None:
    path = tmp_path / "n.jsonl"
    native.write_log(path, "abc", [Entry(index=0, role="user", text="hi")])
    assert detect_format(path) == "native"
    with pytest.raises(SessionLogError, match="unknown format"):
        load_session(path, format="hermes")
    assert load_session(_sample(CODEX_066), format="codex").format == "codex"


def test_session_id_falls_back_to_file_stem(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "my-session.jsonl", ['{"yoi_session": 1}', '{"role": "user", "text": "x"}']
    )
    assert load_session(path).session_id == "my-session"


# -- native format ------------------------------------------------------------------------------


def test_native_round_trip_keeps_every_field(tmp_path: Path) -> None:
    entries = [
        Entry(index=0, role="user", text="run the tests", timestamp="2026-03-01T10:00:00Z", kind="message"),
        Entry(
            index=1,
            role="assistant",
            kind="tool_call",
            tool_name="shell",
            tool_input={"command": "pytest -q"},
            tool_call_id="c1",
            input_tokens=5120,
        ),
        Entry(
            index=2,
            role="tool",
            kind="tool_result",
            tool_name="shell",
            tool_call_id="c1",
            text="1 failed",
            is_error=True,
            exit_code=1,
        ),
        Entry(
            index=3, role="assistant", kind="tool_call", tool_name="apply_patch", tool_input="*** Begin Patch"
        ),
    ]
    path = tmp_path / "n.jsonl"
    native.write_log(path, "demo-1", entries)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first == {"yoi_session": 1, "session_id": "demo-1"}
    log = load_session(path)
    assert (log.format, log.session_id, log.problems) == ("native", "demo-1", [])
    assert log.entries == entries


def test_native_bad_lines_are_problems(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "n.jsonl",
        [
            '{"yoi_session": 1, "session_id": "s", "harness": "pod"}',
            '{"role": "user", "text": "ok", "future_field": 1}',
            '{"role": "robot", "text": "no"}',
            '{"role": "assistant", "input_tokens": "12"}',
            '{"text": "no role"}',
            '{"yoi_session": 1, "session_id": "again"}',
            '{"role": "assistant", "text": "last"}',
        ],
    )
    log = load_session(path)
    assert [e.text for e in log.entries] == ["ok", "last"]
    assert [e.index for e in log.entries] == [0, 1]
    assert [p.line for p in log.problems] == [3, 4, 5, 6]
    assert "input_tokens" in log.problems[1].message
    assert log.session_id == "s"


def test_native_unsupported_version(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "n.jsonl", ['{"yoi_session": 2, "session_id": "s"}'])
    with pytest.raises(SessionLogError, match="unsupported native log version 2"):
        load_session(path)


# -- crafted Claude Code / Codex edge cases -----------------------------------------------------


def _cc(type_: str, **fields: object) -> str:
    base: dict[str, object] = {"type": type_, "sessionId": "S", "timestamp": "2026-01-01T00:00:00Z"}
    base.update(fields)
    return json.dumps(base)


def test_claude_crafted_lines(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    lines = [
        _cc(
            "user", uuid="u1", message={"role": "user", "content": [{"type": "text", "text": "look"}, image]}
        ),
        _cc("user", uuid="u1", message={"role": "user", "content": "resume copy of u1"}),  # duplicate uuid
        _cc(
            "assistant",
            uuid="a1",
            requestId="r1",
            message={
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}}],
                "usage": {
                    "input_tokens": 5,
                    "cache_read_input_tokens": 100,
                    "cache_creation_input_tokens": 10,
                },
            },
        ),
        _cc(
            "user",
            uuid="u2",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Exit code 1\n"}],
            },
        ),
        _cc(
            "user",
            uuid="u3",
            isCompactSummary=True,
            message={"role": "user", "content": "Summary of earlier"},
        ),
        _cc("system", uuid="s1", subtype="compact_boundary", content="Conversation compacted"),
        _cc(
            "assistant",
            uuid="a2",
            isApiErrorMessage=True,
            message={
                "id": "m2",
                "model": "<synthetic>",
                "role": "assistant",
                "content": [{"type": "text", "text": "API Error: 529"}],
            },
        ),
    ]
    log = load_session(_write_lines(tmp_path / "c.jsonl", lines))
    assert log.problems == []
    got = [(e.role, e.kind, e.text, e.is_error, e.exit_code, e.input_tokens) for e in log.entries]
    assert got == [
        ("user", "message", "look", None, None, None),
        ("user", "message", "[image]", None, None, None),
        ("assistant", "tool_call", "", None, None, 115),
        # No is_error flag on the block, but a non-zero exit code is a failure.
        ("tool", "tool_result", "Exit code 1\n", True, 1, None),
        ("system", "compact_summary", "Summary of earlier", None, None, None),
        ("system", "system", "[conversation compacted]", None, None, None),
        ("system", "api_error", "API Error: 529", None, None, None),
    ]


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom\n", (2, True)),
        ('{"output":"done\\n","metadata":{"exit_code":0,"duration_seconds":0.5}}', (0, False)),
        ('{"output":"bad","metadata":{"exit_code":3}}', (3, True)),
        ("Chunk ID: a1\nWall time: 1.0 seconds\nProcess exited with code 0\nOutput:\nok\n", (0, False)),
        ("Chunk ID: a1\nWall time: 1.0 seconds\nProcess exited with code 127\nOutput:\nnope\n", (127, True)),
        (
            "Chunk ID: a1\nWall time: 5.0 seconds\nProcess running with session ID 3\nOutput:\n...\n",
            (None, None),
        ),
        ('{"content":[{"type":"text","text":"denied"}],"isError":true}', (None, True)),
        ([{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "data:"}], (None, None)),
        ("free text with no signal", (None, None)),
        # Codex <= 0.5x plain-text failures (strings from real rollouts: cpolar-connect 0.36,
        # OpenPrintKit 0.34, ai-trading-bot 0.46, MoonMind 0.57).
        (
            "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, "
            "stdout: .F   [100%]\n=== FAILURES ===",
            (1, True),
        ),
        (
            "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2, "
            "stdout: , stderr: bash: line 1: dist: command not found\n",
            (2, True),
        ),
        ("failed in sandbox: sandbox error: command was killed by a signal", (None, True)),
        ("apply_patch verification failed: Failed to find expected lines in /p/tasks.md:\n# Tasks", (None, True)),
        ("error: Failed to find expected lines in /p/pdl.schema.json:\n  \"patternProperties\":{", (None, True)),
        ("the build failed in sandbox mode, error: none", (None, None)),  # only a leading marker counts
    ],
)
def test_codex_output_parsing(output: object, expected: tuple[int | None, bool | None]) -> None:
    text, exit_code, is_error = parse_output(output)
    assert (exit_code, is_error) == expected
    assert isinstance(text, str)
    if isinstance(output, list):
        assert text == "hi\n[image]"


def test_codex_crafted_lines(tmp_path: Path) -> None:
    def line(type_: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": type_, "payload": payload})

    lines = [
        line("session_meta", {"id": "SID"}),
        line("session_meta", {"id": "FORKED"}),
        line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nuse uv\n</INSTRUCTIONS>",
                    }
                ],
            },
        ),
        line(
            "event_msg",
            {"type": "user_message", "message": "fix it", "images": ["data:image/png;base64,AAAA"]},
        ),
        line(
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"make"}', "call_id": "c1"},
        ),
        line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "Process exited with code 2\nOutput:\nerr\n",
            },
        ),
        line(
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": "c2",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"]},
            },
        ),
        line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": '{"output":"a\\n","metadata":{"exit_code":0}}',
            },
        ),
        line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        line("compacted", {"message": "summary so far"}),
        line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 100}}}),
        line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 100}}}),
        line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 250}}}),
    ]
    log = load_session(_write_lines(tmp_path / "x.jsonl", lines))
    assert log.problems == [] and log.session_id == "SID"
    got = [(e.role, e.kind, e.tool_name, e.text, e.is_error, e.input_tokens) for e in log.entries]
    assert got == [
        ("system", "context", None, log.entries[0].text, None, None),
        ("user", "message", None, "fix it\n[image]", None, None),
        ("assistant", "tool_call", "exec_command", "", None, None),
        ("tool", "tool_result", "exec_command", "Process exited with code 2\nOutput:\nerr\n", True, None),
        ("assistant", "tool_call", "local_shell", "", None, None),
        ("tool", "tool_result", "local_shell", "a\n", False, None),
        ("system", "interrupt", None, "[turn aborted: interrupted]", None, None),
        ("system", "compact_summary", None, "summary so far", None, None),
        ("assistant", "usage", None, "", None, 100),
        ("assistant", "usage", None, "", None, 150),
    ]
    assert log.entries[2].tool_input == {"cmd": "make"}


def test_claude_code_2_1_332_bookkeeping_lines_are_known(tmp_path: Path) -> None:
    """Claude Code 2.1.332 logs the API request as sent and running totals (seen in the contract test)."""
    lines = _sample(CC_AGTRACE).read_text(encoding="utf-8").splitlines()
    extra = [json.dumps({"type": kind, "sessionId": "x", **fields}) for kind, fields in (
        ("api-request", {"id": "r", "params": {"model": "m"}}), ("api-request-shape", {"shapeHash": "h"}),
        ("api-request-blob", {"hash": "h", "message": {"role": "user", "content": "blob"}}),
        ("tools-used", {"tools": ["Bash"]}), ("cost-state", {"totalCostUSD": 0.1}), ("atis-latch", {"atis": ""}))]
    log = load_session(_write_lines(tmp_path / "t.jsonl", lines[:5] + extra + lines[5:]))
    assert log.problems == [] and log.entries == load_session(_sample(CC_AGTRACE)).entries


def test_codex_036_sandbox_failure_is_a_failed_result() -> None:
    """Codex 0.36 writes a failed command as plain text with its exit code; the re-run is JSON."""
    parsed = load_session(Path(__file__).parent / "data" / "codex_0.36.0_sandbox_failure.jsonl")
    results = [(e.index, e.exit_code, e.is_error) for e in parsed.entries if e.kind == "tool_result"]
    assert results == [(2, 1, True), (4, 0, False), (6, 0, False)]
    assert parsed.entries[0].text == "帮我补充 status 的无登录降级体验"
