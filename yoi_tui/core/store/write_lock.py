"""The per-workspace write lock: yoi's own writers never interleave a check with another's write.

A writer that compares a file with the text it read and then replaces it (the app's save, a run's
apply or revert) holds ``write_lock(root)`` — ``.yoi/state/locks/write.lock`` — around that check
and the rename, one file at a time, so it is held for milliseconds. Two yoi writers therefore see
each other's bytes: the second one's check fails and it reports a conflict instead of overwriting.

Programs outside yoi do not take it; ``changeset`` detects their writes separately (see
``replace_checked`` there). A workspace without ``.yoi/`` (or one whose ``.yoi/state/`` cannot be
written) is written without the lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import YoiError

WRITE_LOCK_TIMEOUT = 15.0
WRITE_LOCK_NAME = "write.lock"


def write_lock_path(root: Path) -> Path:
    return Path(root) / ".yoi" / "state" / "locks" / WRITE_LOCK_NAME


def workspace_root_of(path: Path) -> Path | None:
    """The nearest folder above ``path`` holding ``.yoi/`` (None: not inside a workspace)."""
    for folder in Path(path).absolute().parents:
        if (folder / ".yoi").is_dir():
            return folder
    return None


@contextmanager
def write_lock(root: Path | None) -> Iterator[None]:
    """Hold the write lock of the workspace at ``root`` (nothing to hold for None)."""
    if root is None or not (Path(root) / ".yoi").is_dir():
        yield
        return
    path = write_lock_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        yield  # a read-only workspace: nothing else can write it through yoi either
        return
    import filelock  # lazily: start-up time of commands that never write

    taken = filelock.FileLock(str(path), timeout=WRITE_LOCK_TIMEOUT)
    try:
        taken.acquire()
    except filelock.Timeout as exc:
        raise YoiError(f"another yoi write held the workspace write lock for {WRITE_LOCK_TIMEOUT:.0f}s; "
                       "not written — try again", path=path) from exc
    except OSError as exc:  # a folder where the lock file belongs, a full disk, permissions
        raise YoiError(f"cannot take the workspace write lock: {exc.strerror or exc}; not written",
                       path=path) from exc
    try:
        yield
    finally:
        taken.release()


__all__ = ["WRITE_LOCK_TIMEOUT", "workspace_root_of", "write_lock", "write_lock_path"]
