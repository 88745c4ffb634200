"""``yoi import [PATH...] [--dry-run]``: bring existing agent knowledge into ``knowledge/``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, json_parent, print_json, workspace_from


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import", parents=[*parents, json_parent()],
        help="import Cursor rules, Claude skills/commands, CLAUDE.md/AGENTS.md, notes into knowledge/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read existing agent knowledge and propose knowledge records for it as one change set: "
                    "Cursor rules (.cursor/rules/*.mdc, .cursorrules), Claude Code skills and commands "
                    "(.claude/skills/*/SKILL.md, .agents/skills/*/SKILL.md, .claude/commands/*.md), the sections "
                    "of CLAUDE.md / AGENTS.md, and basic-memory / Obsidian notes (a folder of *.md). An existing "
                    "record is never overwritten: the import proposes a merge (appended section) instead. Every "
                    "result is linted. Applied like Phase 2: journalled, undone with 'yoi revert RUN'.",
        epilog="examples:\n  yoi import --dry-run            # what the project's own files would give\n"
               "  yoi import ~/notes/vault         # a basic-memory / Obsidian folder\n"
               "Exit status: 0 done (or nothing to import), 1 some files were skipped, 2 usage error.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or folders to read (default: the workspace root)")
    parser.add_argument("--dry-run", action="store_true", help="show the diff; write nothing")
    parser.set_defaults(handler=run, trailing_words="paths")


def run(args: argparse.Namespace) -> int:
    from ..core.errors import YoiError
    from ..core.importer.runner import run_import

    ws = workspace_from(args)
    paths = [Path(p) for p in args.paths] or [ws.root]
    for path in paths:
        if not path.exists():
            raise YoiError("no such file or folder", path=path)
    report = run_import(ws, paths, dry_run=args.dry_run)
    plan = report.plan
    exit_code = EXIT_FINDINGS if plan.skipped else EXIT_OK
    if report.applied is not None and report.applied.write_failed:
        exit_code = EXIT_USAGE  # a record could not be written: an environment error (SPEC 14)
    if args.json:
        print_json(report.to_json())
        return exit_code
    if args.dry_run:
        sys.stdout.write(plan.changeset.diff())
    for slug, origin in plan.created:
        print(f"{'would create' if args.dry_run else 'created'} knowledge/{slug}.md  ← {origin}")
    for slug, origin in plan.merged:
        print(f"{'would merge into' if args.dry_run else 'merged into'} knowledge/{slug}.md  ← {origin} "
              "(existing record kept; imported text appended)")
    for slug, origin in plan.unchanged:
        print(f"unchanged knowledge/{slug}.md  ← {origin} (already holds this text)")
    for origin, why in plan.skipped:
        print(f"yoi: skipped {origin}: {why}", file=sys.stderr)
    for diag in plan.warnings:
        print(f"{diag.path}:{diag.line}:{diag.col}: {diag.rule} (warning) {diag.message}", file=sys.stderr)
    if report.status == "nothing-to-do":
        print(f"nothing to import from {len(report.files)} file(s)")
    elif report.status == "dry-run":
        print(f"(dry run: {len(plan.changeset.changes)} record(s) would change; nothing written)")
    elif report.applied is not None:
        for item in report.applied.to_json()["conflicts"]:
            print(f"  conflict: {item['path']} — {item['reason']}", file=sys.stderr)
        print(f"imported {len(report.applied.applied)} record(s); revert with: yoi revert {report.applied.run_id}")
    return exit_code
