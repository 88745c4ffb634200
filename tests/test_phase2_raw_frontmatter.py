"""Phase 2's session pre-selection reads each decision's and request's frontmatter as bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from yoi_tui.core.store.reader import read_frontmatter_bytes


@pytest.mark.parametrize(("data", "expected"), [
    (b"---\nsources: [abc]\n---\nbody\n", b"---\nsources: [abc]"),
    (b"\xef\xbb\xbf---\nk: v\n---\n", b"---\nk: v"),  # after a UTF-8 byte-order mark
    (b"no frontmatter\n", b""),
    (b"---\nnever closed\n", b""),
    (b"", b""),
    # binary by the reader's one rule (a NUL anywhere, here past 8 KiB): not a record, no frontmatter
    pytest.param(b"---\nsources: [abc]\n---\n" + b"x" * 9000 + b"\x00\n", b"", id="nul-past-8-KiB"),
])
def test_the_frontmatter_block_as_bytes(tmp_path: Path, data: bytes, expected: bytes) -> None:
    path = tmp_path / "r.md"
    path.write_bytes(data)
    assert read_frontmatter_bytes(path) == expected


def test_what_is_not_a_readable_file_gives_nothing(tmp_path: Path) -> None:
    assert read_frontmatter_bytes(tmp_path / "missing.md") == b""
    (tmp_path / "folder.md").mkdir()
    assert read_frontmatter_bytes(tmp_path / "folder.md") == b""
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.md")  # opening it for reading must not wait for a writer
        assert read_frontmatter_bytes(tmp_path / "fifo.md") == b""
