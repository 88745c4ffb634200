"""Settle the record conflicts git stops at without asking the merge driver: modify/delete.

Git runs a merge driver only to merge two versions' *content*. When one side deleted a record and
the other changed it (a person deleted the record another clone's GC merged into; ``git revert``
of a Phase 2 run whose records a later run changed; a rebase or cherry-pick across such a
deletion), git stops with ``CONFLICT (modify/delete)`` or ``(rename/delete)``, leaves the changed
version in the work tree, and no attribute or driver can take that decision (docs/team.md). This
module takes it by the driver's own rule (``merge.merge_deleted``): the deletion removes what the
deleting side saw, what the other side added since survives — so no source is lost and no stub
is left pointing at nothing. It runs from ``yoi resolve`` and, while git is stopped in a merge,
revert, cherry-pick or rebase, from every yoi command that writes and every hook.

Only index entries of records (paths ``merge.kind_from_path`` knows) with a base version and
exactly one side are touched; content conflicts the driver left (exit 1) and everything else stay
for a person. Git runs as a subprocess (``ls-files -u``, ``cat-file``, ``add``, ``rm``), only when
``operation_in_progress`` found git stopped, which costs a few ``stat`` calls.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .git_driver import operation_in_progress
from .workspace import Workspace


@dataclass
class Settled:
    """What ``settle`` did: records kept with what one side added, deletions that stand, and the
    conflicts left for a person (path → why)."""

    kept: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)
    next_step: str | None = None  # the git command that finishes the stopped operation

    @property
    def changed(self) -> bool:
        return bool(self.kept or self.deleted)

    def to_json(self) -> dict[str, object]:
        return {"kept": self.kept, "deleted": self.deleted, "left": self.left, "next_step": self.next_step}


def _git(root: Path, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], input=data, capture_output=True, check=False,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None


def _unmerged(root: Path) -> dict[str, dict[int, tuple[str, str]]]:
    """Unmerged index entries under ``root``: path (relative to ``root``) → stage → (mode, blob)."""
    done = _git(root, "ls-files", "-u", "-z", "--", ".")
    entries: dict[str, dict[int, tuple[str, str]]] = {}
    if done is None or done.returncode != 0:
        return entries
    for item in done.stdout.split(b"\0"):
        if not item:
            continue
        info, _tab, name = item.partition(b"\t")
        parts = info.split()
        if len(parts) != 3:
            continue
        mode, blob, stage = (p.decode("ascii", "replace") for p in parts)
        entries.setdefault(os.fsdecode(name), {})[int(stage)] = (mode, blob)
    return entries


def _blob(root: Path, blob: str) -> str | None:
    done = _git(root, "cat-file", "blob", blob)
    if done is None or done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def settle(ws: Workspace) -> Settled:
    """Settle every modify/delete (and rename/delete) of a record left unmerged in ``ws``."""
    from .atomic import atomic_write_text
    from .merge import kind_from_path, merge_deleted  # (the record logic only once git has stopped)
    from .reader import drop_bom

    result = Settled(next_step=operation_in_progress(str(ws.root)))
    for rel, stages in sorted(_unmerged(ws.root).items()):
        if kind_from_path(rel) is None:
            continue
        sides = [s for s in (2, 3) if s in stages]
        if 1 not in stages or len(sides) != 1:
            if len(sides) == 2:
                result.left[rel] = "both sides changed it and the merge driver left conflict markers"
            continue
        mode, blob = stages[sides[0]]
        base, modified = _blob(ws.root, stages[1][1]), _blob(ws.root, blob)
        if not mode.startswith("100") or base is None or modified is None:
            result.left[rel] = "deleted on one side, changed on the other, and not a UTF-8 file"
            continue
        merged = merge_deleted(drop_bom(base), drop_bom(modified), path=rel)
        if merged is None:
            result.left[rel] = "deleted on one side, changed on the other, and not a readable record"
            continue
        path = ws.root / rel
        try:
            if merged.text is None:
                done = _git(ws.root, "rm", "-q", "--force", "--", rel)
                if done is not None and done.returncode == 0:
                    result.deleted.append(rel)
                    continue
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(path, merged.text)
                done = _git(ws.root, "add", "--", rel)
                if done is not None and done.returncode == 0:
                    result.kept.append(rel)
                    continue
        except OSError as exc:
            result.left[rel] = f"cannot write: {exc.strerror or exc}"
            continue
        result.left[rel] = "git would not record the settled file: " + (
            done.stderr.decode("utf-8", "replace").strip() if done is not None else "git did not run")
    return result


__all__ = ["Settled", "settle"]
