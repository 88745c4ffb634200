"""The editor's lint keeps a slug's near-duplicates with the folder listing (``similar_in_listing``):
the findings must be those of a fresh comparison, also after the index or the folder changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from support import decision_meta, make_ws, write_record

from yoi_tui.core.lint import WorkspaceIndex, lint_text
from yoi_tui.core.lint import index as lint_index
from yoi_tui.core.lint.index import ListedEntries
from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.reader import read_record


def _similar(ws, path: Path, index: WorkspaceIndex) -> list[str]:  # type: ignore[no-untyped-def]
    text = path.read_text(encoding="utf-8") + "\nTyped.\n"
    return sorted(d.message for d in lint_text(ws, path, text, index) if d.rule == "similar-slugs")


def _plain(ws) -> WorkspaceIndex:  # type: ignore[no-untyped-def]
    # The same entries in plain dicts: the comparison against every slug, as before.
    index = WorkspaceIndex.from_names(ws)
    index.entries = {kind: dict(bucket) for kind, bucket in index.entries.items()}
    return index


def _age(folder: Path) -> None:
    # Listings are kept once their folder is older than the racy window (index.RACY_NS).
    old = time.time_ns() - 10 * lint_index.RACY_NS
    os.utime(folder, ns=(old, old))


def test_kept_answers_equal_fresh_ones_as_the_index_and_folder_change(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    folder = ws.root / "memory" / "decisions"
    target = write_record(ws, "memory/decisions/use-sqlite-cache.md", decision_meta())
    write_record(ws, "memory/decisions/use-sqlite-caches.md", decision_meta())
    for number in range(30):
        write_record(ws, f"memory/decisions/other-topic-{number}.md", decision_meta())
    _age(folder)
    index = WorkspaceIndex.from_names(ws)
    assert isinstance(index.entries[RecordKind.DECISION], ListedEntries)
    first = _similar(ws, target, index)
    assert first == _similar(ws, target, _plain(ws)) and len(first) == 1
    assert _similar(ws, target, WorkspaceIndex.from_names(ws)) == first  # kept: the same answer

    # A slug added to the index (an unsaved record) counts at once.
    twin = write_record(ws, "memory/decisions/use-sqlite-cachez.md", decision_meta())
    record = read_record(ws, twin).record
    twin.unlink()
    _age(folder)
    index = WorkspaceIndex.from_names(ws)
    index.add(record)
    assert index.entries[RecordKind.DECISION].changed
    assert len(_similar(ws, target, index)) == 2
    # ... and one removed no longer does.
    index = WorkspaceIndex.from_names(ws)
    index.remove(RecordKind.DECISION, "use-sqlite-caches")
    assert _similar(ws, target, index) == []
    # Loading an entry is no change.
    index = WorkspaceIndex.from_names(ws)
    index.get(RecordKind.DECISION, "use-sqlite-caches")
    assert not index.entries[RecordKind.DECISION].changed and _similar(ws, target, index) == first

    # The folder changes on disk: a new listing, a fresh answer.
    # (not "cache2": slugs whose numbers differ name different things and are never near-duplicates)
    write_record(ws, "memory/decisions/use-sqlite-cachex.md", decision_meta())
    fresh = _similar(ws, target, WorkspaceIndex.from_names(ws))
    assert fresh == _similar(ws, target, _plain(ws)) and len(fresh) == 2
