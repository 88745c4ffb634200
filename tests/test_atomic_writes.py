"""Atomic saves: mode kept, locked files refused (never chmod-ed), concurrent edits detected."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support import decision_meta, make_ws, write_record

from yoi_tui.core.errors import RecordChangedError, RecordLockedError
from yoi_tui.core.store.atomic import atomic_write_text, is_locked
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.writer import save_record, save_text


def test_atomic_write_keeps_mode_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "r.md"
    path.write_text("old")
    os.chmod(path, 0o640)
    atomic_write_text(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md"]


def test_locked_file_is_refused_and_never_chmodded(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/locked.md", decision_meta())
    record = read_record(ws, path).record
    os.chmod(path, 0o444)
    before = path.read_bytes()
    assert is_locked(path)
    with pytest.raises(RecordLockedError, match="read-only"):
        save_record(record, {"status": "resolved"})
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_save_refuses_a_file_changed_since_read(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/a.md", decision_meta())
    record = read_record(ws, path).record
    path.write_text(path.read_text() + "a human edit\n")
    with pytest.raises(RecordChangedError, match="changed on disk"):
        save_record(record, {"status": "resolved"})
    assert path.read_text().endswith("a human edit\n")


def test_create_refuses_when_file_appeared(tmp_path: Path) -> None:
    path = tmp_path / "new.md"
    path.write_text("someone else's")
    with pytest.raises(RecordChangedError, match="was created"):
        save_text(path, "mine", expected_before=None)
    assert path.read_text() == "someone else's"


def test_save_record_writes_update(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/a.md", decision_meta())
    record = read_record(ws, path).record
    save_record(record, {"status": "resolved"})
    assert read_record(ws, path).record.meta["status"] == "resolved"
