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


def test_a_record_with_invalid_utf8_saved_after_an_edit(tmp_path: Path) -> None:
    """The changed-since check reads the file as the reader's exact read does (every byte kept,
    the BOM dropped): a file holding a byte that is not UTF-8, read exactly and repaired, saves."""
    from yoi_tui.core.store.reader import drop_bom, read_exact

    path = tmp_path / "memory" / "decisions" / "bad.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf---\nstatus: open\n---\n\n# Caf\xe9 \xff notes\n")
    before = drop_bom(read_exact(path) or "")
    assert "\udce9" in before and not before.startswith("\ufeff")
    fixed = before.replace("\udce9", "\u00e9").replace(" \udcff", "")
    save_text(path, fixed, expected_before=before, bom=True)
    assert path.read_bytes() == b"\xef\xbb\xbf---\nstatus: open\n---\n\n# Caf\xc3\xa9 notes\n"


def test_an_invalid_byte_where_a_replacement_character_was_is_a_change(tmp_path: Path) -> None:
    """A U+FFFD read from the file, turned into a byte that is not UTF-8 on disk since: changed
    (a decoding that replaced bad bytes saw the same text and overwrote the file)."""
    path = tmp_path / "r.md"
    path.write_bytes("---\nstatus: open\n---\n\nA \ufffd here\n".encode())
    expected = path.read_bytes().decode("utf-8")
    path.write_bytes(b"---\nstatus: open\n---\n\nA \xff here\n")
    with pytest.raises(RecordChangedError, match="changed on disk"):
        save_text(path, expected + "mine\n", expected_before=expected)
    assert path.read_bytes() == b"---\nstatus: open\n---\n\nA \xff here\n"
