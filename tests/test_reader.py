"""The one reader (store/reader.py): one binary rule and one byte-order-mark rule for every consumer.

Search and lint disagreed before issue 24: search called a file binary when it held a NUL anywhere,
lint only looked at the first 8 KiB, so a NUL further on made a clean record to ``yoi lint`` that
no search could find.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import knowledge_meta, make_ws, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.retrieval.resident_context import resident_context
from yoi_tui.core.retrieval.search import knowledge_search
from yoi_tui.core.store.reader import (
    BINARY_REASON,
    decode_record_bytes,
    decode_text,
    drop_bom,
    is_binary,
    read_bytes,
    read_bytes_stat,
    read_listed_record,
    read_record,
    split_bom,
)
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.store.writer import new_record_text

HEAD = new_record_text(knowledge_meta(kind="howto", description="Deploying the service.", model_invokation=True),
                       "\nThe needle is here.\n")


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/plain.md", knowledge_meta(description="A plain record."), "\nA needle too.\n")
    return ws


def _put(ws: Workspace, rel: str, data: bytes) -> Path:
    path = ws.root / rel
    path.write_bytes(data)
    return path


def _unreadable(diagnostics: list, rel: str) -> list[str]:  # type: ignore[type-arg]
    return [d.message for d in diagnostics if d.path == rel and d.rule == "file-unreadable"]


@pytest.mark.parametrize("use_index", [True, False])
def test_a_nul_after_8_kib_is_binary_to_search_and_lint_alike(ws: Workspace, use_index: bool) -> None:
    rel = "knowledge/late-nul.md"
    _put(ws, rel, HEAD.encode() + b"filler line\n" * 800 + b"a NUL \x00 past the first 8 KiB\n")
    assert (ws.root / rel).stat().st_size > 9000

    problems: list[str] = []
    hits = knowledge_search(ws, "needle", record=False, use_index=use_index, problems=problems)
    assert [h.slug for h in hits] == ["plain"]
    assert f"{rel}: {BINARY_REASON}; skipped" in problems

    # The same file is an error to the linter, on its plain path and its cached (listed) one.
    for cache in (False, True, True):  # the second cached lint answers from the stored facts
        messages = _unreadable(lint_workspace(ws, cache=cache).diagnostics, rel)
        assert messages == [f"{BINARY_REASON}; a record is UTF-8 text"], (cache, messages)
    assert read_record(ws, ws.root / rel).record is None
    assert read_listed_record(ws, str(ws.root / rel), rel, read_record(ws, ws.root / "knowledge/plain.md")
                              .record.kind).record is None  # type: ignore[union-attr]
    # and the resident context never lists it either
    assert "late-nul" not in resident_context(ws, record=False)


def test_a_long_file_without_a_nul_is_a_record_to_both(ws: Workspace) -> None:
    # the rule is about the NUL, not the size: a 10 KiB text record is found and lints clean
    rel = "knowledge/long.md"
    _put(ws, rel, HEAD.encode() + b"filler line\n" * 800)
    assert [h.slug for h in knowledge_search(ws, "needle", record=False)] == ["long", "plain"]
    assert _unreadable(lint_workspace(ws).diagnostics, rel) == []
    assert "long" in resident_context(ws, record=False)  # (what the binary test's context check would miss)


def test_a_leading_bom_is_dropped_and_remembered_by_both(ws: Workspace) -> None:
    rel = "knowledge/bom.md"
    _put(ws, rel, b"\xef\xbb\xbf" + HEAD.encode())
    assert [h.slug for h in knowledge_search(ws, "needle", record=False)] == ["bom", "plain"]
    diagnostics = [d for d in lint_workspace(ws).diagnostics if d.path == rel]
    assert [(d.rule, d.severity) for d in diagnostics] == [("encoding", "warning")]
    record = read_record(ws, ws.root / rel).record
    assert record is not None and record.bom and record.text == HEAD


CASES = [
    b"---\nk: v\n---\nbody\n",
    b"\xef\xbb\xbf---\nk: v\n---\n",  # a leading BOM: dropped
    b"---\nk: v\n---\n\xef\xbb\xbf in the middle\n",  # a BOM elsewhere is text
    b"\xef\xbb\xbf\xef\xbb\xbf---\n",  # only one is dropped
    b"\x00---\n",
    b"---\n" + b"x" * 8192 + b"\x00",  # past 8 KiB
    b"\xef\xbb\xbf\x00",
    b"---\n\xff\xfe not UTF-8\n",
    b"",
]


@pytest.mark.parametrize("data", CASES)
def test_the_two_decoders_apply_the_same_rules(data: bytes) -> None:
    # search's one-line reasons and lint's diagnostics are two wordings of one decision
    text, reason = decode_text(data)
    lint_text, bom, diagnostics = decode_record_bytes(data, "knowledge/r.md")
    assert text == lint_text
    assert (text is None) == (reason is not None) == any(d.rule == "file-unreadable" for d in diagnostics)
    assert (text is None and reason == BINARY_REASON) == is_binary(data)
    if text is not None:
        rest, had_bom = split_bom(data)
        assert had_bom == bom and rest.decode("utf-8") == text
        # and the same rule on an exact text (the change sets' read keeps the BOM as U+FEFF)
        assert drop_bom(data.decode("utf-8", "surrogateescape")) == text


def test_the_byte_readers_refuse_what_is_not_a_record_file(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_bytes(b"---\nk: v\n---\n")
    assert read_bytes(str(good)) == (good.read_bytes(), None)
    data, st, reason = read_bytes_stat(str(good))
    assert data == good.read_bytes() and st is not None and st.st_size == len(data) and reason is None

    link = tmp_path / "link.md"
    link.symlink_to(good)
    assert read_bytes_stat(str(link))[0] == good.read_bytes()
    data, st, reason = read_bytes_stat(str(link), follow_links=False)
    assert data is None and st is None and reason is not None and reason.startswith("cannot open:")

    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (1024 * 1024 + 1))
    assert read_bytes(str(big)) == (None, "over 1 MiB")
    data, st, reason = read_bytes_stat(str(big))
    assert (data, reason) == (None, "over 1 MiB") and st is not None

    assert read_bytes_stat(str(tmp_path / "missing.md"))[2] == "cannot open: No such file or directory"
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.md")  # opened non-blocking and refused, never waited on
        assert read_bytes_stat(str(tmp_path / "fifo.md")) == (None, None, "not a regular file")
