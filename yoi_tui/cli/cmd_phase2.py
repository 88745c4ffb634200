"""``yoi phase2``: consolidate staging into records (SPEC 9) — apply, or show the diff with --dry-run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .changeset_output import OP_LETTER, print_conflicts, print_footer, write_diff
from .common import json_parent
from .review_args import (
    add_review_arguments,
    print_held_back,
    print_review_decisions,
    review_paths,
    run_reviewed,
)
from .team_notice import tell_staging_notice

if TYPE_CHECKING:  # pragma: no cover
    from ..core.phase2 import Phase2Report
    from ..core.store.workspace import Workspace


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "phase2", parents=[*parents, json_parent()],
        help="consolidate staging into decisions, requests, knowledge and the summary",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Phase 2: fold the staging files in memory/_staging/ into records. Runs when the "
                    "staging is over the trigger ([phase2] staging_files / staging_bytes) or with --flush. "
                    "The engine works on a scratch copy; the result is a change set applied file by file "
                    "(a file edited by someone meanwhile is left alone and reported as a conflict), "
                    "journalled in .yoi/state/runs/ so `yoi revert RUN` can undo it. Only then are the "
                    "consumed staging files deleted. One run at a time: a second one exits 1 at once.",
        epilog="examples:\n"
               "  yoi phase2 --dry-run             # show the unified diff of a flush, change nothing\n"
               "  yoi phase2 --flush               # apply; prints the run id\n"
               "  yoi phase2 --engine llm --json   # the llm engine (llm.consolidation_model)\n"
               "  yoi revert RUN                   # undo a run\n"
               "  yoi phase2 --flush --reject memory/requests/x.md --defer memory/decisions/y.md\n"
               "                                   # the review from the command line; the rest is applied\n"
               "  yoi phase2 --rejections          # what earlier reviews rejected (held back from every run)\n"
               "  yoi phase2 --withdraw ID         # withdraw a rejection: its items are proposed again\n"
               "exit status: 0 done (or nothing to do); 1 a conflict, staging kept back (the linter refused "
               "part of it), the llm engine aborted, or another run holds the lock; 2 usage or environment "
               "error.")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the unified diff of the change set; write nothing (under the trigger: what "
                             "--flush would do)")
    parser.add_argument("--flush", action="store_true", help="run even when the staging is under the trigger")
    parser.add_argument("--engine", choices=("rules", "llm"), help="engine (default: [phase2] engine, 'rules')")
    add_review_arguments(parser, what="PATH", command="phase2")
    parser.set_defaults(handler=run)


def _print_round(data: dict[str, Any], *, dry_run: bool) -> None:
    out = sys.stderr if dry_run else sys.stdout
    status = data["status"]
    for rel, why in (data.get("unreadable_staging") or {}).items():
        print(f"phase2: broken staging {rel}: {why}", file=sys.stderr)
    if status == "nothing-to-do":
        print(f"phase2: {data.get('message') or 'nothing to do'}", file=out)
    elif status == "aborted":
        print(f"phase2: aborted: {data.get('message')}", file=sys.stderr)
    elif dry_run:
        counts = data.get("counts", {})
        print(f"phase2 (dry run, {data['engine']}): would add {counts.get('add', 0)}, modify "
              f"{counts.get('modify', 0)}, delete {counts.get('delete', 0)} file(s) from "
              f"{len(data.get('consumed', []))} staging file(s); nothing was written", file=out)
    else:
        counts = data.get("applied_counts", {})
        kept = data.get("staging_kept", {})
        print(f"phase2 run {data['run_id']} ({data['engine']}): added {counts.get('add', 0)}, modified "
              f"{counts.get('modify', 0)}, deleted {counts.get('delete', 0)}; staging consumed "
              f"{len(data.get('staging_deleted', []))}, kept {len(kept)}; conflicts {len(data.get('conflicts', []))}",
              file=out)
        for item in data.get("applied", []):
            print(f"  {OP_LETTER[item['op']]} {item['path']}", file=out)
        print_conflicts(data, out)
        for staging_id, why in kept.items():
            print(f"  kept staging {staging_id}: {why}", file=out)
        print_review_decisions(data, out, remembered="their staging items are not proposed again "
                               "(`yoi phase2 --rejections`)")
    print_held_back(data.get("held_back") or [], out)
    print_footer(data, out=out, notes=status in ("applied", "dry-run"))


def run(args: argparse.Namespace) -> int:
    def start(ws: Workspace) -> Callable[[], Phase2Report]:
        from ..core.phase2.runner import run_phase2

        tell_staging_notice(ws)
        flush = args.flush
        if args.dry_run and not flush:
            # A dry run shows what a run would do: under the trigger, what --flush would do (and says so).
            from ..core.phase2.runner import staging_pressure

            pressure = staging_pressure(ws)
            if not pressure.over:
                print(f"phase2: under the trigger ({pressure.describe()}): a plain `yoi phase2` waits; "
                      "this dry run shows what `yoi phase2 --flush` would do", file=sys.stderr)
            flush = True
        return lambda: run_phase2(ws, engine=args.engine, dry_run=args.dry_run, flush=flush,
                                  reject=review_paths(ws, args.reject), defer=review_paths(ws, args.defer))

    def show(report: Phase2Report) -> None:
        for round_report in report.rounds:
            if args.dry_run:
                write_diff(round_report.changeset)
            _print_round(round_report.to_json(), dry_run=args.dry_run)

    return run_reviewed(args, "phase2", "Phase 2", start, busy={"before": {"rounds": []}},
                        as_json=lambda report: report.to_json(diff=args.dry_run), show=show)
