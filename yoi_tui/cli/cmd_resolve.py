"""``yoi resolve``: settle the record conflicts git stopped at without running the merge driver.

Git asks the merge driver only to merge content; a record deleted on one side and changed on the
other (modify/delete, rename/delete) stops a merge, revert, cherry-pick or rebase whatever the
attributes say. This command settles those by the driver's rule (``core.store.unmerged``) and says
which git command finishes the operation. Every writing yoi command and hook does the same on its
own while git is stopped, so this is the command to run by hand (or to see what is left).
"""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_FINDINGS, EXIT_OK, json_parent, print_json, workspace_from


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "resolve", parents=[*parents, json_parent()],
        help="settle records git left deleted on one side, changed on the other (modify/delete)",
        description="After a git merge, revert, cherry-pick or rebase stopped at CONFLICT (modify/delete) on a "
                    "record, keep what the changing side added since the deletion (its new sources and body "
                    "lines, under the record's title) or let the deletion stand when it added nothing; the "
                    "result is staged with git add / git rm. Records with conflict markers and other files are "
                    "left for a person. See docs/team.md.",
        epilog="exit status: 0 nothing left for a person; 1 conflicts left (listed).")
    parser.set_defaults(handler=run)


def report(settled: object, prefix: str = "yoi") -> list[str]:
    """The lines telling what ``settle`` did (``core.store.unmerged.Settled``)."""
    lines = [f"{prefix}: {rel}: deleted on one side; kept what the other side added since (sources, lines)"
             for rel in settled.kept]  # type: ignore[attr-defined]
    lines += [f"{prefix}: {rel}: deleted on one side; the other side added nothing since, so it stays deleted"
              for rel in settled.deleted]  # type: ignore[attr-defined]
    return lines


def run(args: argparse.Namespace) -> int:
    from ..core.store.unmerged import settle

    ws = workspace_from(args)
    settled = settle(ws)
    if args.json:
        print_json(settled.to_json())
        return EXIT_FINDINGS if settled.left else EXIT_OK
    for line in report(settled):
        print(line)
    for rel, why in settled.left.items():
        print(f"yoi: {rel}: left for a person: {why}", file=sys.stderr)
    if not settled.changed and not settled.left:
        print("yoi: no record conflict to settle")
    elif settled.next_step and not settled.left:
        print(f"yoi: every record conflict is settled; finish with: {settled.next_step}")
    return EXIT_FINDINGS if settled.left else EXIT_OK
