"""The summary listings served from ``listing_cache``: identical to reading every file, after any
outside change (issue 16: ``yoi context`` is the SessionStart hot path).

``RACY_NS`` is set to 0: the files were written moments ago and would otherwise never be stored
(so the cache would never be exercised).
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import T0, decision_meta, knowledge_meta, make_ws, request_meta, write_record

from yoi_tui.core.retrieval import listing_cache
from yoi_tui.core.retrieval.listing_cache import CACHE_NAME, ListingCache
from yoi_tui.core.retrieval.resident_context import ResidentContext, build_resident_context
from yoi_tui.core.retrieval.summary_lists import generated_listings, raw_title, scan_knowledge, scan_records
from yoi_tui.core.store.workspace import Workspace

BUDGET = 100_000


@pytest.fixture(autouse=True)
def _not_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing_cache, "RACY_NS", 0)


def _workspace(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    for n in range(12):
        status = ("open", "resolved", "open")[n % 3]
        write_record(ws, f"memory/decisions/decision-{n:02d}.md",
                     decision_meta(status=status, updated_at=T0 + timedelta(hours=n)), f"\n# Decision {n:02d}\n")
        write_record(ws, f"memory/requests/request-{n:02d}.md", request_meta(updated_at=T0 + timedelta(hours=n)),
                     f"\n# Request {n:02d}\n")
    return ws


def _same(ws: Workspace) -> str:
    cached = generated_listings(ws, budget=BUDGET)
    assert cached == generated_listings(ws, budget=BUDGET, cache=False)
    return cached


def _keep_mtime(path: Path, edit: str, into: str) -> None:
    """An edit of the same size with the old mtime put back (as some tools and checkouts do)."""
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert len(edit) == len(into) and edit in text
    path.write_text(text.replace(edit, into), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def _reads(ws: Workspace) -> int:
    cache = ListingCache.load(ws)
    scan_records(ws, cache, ws.decisions_dir, "memory/decisions/")
    scan_records(ws, cache, ws.requests_dir, "memory/requests/")
    return cache.reads


def test_a_warm_run_reads_no_record_and_lists_the_same(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    first = _same(ws)
    assert "## Open decisions\n- Decision 11 (`decision-11`)" in first and "- Request 11 (`request-11`)" in first
    assert (ws.state_dir / "cache" / CACHE_NAME).is_file()
    assert _reads(ws) == 0
    assert _same(ws) == first


def test_outside_edits_deletes_and_adds_are_seen(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    _same(ws)
    decisions, requests = ws.decisions_dir, ws.requests_dir
    # Same size, mtime put back: only ctime (and the content) tell.
    _keep_mtime(decisions / "decision-11.md", "# Decision 11", "# Decision XI")
    assert "- Decision XI (`decision-11`)" in _same(ws)
    _keep_mtime(decisions / "decision-09.md", "status: open", "status: oops")
    assert "`decision-09`" not in _same(ws)
    # An edit that changes the size: resolved, then a request replaced.
    path = decisions / "decision-10.md"
    path.write_text(path.read_text().replace("status: open", "status: resolved"))
    assert "`decision-10`" not in _same(ws)
    path = requests / "request-11.md"
    path.write_text(path.read_text().replace("---\n\n#", "replaced_by: request-10\n---\n\n#"))
    assert "`request-11`" not in _same(ws)
    # Deleted, added, and replaced by a rename (a checkout writes a new file over the old name).
    (decisions / "decision-08.md").unlink()
    write_record(ws, "memory/decisions/decision-99.md", decision_meta(updated_at=T0 + timedelta(days=9)),
                 "\n# Newest decision\n")
    listed = _same(ws)
    assert "`decision-08`" not in listed and "- Newest decision (`decision-99`)" in listed
    source = requests / "request-03.md"
    st = source.stat()
    temp = requests / "new.tmp"
    temp.write_text(source.read_text().replace("# Request 03", "# Request C3").replace(
        str(T0.year), str(T0.year + 1)), encoding="utf-8")
    os.utime(temp, ns=(st.st_atime_ns, st.st_mtime_ns))
    temp.replace(source)
    assert "- Request C3 (`request-03`)" in _same(ws)
    # A whole folder gone, then back.
    for path in requests.glob("*.md"):
        path.unlink()
    assert "Recent requests" not in _same(ws)
    write_record(ws, "memory/requests/request-back.md", request_meta(), "\n# Back again\n")
    assert "- Back again (`request-back`)" in _same(ws)


def test_racily_clean_files_are_not_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing_cache, "RACY_NS", 2_000_000_000)
    ws = _workspace(tmp_path)
    _same(ws)
    assert _reads(ws) == 24  # written just now: a second write in the same tick could keep the signature


def test_a_corrupt_or_foreign_cache_is_an_empty_cache(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    expected = _same(ws)
    cache = ws.state_dir / "cache" / CACHE_NAME
    for junk in (b"{not json", b'{"version": 1, "files": []}', b'{"version": 1, "files": {"memory/decisions/'
                 b'decision-11.md": ["x", [1, 2]], "memory/requests/request-00.md": 7}}', b"[]"):
        cache.write_bytes(junk)
        assert _same(ws) == expected



def _same_context(ws: Workspace) -> ResidentContext:
    cached = build_resident_context(ws)
    uncached = build_resident_context(ws, cache=False)
    assert (cached.text, cached.slugs, cached.problems) == (uncached.text, uncached.slugs, uncached.problems)
    return cached


def test_the_resident_context_sees_knowledge_edits(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    for n in range(6):
        write_record(ws, f"knowledge/fact-{n}.md", knowledge_meta(description=f"Fact number {n}.",
                                                                  model_invokation=n % 2 == 0))
    write_record(ws, "knowledge/folded.md", knowledge_meta(description="Folded\n  over two lines."))
    first = _same_context(ws)
    assert first.slugs == ["fact-0", "fact-2", "fact-4"] and "fact-1" not in first.text
    warm = ListingCache.load(ws)
    assert len(scan_knowledge(ws, warm)) == 7 and warm.reads == 0
    knowledge = ws.knowledge_dir
    _keep_mtime(knowledge / "fact-0.md", "Fact number 0.", "Fact NUMBER 0.")
    assert "#fact-0 — Fact NUMBER 0." in _same_context(ws).text
    _keep_mtime(knowledge / "fact-1.md", "model_invokation: false", "model_invokation: true ")
    assert _same_context(ws).slugs == ["fact-0", "fact-1", "fact-2", "fact-4"]
    path = knowledge / "fact-2.md"
    path.write_text(path.read_text().replace("---\n\n", "replaced_by: fact-4\n---\n\n"))
    assert _same_context(ws).slugs == ["fact-0", "fact-1", "fact-4"]
    (knowledge / "fact-4.md").unlink()
    (knowledge / "broken.md").write_text("---\nkind: [fact\nmodel_invokation: true\n---\n", encoding="utf-8")
    built = _same_context(ws)
    assert built.slugs == ["fact-0", "fact-1"] and any(p.startswith("knowledge/broken.md") for p in built.problems)
    assert any(p.startswith("knowledge/broken.md") for p in _same_context(ws).problems)  # reported every run


def _raw_title_by_lines(text: str) -> str | None:
    """The line-by-line reading ``raw_title`` must agree with (its fast path is one regex search)."""
    import re

    title_re, fence_re = re.compile(r"^ {0,3}# +(.+?)\s*#*\s*$"), re.compile(r"^ {0,3}(`{3,}|~{3,})")
    end = text.find("\n---", 3) if text.startswith("---") else -1
    fence = False
    for line in (text[end + 4:] if end > 0 else text).split("\n"):
        if fence_re.match(line):
            fence = not fence
        elif not fence:
            match = title_re.match(line)
            if match:
                return " ".join(match.group(1).split())
    return None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["---", "status: open", "# Title", "  # Spaced  title ##", "#NoTitle", "```",
                                 "~~~", "    # too deep", "text", "", "# Ti\u00a0tle\u00a0", "\r", "# T\r",
                                 "--- # odd"]), max_size=12))
def test_raw_title_reads_as_the_line_by_line_scan(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert raw_title(text) == _raw_title_by_lines(text)


def test_hard_links_change_every_ctime_but_the_same_bytes_keep_their_facts(tmp_path: Path) -> None:
    """GC's and Phase 2's scratch copies hard-link every record (a new ctime for each): the next run
    reads the files once, finds the stored CRC, keeps their facts under the new signature, and the
    run after reads nothing — instead of computing every file's facts after every GC."""
    ws = _workspace(tmp_path)
    first = _same(ws)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for path in [*ws.decisions_dir.glob("*.md"), *ws.requests_dir.glob("*.md")]:
        os.link(path, scratch / f"{path.parent.name}-{path.name}")
    cache = ListingCache.load(ws)
    scan_records(ws, cache, ws.decisions_dir, "memory/decisions/")
    scan_records(ws, cache, ws.requests_dir, "memory/requests/")
    assert cache.reads == 24 and cache.computed == 0
    cache.save()
    assert _reads(ws) == 0
    assert _same(ws) == first
    # Different bytes of the same size are computed again.
    _keep_mtime(ws.decisions_dir / "decision-11.md", "# Decision 11", "# Decision XI")
    cache = ListingCache.load(ws)
    scan_records(ws, cache, ws.decisions_dir, "memory/decisions/")
    assert cache.computed == 1 and "Decision XI" in _same(ws)
