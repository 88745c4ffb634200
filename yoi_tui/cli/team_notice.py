"""Team notices of the CLI (docs/team.md): the record merge driver missing from this clone's git
config (registered, or told once per session), a ``memory/_staging/`` that is not ignored, and the
record modify/delete conflicts of a stopped git operation (settled by writers and hooks)."""

from __future__ import annotations

import os
import sys

from ..core.store.workspace import Workspace

# Commands that promise to change nothing but usage and caches (a person may run them in a clone
# they only read): they do not touch the git config, they say what to run, once per session.
READ_ONLY = frozenset({"lint", "search", "context", "expand", "mcp", "merge-driver"})
REGISTER_HINT = "yoi init"
_NOTICE_FLAG = "merge-driver-notice"


def tell_staging_notice(ws: Workspace) -> None:
    """Print the notice on stderr once per clone (``store.team.staging_notice`` remembers it)."""
    from ..core.store.team import staging_notice

    try:
        notice = staging_notice(ws)
    except OSError:
        return
    if notice:
        print(f"yoi: note: {notice}", file=sys.stderr)


def ensure_merge_driver(ws: Workspace, command: str | None, session: str | None = None,
                        prefix: str = "yoi") -> None:
    """Register the record merge driver if this clone's ``.gitattributes`` names it and no git
    config defines it; a read-only command (or a config git refuses to write) says so instead, once
    per session. The usual case — registered, or not in git — costs a few file reads, no git process."""
    from ..core.store.git_driver import MISSING, driver_state

    try:
        if driver_state(str(ws.root)) != MISSING or command == "merge-driver":
            return
    except (OSError, ValueError):
        return
    if command not in READ_ONLY:
        from ..core.store.team import register_merge_driver

        try:
            changed = register_merge_driver(ws)
        except OSError:
            changed = []
        if any("merge.yoi.driver" in c for c in changed):
            print(f"{prefix}: note: registered the record merge driver in this clone's git config "
                  "(merge.yoi.driver in .git/config, never committed): git now merges records with "
                  "`yoi merge-driver` (docs/team.md)", file=sys.stderr)
            return
    _tell_once(ws, session, prefix, writable=command not in READ_ONLY)


def _session_key(session: str | None) -> str:
    """The session a notice is told once in: the agent's usage session, else the calling shell."""
    env = os.environ.get("YOI_SESSION_ID", "").strip()
    # (A served command runs in the server: the client passes its parent as YOI_CALLER_PPID.)
    return session or env or f"ppid-{os.environ.get('YOI_CALLER_PPID') or os.getppid()}"


def _tell_once(ws: Workspace, session: str | None, prefix: str, *, writable: bool) -> None:
    key = _session_key(session)
    flag = ws.state_dir / _NOTICE_FLAG
    try:
        if flag.read_text(encoding="utf-8").strip() == key:
            return
    except (OSError, UnicodeDecodeError):
        pass
    why = ("git would not write this clone's config" if writable
           else "this command changes nothing in the repository")
    print(f"{prefix}: note: this clone's git does not know the record merge driver that .gitattributes "
          "names (merge=yoi): git merges records line by line and concurrent edits conflict; "
          f"{why}; run once: {REGISTER_HINT}", file=sys.stderr)
    try:
        ws.state_dir.mkdir(parents=True, exist_ok=True)
        from ..core.store.atomic import atomic_write_text

        atomic_write_text(flag, key + "\n")
    except OSError:
        pass


def settle_stopped_operation(ws: Workspace, command: str | None, prefix: str = "yoi") -> None:
    """While git is stopped in a merge, revert, cherry-pick or rebase, settle the records it left
    deleted on one side and changed on the other by the driver's rule (``core.store.unmerged``):
    git never hands those to the merge driver. Writers and hooks only; read-only commands leave
    the repository alone. Not stopped — the usual case — costs a few ``stat`` calls."""
    if command in READ_ONLY or command == "resolve":
        return
    from ..core.store.git_driver import operation_in_progress

    try:
        if operation_in_progress(str(ws.root)) is None:
            return
        from ..core.store.unmerged import settle

        settled = settle(ws)
    except (OSError, ValueError):
        return
    if not settled.changed:
        return
    from .cmd_resolve import report

    for line in report(settled, prefix):
        print(line, file=sys.stderr)
    if settled.next_step and not settled.left:
        print(f"{prefix}: note: every record conflict is settled (`yoi resolve`, docs/team.md); finish with: "
              f"{settled.next_step}", file=sys.stderr)
