"""One change feed per workspace for a long-running process: which record sources changed since I last asked?

The command server and the MCP server answer search, lint and the resident context many times.
Each used to learn what changed on its own — a folder feed of its own, and, because a write
through another name of a record's inode raises no event in the record's folder (issue 27), an
``lstat`` of every record on every call: O(records), ~0.5 s a SessionStart at 100,000 records.

This feed watches, once per workspace and process:

* the folders — the three record folders (every entry), ``memory/`` (``summary.md`` and the record
  folders' names), ``.yoi/`` (``config.toml``) and the workspace root (``memory``, ``knowledge``,
  ``.yoi``) — with ``change_feed.ChangeFeed``, which also checks on every call that each folder
  path still names the folder watched and that the mount table did not change;
* **the inode of every regular ``*.md`` record, ``summary.md`` and ``config.toml``**
  (``ChangeFeed.watch_file``): a write, truncation, chmod, link or unlink through any name — a
  hard link from outside the workspace included — is an event for that file's name. A name's
  folder event makes the feed watch whatever the name holds now.

So when the feed *vouches for contents* (``Subscription.vouches_for_contents``), "no event since
my last call" is exact, and a consumer keeps its last answer without listing a folder or
``lstat``-ing a file: the served SessionStart and MCP search cost the same at 10,000 and 100,000
records. Entries the kernel cannot vouch for — a symlink (its target may change unseen) or
anything but a regular file in a record folder — are reported as changed on every call.

Each consumer holds its own ``Subscription`` (the served search, the kept lint state, the kept
resident context): each call drains the kernel queue into every subscription's pending names and
returns the caller's. ``None`` means "anything may have changed" — the first call after a queue
overflow, a folder replaced or mounted over, a mount-table change, a record folder created or
removed (the feed reopens itself then: the next calls are exact again) — and the caller checks
everything, as a one-shot call does.

**The watch budget.** Each watched inode is a kernel watch counted against the user's
``fs.inotify.max_user_watches`` (shared with editors and other tools; 8,192 on old kernels, scaled
with memory since Linux 5.11) and costs kernel memory (measured: 10–30 MB of slab for 100,000). Files are watched while
the process stays within ``max_user_watches`` less a reserve for others (an eighth, at least
8,192); ``YOI_FILE_WATCHES`` sets the budget (0: never watch files). The limit is the user's, the
budget this process's: another process (the MCP server beside the command server) may hold watches
too, and the kernel refuses one with ``ENOSPC``. Beyond the budget, or refused, the feed gives its
file watches back, still reports folder events but no longer vouches for contents, and the
consumers ``lstat`` every record per call, as before — exact, not flat. At most ``FEEDS_KEPT``
workspaces are watched at once.
"""

from __future__ import annotations

import os
import stat
import threading
import weakref

from ..store.kinds import RECORD_FOLDERS
from ..store.record_listing import is_record_name
from .change_feed import ChangeFeed

FEEDS_KEPT = 8  # workspaces watched at once (each an inotify instance: 128 per user by default)
_RECORD_FOLDERS = tuple(tuple(prefix.strip("/").split("/")) for prefix, _kind in RECORD_FOLDERS)
_MAX_PENDING = 200_000  # names kept for one subscription between its calls; beyond: "anything changed"

_lock = threading.RLock()  # the MCP server runs tool calls in threads
_feeds: dict[str, RecordFeed] = {}
_budget: int | None = None
_watched_files = 0  # file watches held by every open feed of this process


def file_watch_budget() -> int:
    """How many file inodes this process may watch (``YOI_FILE_WATCHES``, else from the limit)."""
    global _budget
    if _budget is None:
        configured = os.environ.get("YOI_FILE_WATCHES", "").strip()
        if configured:
            try:
                _budget = max(0, int(configured))
            except ValueError:
                _budget = 0
        else:
            try:
                with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as handle:
                    limit = int(handle.read().strip())
            except (OSError, ValueError):
                limit = 8192
            _budget = max(0, limit - max(8192, limit // 8))
    return _budget


class Subscription:
    """One consumer's view of a workspace's feed: the names changed since its last call."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._feed: RecordFeed | None = None
        self._pending: dict[str, set[str]] = {}
        self._count = 0
        self._lost = True  # nothing seen yet: the first call answers "anything may have changed"

    @property
    def watching(self) -> bool:
        """True while a kernel feed stands behind this subscription (after its first ``changes()``)."""
        feed = self._feed
        return feed is not None and not feed.closed

    @property
    def vouches_for_contents(self) -> bool:
        """True while every record file's inode is watched: no event means no file changed."""
        feed = self._feed
        return feed is not None and not feed.closed and feed.vouches_for_contents

    def changes(self) -> dict[str, set[str]] | None:
        """Entry names (by folder path, as ``ChangeFeed.changes`` reports them) with an event since
        this subscription's last call, plus every entry the kernel cannot vouch for; None when
        anything may have changed (the caller checks everything)."""
        with _lock:
            feed = self._feed
            if feed is None or feed.closed:
                feed = _feed_for(self.root)
                self._feed = feed
                if feed is None:
                    return None
                feed.subscribers.add(self)
                self._lost = True
            feed.drain()
            if self._lost:
                self._lost = False
                self._pending, self._count = {}, 0
                return None
            pending, self._pending, self._count = self._pending, {}, 0
            for folder, names in feed.unvouched.items():
                pending.setdefault(folder, set()).update(names)
            return pending

    def _add(self, folder: str, names: set[str]) -> None:
        if self._lost:
            return
        self._count += len(names)
        if self._count > _MAX_PENDING:
            self._lost, self._pending = True, {}
            return
        self._pending.setdefault(folder, set()).update(names)

    def _lose(self) -> None:
        self._lost, self._pending, self._count = True, {}, 0


def subscribe(root: str | os.PathLike[str]) -> Subscription:
    """A new subscription to ``root``'s feed (opened on first use). Its first ``changes()`` is
    None: the caller does its full check then, and every change after that call is reported."""
    return Subscription(str(root))


def _feed_for(root: str) -> RecordFeed | None:
    feed = _feeds.pop(root, None)
    if feed is None or feed.closed:
        feed = RecordFeed(root)
        if not feed.open():
            return None
        while len(_feeds) >= FEEDS_KEPT:
            _feeds.pop(next(iter(_feeds))).close()
    _feeds[root] = feed  # most recently used last
    return feed


def close_all() -> None:
    """Close every feed (the subscriptions then answer None and reopen on their next call)."""
    with _lock:
        for feed in _feeds.values():
            feed.close()
        _feeds.clear()


class RecordFeed:
    """The kernel feed of one workspace's record sources, shared by its subscriptions."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.memory = os.path.join(root, "memory")
        self.config_folder = os.path.join(root, ".yoi")
        self.record_folders = [os.path.join(root, *parts) for parts in _RECORD_FOLDERS]
        self.subscribers: weakref.WeakSet[Subscription] = weakref.WeakSet()
        self.unvouched: dict[str, set[str]] = {}  # entries reported changed on every call
        self.vouches_for_contents = False
        self.closed = True
        self._feed: ChangeFeed | None = None
        self._files = 0

    def open(self) -> bool:
        """Watch the folders, then every source file's inode. False: cannot watch (no inotify,
        a remote file system, a folder that is a symlink or cannot be watched)."""
        self.close()
        folders: list[tuple[str, frozenset[str] | None]] = [
            (self.root, frozenset({"memory", "knowledge", ".yoi"}))]
        if _is_folder(self.memory):
            folders.append((self.memory, frozenset({"summary.md", "decisions", "requests"})))
        elif os.path.lexists(self.memory):
            return False
        if _is_folder(self.config_folder):
            folders.append((self.config_folder, frozenset({"config.toml"})))
        present: list[str] = []
        for folder in self.record_folders:
            if _is_folder(folder):
                folders.append((folder, None))
                present.append(folder)
            elif os.path.lexists(folder):
                return False  # a symlinked or odd record folder: the callers check it themselves
        feed = ChangeFeed.open(folders)
        if feed is None:
            return False
        feed.changes()  # from an empty queue: what follows sees everything before it
        self._feed = feed
        self.closed = False
        self.unvouched = {}
        singles = [(folder, name) for folder, name in ((self.memory, "summary.md"), (self.config_folder, "config.toml"))
                   if os.path.lexists(os.path.join(folder, name))]
        listed: list[tuple[str, list[str]]] = []
        count = len(singles)
        for folder in present:
            regular: list[str] = []
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        name = entry.name
                        if not is_record_name(name):
                            continue
                        # d_type, no system call: a symlink or anything but a regular file is
                        # reported on every call (a race with a replacement: its folder event)
                        if entry.is_file(follow_symlinks=False):
                            regular.append(name)
                        else:
                            self.unvouched.setdefault(folder, set()).add(name)
            except OSError:
                self.close()
                return False
            listed.append((folder, regular))
            count += len(regular)
        self.vouches_for_contents = count <= file_watch_budget() - _watched_files
        if not self.vouches_for_contents:
            return True
        for folder, name in singles:
            self._watch(folder, name)
        for folder, names in listed:
            failed = feed.watch_new_files(folder, names)
            if any(os.path.lexists(os.path.join(folder, name)) for name in failed):
                self._stop_vouching()  # out of watches (ENOSPC: another process holds them)
                break
        self._account()
        return True

    def file_count(self) -> int:
        """How many file inodes this feed watches."""
        return self._feed.file_watches if self._feed is not None else 0

    def _watch(self, folder: str, name: str) -> None:
        """Watch what ``folder/name`` holds now; what cannot be vouched for goes to ``unvouched``."""
        feed = self._feed
        assert feed is not None
        path = os.path.join(folder, name)
        regular: bool | None
        try:
            regular = stat.S_ISREG(os.lstat(path).st_mode)
        except FileNotFoundError:
            regular = None  # gone: its folder's event said so
        except OSError:
            regular = False  # cannot be looked at: reported on every call
        if not regular:
            feed.forget_file(folder, name)
        elif not feed.is_watched(folder, name) and _watched_files + feed.file_watches - self._files >= file_watch_budget():
            self._stop_vouching()  # out of the budget: the callers lstat again
            return
        elif not feed.watch_file(folder, name) and os.path.lexists(path):
            self._stop_vouching()  # out of watches (ENOSPC: another process holds them)
            return
        if regular is False:  # a symlink, a FIFO, anything but a regular file
            self.unvouched.setdefault(folder, set()).add(name)
        elif (names := self.unvouched.get(folder)) is not None:
            names.discard(name)
            if not names:
                del self.unvouched[folder]
        self._account()

    def _stop_vouching(self) -> None:
        """Folder events only from now on (until reopened): the file watches go back to the
        kernel for others, since half a set vouches for nothing."""
        self.vouches_for_contents = False
        if self._feed is not None:
            self._feed.forget_all_files()
        self._account()

    def _account(self) -> None:
        """Bring the process-wide count of file watches up to date with this feed's."""
        global _watched_files
        count = self._feed.file_watches if self._feed is not None else 0
        _watched_files += count - self._files
        self._files = count

    def drain(self) -> None:
        """Move the kernel's queue into every subscription; reopen when the feed lost track."""
        feed = self._feed
        if feed is None:
            return
        changes = feed.changes()
        self._account()  # a deleted file's watch went with its inode
        if changes is not None:
            for folder in (self.root, self.memory):
                names = changes.get(folder)
                if names and (folder == self.root or names - {"summary.md"}):
                    changes = None  # a record folder (or memory/, knowledge/, .yoi/) came or went
                    break
        if changes is None:
            for subscriber in list(self.subscribers):
                subscriber._lose()
            if not self.open():
                self.close()
            return
        for folder, names in changes.items():
            if self.vouches_for_contents:
                for name in names:
                    if self._is_source(folder, name):
                        self._watch(folder, name)
            for subscriber in list(self.subscribers):
                subscriber._add(folder, names)

    def _is_source(self, folder: str, name: str) -> bool:
        """A file whose inode the feed watches: a record folder's entry, summary.md, config.toml."""
        if folder == self.memory:
            return name == "summary.md"
        if folder == self.config_folder:
            return name == "config.toml"
        return folder != self.root

    def close(self) -> None:
        if self._feed is not None:
            self._feed.close()
            self._account()
            self._feed = None
        self.closed = True
        self.vouches_for_contents = False


def _is_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
