"""Knowing when the record files changed, without looking at every one of them every 2 seconds.

The app used to find outside edits by ``lstat``-ing every record file on a 2 s timer: 11-16 % of a
core, forever, at 50,000 records. ``StoreWatcher`` asks the operating system instead (inotify,
FSEvents, ReadDirectoryChangesW through ``watchfiles``, whose Rust core waits in the kernel) and
answers ``should_poll()``: True only after something changed under ``memory/`` or ``knowledge/``.
The app keeps its timer, and on a tick with nothing reported it does nothing.

Polling stays the fallback, never lost: when ``watchfiles`` is missing, a record folder does not
exist yet, or the watch thread dies, ``should_poll()`` is always True (the old behaviour); and
every ``SAFETY_TICKS``-th call polls anyway, in case a notification was lost (an overflowing
inotify queue, a network file system).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from .store.workspace import Workspace

log = logging.getLogger(__name__)

SAFETY_TICKS = 30  # with the app's 2 s tick: one full poll a minute even when nothing was reported


class StoreWatcher:
    """Watches a workspace's record folders in a daemon thread; ``should_poll`` is the app's question."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._changed = threading.Event()
        self._changed.set()  # the first question is answered by a poll: nothing is known yet
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticks = 0
        self.active = False  # True while notifications are trusted
        self.reason = "not started"

    def start(self) -> bool:
        """Start watching; False (and polling forever) when notifications are not available."""
        folders = [self.ws.memory_dir, self.ws.knowledge_dir]
        missing = [f for f in folders if not f.is_dir()]
        if missing:
            self.reason = f"{missing[0]} does not exist"
            return False
        try:
            import watchfiles  # noqa: F401  (checked here: the thread must not be the first to find it missing)
        except ImportError:
            self.reason = "watchfiles is not installed"
            return False
        self._thread = threading.Thread(target=self._run, args=(folders,), name="yoi-watch", daemon=True)
        self.active = True
        self.reason = "watching"
        self._thread.start()
        return True

    def _run(self, folders: list[Path]) -> None:
        import watchfiles

        try:
            for _changes in watchfiles.watch(*folders, watch_filter=None, debounce=100, step=50,
                                             stop_event=self._stop, raise_interrupt=False,
                                             ignore_permission_denied=True):
                self._changed.set()
        except Exception as exc:  # noqa: BLE001 - any failure means: go back to polling
            log.warning("file watching stopped (%s); polling instead", exc)
            self.reason = f"stopped: {exc}"
        finally:
            if not self._stop.is_set():
                self.active = False  # the watch ended by itself (a folder removed, an error): poll
                self._changed.set()

    def should_poll(self) -> bool:
        """True when the record files may have changed since the last True (consumes the news)."""
        self._ticks += 1
        if not self.active or self._ticks % SAFETY_TICKS == 0:
            self._changed.clear()
            return True
        if self._changed.is_set():
            self._changed.clear()
            return True
        return False

    def stop(self) -> None:
        self._stop.set()
        self.active = False
        if self._thread is not None:
            self._thread.join(timeout=6)
