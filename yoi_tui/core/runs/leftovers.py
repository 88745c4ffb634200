"""What a killed writer leaves behind, and the sweep every recovery runs.

A SIGKILL can interrupt a run between creating a temporary file and renaming it (a
``.yoi-tmp-<pid>-…`` file next to a record, a staging file, a journal or the lock) and before it
removes its scratch copy. Both carry the pid of the process that made them, so ``sweep(ws)`` —
called by every recovery (Phase 2, GC, revert) — removes exactly those whose process is gone.

Scratch copies live under ``.yoi/state/scratch/<pid>-<random>/`` (never in the system temp
folder, where nobody would find them): inside the workspace, ignored by git with the rest of
``.yoi/state/``, on the same file system as the records (so they can be hard-linked, see
``changeset.Scratch``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..store.atomic import STALE_TEMP_SECONDS, pid_alive, sweep_temp_files
from ..store.workspace import Workspace

SCRATCH_FOLDER = "scratch"
_SCRATCH_RE = re.compile(r"^(\d+)-")


def scratch_root(ws: Workspace) -> Path:
    return ws.state_dir / SCRATCH_FOLDER


def new_scratch_dir(ws: Workspace) -> Path:
    """A fresh, empty scratch folder named after this process; the system temp folder only when
    ``.yoi/state/`` cannot be written (a read-only workspace still allows a dry run)."""
    prefix = f"{os.getpid()}-"
    try:
        root = scratch_root(ws)
        root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    except OSError:
        return Path(tempfile.mkdtemp(prefix=f"yoi-scratch-{prefix}"))


def remove_tree(folder: Path) -> None:
    """Remove a scratch folder, restoring write bits on its folders first (locked copies inside)."""
    for current, _dirs, _files in os.walk(folder):
        with contextlib.suppress(OSError):
            os.chmod(current, 0o755)
    shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Swept:
    temp_files: list[Path] = field(default_factory=list)
    scratch_dirs: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.temp_files or self.scratch_dirs)


def _scratch_leftover(entry: os.DirEntry[str], now: float) -> bool:
    match = _SCRATCH_RE.match(entry.name)
    if match is None:
        return False
    pid = int(match.group(1))
    if pid != os.getpid() and not pid_alive(pid):
        return True
    try:
        # A live pid with a day-old scratch copy is a reused pid, not a run still thinking.
        return now - entry.stat(follow_symlinks=False).st_mtime > 24 * STALE_TEMP_SECONDS
    except OSError:
        return False


def sweep(ws: Workspace) -> Swept:
    """Remove the temp files and scratch copies of processes that are gone (see module docstring)."""
    import time

    swept = Swept()
    now = time.time()
    try:
        entries = list(os.scandir(scratch_root(ws)))
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and _scratch_leftover(entry, now):
            remove_tree(Path(entry.path))
            swept.scratch_dirs.append(Path(entry.path))
    swept.temp_files = sweep_temp_files([ws.memory_dir, ws.knowledge_dir, ws.yoi_dir])
    return swept


__all__ = ["SCRATCH_FOLDER", "Swept", "new_scratch_dir", "remove_tree", "scratch_root", "sweep"]
