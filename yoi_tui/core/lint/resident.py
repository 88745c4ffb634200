"""Lint state a long-running process keeps between whole-workspace lints (the command server).

A one-shot ``yoi lint`` ``lstat``-s every record file, reads the per-file cache (18 MB of JSON at
50,000 records), and after an edit it redoes the cross-record rules for every file, since the
just-edited file is "racily clean" and not stored. A process that lints the same workspace again
and again can do better, and stay exact:

* **Signatures from the kernel.** The workspace's record feed (``freshness.record_feed``) watches
  the record folders and every record file's inode: entries with an event since the last lint
  are *dirty*, read again even when their signature looks unchanged (a second write in the same
  timestamp tick), and a write through another name of a record (a hard link from outside) is an
  event too. Where the feed cannot vouch for contents (out of inotify watches), every lint also
  ``lstat``-s every kept record (``_sweep``): a changed signature is dirty, and a hard-linked file
  changed within ``RACY_NS`` is read again. When the feed cannot vouch for the names (overflow, a
  folder replaced or mounted over, the mount table changed, a new folder) the next lint lists
  everything, as a one-shot lint does.
* **Facts and findings in memory.** The per-file facts, the similar-slug state and the last
  findings, with what they were computed from (config and linter fingerprint, usage state), so an
  unchanged workspace is answered from memory and an edit rechecks only the edited files and their
  dependents (``cache._dependents``), racy or not: the feed, not the clock, says what changed.
* **The cache file written when idle.** ``flush()`` writes the per-file cache a later one-shot
  lint reads (each entry keyed by its file's signature, racy ones left out, as always), so an edit
  does not rewrite 18 MB; the server calls it when it has nothing else to do and when it stops.

Off unless ``enable()`` is called (the command server does): a one-shot lint has nothing to keep.
"""

from __future__ import annotations

import os
import stat
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..freshness.signature import signature_of
from ..store.record_listing import is_record_name
from ..store.workspace import DECISIONS_REL, KNOWLEDGE_REL, REQUESTS_REL, SUMMARY_REL
from .stored import RACY_NS, Sig, file_signature, record_signatures

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..freshness.record_feed import Subscription
    from ..store.workspace import Workspace

Listing = list[tuple[str, str, "Sig | None"]]
# (prefix, its components): (("memory/decisions/", ("memory", "decisions")), …)
_RECORD_FOLDERS = tuple((prefix, tuple(prefix.rstrip("/").split("/")))
                        for prefix in (DECISIONS_REL, REQUESTS_REL, KNOWLEDGE_REL))
WORKSPACES_KEPT = 4  # workspaces whose lint state is kept (least recently linted dropped first)

_enabled = False
_states: dict[str, KeptState] = {}


def enable(on: bool = True) -> None:
    global _enabled
    _enabled = on
    if not on:
        from ..freshness.record_feed import close_all

        for state in _states.values():
            state.close()
        _states.clear()
        close_all()


class Memory:
    """One whole-workspace lint's outcome, and what it was computed from."""

    __slots__ = ("key", "usage", "facts", "similar", "diags", "files", "derived")

    def __init__(self, key: str, usage: Any, facts: dict[str, Any] | None, similar: dict[str, Any] | None,
                 diags: list[Diagnostic], files: int, derived: Any = None) -> None:
        self.key = key
        self.usage = usage
        self.facts = facts  # rel -> cache.FileFacts, racy ones included; None: a stored result was read
        self.similar = similar
        self.diags = diags  # unfiltered, as lint_workspace_cached returns them
        self.files = files
        self.derived = derived  # cache.Derived: the index and counts, for an edit to update


class KeptState:
    """A workspace's change feed, its current listing and the last lint's memory."""

    def __init__(self, root: str) -> None:
        self.root = root
        # The workspace's record feed (freshness.record_feed: folders and every record's inode).
        self.subscription: Subscription | None = None
        self._prefixes = {os.path.join(root, *parts): prefix for prefix, parts in _RECORD_FOLDERS}
        self._config_folder = os.path.join(root, ".yoi")
        self.listing: Listing | None = None
        self.entries: dict[str, tuple[str, Sig | None]] = {}
        self.dirty: set[str] | None = None  # changed since the memory was made (None: anything may have)
        # Files with another name (st_nlink > 1), as the last sweep found them: written through
        # it they raise no event in the watched folder (the sweep's lstat sees the write).
        self.linked: set[str] = set()
        self.racy_linked: set[str] = set()  # of those, read while their stamps were racy: read again
        self.memory: Memory | None = None
        self.pending_save: Callable[[], None] | None = None
        self.usage: Any = None  # the usage state the running lint found (stored._usage_state)

    def close(self) -> None:
        self.subscription = None

    def signatures(self, ws: Workspace) -> tuple[Listing, set[str] | None]:
        """``stored.record_signatures(ws)`` as of now, and the rels with an event since the memory
        was made (None: anything may have changed; a full listing was made)."""
        from ..freshness.record_feed import subscribe

        if self.subscription is None:
            self.subscription = subscribe(self.root)
        changes = self.subscription.changes()  # before listing: a change made meanwhile is not missed
        if changes is not None and self.listing is not None and changes:
            touched = self._apply(changes)
            if touched is None:
                changes = None
            else:
                self.listing = _updated(self.listing, self.entries, touched)
        if changes is not None and self.listing is not None and not self.subscription.vouches_for_contents:
            self._sweep(ws)
        if changes is None or self.listing is None:
            self.linked = set()
            self.listing = record_signatures(ws, self.linked)
            self.entries = {rel: (path, sig) for rel, path, sig in self.listing}
            self.racy_linked = self._racy(self.linked, time.time_ns())
            self.dirty = None
            self.memory = None
        return self.listing, (None if self.dirty is None else set(self.dirty))

    def _sweep(self, ws: Workspace) -> None:
        """``lstat`` every kept record and compare it with its signature, when the feed does not
        watch every record's inode: a write through another name of a file (a hard link from
        outside the workspace) raises no event in its folder, and a link made to it raises none
        either, so the folders alone cannot vouch for any file's content (issue 27; names are another matter: a name created, removed or renamed in a watched
        folder always raises an event there). What changed is dirty; a file with another name
        whose stamps are within ``RACY_NS`` of now is dirty at this lint and the next (a second
        same-size write in the same timestamp tick keeps its signature), as the one-shot lint
        never stores such a file. One tight loop: ~1 µs a file beyond the system call."""
        now = time.time_ns()
        lstat = os.lstat
        entries = self.entries
        touched: set[str] = set()
        linked: set[str] = set()
        for rel, (path, sig) in entries.items():
            try:
                st = lstat(path)
            except OSError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                if sig is not None:
                    entries[rel] = (path, None)
                    touched.add(rel)
                continue
            if st.st_nlink > 1:
                linked.add(rel)
            now_sig = signature_of(st)
            if sig != now_sig:
                entries[rel] = (path, now_sig)
                touched.add(rel)
        racy = self._racy(linked, now)
        touched |= racy | (self.racy_linked & entries.keys())
        self.racy_linked = racy
        self.linked = linked
        if touched:
            self.listing = _updated(self.listing or [], entries, touched)
            if self.dirty is not None:
                self.dirty |= touched

    def _racy(self, rels: set[str], now: int, entries: dict[str, tuple[str, Sig | None]] | None = None) -> set[str]:
        entries = self.entries if entries is None else entries
        return {rel for rel in rels if (sig := entries[rel][1]) is None or sig.stamp >= now - RACY_NS}

    def _apply(self, changes: dict[str, set[str]]) -> set[str] | None:
        """Update the entries from the feed's names; the rels touched, or None when only a full
        listing will do."""
        memory = os.path.join(self.root, "memory")
        dirty = self.dirty
        touched: set[str] = set()
        for folder, names in changes.items():
            if folder == self._config_folder:
                continue  # config.toml: the lint's key carries the config's fingerprint
            if folder == self.root:
                return None  # memory/ or knowledge/ created, removed or replaced
            if folder == memory:
                if names - {"summary.md"}:
                    return None  # a record folder created, removed or replaced
                rels = [(SUMMARY_REL, os.path.join(memory, "summary.md"))]
            else:
                prefix = self._prefixes.get(folder)
                if prefix is None:
                    return None
                rels = [(prefix + name, os.path.join(folder, name)) for name in names if is_record_name(name)]
            for rel, path in rels:
                if os.path.lexists(path):
                    self.entries[rel] = (path, file_signature(path))
                else:
                    self.entries.pop(rel, None)
                touched.add(rel)
                if dirty is not None:
                    dirty.add(rel)
        return touched


def _updated(listing: Listing, entries: dict[str, tuple[str, Sig | None]], touched: set[str]) -> Listing:
    """``listing`` (sorted by rel) with the ``touched`` rels as ``entries`` now has them: a new
    list, since an earlier lint may still hold the old one (its deferred save hashes it)."""
    listing = list(listing)
    for rel in sorted(touched):
        at = bisect_left(listing, rel, key=_rel_of)
        present = at < len(listing) and listing[at][0] == rel
        if rel in entries:
            path, sig = entries[rel]
            if present:
                listing[at] = (rel, path, sig)
            else:
                listing.insert(at, (rel, path, sig))
        elif present:
            del listing[at]
    return listing


def _rel_of(item: tuple[str, str, Sig | None]) -> str:
    return item[0]


def state_for(ws: Workspace) -> KeptState | None:
    """The kept state of ``ws`` (made on first use); None when not enabled."""
    if not _enabled:
        return None
    root = str(ws.root)
    state = _states.pop(root, None)
    if state is None:
        state = KeptState(root)
        while len(_states) >= WORKSPACES_KEPT:
            oldest = next(iter(_states))
            dropped = _states.pop(oldest)
            if dropped.pending_save is not None:
                dropped.pending_save()
            dropped.close()
    _states[root] = state  # most recently used last
    return state


def remember(state: KeptState, memory: Memory) -> None:
    """The lint that listed ``state`` last finished with ``memory``: later events are dirt on it."""
    state.memory = memory
    state.dirty = set()


def forget(state: KeptState) -> None:
    state.memory = None
    state.dirty = None


def flush() -> bool:
    """Write what lints deferred (the per-file cache files). True when something was written."""
    wrote = False
    for state in list(_states.values()):
        if state.pending_save is not None:
            save, state.pending_save = state.pending_save, None
            save()
            wrote = True
    return wrote


def has_pending() -> bool:
    return any(state.pending_save is not None for state in _states.values())
