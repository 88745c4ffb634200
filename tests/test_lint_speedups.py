"""The linter's speed-ups change no finding: similar-slugs' length window and the reused folder listings."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from yoi_tui.core.lint import WorkspaceIndex, lint_text
from yoi_tui.core.lint import index as lint_index
from yoi_tui.core.lint.rules import similar_slug_pairs
from yoi_tui.core.lint.similar import longest_partner
from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]


def _all_pairs(slugs: list[str], ratio: float) -> list[tuple[str, str, float]]:
    """The plain all-pairs comparison the length window must agree with."""
    ordered = sorted(slugs)
    found = []
    for position, slug in enumerate(ordered):
        for other, score, _ in process.extract(slug, ordered[position + 1:], scorer=fuzz.ratio,
                                               score_cutoff=ratio, limit=None):
            found.append((slug, other, float(score)))
    return sorted(found)


_slug = st.text(alphabet="abcde-", min_size=0, max_size=14)


@settings(max_examples=300, deadline=None)
@given(st.lists(_slug, max_size=25), st.sampled_from([0.0, 30.0, 50.0, 66.7, 80.0, 90.0, 95.5, 100.0]))
def test_length_window_finds_exactly_the_all_pairs_result(slugs: list[str], ratio: float) -> None:
    assert sorted(similar_slug_pairs(slugs, ratio)) == _all_pairs(slugs, ratio)


def test_length_window_keeps_pairs_at_its_edge() -> None:
    # Runs of one letter: every pair's ratio is set by the lengths alone, so pairs sit exactly at
    # the edges of the window; plus prefix families of real-looking slugs.
    runs = ["a" * n for n in range(1, 40)]
    family = [("use-sqlite-cache" + "s" * n)[: 10 + n] for n in range(0, 12)]
    for ratio in (50.0, 66.0, 80.0, 85.7, 90.0, 95.0, 97.5):
        assert sorted(similar_slug_pairs(runs, ratio)) == _all_pairs(runs, ratio)
        assert sorted(similar_slug_pairs(family, ratio)) == _all_pairs(family, ratio)


def test_length_window_bound_is_never_too_tight() -> None:
    for length in range(0, 70):
        for ratio in (1.0, 50.0, 89.9, 90.0, 99.0, 100.0):
            bound = longest_partner(length, ratio)
            longer = "a" * (bound + 1)
            assert fuzz.ratio("a" * length, longer) < ratio


def test_examples_agree(tmp_path: Path) -> None:
    slugs = [p.stem for p in (REPO / "examples").rglob("*.md")] + ["use-sqlite-cache", "use-sqlite-caches"]
    assert sorted(similar_slug_pairs(slugs, 90.0)) == _all_pairs(slugs, 90.0)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "workspace", root, ignore=shutil.ignore_patterns("state"))
    return Workspace(root)


def _old_listing(ws: Workspace) -> dict[RecordKind, list[str]]:
    return {kind: sorted(p.stem for p in folder.glob("*.md"))
            for kind, folder in ((RecordKind.DECISION, ws.decisions_dir), (RecordKind.REQUEST, ws.requests_dir),
                                 (RecordKind.KNOWLEDGE, ws.knowledge_dir))}


def _listing(ws: Workspace) -> dict[RecordKind, list[str]]:
    index = WorkspaceIndex.from_names(ws)
    return {kind: index.slugs(kind) for kind in (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)}


def test_reused_listing_sees_every_change(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint_index, "RACY_NS", 0)  # the files were written just now: cache anyway
    assert _listing(ws) == _old_listing(ws)
    assert str(ws.knowledge_dir) in lint_index._LISTINGS
    new = ws.knowledge_dir / "brand-new.md"
    shutil.copy(ws.knowledge_dir / "token-clock.md", new)
    assert "brand-new" in _listing(ws)[RecordKind.KNOWLEDGE]
    new.rename(ws.knowledge_dir / "renamed.md")
    assert _listing(ws) == _old_listing(ws)
    # A change that leaves the folder's mtime as it was is still seen (its ctime moves).
    st = os.stat(ws.knowledge_dir)
    (ws.knowledge_dir / "renamed.md").unlink()
    os.utime(ws.knowledge_dir, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _listing(ws) == _old_listing(ws)
    shutil.rmtree(ws.requests_dir)
    assert _listing(ws)[RecordKind.REQUEST] == []
    ws.requests_dir.mkdir()
    (ws.requests_dir / "again.md").write_text("x", encoding="utf-8")
    assert _listing(ws)[RecordKind.REQUEST] == ["again"]


def test_recently_changed_folders_are_not_reused(ws: Workspace) -> None:
    _listing(ws)  # every folder was just written: racy, so not kept
    assert str(ws.knowledge_dir) not in lint_index._LISTINGS


def test_one_file_lint_is_the_same_with_reused_listings(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ws.decisions_dir / "rules-engine-is-the-default.md"
    text = path.read_text(encoding="utf-8") + "\nSee #token-clock and #no-such-record.\n"
    fresh = lint_text(ws, path, text, WorkspaceIndex.from_names(ws))
    monkeypatch.setattr(lint_index, "RACY_NS", 0)
    WorkspaceIndex.from_names(ws)
    reused = lint_text(ws, path, text, WorkspaceIndex.from_names(ws))
    assert reused == fresh and any(d.rule == "dangling-ref" for d in fresh)
