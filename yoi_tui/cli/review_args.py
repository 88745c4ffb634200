"""The review from the command line, alike for ``yoi phase2`` and ``yoi gc`` (SPEC 14).

``--reject X… --defer X…`` judge the proposed change set as the app's review screen does (Phase 2
names files as ``--dry-run`` shows them, GC names operation ids of ``--dry-run --json``), and the
rest is applied. ``--rejections`` lists what earlier reviews rejected and ``--withdraw ID…`` takes
a rejection back (``core.runs.rejections``). Also what both print about proposals held back, and
``run_reviewed``: the one body of both commands (the rejection store, the run with its progress,
another run holding the lock, JSON or text out).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from .changeset_output import print_lock_busy
from .common import EXIT_FINDINGS, EXIT_OK, print_json, workspace_from

if TYPE_CHECKING:  # pragma: no cover
    from ..core.store.workspace import Workspace


class _Report(Protocol):
    @property
    def exit_code(self) -> int: ...


def run_reviewed(args: argparse.Namespace, command: str, label: str,
                 start: Callable[[Workspace], Callable[[], _Report]], *, busy: dict[str, Any],
                 as_json: Callable[[Any], Any], show: Callable[[Any], None]) -> int:
    """``yoi phase2`` / ``yoi gc``: ``--rejections``/``--withdraw`` (``review_store_command``), or the run
    ``start(ws)`` returns (its steps shown as ``label``), its report printed as JSON (``as_json``) or
    text (``show``); another run holding the lock is ``print_lock_busy`` with ``busy``'s keys."""
    from ..core.runs.consolidation_lock import LockBusy
    from .progress import steps, wanted

    ws = workspace_from(args)
    if args.withdraw or args.rejections:
        return review_store_command(args, ws, command)
    run = start(ws)
    try:
        with steps(label, None, wanted(args)):
            report = run()
    except LockBusy as exc:
        return print_lock_busy(exc, as_json=args.json, **busy)
    if args.json:
        print_json(as_json(report))
        return report.exit_code
    show(report)
    return report.exit_code


def add_review_arguments(parser: argparse.ArgumentParser, *, what: str, command: str) -> None:
    item = "file" if what == "PATH" else "operation"
    parser.add_argument("--reject", nargs="+", action="extend", default=[], metavar=what,
                        help=f"reject this proposed {item} (remembered: not proposed again"
                             + (" from the same staging items)" if command == "phase2"
                                else " while its files are unchanged)"))
    parser.add_argument("--defer", nargs="+", action="extend", default=[], metavar=what,
                        help=f"defer this proposed {item}: not applied now, proposed again next run")
    parser.add_argument("--rejections", action="store_true",
                        help="list the rejections earlier reviews recorded, and exit")
    parser.add_argument("--withdraw", nargs="+", action="extend", default=[], metavar="ID",
                        help=f"withdraw a rejection (its id, or the {'path' if what == 'PATH' else 'operation id'} "
                             "it was rejected under): proposed again from the next run")


def review_paths(ws: Workspace, given: list[str]) -> set[str]:
    """Paths as the user typed them, as the change set names them (workspace-relative, ``/``)."""
    found: set[str] = set()
    root = Path(os.path.realpath(ws.root))
    for raw in given:
        path = Path(raw)
        if not path.is_absolute() and path.parts[:1] in (("memory",), ("knowledge",)):
            found.add(path.as_posix())  # as --dry-run shows it
            continue
        absolute = Path(os.path.realpath(path if path.is_absolute() else Path.cwd() / path))
        try:
            found.add(absolute.relative_to(root).as_posix())
        except ValueError:
            found.add(path.as_posix())  # not under the workspace: named as given (and refused as unknown)
    return found


def review_store_command(args: argparse.Namespace, ws: Workspace, command: str) -> int:
    """``--rejections`` / ``--withdraw``: list or take back remembered rejections."""
    from ..core.errors import YoiError
    from ..core.runs.rejections import RejectionStore

    store = RejectionStore.phase2(ws) if command == "phase2" else RejectionStore.gc(ws)
    if args.withdraw:
        withdrawn, unknown = store.withdraw(args.withdraw)
        if args.json:
            print_json({"withdrawn": [r.to_json() for r in withdrawn], "unknown": unknown,
                        "exit": EXIT_FINDINGS if unknown else EXIT_OK})
        else:
            for rejection in withdrawn:
                print(f"withdrew rejection {rejection.id}: {rejection.shown_as} is proposed again from the next run")
            for name in unknown:
                print(f"yoi: no rejection {name!r} (see `yoi {command} --rejections`)", file=sys.stderr)
        if unknown and not withdrawn:
            raise YoiError(f"no rejection named {', '.join(unknown)} (see `yoi {command} --rejections`)")
        return EXIT_FINDINGS if unknown else EXIT_OK
    rejections = store.load()
    if args.json:
        print_json({"rejections": [r.to_json() for r in rejections], "problems": store.problems, "exit": EXIT_OK})
        return EXIT_OK
    if not rejections:
        print(f"{command}: no rejection remembered")
    for rejection in rejections:
        data = rejection.data
        if command == "phase2":
            items = data.get("items") or []
            titles = "; ".join(str(i.get("item")) for i in items if isinstance(i, dict) and i.get("item"))
            print(f"  {rejection.id}  {data.get('path')}  ({len(items)} staging item(s): {titles})")
        else:
            print(f"  {rejection.id}  {data.get('operation')}  [{','.join(data.get('categories') or [])}] "
                  f"while {len(data.get('digests') or {})} file(s) are unchanged")
    for problem in store.problems:
        print(f"  note: {problem}", file=sys.stderr)
    return EXIT_OK


def print_held_back(held: list[dict[str, Any]], out: TextIO) -> None:
    """What an earlier rejection kept out of this run (Phase 2 items or GC operations)."""
    if not held:
        return
    print("held back by an earlier rejection:", file=out)
    for item in held:
        if "operation" in item:
            print(f"  {item['operation']}  {item['reason']}", file=out)
        else:
            print(f"  {item.get('path')}  ({item['section'][:-1]} “{item['item']}” of staging {item['staging']}): "
                  f"{item['reason']}", file=out)


def print_review_decisions(data: dict[str, Any], out: TextIO, *, remembered: str) -> None:
    """The files a person rejected or deferred in this run, and how many rejections are kept
    (``remembered``: what a kept rejection means for this pipeline, after the count)."""
    for path in data.get("rejected", []):
        print(f"  rejected {path}", file=out)
    for path in data.get("deferred", []):
        print(f"  deferred {path}", file=out)
    if data.get("remembered"):
        print(f"  {len(data['remembered'])} rejection(s) remembered: {remembered}", file=out)


__all__ = ["add_review_arguments", "print_held_back", "print_review_decisions", "review_paths",
           "review_store_command", "run_reviewed"]
