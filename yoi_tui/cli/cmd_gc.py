"""``yoi gc``: periodic re-evaluation of the records (SPEC 10) — apply, or show the diff with --dry-run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from .changeset_output import OP_LETTER, print_conflicts, print_footer, write_diff
from .common import json_parent
from .review_args import add_review_arguments, print_held_back, print_review_decisions, run_reviewed

if TYPE_CHECKING:  # pragma: no cover
    from ..core.gc import GcReport
    from ..core.store.workspace import Workspace

UNUSED_SHOWN = 10


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "gc", parents=[*parents, json_parent()],
        help="re-evaluate the records: drop superseded ones, merge near-duplicates, trim sources",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="GC: re-evaluate every record and propose operations, each with its categories "
                    "(outdated, superseded, unused, noisy) and a one-line reason. The rules engine drops "
                    "replaced records nothing refers to (and unused requests that are resolved or old), "
                    "merges near-duplicate slugs without losing a line, trims sources beyond "
                    "[records] sources_max, and reports over-cap bodies, unused records and records naming "
                    "paths that no longer exist (it never rewrites prose; --engine llm runs the rules, then "
                    "has llm.consolidation_model rewrite or split those records). Protected (frequently used) "
                    "records are never dropped; read-only (locked) files are never touched; the summary "
                    "and memory/workflow/ are never changed. The result is a change set applied like "
                    "Phase 2's: file by file, journalled, revertible with `yoi revert RUN`. GC takes the "
                    "same lock as Phase 2: while one runs, the other exits 1 at once.",
        epilog="examples:\n"
               "  yoi gc --dry-run           # the unified diff and the findings; change nothing\n"
               "  yoi gc                     # apply; prints the run id\n"
               "  yoi gc --json              # machine output: operations, files, findings\n"
               "  yoi gc --engine llm        # also rewrite outdated / over-cap records with a model\n"
               "  yoi revert RUN             # undo a GC run\n"
               "  yoi gc --reject drop:memory/requests/x.md --defer merge:knowledge/y.md\n"
               "                             # the review from the command line (ids: --dry-run --json)\n"
               "  yoi gc --rejections        # rejected operations, held back while their files are unchanged\n"
               "  yoi gc --withdraw ID       # withdraw a rejection\n"
               "exit status: 0 done (findings that are only reported do not count); 1 the linter refused "
               "a change, a conflict with an edit made meanwhile, an aborted llm run, or another run holds the "
               "lock; 2 usage "
               "or environment error (e.g. --engine llm without the model's API key).")
    parser.add_argument("--dry-run", action="store_true", help="print the unified diff and the findings; write nothing")
    parser.add_argument("--engine", choices=("rules", "llm"), help="engine (default: [gc] engine, 'rules')")
    add_review_arguments(parser, what="ID", command="gc")
    parser.set_defaults(handler=run)


def _operation_line(item: dict[str, Any]) -> str:
    categories = ",".join(item["categories"])
    return f"  {item['op']:<7} {item['path']}  [{categories}] {item['reason']}"


def _print_findings(findings: list[dict[str, Any]], out: TextIO) -> None:
    """Findings by path; many "unused, kept" records are summarised (all of them are in --json)."""
    unused_kept = [f for f in findings if f["state"] == "reported" and f["categories"] == ["unused"]]
    shown_unused = unused_kept if len(unused_kept) <= UNUSED_SHOWN else unused_kept[:UNUSED_SHOWN]
    hidden = {id(f) for f in unused_kept[len(shown_unused):]}
    for item in sorted(findings, key=lambda f: (f["path"], f["op"])):
        if id(item) in hidden:
            continue
        print(f"  {item['state']:<9} {item['op']:<7} {item['path']}  [{','.join(item['categories'])}] "
              f"{item['reason']}", file=out)
    if hidden:
        print(f"  … and {len(hidden)} more record(s) never invoked, kept (all are listed by --json; "
              "see also `yoi usage --all`)", file=out)


def _print(data: dict[str, Any], *, dry_run: bool, out: TextIO) -> None:
    status = data["status"]
    proposed = [o for o in data["operations"] if o["state"] == "proposed"]
    findings = [o for o in data["operations"] if o["state"] not in ("proposed", "held")]
    if status == "aborted":
        print(f"gc: aborted: {data.get('message')}", file=sys.stderr)
        return
    if status == "nothing-to-do":
        print(f"gc ({data['engine']}): {data.get('message') or 'no change proposed'}", file=out)
    elif dry_run:
        counts = data["counts"]
        print(f"gc (dry run, {data['engine']}): would modify {counts['modify']}, delete {counts['delete']} file(s) "
              f"in {len(proposed)} operation(s); {len(findings)} finding(s) reported; nothing was written", file=out)
        for item in proposed:
            print(_operation_line(item), file=out)
    else:
        counts = data.get("applied_counts", {})
        print(f"gc run {data['run_id']} ({data['engine']}): modified {counts.get('modify', 0)}, deleted "
              f"{counts.get('delete', 0)} in {len(proposed)} operation(s); conflicts {len(data.get('conflicts', []))}; "
              f"{len(findings)} finding(s) reported", file=out)
        files = {f["path"]: f for f in data["files"]}
        for item in proposed:
            print(_operation_line(item), file=out)
            for path in item["paths"]:
                change = files.get(path)
                if change is not None and any(a["path"] == path for a in data.get("applied", [])):
                    print(f"      {OP_LETTER[change['op']]} {path}", file=out)
        print_conflicts(data, out)
        print_review_decisions(data, out, remembered="not proposed again while their files are unchanged "
                               "(`yoi gc --rejections`)")
    if findings:
        print("reported (not changed):", file=out)
        _print_findings(findings, out)
    print_held_back(data.get("held_back") or [], out)
    print_footer(data, out=out)


def run(args: argparse.Namespace) -> int:
    def start(ws: Workspace) -> Callable[[], GcReport]:
        from ..core.gc import run_gc

        return lambda: run_gc(ws, engine=args.engine, dry_run=args.dry_run, reject=args.reject, defer=args.defer)

    def show(report: GcReport) -> None:
        if args.dry_run:
            write_diff(report.changeset)
        _print(report.to_json(), dry_run=args.dry_run, out=sys.stderr if args.dry_run else sys.stdout)

    return run_reviewed(args, "gc", "GC", start, busy={"after": {"operations": []}},
                        as_json=lambda report: report.to_json(diff=args.dry_run, stream=True), show=show)
