"""Claude Code hook handling (``yoi hook claude-code``): what each hook event does.

- ``SessionStart``: print the resident context (Claude Code adds a SessionStart hook's stdout to the
  session's context).
- ``UserPromptSubmit``: expand the ``#slug``s of the prompt; print only the knowledge blocks (the
  prompt itself is already in the session).
- ``PreCompact``: Phase 1 on the transcript (forced: the context is about to be summarised away),
  then a Phase 2 flush — queued for the detached background worker (``hooks.jobs``).
- ``Stop`` / ``SessionEnd`` / ``SubagentStop``: Phase 1 when the session is over its token threshold,
  in the background worker too: no hook waits for Phase 1 or 2.

The workspace's token clock (``.yoi/state/token-clock/``) moves with the input tokens the transcript
consumed, counted by Phase 1 in the background worker at Stop / PreCompact / SessionEnd (by entry
index, so nothing a prompt consumed is lost or counted twice). SessionStart also exports
``YOI_SESSION_ID`` through ``$CLAUDE_ENV_FILE`` so the agent's own ``yoi`` calls join its session. A hook must never break the agent: problems are
reported on stderr and the hook still exits 0.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import YoiError
from ..store.workspace import Workspace


@dataclass(slots=True)
class HookOutcome:
    """What the hook prints on stdout (added to the agent's context where Claude Code does so)."""

    stdout: str = ""
    notes: list[str] = field(default_factory=list)


def export_session_id(session_id: str, env_file: str | None) -> None:
    """Let the agent's own ``yoi`` calls record under its session (Claude Code ``$CLAUDE_ENV_FILE``).

    Claude Code sources the file a SessionStart hook writes into ``$CLAUDE_ENV_FILE`` before each
    Bash command, so ``yoi search`` run by the agent uses the same usage session as the hook.
    Without a session a CLI call records nothing (a person's use; see docs/usage.md).
    """
    import shlex

    from ..usage.log import validate_session_id

    if not env_file:
        return
    line = f"export YOI_SESSION_ID={shlex.quote(validate_session_id(session_id))}\n"
    path = Path(env_file)
    try:
        if line not in (path.read_text(encoding="utf-8") if path.exists() else ""):
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line)
    except OSError as exc:
        raise YoiError(f"cannot write {path}: {exc.strerror or exc}") from exc


def announce_session(ws: Workspace, session_id: str, *, prune: bool) -> None:
    from ..usage.agent_session import announce

    announce(ws, session_id, prune=prune)


def handle_claude_code(ws: Workspace, payload: dict[str, Any]) -> HookOutcome:
    """Run the work for one Claude Code hook event (payload: the JSON Claude Code sends on stdin)."""
    event = str(payload.get("hook_event_name", ""))
    session_id = payload.get("session_id")
    transcript = Path(payload["transcript_path"]).expanduser() if payload.get("transcript_path") else None
    outcome = HookOutcome()

    def step(label: str, action: Callable[[], object]) -> None:
        try:
            result = action()
        except YoiError as exc:
            outcome.notes.append(f"{label}: {exc}")
            return
        if isinstance(result, list):
            outcome.notes.extend(str(item) for item in result)

    if isinstance(session_id, str):
        # The client's MCP server records under this session too (usage/agent_session).
        step("session", lambda: announce_session(ws, session_id, prune=event == "SessionStart"))
    # The token clock is advanced by Phase 1 in the background worker (Stop, PreCompact, SessionEnd):
    # parsing the transcript here cost every prompt ~0.1 s of imports plus the transcript's size.
    if event == "SessionStart":
        from ..retrieval.resident_context import resident_context

        if isinstance(session_id, str):
            step("session env", lambda: export_session_id(session_id, os.environ.get("CLAUDE_ENV_FILE")))

        step("context", lambda: setattr(outcome, "stdout", resident_context(ws, session_id=session_id)))
    elif event == "UserPromptSubmit":
        from ..retrieval.expand import expand_prompt

        prompt = str(payload.get("prompt", ""))

        def expand() -> None:
            result = expand_prompt(ws, prompt, session_id=session_id)
            outcome.stdout = result.text[len(prompt.rstrip("\n")):].strip("\n") if result.expanded else ""

        step("expand", expand)
    elif event == "PreCompact" and transcript is not None:
        # Forced: the range is about to be summarised away. The job file is on disk before the hook
        # returns and the worker outlives the agent, so the flush happens even if it exits now.
        step("background", lambda: _queue(ws, transcript, session_id, event, force=True, flush=True))
    elif event in ("Stop", "SessionEnd", "SubagentStop") and transcript is not None:
        step("background", lambda: _queue(ws, transcript, session_id, event, force=False, flush=False))
    return outcome


def _queue(ws: Workspace, transcript: Path, session_id: object, event: str, *, force: bool, flush: bool) -> None:
    from .jobs import queue

    queue(ws, transcript, session_id if isinstance(session_id, str) else None, force=force, flush=flush, event=event)


def find_codex_rollout(thread_id: str, codex_home: Path) -> Path | None:
    """The rollout file of a Codex thread: ``sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl``."""
    if not thread_id or "/" in thread_id or "*" in thread_id:
        return None
    found = sorted((codex_home / "sessions").glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    return found[-1] if found else None


def handle_codex_notify(ws: Workspace, payload: dict[str, Any], codex_home: Path | None = None) -> HookOutcome:
    """Codex's legacy ``notify`` (``agent-turn-complete``, before Codex had hooks): find the thread's
    rollout under ``$CODEX_HOME/sessions`` and run Phase 1 on it when over the token threshold."""
    outcome = HookOutcome()
    if payload.get("type") != "agent-turn-complete":
        return outcome
    home = codex_home or Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    rollout = find_codex_rollout(str(payload.get("thread-id") or ""), home)
    if rollout is None:
        outcome.notes.append(f"no rollout for thread {payload.get('thread-id')!r} under {home / 'sessions'}")
        return outcome
    try:  # Phase 1 (in the background worker) also advances the token clock
        _queue(ws, rollout, str(payload.get("thread-id") or "") or None, "agent-turn-complete", force=False, flush=False)
    except YoiError as exc:
        outcome.notes.append(f"background: {exc}")
    return outcome
