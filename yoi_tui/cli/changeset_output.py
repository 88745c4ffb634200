"""What ``yoi phase2`` and ``yoi gc`` print alike about a change-set run.

Both commands print their own summary line and per-file or per-operation lines; the rest is the
same and lives here: the diff of a dry run, conflicts, the footer (interrupted runs finished first,
a stale lock taken over, the notes, how to revert) and the answer when another run holds the lock.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from .common import EXIT_FINDINGS, print_json

if TYPE_CHECKING:  # pragma: no cover
    from ..core.runs.changeset import ChangeSet
    from ..core.runs.consolidation_lock import LockBusy

OP_LETTER = {"add": "A", "modify": "M", "delete": "D"}


def write_diff(changeset: ChangeSet | None) -> None:
    """The unified diff of a (dry-run) change set on stdout; nothing for none or an empty one."""
    if changeset is not None:
        write = sys.stdout.write
        for change in changeset.changes:  # one file at a time: GC's dry run at 50,000 records diffs 16 MB
            write(change.diff())


def print_conflicts(data: dict[str, Any], out: TextIO) -> None:
    """The files left alone because someone edited them during the run (``to_json()`` data)."""
    for item in data.get("conflicts", []):
        print(f"  conflict: {item['path']} — {item['reason']}", file=out)


def print_footer(data: dict[str, Any], *, out: TextIO, notes: bool = True) -> None:
    """After a run's own lines: interrupted runs it finished first, a stale lock it took over (a
    warning on stderr), its notes (when ``notes``), and how to revert it when it applied files."""
    for recovered in data.get("recovered", []):
        print(f"  finished interrupted run {recovered['run_id']} ({len(recovered['applied'])} file(s))", file=out)
    if data.get("takeover"):
        print(f"  warning: took over a stale lock ({data['takeover']['reason']})", file=sys.stderr)
    if notes:
        for note in data.get("notes", []):
            print(f"  note: {note}", file=out)
    if data["status"] == "applied" and data.get("applied"):
        print(f"  revert with: yoi revert {data['run_id']}", file=out)


def print_lock_busy(exc: LockBusy, *, as_json: bool, before: dict[str, Any] | None = None,
                    after: dict[str, Any] | None = None) -> int:
    """Another run holds the lock: say so (the JSON: ``before``'s keys, status ``busy``, message,
    holder, ``after``'s keys, exit) and return exit status 1."""
    if as_json:
        print_json({**(before or {}), "status": "busy", "message": str(exc), "holder": exc.info.to_json(),
                    **(after or {}), "exit": EXIT_FINDINGS})
    else:
        print(f"yoi: {exc}", file=sys.stderr)
    return EXIT_FINDINGS


__all__ = ["OP_LETTER", "print_conflicts", "print_footer", "print_lock_busy", "write_diff"]
