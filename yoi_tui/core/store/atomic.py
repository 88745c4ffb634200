"""Atomic file writes and the lock check every writer performs.

A record is never half-written: text goes to a temporary file in the same folder, is fsynced,
then ``os.replace``-d over the target, and the folder is fsynced so the rename survives a crash.
A file whose write bits are removed is *locked* (SPEC 3): ``os.replace`` would silently replace it
(only the folder's permission matters to a rename, and root bypasses ``access()``), so the mode
bits are checked here, by hand, before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from ..errors import RecordLockedError, YoiError

_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def is_locked(path: Path) -> bool:
    """True when ``path`` exists and has no write bit set for anyone."""
    try:
        mode = path.stat().st_mode
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
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise YoiError(f"cannot write: {exc.strerror or exc}", path=path) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, target_mode)
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
