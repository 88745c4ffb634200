"""Claude Code hook handling (``yoi hook claude-code``): what each hook event does.

- ``SessionStart``: print the resident context (Claude Code adds a SessionStart hook's stdout to the
  session's context).
- ``UserPromptSubmit``: expand the ``#slug``s of the prompt; print only the knowledge blocks (the
  prompt itself is already in the session).
- ``PreCompact``: Phase 1 on the transcript (forced: the context is about to be summarised away),
  then a Phase 2 flush.
- ``Stop`` / ``SessionEnd`` / ``SubagentStop``: Phase 1 when the session is over its token threshold.

Every event also advances the workspace's token clock with the input tokens the transcript consumed
since the last event (``.yoi/state/token-clock/``). A hook must never break the agent: problems are
reported on stderr and the hook still exits 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import YoiError
from .store.atomic import atomic_write_text
from .store.workspace import Workspace


@dataclass
class HookOutcome:
    """What the hook prints on stdout (added to the agent's context where Claude Code does so)."""

    stdout: str = ""
    notes: list[str] = field(default_factory=list)


def _clock_path(ws: Workspace, session_id: str) -> Path:
    return ws.state_dir / "token-clock" / f"{quote(session_id, safe='')}.json"


def advance_token_clock(ws: Workspace, session_id: str, transcript: Path) -> int:
    """Record the input tokens the transcript consumed since the last call; returns them."""
    from .retrieval.usage import record_tokens
    from .sessions.detect import load_session

    log = load_session(transcript)
    path = _clock_path(ws, session_id)
    try:
        last = int(json.loads(path.read_text(encoding="utf-8"))["last_index"])
    except (OSError, ValueError, KeyError, TypeError):
        last = -1
    new = [e for e in log.entries if e.index > last]
    tokens = sum(e.input_tokens or 0 for e in new)
    if tokens:
        record_tokens(ws, tokens, session_id=session_id)
    if new:
        atomic_write_text(path, json.dumps({"last_index": new[-1].index}) + "\n")
    return tokens


def _phase1(ws: Workspace, transcript: Path, *, force: bool) -> list[str]:
    from .phase1.runner import run_phase1

    return [f"phase1 {r.session_id}: {r.status} — {r.message}" for r in run_phase1(ws, [transcript], force=force)]


def _phase2_flush(ws: Workspace) -> list[str]:
    from .phase2.runner import run_phase2

    report = run_phase2(ws, flush=True)
    return [f"phase2: {r.status} {getattr(r, 'message', '')}".rstrip() for r in report.rounds]


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

    if transcript is not None and isinstance(session_id, str) and transcript.is_file():
        step("token clock", lambda: advance_token_clock(ws, session_id, transcript))
    if event == "SessionStart":
        from .retrieval.context import resident_context

        step("context", lambda: setattr(outcome, "stdout", resident_context(ws, session_id=session_id)))
    elif event == "UserPromptSubmit":
        from .retrieval.expand import expand_prompt

        prompt = str(payload.get("prompt", ""))

        def expand() -> None:
            result = expand_prompt(ws, prompt, session_id=session_id)
            outcome.stdout = result.text[len(prompt.rstrip("\n")):].strip("\n") if result.expanded else ""

        step("expand", expand)
    elif event == "PreCompact" and transcript is not None:
        step("phase1", lambda: _phase1(ws, transcript, force=True))
        step("phase2", lambda: _phase2_flush(ws))
    elif event in ("Stop", "SessionEnd", "SubagentStop") and transcript is not None:
        step("phase1", lambda: _phase1(ws, transcript, force=False))
    return outcome
