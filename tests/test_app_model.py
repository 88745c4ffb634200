"""The app's Textual-free model (model.browse): store, grouping, filter, # completion, templates."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from yoi_tui.core.lint import WorkspaceIndex, lint_text
from yoi_tui.core.store.kinds import RecordKind, path_for
from yoi_tui.core.store.templates import record_template
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.model.browse import (
    RecordStore,
    filter_entries,
    group_entries,
    rank_slugs,
    slug_span,
)


def test_store_loads_every_record_once(demo_root: Path) -> None:
    store = RecordStore.load(Workspace(demo_root))
    assert store.loaded and len(store) == 39
    entry = store.get("memory/decisions/drop-redis-cache.md")
    assert entry is not None and entry.record is not None and entry.status == "resolved"
    names = RecordStore.from_names(Workspace(demo_root))
    assert not names.loaded and set(names.entries) == set(store.entries)
    assert all(e.record is None for e in names.entries.values())


def test_groups_split_decisions_by_status(demo_root: Path) -> None:
    groups = group_entries(RecordStore.load(Workspace(demo_root)).entries.values())
    assert [g.key for g in groups] == ["summary", "decision", "request", "knowledge"]
    decisions = groups[1]
    by_key = {child.key: child for child in decisions.children}
    assert by_key["decision:open"].count == 4
    assert by_key["decision:replaced"].count == 1
    assert [e.slug for e in by_key["decision:other"].entries] == ["api-versioning-in-path"]  # status: accepted
    assert decisions.count == 15 and groups[3].count == 15


def test_filter_narrows_and_ranks_slug_hits_first(demo_root: Path) -> None:
    entries = list(RecordStore.load(Workspace(demo_root)).entries.values())
    assert len(filter_entries("", entries)) == len(entries)
    hits = [e.slug for e, _ in filter_entries("redis", entries)]
    assert hits == ["cache-invoices-in-redis", "drop-redis-cache"]  # equal scores: by slug
    # Description words count too ("Alembic" is only in howto-add-migration's description).
    assert [e.slug for e, _ in filter_entries("alembic", entries)] == ["howto-add-migration"]
    # A typo still finds it (rapidfuzz on the slug).
    assert "drop-redis-cache" in [e.slug for e, _ in filter_entries("redsi", entries)]
    assert filter_entries("zzzzqqq", entries) == []


def test_question_mark_searches_the_full_text(demo_root: Path) -> None:
    entries = list(RecordStore.load(Workspace(demo_root)).entries.values())
    # "stale totals" appears only in drop-redis-cache's body, not in any slug or description.
    assert [e.slug for e, _ in filter_entries("?stale totals", entries)] == ["drop-redis-cache"]
    assert [e.slug for e, _ in filter_entries("stale totals", entries)] != ["drop-redis-cache"]
    assert len(filter_entries("?", entries)) == len(entries)


@pytest.mark.parametrize(("text", "cursor", "span"), [
    ("#", 1, (0, 1)),
    ("fix #mon now", 8, (4, 8)),
    ("fix #money-as now", 6, (4, 13)),  # cursor inside the token: the span runs to its end
    ("fix #mon now", 12, None),
    ("issue#3", 7, None),  # '#' after a word character is not a reference
    ("see https://x.org/#frag", 23, None),
    ("line one\n#re", 12, (9, 12)),
])
def test_slug_span(text: str, cursor: int, span: tuple[int, int] | None) -> None:
    assert slug_span(text, cursor) == span


def test_rank_slugs_prefers_prefix_then_word_start_then_subsequence() -> None:
    pool = [("howto-run-tests-locally", "tests"), ("term-invoice-run", "invoice run"),
            ("rule-money-as-integer-cents", "money"), ("runbook", "ops")]
    assert [m.slug for m in rank_slugs("run", pool)][:3] == ["runbook", "term-invoice-run", "howto-run-tests-locally"]
    money = rank_slugs("mny", pool)
    assert money[0].slug == "rule-money-as-integer-cents" and money[0].positions
    assert [m.slug for m in rank_slugs("", pool)] == [slug for slug, _ in pool]
    assert rank_slugs("zzz", pool) == []


def test_knowledge_candidates_are_user_invocable_and_live(demo_root: Path) -> None:
    slugs = [slug for slug, _ in RecordStore.load(Workspace(demo_root)).knowledge_candidates()]
    assert "rule-money-as-integer-cents" in slugs
    assert "term-dunning" not in slugs  # user_invocable: false
    assert "howto-deploy-heroku" not in slugs  # replaced
    assert slugs == sorted(slugs)


@pytest.mark.parametrize("kind", [RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE])
def test_templates_lint_clean(demo_root: Path, kind: RecordKind) -> None:
    ws = Workspace(demo_root)
    path = path_for(ws, kind, "brand-new-thing")
    text = record_template(kind, "brand-new-thing", now=datetime(2026, 2, 1, tzinfo=UTC))
    assert lint_text(ws, path, text, WorkspaceIndex.from_names(ws)) == []
    assert "# Brand new thing" in text


def test_changes_since_sees_new_modified_and_removed_files(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    store = RecordStore.load(ws)
    known = store.stats()
    assert not RecordStore.changes_since(ws, known)
    modified = ws.decisions_dir / "adopt-fastapi.md"
    modified.write_text(modified.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    os.utime(modified, ns=(1, 1))  # a different mtime even on coarse clocks
    (ws.requests_dir / "shorter-test-output.md").unlink()
    new = ws.knowledge_dir / "howto-render-pdf.md"
    new.write_text(record_template(RecordKind.KNOWLEDGE, "howto-render-pdf"), encoding="utf-8")
    changes = RecordStore.changes_since(ws, known)
    assert sorted(e.rel for e in changes.updated) == ["knowledge/howto-render-pdf.md",
                                                     "memory/decisions/adopt-fastapi.md"]
    assert changes.removed == ["memory/requests/shorter-test-output.md"]
    store.apply(changes)
    assert store.get("knowledge/howto-render-pdf.md") is not None
    assert store.get("memory/requests/shorter-test-output.md") is None
    assert not RecordStore.changes_since(ws, store.stats())


def test_changes_since_sees_a_same_size_write_with_its_mtime_set_back(demo_root: Path) -> None:
    """(mtime, size) alone missed it; the one signature's ctime does not."""
    ws = Workspace(demo_root)
    store = RecordStore.load(ws)
    path = ws.decisions_dir / "adopt-fastapi.md"
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert "FastAPI" in text
    path.write_text(text.replace("FastAPI", "FastAPX", 1), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    changes = RecordStore.changes_since(ws, store.stats())
    assert [e.rel for e in changes.updated] == ["memory/decisions/adopt-fastapi.md"]
    assert changes.updated[0].record is not None and "FastAPX" in changes.updated[0].record.text


def test_a_hard_link_made_to_every_record_parses_none_again(demo_root: Path, tmp_path: Path) -> None:
    """GC's and Phase 2's scratch copies hard-link every record: their ctime moves, their text does
    not, so the poll only takes the new signatures (and the next poll finds nothing)."""
    ws = Workspace(demo_root)
    store = RecordStore.load(ws)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    linked = [rel for rel, entry in store.entries.items() if entry.record is not None and entry.path.is_file()
              and not entry.path.is_symlink()]
    for number, rel in enumerate(linked):
        os.link(ws.root / rel, scratch / f"{number}.md")
    changes = RecordStore.changes_since(ws, store.stats())
    assert changes.updated == [] and changes.removed == [] and not changes
    assert sorted(changes.restamped) == sorted(linked)
    store.apply(changes)
    again = RecordStore.changes_since(ws, store.stats())
    assert not again and not again.restamped
