"""``yoi lint``: check records against the rules of SPEC 4."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.diagnostics import Diagnostic
from ..core.errors import YoiError
from ..core.store.workspace import Workspace, find_workspace
from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:  # the linter is imported in the handlers: other commands do not pay for it
    from ..core.lint import LintReport


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "lint", parents=parents, help="check records against the record rules",
        description="Lint the whole workspace, or the given record files / folders / workspaces. "
                    "Exit 0 when no error is found (warnings allowed), 1 on errors, 2 on usage errors "
                    "(with --fix: also when a file could not be written).",
        epilog="Text output is 'path:line:col: rule message'; --format json prints a list of "
               "{path, line, col, rule, severity, message, hint}; --format github prints workflow annotations. "
               "With --fix, --format json prints {fixed: [{path, changes, diff}], diagnostics: [...]} "
               "(the findings left after the repairs); text and github print the diffs first. "
               "After the first call a background server answers lint and search (yoi server status / stop; "
               "YOI_SERVER=0 turns it off; docs/server.md).")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="record files, record folders, or workspace roots (default: the whole workspace)")
    parser.add_argument("--format", choices=("text", "json", "github"), default="text", help="output format")
    parser.add_argument("--json", action="store_const", const="json", dest="format",
                        help="same as --format json")
    parser.add_argument("--no-cache", action="store_false", dest="cache",
                        help="re-read every file; by default a whole-workspace lint keeps per-file results in "
                             ".yoi/state/cache/ and re-reads only changed files (same findings)")
    parser.add_argument("--fix", action="store_true",
                        help="repair what has one right answer (a misspelled known key such as model_invocation, "
                             "missing timestamps, a missing default flag or sources list), print each change as a "
                             "diff, write it atomically, then report what is left")
    parser.add_argument("--dry-run", action="store_true", help="with --fix: print the diffs, write nothing")
    parser.set_defaults(handler=run, trailing_words="paths")


def _usage_frequencies(ws: Workspace) -> Mapping[tuple[str, str], float]:
    """Usage frequencies for ``compressible``, read from the usage log only if a rule asks for one."""
    from ..core.lint.stored import UsageFrequencies

    return UsageFrequencies(ws)


@dataclass(slots=True)
class _Stored:
    """A whole-workspace result as ``LintReport`` shows it (without importing the linter: a warm
    lint is measured against ripgrep)."""

    diagnostics: list[Diagnostic]
    files: int


def _lint_whole(ws: Workspace, cache: bool) -> LintReport | _Stored:
    """Lint the whole workspace; an unchanged one is answered from ``lint.stored`` (no rules imported)."""
    frequencies = _usage_frequencies(ws)
    if cache:
        import time

        from ..core.lint.stored import filter_disabled, stored_lint, unstored_findings

        checked = stored_lint(ws, frequencies, time.time_ns())
        if checked[0] is None:
            from ..core.lint.cache import lint_workspace_cached

            found, files = lint_workspace_cached(ws, frequencies=frequencies, checked=checked)
        else:
            found, files = checked[0]
        return _Stored(filter_disabled([*found, *unstored_findings(ws)], ws.config), files)
    from ..core.lint import lint_workspace

    return lint_workspace(ws, frequencies=frequencies, cache=False)


def _lint_target(path: Path, explicit_ws: str | None, cache: bool = True) -> tuple[LintReport | _Stored, Path]:
    from ..core.lint import lint_paths
    from ..core.store.record_listing import iter_record_paths

    if path.is_dir() and not path.is_symlink() and ((path / "memory").is_dir() or (path / ".yoi").is_dir()):
        ws = Workspace(path)
        return _lint_whole(ws, cache), ws.root
    if not path.exists() and not path.is_symlink():
        raise YoiError("no such file or folder", path=path)
    start = path.parent if not path.is_dir() else path
    ws = find_workspace(explicit=explicit_ws) if explicit_ws else find_workspace(start)
    if path.is_dir() and not path.name.endswith(".md"):
        # os.path.realpath, not Path.resolve: a symlink loop among the records must not raise.
        resolved = Path(os.path.realpath(path))
        files = [p for p in iter_record_paths(ws)
                 if Path(os.path.realpath(p)).is_relative_to(resolved) or Path(os.path.realpath(p.parent)) == resolved]
    else:
        files = [path]
    return lint_paths(ws, files, frequencies=_usage_frequencies(ws)), ws.root


def _repo_root(root: Path) -> Path:
    """The folder GitHub annotation paths are relative to: ``$GITHUB_WORKSPACE`` (the checkout in
    Actions), else the git repository holding the workspace, else the workspace itself."""
    if os.environ.get("GITHUB_WORKSPACE"):
        return Path(os.path.abspath(os.environ["GITHUB_WORKSPACE"]))
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return root


def _for_github(report: LintReport | _Stored, root: Path) -> list[Diagnostic]:
    """The findings with paths relative to the repository, not to the yoi workspace (which may be a
    sub-folder of it), so GitHub places each annotation on the right file."""
    root = Path(os.path.abspath(root))
    base = _repo_root(root)
    found = []
    for d in report.diagnostics:
        rel = Path(os.path.relpath(root / d.path, base)).as_posix()
        found.append(d if rel.startswith("../") else d.replace(path=rel))
    return found


def _lint_all(args: argparse.Namespace) -> list[tuple[LintReport | _Stored, Path]]:
    if args.paths:
        return [_lint_target(Path(p), args.workspace, args.cache) for p in args.paths]
    ws = find_workspace(explicit=args.workspace) if args.workspace else find_workspace()
    return [(_lint_whole(ws, args.cache), ws.root)]


def _fix(args: argparse.Namespace, targets: list[tuple[LintReport | _Stored, Path]]) -> tuple[list[dict], int]:
    """Plan and (unless --dry-run) write the repairs of the files the findings name; the diffs go
    to stdout (stderr for --format github), JSON-able results are returned with the write failures."""
    from ..core.lint.fix import RULES_FIXED, apply_fix, plan_fixes

    fixed: list[dict] = []
    failures = 0
    seen: set[Path] = set()
    for report, root in targets:
        ws = Workspace(root)
        paths = sorted({root / d.path for d in report.diagnostics if d.rule in RULES_FIXED} - seen)
        seen.update(paths)
        for repair in plan_fixes(ws, paths):
            if not args.dry_run:
                try:
                    apply_fix(repair)
                except YoiError as exc:
                    print(f"yoi: {exc}", file=sys.stderr)
                    failures += 1
                    continue
            fixed.append(repair.as_dict())
            if args.format != "json":
                print(repair.diff(), end="", file=sys.stderr if args.format == "github" else sys.stdout)
    if args.format != "json":
        verb = "would fix" if args.dry_run else "fixed"
        changes = sum(len(item["changes"]) for item in fixed)
        print(f"{verb} {changes} problem(s) in {len(fixed)} file(s)", file=sys.stderr)
    return fixed, failures


def run(args: argparse.Namespace) -> int:
    from ..core.lint.output import format_diagnostics

    if args.dry_run and not args.fix:
        print("yoi: --dry-run applies to --fix only", file=sys.stderr)
        return EXIT_USAGE
    reports: list[LintReport | _Stored]
    targets = _lint_all(args)
    fixed: list[dict] | None = None
    failures = 0
    if args.fix:
        fixed, failures = _fix(args, targets)
        if fixed and not args.dry_run:
            targets = _lint_all(args)  # what is left
    reports = [report for report, _root in targets]
    from .team_notice import ensure_merge_driver

    for root in dict.fromkeys(root for _report, root in targets):
        ensure_merge_driver(Workspace(root), "lint")
    if args.format == "github":
        diags = sorted({d for report, root in targets for d in _for_github(report, root)})
    else:
        diags = sorted({d for report in reports for d in report.diagnostics})
    if fixed is not None and args.format == "json":
        from .common import print_json

        print_json({"fixed": fixed, "diagnostics": [d.to_json() for d in diags]})
        output = ""
    else:
        output = format_diagnostics(diags, args.format)
    if output:
        print(output)
    if args.format == "text":
        errors = sum(d.is_error for d in diags)
        files = sum(r.files for r in reports)
        summary = f"{errors} error(s), {len(diags) - errors} warning(s) in {files} file(s)"
        print(summary, file=sys.stderr)
    if failures:
        return EXIT_USAGE
    return EXIT_FINDINGS if any(d.is_error for d in diags) else EXIT_OK
