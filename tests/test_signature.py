"""The one file signature (``freshness.signature.Signature``) and its codec, as the caches store it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from yoi_tui.core.freshness.signature import (
    Signature,
    file_signature,
    regular_signature,
    same_bytes,
    signature_of,
)


def test_a_signature_is_the_lstat_of_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("x")
    st = os.lstat(path)
    sig = file_signature(path)
    assert sig == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode) == signature_of(st)
    assert sig is not None and sig.is_regular and sig.stamp == max(st.st_mtime_ns, st.st_ctime_ns)
    link = tmp_path / "b.md"
    link.symlink_to(path)
    assert file_signature(link) is None and file_signature(tmp_path / "gone.md") is None
    assert regular_signature(os.lstat(tmp_path)) is None and signature_of(os.lstat(tmp_path)) is not None


def test_one_codec_for_json_and_text() -> None:
    sig = Signature(12, 1_700_000_000_123_456_789, 1_700_000_000_223_456_789, 2**63 + 5, 0o100644)
    assert Signature.from_json(json.loads(json.dumps(sig.to_json()))) == sig
    assert Signature.from_text(sig.to_text()) == sig
    assert Signature.from_text(sig.to_text() + " 0 12345") == sig  # a column may carry more after it
    for bad in (None, [1, 2, 3, 4], [1, 2, 3, 4, 5, 6], (1, 2, 3, 4, 5), "1 2 3 4 5", {}):
        assert Signature.from_json(bad) is None
    for bad in ("", "1 2 3 4", "1 2 3 4 x", "1:2:3:4"):
        assert Signature.from_text(bad) is None


def test_same_bytes_needs_the_size_and_the_crc() -> None:
    old = Signature(10, 1, 1, 7, 0o100644)
    assert same_bytes(old, 99, 10, 99)
    assert not same_bytes(old, 99, 11, 99) and not same_bytes(old, 99, 10, 98) and not same_bytes(old, 99, 10, None)
    assert old.may_hold_same_bytes(Signature(10, 2, 3, 8, 0o100644))
    assert not old.may_hold_same_bytes(Signature(10, 2, 3, 8, 0o100600)) and not old.may_hold_same_bytes(old._replace(size=9))
