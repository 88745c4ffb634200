"""The workspace index: slugs per kind and the ``replaced_by`` graph, built once per run.

Cross-record rules (dangling references, replacement chains, similar slugs) ask the index instead
of re-reading the workspace, so linting one file stays proportional to that file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..freshness.signature import RACY_NS, Signature, signature_of
from ..store.kinds import RecordKind, folder_for, path_for
from ..store.reader import read_record
from ..store.record_listing import md_dir_entries
from ..store.records import Record, RecordHead
from ..store.workspace import Workspace

# Folder listings reused while the folder is unchanged: the editor builds a lazy index on every
# lint run, and listing 30,000 names costs ~20 ms. A folder's mtime/ctime change whenever an entry
# is created, deleted or renamed in it. Listings of folders changed less than RACY_NS before they
# were listed are not kept (a second change in the same timestamp tick would go unseen).
_LISTINGS: dict[str, tuple[tuple[Signature, int], tuple[str, ...]]] = {}  # the folder's signature and device


def folder_slugs(folder: Path) -> tuple[str, ...] | None:
    """Slugs of the ``*.md`` names in ``folder`` (None when it does not exist or is not a folder)."""
    key = str(folder)
    try:
        st = os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        _LISTINGS.pop(key, None)
        return None
    sig = (signature_of(st), st.st_dev)
    cached = _LISTINGS.get(key)
    if cached is not None and cached[0] == sig:
        return cached[1]
    started = time.time_ns()
    try:
        # e.name[:-3] is slug_of(e.name) for a bare file name, without a Path per entry.
        slugs = tuple(e.name[:-3] for e in md_dir_entries(folder))
    except (FileNotFoundError, NotADirectoryError):
        return None
    if sig[0].stamp < started - RACY_NS:
        _LISTINGS[key] = (sig, slugs)
    else:
        _LISTINGS.pop(key, None)
    return slugs


class IndexEntry(NamedTuple):
    """What the cross-record rules know of a record. A named tuple: a whole lint builds one per
    record (a frozen dataclass took four times as long to make)."""

    kind: RecordKind
    slug: str
    rel: str
    replaced_by: str | None
    status: str | None
    description: str
    user_invocable: bool
    model_invokation: bool
    knowledge_kind: str | None

    @property
    def is_replaced(self) -> bool:
        return self.replaced_by is not None or self.status == "replaced"


# The last listing's entries, none loaded yet, per listing (the same tuple while the folder is
# unchanged): copying a dict is a memory copy, building it hashes every slug again (the editor
# builds a lazy index on every lint; 30,000 decisions: 1.3 -> 0.1 ms).
_UNLOADED: dict[int, tuple[tuple[str, ...], dict[str, IndexEntry | None]]] = {}


def _unloaded_entries(slugs: tuple[str, ...]) -> ListedEntries:
    kept = _UNLOADED.get(id(slugs))
    if kept is None or kept[0] is not slugs:
        if len(_UNLOADED) > 16:
            _UNLOADED.clear()
        kept = _UNLOADED[id(slugs)] = (slugs, dict.fromkeys(slugs))
    return ListedEntries(kept[1], slugs)


class ListedEntries(dict[str, "IndexEntry | None"]):
    """A lazy index's entries of one kind, as a folder listing gave them: it knows whether a slug was
    added or removed since, so what depends on the slugs alone (``similar-slugs``) can be kept with
    the listing while it holds (``rules.similar_in_listing``). Loading an entry is no change."""

    __slots__ = ("listing", "changed")

    def __init__(self, entries: dict[str, IndexEntry | None], listing: tuple[str, ...]) -> None:
        super().__init__(entries)
        self.listing = listing
        self.changed = False

    def __setitem__(self, slug: str, entry: IndexEntry | None) -> None:
        if slug not in self:
            self.changed = True
        super().__setitem__(slug, entry)

    def __delitem__(self, slug: str) -> None:
        self.changed = True
        super().__delitem__(slug)

    def pop(self, *args: Any) -> Any:
        self.changed = True
        return super().pop(*args)

    def popitem(self) -> Any:
        self.changed = True
        return super().popitem()

    def setdefault(self, slug: str, entry: IndexEntry | None = None) -> Any:
        if slug not in self:
            self.changed = True
        return super().setdefault(slug, entry)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.changed = True
        super().update(*args, **kwargs)

    def clear(self) -> None:
        self.changed = True
        super().clear()

    def __ior__(self, other: Any) -> ListedEntries:  # type: ignore[override, misc]  # x |= y is x, as for dict; typeshed's __or__ widens
        self.changed = True
        return super().__ior__(other)


@dataclass
class WorkspaceIndex:
    """Every known record by kind and slug.

    Built from parsed records (a whole-workspace run), or lazily (``from_names``): slugs come from
    folder listings and a record's frontmatter is read only when a rule asks about it, so linting
    one file reads that file and the few records it points at.
    """

    entries: dict[RecordKind, dict[str, IndexEntry | None]] = field(
        default_factory=lambda: {kind: {} for kind in RecordKind})
    workspace: Workspace | None = None

    @classmethod
    def from_names(cls, ws: Workspace) -> WorkspaceIndex:
        index = cls(workspace=ws)
        for kind in (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE):
            slugs = folder_slugs(folder_for(ws, kind))
            if slugs is not None:
                index.entries[kind] = _unloaded_entries(slugs)
        if os.path.lexists(ws.summary_path):
            index.entries[RecordKind.SUMMARY]["summary"] = None
        return index

    @classmethod
    def from_records(cls, records: list[Record], unparsed: Sequence[tuple[RecordKind, str, str]] = ()) -> WorkspaceIndex:
        index = cls()
        for record in records:
            index.add(record)
        for kind, slug, rel in unparsed:
            index.entries[kind].setdefault(slug, IndexEntry(kind, slug, rel, None, None, "", False, False, None))
        return index

    def add(self, record: Record | RecordHead) -> IndexEntry:
        entry = self.entries[record.kind][record.slug] = IndexEntry(
            kind=record.kind, slug=record.slug, rel=record.rel, replaced_by=record.replaced_by,
            status=record.status, description=record.description, user_invocable=record.user_invocable,
            model_invokation=record.model_invokation, knowledge_kind=record.knowledge_kind)
        return entry

    def remove(self, kind: RecordKind, slug: str) -> None:
        self.entries[kind].pop(slug, None)

    def has(self, kind: RecordKind, slug: str) -> bool:
        return slug in self.entries[kind]

    def get(self, kind: RecordKind, slug: str) -> IndexEntry | None:
        """The entry for ``slug`` (read from disk on first use in a lazy index); None: no such record."""
        bucket = self.entries[kind]
        if slug not in bucket:
            return None
        entry = bucket[slug]
        if entry is None:
            entry = self._load(kind, slug)
            bucket[slug] = entry
        return entry

    def _load(self, kind: RecordKind, slug: str) -> IndexEntry:
        record = read_record(self.workspace, path_for(self.workspace, kind, slug)).record if self.workspace else None
        if record is None:
            return IndexEntry(kind, slug, "", None, None, "", False, False, None)
        return self.add(record)

    def slugs(self, kind: RecordKind) -> list[str]:
        return sorted(self.entries[kind])

    def all_entries(self, kind: RecordKind) -> list[IndexEntry]:
        """Every entry of ``kind`` (loads all of them in a lazy index)."""
        return [entry for slug in self.slugs(kind) if (entry := self.get(kind, slug)) is not None]

    def chain_problem(self, kind: RecordKind, slug: str) -> str | None:
        """Why following ``replaced_by`` from ``slug`` fails: a missing target or a loop (None: fine)."""
        seen = [slug]
        current = self.get(kind, slug)
        while current is not None and current.replaced_by:
            target = current.replaced_by
            if target in seen:
                return "replacement chain loops: " + " → ".join([*seen, target])
            seen.append(target)
            current = self.get(kind, target)
            if current is None:
                return f"replaced_by names no {kind.value} record '{target}'"
        return None

    def final_replacement(self, kind: RecordKind, slug: str) -> str | None:
        """The end of the ``replaced_by`` chain from ``slug`` (None on a loop or a missing record)."""
        seen = {slug}
        current = self.get(kind, slug)
        while current is not None and current.replaced_by:
            if current.replaced_by in seen:
                return None
            seen.add(current.replaced_by)
            nxt = self.get(kind, current.replaced_by)
            if nxt is None:
                return None
            current = nxt
        return current.slug if current is not None else None
