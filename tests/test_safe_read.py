"""Regular-file-only reads and the JSON nesting limit (store/safe_read.py), and what they mean for
the readers built on them: a FIFO is refused by name, a deep log line is skipped alone, a file where
a record folder belongs and a symlink loop are lint diagnostics."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import decision_meta, make_ws, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.sessions._common import split_lines
from yoi_tui.core.store.reader import read_exact
from yoi_tui.core.store.safe_read import (
    MAX_JSON_DEPTH,
    JsonTooDeep,
    NotRegularFile,
    json_depth_ok,
    loads_json,
    open_regular,
)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "summary.md"
    os.mkfifo(fifo)  # no writer: a plain open() would block for ever
    with pytest.raises(NotRegularFile, match="FIFO"):
        open_regular(fifo)
    with pytest.raises(NotRegularFile):
        read_exact(fifo)


def test_a_device_and_a_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="device"):
        open_regular(Path("/dev/zero"))
    with pytest.raises(NotRegularFile, match="folder"):
        open_regular(tmp_path)


def test_json_depth_limit_is_exact_and_ignores_brackets_in_strings() -> None:
    assert json_depth_ok("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert not json_depth_ok("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert json_depth_ok(json.dumps({"text": "[" * 10_000}))  # brackets inside a string do not nest
    with pytest.raises(ValueError, match="nested deeper"):
        loads_json("[" * 100_000 + "]" * 100_000)


def test_a_deep_log_line_is_skipped_and_the_rest_is_read() -> None:
    good = json.dumps({"yoi_session": 1, "text": "x"}).encode()
    lines, problems = split_lines(good + b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n" + good + b"\n")
    assert [line.number for line in lines] == [1, 3]
    assert [(p.line, "nested deeper" in p.message) for p in problems] == [(2, True)]


def test_a_file_where_a_record_folder_belongs_is_a_lint_error(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.decisions_dir.rmdir()
    ws.decisions_dir.write_text("oops\n")
    errors = [d for d in lint_workspace(ws).diagnostics if d.is_error]
    assert [(d.path, d.rule) for d in errors] == [("memory/decisions", "file-unreadable")]
    assert "not a folder" in errors[0].message


def test_a_symlink_loop_is_a_diagnostic(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/fine.md", decision_meta(), "\n# Fine\n")
    (ws.decisions_dir / "loop-a.md").symlink_to("loop-b.md")
    (ws.decisions_dir / "loop-b.md").symlink_to("loop-a.md")
    found = {(d.path, d.rule) for d in lint_workspace(ws).diagnostics}
    assert ("memory/decisions/loop-a.md", "file-unreadable") in found
    assert ("memory/decisions/loop-b.md", "file-unreadable") in found


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 5000])
@pytest.mark.parametrize("shape", ["list", "dict", "mixed"])
def test_loads_json_refuses_exactly_what_the_text_scan_refuses(depth: int, shape: str) -> None:
    """Parsing first and walking the value decides as the scan of the text does, at and past the limit."""
    opens = {"list": ["["] * depth, "dict": ['{"a":'] * depth, "mixed": ['[{"a":' if i % 2 else "[" for i in range(depth)]}
    closes = {"list": ["]"] * depth, "dict": ["}"] * depth, "mixed": ["}]" if i % 2 else "]" for i in reversed(range(depth))]}
    text = "".join(opens[shape]) + "1" + "".join(closes[shape])
    # Brackets inside a string make the count exceed the limit, so the value's depth is walked.
    wrapped = '{"code": "' + "[{" * 200 + '", "v": ' + text + "}"
    for candidate in (text, wrapped, wrapped.encode()):
        if json_depth_ok(candidate):
            assert loads_json(candidate) is not None
        else:
            with pytest.raises(JsonTooDeep):
                loads_json(candidate)


def test_loads_json_says_too_deep_for_a_deep_broken_text_and_not_json_for_a_shallow_one() -> None:
    with pytest.raises(JsonTooDeep):
        loads_json("[" * (MAX_JSON_DEPTH + 5))  # unterminated and too deep: the depth is the problem
    with pytest.raises(json.JSONDecodeError):
        loads_json('{"code": "' + "[{" * 100 + '", ')  # brackets only inside a string, then cut
