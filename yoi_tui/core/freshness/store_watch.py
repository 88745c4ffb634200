"""The app's question — did the record files change since I last looked? — answered without looking at every one.

The app used to find outside edits by ``lstat``-ing every record file on a 2 s timer: 11-16 % of a
core, forever, at 50,000 records. ``StoreWatcher`` asks the operating system instead and answers
``should_poll()``: True only after something changed under ``memory/`` or ``knowledge/``. The app
keeps its timer, and on a tick with nothing reported it does nothing. Behind it, one of three
backends of the same change feed:

* **inotify** (Linux): a subscription to the workspace's ``record_feed`` — the one the command
  server's answers rely on, with every record file's inode watched, so a write through a hard link
  from outside is seen too. Draining it is a non-blocking read (~20 µs). The feed is opened on a
  thread (listing and watching 50,000 records takes ~0.4 s; the first paint must not wait);
* **watchfiles** elsewhere (FSEvents, ReadDirectoryChangesW; its Rust core waits in the kernel on
  a daemon thread);
* **polling**: when neither can watch (a record folder does not exist yet, watchfiles missing,
  the watch ended), ``should_poll()`` is always True — the old behaviour, never lost.

Every ``SAFETY_TICKS``-th call polls anyway, in case a notification was lost (a network file
system, a record feed out of inotify watches, which then reports folder events only).
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Any

from ..store.workspace import Workspace

log = logging.getLogger(__name__)

SAFETY_TICKS = 30  # with the app's 2 s tick: one full poll a minute even when nothing was reported


def _default_backend() -> str:
    if sys.platform.startswith("linux"):
        from .change_feed import _load_libc

        if _load_libc() is not None:
            return "inotify"
    return "watchfiles"


class StoreWatcher:
    """Watches a workspace's record files; ``should_poll`` is the app's question.

    ``backend``: "inotify", "watchfiles" or None (the platform's best)."""

    def __init__(self, ws: Workspace, backend: str | None = None) -> None:
        self.ws = ws
        self.backend = backend or _default_backend()
        self._changed = threading.Event()
        self._changed.set()  # the first question is answered by a poll: nothing is known yet
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._subscription: Any = None  # record_feed.Subscription, once its feed is open
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
        if self.backend == "inotify":
            self._thread = threading.Thread(target=self._open_feed, name="yoi-watch", daemon=True)
            self.reason = "opening the record feed"
            self._thread.start()
            return True
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

    def _open_feed(self) -> None:
        from .record_feed import subscribe

        subscription = subscribe(self.ws.root)
        subscription.changes()  # opens the feed: every change after this is reported
        if self._stop.is_set():
            return
        if not subscription.watching:
            self.reason = "the record folders cannot be watched here; polling"
            return
        self._subscription = subscription
        self._changed.set()  # what changed while the feed opened: one poll tells
        self.active = True
        self.reason = "watching (inotify)"

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
        subscription = self._subscription if self.active else None
        news = subscription.changes() != {} if subscription is not None else False
        if not self.active or self._ticks % SAFETY_TICKS == 0:
            self._changed.clear()
            return True
        if self._changed.is_set():
            self._changed.clear()
            return True
        return news

    def stop(self) -> None:
        self._stop.set()
        self.active = False
        self._subscription = None
        if self._thread is not None:
            self._thread.join(timeout=6)
