"""``yoi merge-driver %O %A %B %P``: the git merge driver for records (registered by ``yoi init``).

Git calls it with the base, ours and theirs versions in temporary files and the record's path; the
merged text is written over the ours file (``%A``). Exit 0 is a clean merge; exit 1 leaves the file
in conflict (standard markers around what a person must decide). The record logic is
``core.store.merge``; a side that is not a readable record falls back to ``git merge-file``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK

LABELS = ("ours", "base", "theirs")


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "merge-driver", parents=parents, help="git merge driver for records (git runs it; see docs/team.md)",
        description="Merge one record three ways, as git's merge driver: sources unioned and capped, earliest "
                    "created_at, latest updated_at, status open < resolved < replaced, the body merged by section; "
                    "what a person must decide is left between conflict markers. `yoi init` registers it with "
                    "`merge.yoi.driver = yoi merge-driver %O %A %B %P`.",
        epilog="exit status: 0 merged cleanly; 1 conflicts left in the file for a person.")
    parser.add_argument("base", help="%%O: the merge base (empty for add/add)")
    parser.add_argument("ours", help="%%A: our version; the result is written here")
    parser.add_argument("theirs", help="%%B: their version")
    parser.add_argument("path", nargs="?", default="", help="%%P: the record's path in the repository")
    parser.set_defaults(handler=run)


def _read(path: str) -> tuple[str | None, bool]:
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None, False
    from ..core.store.reader import split_bom

    data, bom = split_bom(data)
    try:
        return data.decode("utf-8"), bom
    except UnicodeDecodeError:
        return None, bom


def _sources_max(record_path: str) -> int:
    """``records.sources_max`` of the workspace holding the record (the default when it cannot be read)."""
    from ..core.errors import YoiError
    from ..core.store.config import Config
    from ..core.store.workspace import find_workspace

    default = Config().records.sources_max
    if not record_path:
        return default
    try:
        return find_workspace(start=Path(record_path).resolve().parent).config.records.sources_max
    except (YoiError, OSError, ValueError):
        return default


def _git_merge_file(base: str, ours: str, theirs: str) -> int:
    """Git's own line merge (for a side that is not a readable record)."""
    try:
        done = subprocess.run(["git", "merge-file", "-L", LABELS[0], "-L", LABELS[1], "-L", LABELS[2],
                               ours, base, theirs], check=False)
    except OSError as exc:
        print(f"yoi merge-driver: cannot run git merge-file: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK if done.returncode == 0 else EXIT_FINDINGS


def run(args: argparse.Namespace) -> int:
    from ..core.store.merge import merge_records

    where = args.path or args.ours
    base, _ = _read(args.base)
    ours, bom = _read(args.ours)
    theirs, _ = _read(args.theirs)
    if base is None or ours is None or theirs is None:
        print(f"yoi merge-driver: {where}: a version is not UTF-8 text; using git's line merge", file=sys.stderr)
        return _git_merge_file(args.base, args.ours, args.theirs)
    result = merge_records(base, ours, theirs, path=args.path or "memory/decisions/record.md",
                           sources_max=_sources_max(args.path), labels=LABELS)
    if result is None:
        print(f"yoi merge-driver: {where}: not a readable record on every side; using git's line merge",
              file=sys.stderr)
        return _git_merge_file(args.base, args.ours, args.theirs)
    Path(args.ours).write_bytes((b"\xef\xbb\xbf" if bom else b"") + result.text.encode("utf-8"))
    for conflict in result.conflicts:
        print(f"yoi merge-driver: {where}: {conflict}", file=sys.stderr)
    return EXIT_OK if result.clean else EXIT_FINDINGS
