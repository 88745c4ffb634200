"""Atomic file writes and the lock check every writer performs.

A record is never half-written: text goes to a temporary file in the same folder, is fsynced,
then ``os.replace``-d over the target, and the folder is fsynced so the rename survives a crash.

Every temporary file yoi creates — records, staging, journals, the lock, caches — is named by
``temp_prefix`` (``.yoi-tmp-<pid>-<name>.``…``.tmp``): one recognisable prefix that ``yoi init``'s
``.gitignore`` pattern (``TEMP_GITIGNORE``) ignores and ``sweep_temp_files`` removes once the pid
that made it is gone (a SIGKILL between create and rename leaves one behind; nothing else does).
A file whose write bits are removed is *locked* (SPEC 3): ``os.replace`` would silently replace it
(only the folder's permission matters to a rename, and root bypasses ``access()``), so the mode
bits are checked here, by hand, before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from pathlib import Path

from ..crashpoints import crashpoint
from ..errors import RecordLockedError, YoiError

_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH

TEMP_PREFIX = ".yoi-tmp-"
TEMP_GITIGNORE = ".yoi-tmp-*"
"""The ``.gitignore`` pattern matching every temporary file yoi creates."""
STALE_TEMP_SECONDS = 3600.0
"""A temp file this old is a leftover even if its pid is alive again (pid reuse): writes take ms."""
_NAME_RE = re.compile(r"^\.yoi-tmp-(\d+)-")
# Names older versions gave their temp files: ".<name>.<mkstemp's 8 characters>.tmp" and the lint
# cache's ".<name>.<pid>.tmp". Nothing else starting with "." is ever swept.
_LEGACY_RE = re.compile(r"^\.[^/]+\.(?:[a-z0-9_]{8}|\d+)\.tmp$")


def temp_prefix(name: str) -> str:
    """The prefix of a temporary file standing in for ``name`` (this process's pid in it)."""
    return f"{TEMP_PREFIX}{os.getpid()}-{name}."


_temp_serial = 0


def make_temp(folder: Path, name: str) -> tuple[int, Path]:
    """Create a temporary file in ``folder`` for target ``name``: (open fd, path).

    Created as ``tempfile.mkstemp`` does (``O_EXCL``, no symlink followed, mode 0600), but named by
    the pid (in the prefix), the time and a counter instead of random letters: ``tempfile`` and the
    ``random`` module it loads cost a hook (``yoi hook``, on every prompt) ~2 ms of imports."""
    global _temp_serial
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        _temp_serial += 1
        path = Path(folder) / f"{temp_prefix(name)}{time.time_ns():x}{_temp_serial}.tmp"
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:  # a leftover of a dead process that had this pid: another name
            continue


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists on this host and is not a zombie."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    # A killed child that nobody reaped yet still answers kill(0); on Linux /proc tells us it is dead.
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    state = stat_line.rsplit(")", 1)[-1].split()[:1]
    return not state or state[0] not in ("Z", "X")


def is_leftover(path: Path, *, now: float | None = None) -> bool:
    """True for a yoi temporary file whose writer is gone (or that is too old to be in flight).

    Files named by older versions (``.<name>.<random>.tmp``) carry no pid; they count after
    ``STALE_TEMP_SECONDS``.
    """
    name = path.name
    match = _NAME_RE.match(name)
    if match is None and not _LEGACY_RE.match(name):
        return False
    try:
        age = (now if now is not None else time.time()) - path.lstat().st_mtime
    except OSError:
        return False
    if age > STALE_TEMP_SECONDS:
        return True
    return match is not None and int(match.group(1)) != os.getpid() and not pid_alive(int(match.group(1)))


def sweep_temp_files(folders: list[Path]) -> list[Path]:
    """Remove leftover temporary files (``is_leftover``) under ``folders``; returns what was removed.

    Symlinked folders are not followed (a link out of the workspace is never swept).
    """
    removed: list[Path] = []
    stack = [Path(f) for f in folders]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False) and is_leftover(Path(entry.path)):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            except OSError:
                continue
    return removed


def is_locked(path: Path | str) -> bool:
    """True when ``path`` exists and has no write bit set for anyone."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not mode & _WRITE_BITS


def ensure_writable(path: Path) -> None:
    """Raise ``RecordLockedError`` when ``path`` is locked (read-only by its mode bits)."""
    if is_locked(path):
        raise RecordLockedError(
            "file is read-only (locked against automated rewriting); "
            "restore its write bit (chmod u+w) to allow changes",
            path=path,
        )


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in ``folder`` durable (best effort where folders cannot be fsynced)."""
    # Not every platform/filesystem lets a directory be opened or fsynced; the data is already
    # durable in the file, so a failure here only weakens rename durability.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically, keeping the existing file mode.

    ``mode`` is used for a new file (default 0o644 minus nothing: records are meant to be shared).
    Raises ``RecordLockedError`` for a locked file and ``YoiError`` for an OS failure.
    """
    path = Path(path)
    ensure_writable(path)
    try:
        existing_mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        existing_mode = None
    target_mode = existing_mode if existing_mode is not None else (mode if mode is not None else 0o644)
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = make_temp(folder, path.name)
    except OSError as exc:
        raise YoiError(f"cannot write: {exc.strerror or exc}", path=path) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, target_mode)
        crashpoint("write:renaming")  # the one step where a kill leaves a temp file behind
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise YoiError(f"cannot write: {exc.strerror or exc}", path=path) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(folder)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` as UTF-8 atomically (newlines are written exactly as given)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)
