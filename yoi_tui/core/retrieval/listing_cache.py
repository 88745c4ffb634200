"""What the resident context needs from each decision, request and knowledge file, cached by the
file's ``lstat``.

``yoi context`` runs on every SessionStart. Computing the open-decisions and recent-requests
listings (``summary_lists``) from the records read every decision and request file — at 10,000
records that doubled the command's time. The few facts the context needs from a file (for a
decision or request: live or replaced, status, ``updated_at``, title; for knowledge: resident or
not, its index line: ``summary_lists.KnowledgeFacts``) are a pure function of its bytes (computed in
``summary_lists``), so they are kept in
``.yoi/state/cache/listings-v2.json`` per file, with the file's ``freshness.Signature`` (size, ``mtime_ns``,
``ctime_ns``, inode and mode from ``lstat``) and the CRC-32 of its bytes. A warm run lists the folders,
``lstat``s each file and reads only the files whose signature changed; a file read again whose
bytes have the stored size and CRC keeps its facts (not computed again) under its new signature —
the same-bytes check the lint cache and the search index make: GC's and Phase 2's scratch copies
hard-link every record, which changes every ``ctime``, and before this check every ``yoi context``
after a GC or a dry run computed every file's facts again. It is never trusted beyond that:

* an outside edit, ``git checkout``, rename, delete or add changes the listing or a signature
  (``ctime`` cannot be set back by a tool, unlike ``mtime``), so the file is read again;
* a file changed within ``RACY_NS`` of the run's start is used but not stored: a second write in
  the same timestamp tick could keep its signature ("racily clean", as git calls it);
* symlinks and anything but regular files are read every time, never stored;
* a missing, corrupt or foreign cache file is an empty cache; one that cannot be written costs the
  next run the reads. Without a ``.yoi/`` folder nothing is stored.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..freshness.signature import RACY_NS, Signature, content_crc, regular_signature, same_bytes
from ..store.json_cache import load_cache, save_cache
from ..store.record_listing import md_dir_entries
from ..store.workspace import Workspace
from .search import iter_entries_bytes

CACHE_NAME = "listings-v2.json"
_VERSION = 3  # 3: each file's signature is ``Signature.to_text`` (was "size:mtime:ctime:inode", no mode)


@dataclass(slots=True, frozen=True)
class ListingFacts:
    """One record file as the listings see it (from its raw text; no YAML parse)."""

    replaced: bool  # a ``replaced_by`` is set
    status: str | None  # the raw ``status`` value
    stamp: float  # ``updated_at`` as a POSIX time (0.0: missing or unreadable)
    title: str | None  # the first ``# Title`` of the body

    def to_json(self) -> list[Any]:
        return [self.replaced, self.status, self.stamp, self.title]

    @classmethod
    def from_json(cls, data: Any) -> ListingFacts | None:
        if not isinstance(data, list) or len(data) != 4:
            return None
        replaced, status, stamp, title = data
        if type(replaced) is not bool or not isinstance(stamp, int | float) or type(stamp) is bool \
                or not (status is None or type(status) is str) or not (title is None or type(title) is str):
            return None
        return cls(replaced, status, float(stamp), title)


class _Facts(Protocol):
    def to_json(self) -> Any: ...


F = TypeVar("F", bound=_Facts)
Compute = Callable[[str, bytes, list[str] | None], tuple[F | None, bool]]


class ListingCache:
    """The stored facts (``path`` None: compute everything, store nothing — the uncached path)."""

    def __init__(self, path: Path | None, entries: dict[str, Any] | None = None) -> None:
        self.path = path
        self._stored: dict[str, Any] = entries or {}
        self._kept: dict[str, Any] = {}  # what the next file holds: the listed, storable files
        self._dirty = False
        self.started_ns = time.time_ns()
        self.reads = 0  # files read this run (the tests check that a warm run reads none)
        self.computed = 0  # files whose facts were computed (read, and not the same bytes as stored)

    @classmethod
    def load(cls, ws: Workspace) -> ListingCache:
        if not ws.yoi_dir.is_dir():
            return cls(None)
        path = ws.state_dir / "cache" / CACHE_NAME
        return cls(path, load_cache(path, _VERSION, "files"))

    def scan(self, ws: Workspace, folder: Path, prefix: str, compute: Compute[F],
             revive: Callable[[Any], F | None], problems: list[str] | None = None) -> list[tuple[str, F]]:
        """``(slug, facts)`` of every readable ``*.md`` in ``folder``, in name order.

        ``compute(rel, bytes, problems)`` gives a file's facts (None: the file is left out) and
        whether they may be stored (False for a file with a problem, which must be reported every
        run); ``revive`` turns stored JSON back into facts (None: not valid, read the file).
        """
        try:
            entries = sorted(md_dir_entries(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            if problems is not None:
                problems.append(f"{prefix}: cannot list folder: {exc.strerror or exc}")
            return []
        found: dict[str, F] = {}
        missed: list[tuple[str, os.DirEntry[str]]] = []
        signatures: dict[str, str] = {}
        sig: str | None
        for entry in entries:
            rel = prefix + entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # vanished while listed
            signature = regular_signature(st)
            if signature is not None:
                sig = signature.to_text()  # compared as it is stored: one string (a list each held 3 MB more at 10k)
                cached = self._stored.get(rel)
                if isinstance(cached, list) and len(cached) == 3 and cached[0] == sig:
                    facts = revive(cached[2])
                    if facts is not None:
                        found[entry.name] = facts
                        self._kept[rel] = cached
                        continue
                if signature.stamp < self.started_ns - RACY_NS:
                    signatures[rel] = sig
            missed.append((rel, entry))
        for _slug, rel, data in iter_entries_bytes(ws, missed, problems):
            self.reads += 1
            crc = content_crc(data)
            sig = signatures.get(rel)
            cached = self._stored.get(rel)
            if not isinstance(cached, list) or len(cached) != 3:
                cached = [None, None, None]
            old = Signature.from_text(cached[0]) if isinstance(cached[0], str) else None
            if old is not None and same_bytes(old, cached[1], len(data), crc):
                facts = revive(cached[2])  # the same bytes under a new signature: same facts
                if facts is not None:
                    found[rel[len(prefix):]] = facts
                    if sig is not None:
                        self._kept[rel] = [sig, crc, cached[2]]
                        self._dirty = True
                    continue
            self.computed += 1
            computed, storable = compute(rel, data, problems)
            if computed is None:
                continue
            found[rel[len(prefix):]] = computed
            if sig is not None and storable:
                self._kept[rel] = [sig, crc, computed.to_json()]
                self._dirty = True
        return [(name[:-3], found[name]) for name in sorted(found)]

    def save(self) -> None:
        """Keep the facts of the files listed this run (best effort: temp file + rename)."""
        if self.path is None or not (self._dirty or len(self._kept) != len(self._stored)):
            return
        save_cache(self.path, _VERSION, "files", self._kept)
