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


def add_arguments(parser: argparse.ArgumentParser, *, install: bool = True) -> None:
    parser.add_argument("harness", choices=HARNESSES,
                        help="which agent harness to wire" if install else "which agent harness to unwire")
    parser.add_argument("--scope", choices=("project", "user"), default="project",
                        help="project: files in this project (default); user: the harness's per-user files")
    parser.add_argument("--dry-run", action="store_true", help="show the diff; change nothing")
    parser.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; report whether yoi is wired in and, for codex, whether Codex will run "
                             "yoi's hooks (trusted, project trusted); exit 1 when not")
    if not install:  # uninstall removes yoi's notify program whenever it is there: nothing to choose
        parser.set_defaults(notify=False)
        return
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
    args.project = project
    argv = yoi_command()
    if args.harness == "claude-code":
        return claude_code.plan(args.scope, project, Path.home(), argv, install=args.install)
    flag = _codex_hooks_flag(args) if args.install else None
    return codex.plan(args.scope, project, _codex_home(), argv, install=args.install, notify=args.notify,
                      hooks_flag=flag)


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def _codex_hooks_flag(args: argparse.Namespace) -> str | None:
    """The ``[features]`` key the installed Codex needs for hooks (None: on by default, or no Codex)."""
    from ..core.integrations import codex_trust

    args.codex = codex_trust.find_codex()
    if args.codex is None:
        return None
    try:
        return codex_trust.hooks_flag(codex_trust.default_features(args.codex))
    except codex_trust.CodexProbeError:
        return None


def _codex_trust(args: argparse.Namespace, *, check: bool) -> tuple[list[FileEdit], list[str]]:
    """``(edit trusting yoi's hooks, what the user must know)``, asked of the installed Codex.

    Codex skips hooks it was not told to trust, silently; ``--check`` reports them, ``install`` offers
    the trust entries (Codex's own hashes) for yoi's hooks only."""
    from ..core.integrations import codex_trust

    codex_bin = getattr(args, "codex", None) or codex_trust.find_codex()
    home = _codex_home()
    config = home / "config.toml"
    if codex_bin is None:
        return [], ["Codex not found on PATH (or $YOI_CODEX), so yoi cannot see whether Codex trusts its hooks: "
                    "start `codex` in this project once and trust yoi's hooks when it asks (or with /hooks)."]
    notes: list[str] = []
    if args.scope == "project" and not codex_trust.project_trusted(codex_trust.load_config(config), args.project):
        notes.append(f"Codex does not trust {args.project}, so it ignores its .codex/ (yoi's hooks and MCP server): "
                     f"start `codex` there once and answer yes to trusting the folder, then run "
                     f"`yoi install codex{' --check' if check else ''}` again.")
        return [], notes
    try:
        hooks = codex_trust.list_hooks(codex_bin, args.project, home)
    except codex_trust.CodexProbeError as exc:
        return [], [f"{exc}; if Codex asks to review hooks at start-up, trust yoi's."]
    ours = codex_trust.yoi_hooks(hooks)
    if not ours:
        return [], ["Codex lists none of yoi's hooks here (is `yoi install codex` in place?)."]
    pending = codex_trust.untrusted(hooks)
    disabled = [h for h in pending if h.get("enabled") is False]
    if disabled:
        notes.append("disabled in Codex (re-enable with /hooks): "
                     + ", ".join(str(h.get("eventName")) for h in disabled))
    to_trust = [h for h in pending if h.get("enabled") is not False]
    if not to_trust:
        return [], notes
    if check:
        notes.append(f"Codex will skip {len(to_trust)} of yoi's hooks until trusted ("
                     + ", ".join(f"{h.get('eventName')}: {h.get('trustStatus')}" for h in to_trust)
                     + "): run `yoi install codex` to trust them, or review them in Codex with /hooks.")
        return [], notes
    return [codex_trust.trust_edit(config, to_trust)], notes


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
    if getattr(args, "check", False):
        return _check(args, edits, init_root)
    if args.json:
        if not args.dry_run and edits and not args.yes:
            print(f"yoi {verb}: --json needs --yes or --dry-run (it cannot ask)", file=sys.stderr)
            return 2
        notes: list[str] = []
        if not args.dry_run:
            _init(init_root, quiet=True)
            apply_edits(edits)
            if args.harness == "codex" and args.install:
                trust, notes = _codex_trust(args, check=False)
                trust = changed_only(trust)
                apply_edits(trust)
                edits = [*edits, *trust]
        print_json({"harness": args.harness, "scope": args.scope, "applied": not args.dry_run,
                    "init": str(init_root) if init_root else None, "notes": notes,
                    "files": [{"path": str(e.path), "action": _action(e), "diff": e.diff()} for e in edits]})
        return EXIT_OK
    if not edits and init_root is None:
        print(f"yoi {verb} {args.harness}: already {'in place' if args.install else 'removed'}; nothing to change.")
        if args.harness == "codex" and args.install and not args.dry_run:
            return _trust_after_install(args)  # the files were in place; Codex may still skip the hooks
        return EXIT_OK
    if init_root is not None:
        print(f"{init_root} is not a yoi workspace yet: 'yoi init' will create memory/, knowledge/ and .yoi/ there")
    for edit in edits:
        sys.stdout.write(edit.diff())
    if args.dry_run:
        print(f"(dry run: {len(edits)} file(s) would change; nothing written)")
        if args.harness == "codex" and args.install:
            print("(after writing them, yoi would ask Codex which of its hooks it trusts and offer to trust yoi's)")
        return EXIT_OK
    if not args.yes and not _confirm():
        print("Nothing changed.", file=sys.stderr)
        return EXIT_FINDINGS
    _init(init_root)
    apply_edits(edits)
    for edit in edits:
        print(f"{_action(edit)} {edit.path}")
    if args.harness == "codex" and args.install:
        return _trust_after_install(args)
    return EXIT_OK


def _trust_after_install(args: argparse.Namespace) -> int:
    """Second step of ``yoi install codex``: the hooks are written, so Codex can say which it trusts."""
    from ..core.integrations.plan import apply_edits, changed_only

    trust, notes = _codex_trust(args, check=False)
    trust = changed_only(trust)
    for note in notes:
        print(note)
    if not trust:
        return EXIT_OK
    print("Codex runs a hook only once it is trusted; trusting yoi's hooks (their hashes as Codex computes them):")
    for edit in trust:
        sys.stdout.write(edit.diff())
    if not args.yes and not _confirm():
        print("Hooks not trusted: Codex will ask to review them when it starts (or use /hooks).", file=sys.stderr)
        return EXIT_OK
    apply_edits(trust)
    for edit in trust:
        print(f"{_action(edit)} {edit.path}")
    return EXIT_OK


def _check(args: argparse.Namespace, edits: list[FileEdit], init_root: Path | None) -> int:
    """``--check``: nothing is written; exit 1 when yoi is not fully wired in (or Codex would skip it)."""
    problems: list[str] = []
    if init_root is not None:
        problems.append(f"{init_root} is not a yoi workspace (run `yoi install {args.harness}`)")
    problems += [f"{edit.path}: not as `yoi install {args.harness}` writes it" for edit in edits]
    if args.harness == "codex" and args.install and not edits:
        problems += _codex_trust(args, check=True)[1]
    if args.json:
        print_json({"harness": args.harness, "scope": args.scope, "ok": not problems, "problems": problems})
    elif problems:
        for problem in problems:
            print(problem)
    else:
        print(f"yoi install {args.harness}: in place" + (" and trusted by Codex" if args.harness == "codex" else ""))
    return EXIT_FINDINGS if problems else EXIT_OK


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
