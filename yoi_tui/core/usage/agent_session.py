"""Which agent session a ``yoi mcp`` server works for: the client's hooks announce it, the server
finds the announcement of its own client.

A client (Claude Code, Codex) starts ``yoi mcp`` once, and runs ``yoi hook`` for every event of its
session, each hook with the session id in its JSON input. Usage events of the two must go under
one id, or one agent session counts as two (issue 23). What the server can know:

1. ``--session`` / ``$YOI_SESSION_ID``: set by whoever starts it (a harness, a test) — used as is;
2. an announcement by a hook of **its own client**: every hook writes
   ``.yoi/state/agent-sessions/<session>.json`` with its nearest ancestors (process id and start
   time, from ``/proc``); the server's parent process — the client, which spawned it — must be one
   of them, and of several the newest wins (after ``/clear`` Claude Code's hooks name a new
   session to the same server). Process ids are paired with start times, so a reused id never
   matches; another client's hooks never match;
3. ``$CLAUDE_CODE_SESSION_ID``, which Claude Code >= 2.1.154 puts in a stdio server's environment
   (the session it was spawned for; it does not follow ``/clear``); Codex passes no thread id
   to MCP servers;
4. else None: the server uses one id for its lifetime.

Without ``/proc`` (macOS) step 2 finds nothing. docs/usage.md argues the order.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..errors import YoiError
from ..store.workspace import Workspace
from .log import SESSION_ENV, validate_session_id

FOLDER = "agent-sessions"
HOOK_DEPTH = 3  # a hook's parent, grandparent, great-grandparent: the client, through a shell or two
MAX_AGE_S = 7 * 24 * 3600  # announcements older than this are deleted at the next SessionStart
CLAUDE_SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
# Set by the command server while it runs a hook for a caller (cli/server.py): the calling ``yoi``
# process, whose ancestors are the hook's (the server's own are not the client's).
served_caller: int | None = None


def process_start(pid: int) -> int | None:
    """A process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22), or None."""
    parent_and_start = _stat_fields(pid)
    return parent_and_start[1] if parent_and_start else None


def _stat_fields(pid: int) -> tuple[int, int] | None:
    """``(parent pid, start time)`` of ``pid`` from ``/proc`` (None: gone, or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and ')': the fields after it start at the last ')'.
    fields = data[data.rfind(b")") + 2:].split()
    try:
        return int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def ancestors(depth: int, pid: int | None = None) -> list[list[int]]:
    """``[pid, start time]`` of the nearest ``depth`` ancestors of ``pid`` (this process), nearest first."""
    found: list[list[int]] = []
    current = os.getpid() if pid is None else pid
    while len(found) < depth:
        fields = _stat_fields(current)
        if fields is None or fields[0] <= 1:
            break
        parent = fields[0]
        start = process_start(parent)
        if start is None:
            break
        found.append([parent, start])
        current = parent
    return found


def _folder(ws: Workspace) -> Path:
    return ws.state_dir / FOLDER


def announce(ws: Workspace, session_id: str, *, prune: bool = False) -> None:
    """Note that this hook's client runs ``session_id`` (written only when it changed; best effort:
    an unwritable state folder costs only the MCP server's attribution)."""
    from ..store.atomic import atomic_write_text

    session_id = validate_session_id(session_id)
    chain = ancestors(HOOK_DEPTH, served_caller)
    if not chain or not ws.yoi_dir.is_dir():
        return
    folder = _folder(ws)
    path = folder / f"{session_id}.json"
    text = json.dumps({"session_id": session_id, "ancestors": chain}) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            if prune:
                _prune(folder)
            return
    except (OSError, UnicodeDecodeError):
        pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError:
        return
    if prune:
        _prune(folder)


def _prune(folder: Path) -> None:
    cutoff = time.time() - MAX_AGE_S
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.name.endswith(".json") and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
                except OSError:
                    continue
    except OSError:
        return


def announced_session(ws: Workspace) -> str | None:
    """The session a hook of this process's parent (the client) announced last, or None."""
    mine = ancestors(1)
    if not mine:
        return None
    client = mine[0]
    best: tuple[int, str] | None = None
    try:
        entries = list(os.scandir(_folder(ws)))
    except OSError:
        return None
    for entry in entries:
        if not entry.name.endswith(".json"):
            continue
        try:
            data = json.loads(Path(entry.path).read_text(encoding="utf-8"))
            stamp = entry.stat(follow_symlinks=False).st_mtime_ns
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict) or client not in (data.get("ancestors") or []):
            continue
        session = data.get("session_id")
        if isinstance(session, str) and (best is None or stamp > best[0]):
            best = (stamp, session)
    if best is None:
        return None
    try:
        return validate_session_id(best[1])
    except YoiError:
        return None


def session_for_mcp(ws: Workspace, explicit: str | None) -> str | None:
    """The session an MCP tool call records under (module docstring, steps 1-3), or None."""
    if explicit:
        return validate_session_id(explicit)
    env = os.environ.get(SESSION_ENV, "").strip()
    if env:
        return validate_session_id(env)
    found = announced_session(ws)
    if found is not None:
        return found
    claude = os.environ.get(CLAUDE_SESSION_ENV, "").strip()
    if claude:
        try:
            return validate_session_id(claude)
        except YoiError:
            return None
    return None
