"""Has anything changed in these folders since I last looked? Answered by the kernel (inotify).

A long-running process (the MCP server, the app) searches many times; bringing the search index up
to date by ``lstat``-ing every record (``search_index.refresh``) costs ~180 ms at 50,000 records.
An inotify instance receives an event for every change to an entry of a watched folder — a write,
a rename, a deletion, a new file, an attribute change — and the kernel queues it *inside the
system call that made the change*. So when another program's write has returned before a search
starts, its event is already waiting: draining the queue without blocking is an exact "nothing
changed since the last drain", not a guess that could answer before a notification arrives.

What it cannot see, and where the caller must fall back to ``lstat``-ing everything: changes made
through a shared writable ``mmap`` (no editor does that), file systems whose changes come from
elsewhere (NFS, SMB, 9p, FUSE such as sshfs: ``open`` checks each folder's file system type with
``statfs`` and returns None on these), a queue overflow (reported, and treated as "changed"),
a watched folder that was removed or moved (the feed then always says "changed"), systems without
inotify (``open`` returns None). Linux only, through ``ctypes`` — nothing to install.

Two more things no folder event tells, checked on every ``changes()`` so that a feed only ever
vouches for what it really watches (issue 27):

* **the folder at each path is still the one watched**: its device and inode are compared with
  those it had when the watch was added (one ``lstat`` per folder, ~1 µs). A workspace moved away
  and replaced by a copy (``mv ws ws.old && cp -a ws.old ws``), a folder replaced by a rename of
  its parent, or a mount over a watched folder: the watch follows the old inode, silently;
* **no mount came or went at, under or above a watched folder** (``/proc/self/mountinfo`` is
  pollable: a mount or unmount anywhere in this mount namespace raises ``POLLPRI`` on it, inside the
  system call; one ``poll`` per call): a mount appearing or disappearing over a watched folder or
  one of its files hides or reveals files without any event. When the table changed, the feed reads
  it again and compares it with the table it last saw: a mount elsewhere (Docker hosts mount and
  unmount all the time) leaves the feed complete; one at a watched folder, inside it or on a folder
  above it makes the caller check everything (reopening a feed that watches 100,000 record inodes
  costs ~0.8 s of CPU, so unrelated mounts must not trigger it).

A write through another name of the same inode (a hard link outside the watched folders), and a
link made to or removed from it, raise no event in them either. ``watch_file`` closes that gap for
one file: a watch on the file's inode itself reports every write, truncation, attribute or link
count change through *any* name, as an event for the file's name in its folder (so a caller reads
file and folder events alike). ``record_feed`` watches every record file this way.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
_WATCH = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
          | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
# On a file's own inode: what a write through any of its names, a link made or removed, a chmod, or
# its end raise (IN_DONT_FOLLOW: a symlink's own inode, never its target's).
_FILE_WATCH = IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF | IN_DONT_FOLLOW
_LOST = IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF  # the watch no longer tells everything
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)

# statfs f_type values of file systems whose files may change without this kernel seeing it
REMOTE_FILE_SYSTEMS = frozenset({
    0x6969,  # NFS
    0x517B, 0xFF534D42, 0xFE534D42,  # SMB, CIFS, SMB2
    0x65735546,  # FUSE (sshfs, rclone, virtiofs, ...)
    0x01021997,  # 9p (WSL2's Windows drives, some VMs and containers)
    0x00C36400, 0x5346414F, 0x73757245, 0x564C,  # Ceph, AFS, Coda, NCP
    0x01161970, 0x7461636F, 0x0BD00BD0, 0x47504653,  # GFS2, OCFS2, Lustre, GPFS
})

_libc: ctypes.CDLL | None = None


def file_system_type(folder: str) -> int | None:
    """``statfs(folder).f_type`` (the first field of ``struct statfs``), None when unknown."""
    libc = _load_libc()
    if libc is None:
        return None
    buffer = ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
    if libc.statfs(os.fsencode(folder), buffer) != 0:
        return None
    return ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF


def _load_libc() -> ctypes.CDLL | None:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
            _libc.inotify_init1.argtypes = [ctypes.c_int]
            _libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
            _libc.statfs.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        except (OSError, AttributeError):
            _libc = None
    return _libc


_mounts: tuple[int, object] | None = None  # (fd of /proc/self/mountinfo, its poll object)
_mount_generation = 0


def mount_generation() -> int:
    """A number that grows whenever this mount namespace's mount table changed (-1: cannot tell,
    which a feed takes as "anything may have changed" on every call)."""
    global _mounts, _mount_generation
    import select

    if _mounts is None:
        try:
            fd = os.open("/proc/self/mountinfo", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return -1
        poller = select.poll()
        poller.register(fd, select.POLLPRI | select.POLLERR)
        _mounts = (fd, poller)
    try:
        if _mounts[1].poll(0):  # type: ignore[attr-defined]  # a select.poll (typed object: select is imported on first use)
            _mount_generation += 1  # the kernel re-arms it: the next change is reported again
    except OSError:
        return -1
    return _mount_generation


def mount_table() -> frozenset[tuple[bytes, str]] | None:
    """Every mount of this namespace as ``(mount id, mount point)`` (None: unreadable). A mount
    replaced at the same point has a new id, so it differs too."""
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    table: set[tuple[bytes, str]] = set()
    for line in data.splitlines():
        fields = line.split(b" ", 5)
        if len(fields) >= 5:
            table.add((fields[0], _unescape_mount_point(fields[4])))
    return frozenset(table)


def _unescape_mount_point(raw: bytes) -> str:
    """mountinfo writes space, tab, newline and backslash in a mount point as ``\\ooo``."""
    if b"\\" not in raw:
        return os.fsdecode(raw)
    out = bytearray()
    index = 0
    while index < len(raw):
        chunk = raw[index + 1: index + 4]
        if raw[index] == 0x5C and len(chunk) == 3 and all(0x30 <= c <= 0x37 for c in chunk):
            out.append(int(chunk, 8))
            index += 4
        else:
            out.append(raw[index])
            index += 1
    return os.fsdecode(bytes(out))


def _touches(mount_point: str, folder: str) -> bool:
    """A mount at ``mount_point`` can change what ``folder`` (a real path) holds: at it, inside it
    (a file or subfolder mounted over) or above it."""
    above = mount_point.rstrip("/") + "/"
    return mount_point == folder or mount_point.startswith(folder + "/") or folder.startswith(above)


def _identity(folder: str) -> tuple[int, int] | None:
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class ChangeFeed:
    """One inotify instance watching some folders; ``changed()`` drains it without blocking."""

    def __init__(self, fd: int, names: dict[int, frozenset[str] | None], folders: dict[int, str],
                 identities: dict[str, tuple[int, int]] | None = None, mounts: int | None = None) -> None:
        self._fd = fd
        self._names = names  # watch descriptor -> the entry names that matter there (None: all)
        self._folders = folders  # watch descriptor -> the folder as given to open
        self._identities = identities or {}  # folder -> (st_dev, st_ino) of what is watched
        self._mounts = mounts  # mount_generation() when the table below was read (None: not checked)
        self._lost = mounts is not None and mounts < 0
        self._mount_table = mount_table() if mounts is not None and mounts >= 0 else None
        self._real_folders = [os.path.realpath(folder) for folder in self._identities]
        self._events: dict[str, set[str]] = {}
        self._files: dict[int, set[tuple[str, str]]] = {}  # file watch -> the (folder, name)s of its inode
        self._file_watches: dict[tuple[str, str], int] = {}  # (folder, name) -> its file watch

    @classmethod
    def open(cls, folders: list[tuple[str, frozenset[str] | None]], *, mounts: bool = True) -> ChangeFeed | None:
        """Watch ``(folder, names)`` pairs (names: only events for these entries count; None: any).

        ``mounts=False``: a change of the mount table does not count (for a feed whose every folder
        is watched, such as the package's: a mount at one of them is seen by the folder check).

        None when inotify is not available, a folder cannot be watched (missing, no permission,
        out of watches) or lies on a file system changed from elsewhere (``REMOTE_FILE_SYSTEMS``):
        the caller then checks the files itself."""
        libc = _load_libc()
        if libc is None:
            return None
        if any(file_system_type(folder) in REMOTE_FILE_SYSTEMS for folder, _wanted in folders):
            return None
        generation = mount_generation() if mounts else None  # before the watches: a mount meanwhile counts
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return None
        names: dict[int, frozenset[str] | None] = {}
        paths: dict[int, str] = {}
        identities: dict[str, tuple[int, int]] = {}
        for folder, wanted in folders:
            before = _identity(folder)
            wd = libc.inotify_add_watch(fd, os.fsencode(folder), _WATCH)
            if wd < 0 or before is None or _identity(folder) != before:  # replaced while watched
                os.close(fd)
                return None
            names[wd] = wanted
            paths[wd] = folder
            identities[folder] = before
        return cls(fd, names, paths, identities, generation)

    def changed(self) -> bool:
        """True when an event that matters arrived since the last call (or the feed is no longer
        complete). Every event queued so far is consumed."""
        return self.changes() != {}

    def changes(self) -> dict[str, set[str]] | None:
        """The entry names that had an event since the last call, by watched folder ({} when
        none); None when the feed is no longer complete (the caller checks everything). Every
        event queued so far is consumed."""
        if not self._lost and ((self._mounts is not None and not self._mounts_unchanged_here())
                               or any(_identity(folder) != identity for folder, identity in self._identities.items())):
            self._lost = True  # a mount, or a folder path now naming another folder: no event says so
        try:
            while True:
                data = os.read(self._fd, 65536)
                if not data:
                    break
                self._scan(data)
        except BlockingIOError:
            pass
        except OSError:
            self._lost = True
        if self._lost:
            self._events = {}
            return None
        events, self._events = self._events, {}
        return events

    def _mounts_unchanged_here(self) -> bool:
        """No mount came or went where it could change a watched folder since the last call."""
        generation = mount_generation()
        if generation == self._mounts:
            return True
        table = mount_table() if generation >= 0 else None  # read after the poll re-armed it
        if table is None or self._mount_table is None:
            return False
        for _mount_id, point in table ^ self._mount_table:
            if any(_touches(point, folder) for folder in self._real_folders):
                return False
        self._mount_table, self._mounts = table, generation
        return True

    def _scan(self, data: bytes) -> None:
        offset = 0
        size = _HEADER.size
        while offset + size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
            name = os.fsdecode(data[offset + size: offset + size + length].split(b"\0", 1)[0])
            offset += size + length
            holders = self._files.get(wd)
            if holders is not None:  # a file's own inode: an event for each of its names
                for folder, entry in holders:
                    self._events.setdefault(folder, set()).add(entry)
                if mask & IN_IGNORED:  # the inode is gone (its folder's event says so too)
                    for key in self._files.pop(wd):
                        self._file_watches.pop(key, None)
                continue
            if mask & IN_Q_OVERFLOW:
                self._lost = True
                continue
            if wd not in self._folders:
                continue  # a file watch already removed (``forget_file``)
            if mask & _LOST:
                self._lost = True
                continue
            wanted = self._names.get(wd)
            if wanted is None or name in wanted:
                self._events.setdefault(self._folders[wd], set()).add(name)

    @property
    def file_watches(self) -> int:
        """How many inodes ``watch_file`` watches now (each counts against ``max_user_watches``)."""
        return len(self._files)

    def is_watched(self, folder: str, name: str) -> bool:
        return (folder, name) in self._file_watches

    def watch_file(self, folder: str, name: str) -> bool:
        """Watch the inode ``folder/name`` names now as well: an event for ``name`` in ``folder``
        whenever that inode is written, truncated, linked, unlinked or changes its attributes
        through any name. Call it again after the name's folder event (the name may now name
        another inode); the old inode's watch goes when no name of ours holds it. False: not
        watched (gone, out of watches — ``ENOSPC`` against ``max_user_watches`` — or closed)."""
        libc = _load_libc()
        key = (folder, name)
        if libc is None or self._fd < 0:
            return False
        wd = libc.inotify_add_watch(self._fd, os.fsencode(os.path.join(folder, name)), _FILE_WATCH)
        old = self._file_watches.get(key)
        if wd == old:
            return True
        if old is not None:
            self.forget_file(folder, name)
        if wd < 0:
            return False
        if wd in self._folders:  # a record name that is a watched folder: never expected; do not mix
            return False
        self._files.setdefault(wd, set()).add(key)
        self._file_watches[key] = wd
        return True

    def watch_new_files(self, folder: str, names: list[str]) -> list[str]:
        """``watch_file`` for many names of one folder not watched yet (a feed's first listing),
        without its per-call overhead; the names that could not be watched."""
        libc = _load_libc()
        if libc is None or self._fd < 0:
            return list(names)
        add, fd, mask = libc.inotify_add_watch, self._fd, _FILE_WATCH
        prefix = os.fsencode(folder) + b"/"
        files, file_watches, folders = self._files, self._file_watches, self._folders
        failed: list[str] = []
        for name in names:
            wd = add(fd, prefix + os.fsencode(name), mask)
            if wd < 0 or wd in folders:
                failed.append(name)
                continue
            holders = files.get(wd)
            if holders is None:
                files[wd] = {(folder, name)}
            else:
                holders.add((folder, name))
            file_watches[(folder, name)] = wd
        return failed

    def forget_file(self, folder: str, name: str) -> None:
        """Stop watching the inode ``folder/name`` was watched for (kept while another name holds it)."""
        wd = self._file_watches.pop((folder, name), None)
        if wd is None:
            return
        holders = self._files.get(wd)
        if holders is not None:
            holders.discard((folder, name))
            if not holders:
                del self._files[wd]
                libc = _load_libc()
                if libc is not None and self._fd >= 0:
                    libc.inotify_rm_watch(self._fd, wd)  # its IN_IGNORED then names no watch of ours

    def forget_all_files(self) -> None:
        """Stop watching every file inode (the folders stay watched)."""
        for folder, name in list(self._file_watches):
            self.forget_file(folder, name)

    def close(self) -> None:
        self._files.clear()
        self._file_watches.clear()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order
        try:
            self.close()
        except OSError:
            pass
