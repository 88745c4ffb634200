"""How a writer run (Phase 2, GC) starts: the consolidation lock, then recovery of interrupted runs.

``start_run(ws, purpose, dry_run=)`` is a context manager:

1. unless ``dry_run``, it takes the consolidation lock (``core.runs.consolidation_lock``; a live holder raises
   ``LockBusy``, a stale one is taken over and reported in ``RunStart.takeover``);
2. it passes the crash point ``<purpose>:locked``; with the lock held it finishes every run a
   crash interrupted while applying (``changeset.recover_pending``), removes the temp files and
   scratch copies killed runs left (``leftovers.sweep``) and passes ``<purpose>:recovered``, so a
   run never starts on a half-applied workspace; a broken pending journal is quarantined instead
   of rolled forward and reported (a warning, and ``RunStart.quarantined``);
3. if the body raises, the lock is released. On a normal exit the body has decided: released the
   lock, or handed it on (to a ``PreparedRound``/``PreparedGc`` that releases it after applying).

A dry run takes no lock and finishes nothing; ``has_pending_runs`` tells it whether to say so
(``PENDING_NOTE``). The keepalive is started by each runner at its own moment (Phase 2 only once the
consumed staging is written into the lock).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..crashpoints import crashpoint
from ..notices import warn
from ..store.workspace import Workspace
from .changeset import ApplyResult, recover_pending, runs_dir
from .consolidation_lock import ConsolidationLock, Takeover
from .leftovers import Swept, sweep

PENDING_NOTE = "an interrupted run is pending; the next run without --dry-run finishes it first"


def has_pending_runs(ws: Workspace) -> bool:
    """A run a crash interrupted while applying is waiting to be finished."""
    try:
        return any(runs_dir(ws).glob("*.pending.json"))
    except OSError:
        return False


@dataclass
class RunStart:
    """The lock (None in a dry run) and the interrupted runs finished before this one."""

    lock: ConsolidationLock | None
    recovered: list[ApplyResult] = field(default_factory=list)
    swept: Swept = field(default_factory=Swept)
    quarantined: list[str] = field(default_factory=list)  # broken pending journals moved aside, and why

    @property
    def run_id(self) -> str | None:
        return self.lock.run_id if self.lock is not None else None

    @property
    def takeover(self) -> Takeover | None:
        """A stale lock this run took over (to be reported), if any."""
        return self.lock.takeover if self.lock is not None else None


@contextmanager
def start_run(ws: Workspace, purpose: str, *, dry_run: bool) -> Iterator[RunStart]:
    """Lock (unless ``dry_run``) and recover; releases the lock if the body raises (module docstring)."""
    lock = None if dry_run else ConsolidationLock(ws, purpose=purpose).acquire()
    try:
        crashpoint(f"{purpose}:locked")
        start = RunStart(lock)
        if lock is not None:
            start.recovered = recover_pending(ws, start.quarantined)
            for note in start.quarantined:  # on stderr whatever the run says next (JSON, nothing to do)
                warn("yoi.runs", "warning: %s", note)
            start.swept = sweep(ws)
            crashpoint(f"{purpose}:recovered")
        yield start
    except BaseException:
        if lock is not None:
            lock.release()
        raise


__all__ = ["PENDING_NOTE", "RunStart", "has_pending_runs", "start_run"]
