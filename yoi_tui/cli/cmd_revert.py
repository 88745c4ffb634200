"""``yoi revert RUN``: undo an applied Phase 2 / GC run from its journal in ``.yoi/state/runs/``."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, json_parent, print_json, workspace_from


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "revert", parents=[*parents, json_parent()],
        help="undo an applied Phase 2 or GC run (exact bytes), or list runs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Restore every file an applied run wrote to its exact previous bytes (files it created "
                    "are removed) and put back the staging files it consumed. A file changed since the run "
                    "is refused and left as it is. Reverting again is harmless.",
        epilog="examples:\n"
               "  yoi revert --list            # runs journalled in .yoi/state/runs/, each file and its state\n"
               "  yoi revert 0193a4b2          # a run id or a unique prefix of one\n"
               "  yoi revert last\n"
               "exit status: 0 reverted, 1 some file was refused (changed since) or another run holds the "
               "lock, 2 usage error (unknown run).")
    parser.add_argument("run_ref", nargs="?", metavar="RUN", help="run id, unique prefix, or 'last'")
    parser.add_argument("--list", action="store_true", help="list journalled runs instead")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.errors import YoiError
    from ..core.runs.changeset import list_runs, revert
    from ..core.runs.consolidation_lock import LockBusy

    ws = workspace_from(args)
    if args.list or not args.run_ref:
        if not args.list:
            raise YoiError("name the run to revert (a run id, a unique prefix, or 'last'); see --list")
        runs = list_runs(ws)
        if args.json:
            print_json([r.to_json() for r in runs])
        elif not runs:
            print("no journalled runs", file=sys.stderr)
        for summary in runs if not args.json else []:
            state = summary.status + (" (interrupted)" if summary.pending else "")
            counts = ", ".join(f"{n} {what}" for what, n in summary.counts().items()) or "no files"
            print(f"{summary.run_id}  {summary.purpose:<6} {summary.engine:<5} {state:<18} "
                  f"{summary.applied_at or summary.created_at}  {counts}")
            for change in summary.changes:  # what reverting it would touch, and what it left alone
                mark = {"add": "A", "modify": "M", "delete": "D"}.get(change["op"], "?")
                print(f"    {mark} {change['path']}  {change['state']}")
        return EXIT_OK
    try:
        result = revert(ws, args.run_ref)
    except LockBusy as exc:
        print(f"yoi: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.json:
        print_json(result.to_json())
    else:
        verb = {"nothing-to-revert": "nothing to revert in run", "partially-reverted": "partially reverted run"}
        print(f"{verb.get(result.status, 'reverted run')} {result.run_id}: {len(result.restored)} file(s) restored, "
              f"{len(result.inputs_restored)} staging file(s) put back"
              + (f", {len(result.already)} already as before" if result.already else "")
              + (f"; {len(result.refused)} refused" if result.refused else "")
              + (f"; {len(result.inputs_kept)} staging file(s) left consumed (their records were not reverted "
                 "here)" if result.inputs_kept else ""))
        for path in result.restored:
            label = "removed " if path in result.removed else "merged  " if path in result.merged else "restored"
            print(f"  {label} {path}" + (" (the run's change taken out; later edits kept)"
                                        if path in result.merged else ""))
        for path, reason in result.refused:
            print(f"  refused {path}: {reason}")
    return EXIT_OK if result.ok else EXIT_USAGE if result.write_failed else EXIT_FINDINGS
