"""``yoi install claude-code|codex``: wire yoi's hooks and MCP server into the harness's own config.

Shows the diff of every file it would change and asks before writing (``--yes`` skips the question,
``--dry-run`` only shows). ``yoi uninstall`` (``cmd_uninstall.py``) shares this module's ``run``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import EXIT_FINDINGS, EXIT_OK, json_parent, print_json

if TYPE_CHECKING:
    from ..core.integrations.plan import FileEdit

HARNESSES = ("claude-code", "codex")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("harness", choices=HARNESSES, help="which agent harness to wire")
    parser.add_argument("--scope", choices=("project", "user"), default="project",
                        help="project: files in this project (default); user: the harness's per-user files")
    parser.add_argument("--dry-run", action="store_true", help="show the diff; change nothing")
    parser.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    parser.add_argument("--notify", action="store_true",
                        help="codex: also set the top-level 'notify' program (Codex before 0.114 has no hooks; "
                             "notify runs Phase 1 after each turn)")


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "install", parents=[*parents, json_parent()],
        help="wire yoi's hooks and MCP server into Claude Code or Codex",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Add yoi's hook handlers and its MCP server to the harness's config files, keeping every "
                    "other key and hook in them. The commands written are the absolute path of this yoi, so "
                    "they work without PATH changes. Shows the diff and asks (unless --yes); a second run "
                    "changes nothing; a malformed file is refused and left untouched.",
        epilog="files, --scope project (default) / user:\n"
               "  claude-code  .claude/settings.json + .mcp.json  /  ~/.claude/settings.json + ~/.claude.json\n"
               "  codex        .codex/config.toml + .codex/hooks.json  /  $CODEX_HOME (~/.codex)/config.toml + "
               "hooks.json")
    add_arguments(parser)
    parser.set_defaults(handler=run, install=True)


def _project_root(args: argparse.Namespace) -> tuple[Path, bool]:
    """``(project root, is it a yoi workspace already)``: the workspace found from here, else the
    enclosing git repository, else the current folder (``install`` then runs ``yoi init`` there)."""
    from ..core.errors import WorkspaceNotFound
    from .common import workspace_from

    try:
        return workspace_from(args).root, True
    except WorkspaceNotFound:
        if args.workspace:
            raise
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder, False
    return here, False


def plan_for(args: argparse.Namespace) -> list[FileEdit]:
    from ..core.integrations import claude_code, codex
    from ..core.integrations.plan import yoi_command

    if args.scope == "project":
        project, initialised = _project_root(args)
        args.init_root = None if initialised or not args.install else project
    else:
        project = Path.cwd()
    argv = yoi_command()
    if args.harness == "claude-code":
        return claude_code.plan(args.scope, project, Path.home(), argv, install=args.install)
    codex_home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    return codex.plan(args.scope, project, codex_home, argv, install=args.install, notify=args.notify)


def _confirm() -> bool:
    print("Apply these changes? [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def run(args: argparse.Namespace) -> int:
    from ..core.integrations.plan import apply_edits, changed_only

    verb = "install" if args.install else "uninstall"
    args.init_root = None
    edits = changed_only(plan_for(args))
    init_root: Path | None = args.init_root
    if args.json:
        if not args.dry_run and edits and not args.yes:
            print(f"yoi {verb}: --json needs --yes or --dry-run (it cannot ask)", file=sys.stderr)
            return 2
        if not args.dry_run:
            _init(init_root, quiet=True)
            apply_edits(edits)
        print_json({"harness": args.harness, "scope": args.scope, "applied": not args.dry_run,
                    "init": str(init_root) if init_root else None,
                    "files": [{"path": str(e.path), "action": _action(e), "diff": e.diff()} for e in edits]})
        return EXIT_OK
    if not edits and init_root is None:
        print(f"yoi {verb} {args.harness}: already {'in place' if args.install else 'removed'}; nothing to change.")
        return EXIT_OK
    if init_root is not None:
        print(f"{init_root} is not a yoi workspace yet: 'yoi init' will create memory/, knowledge/ and .yoi/ there")
    for edit in edits:
        sys.stdout.write(edit.diff())
    if args.dry_run:
        print(f"(dry run: {len(edits)} file(s) would change; nothing written)")
        return EXIT_OK
    if not args.yes and not _confirm():
        print("Nothing changed.", file=sys.stderr)
        return EXIT_FINDINGS
    _init(init_root)
    apply_edits(edits)
    for edit in edits:
        print(f"{_action(edit)} {edit.path}")
    return EXIT_OK


def _init(root: Path | None, *, quiet: bool = False) -> None:
    """The hooks need a workspace to work in: create it where the harness will run them."""
    if root is None:
        return
    from ..core.store.workspace import init_workspace

    init_workspace(root)
    if not quiet:
        print(f"Initialised yoi workspace in {root}")


def _action(edit: FileEdit) -> str:
    if edit.before is None:
        return "created"
    return "removed" if edit.after is None else "updated"
