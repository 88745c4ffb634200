"""The normalised session-log entry (SPEC section 7) and the result of parsing one log.

This module owns the data shapes every adapter produces and every consumer (Phase 1, the usage
token clock, the app's log picker) reads. It holds no parsing logic.

``Entry.index`` is the identity of an entry inside its session: a ``Source`` range in a record
points at these indices, so they are assigned in file order and never change when the log grows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..errors import YoiError

Role = Literal["user", "assistant", "tool", "system"]

# Finer labels for what an entry is. ``role`` answers "who speaks"; ``kind`` answers "what sort of
# line this was", which cleaning and extraction need (e.g. a harness caveat is role system, kind
# meta, and is dropped by cleaning). Kept as plain strings so the native format can carry new ones.
KIND_MESSAGE = "message"  # ordinary text: a typed prompt, an assistant reply
KIND_AGENT_PROMPT = "agent_prompt"  # user-role text written by a parent agent (subagent logs)
KIND_THINKING = "thinking"  # model reasoning (Claude thinking, Codex reasoning summary)
KIND_TOOL_CALL = "tool_call"  # assistant asks for a tool: tool_name + tool_input
KIND_TOOL_RESULT = "tool_result"  # the tool's answer: text, is_error, exit_code
KIND_REJECTED = "rejected"  # a tool result saying the user refused the call (is_error true)
KIND_COMMAND = "command"  # a slash command the user typed, normalised to "/name args"
KIND_COMMAND_OUTPUT = "command_output"  # output of a local (slash) command
KIND_INTERRUPT = "interrupt"  # the user interrupted the turn
KIND_USAGE = "usage"  # token accounting only (Codex token_count); empty text
KIND_META = "meta"  # harness caveat/meta lines (Claude isMeta)
KIND_CONTEXT = "context"  # harness-injected context (Codex environment_context, AGENTS.md)
KIND_DEVELOPER = "developer"  # developer/system instructions injected by the harness
KIND_COMPACT_SUMMARY = "compact_summary"  # summary the harness injects after compaction
KIND_API_ERROR = "api_error"  # an API error reported by the harness, not model output
KIND_SYSTEM = "system"  # other harness system lines (compaction boundary, hook summaries, ...)
# A hook's verdict fed back to the model (Claude Code writes a blocked Stop hook as an isMeta user
# line "Stop hook feedback: ..."): harness text, but a failure signal Phase 1 must see, so it is
# not an injected kind and survives cleaning.
KIND_HOOK_FEEDBACK = "hook_feedback"

# Kinds whose whole text was put there by the harness, not by the user or the model: cleaning
# drops these entries (SPEC 8: memory never learns from injected text).
INJECTED_KINDS: frozenset[str] = frozenset(
    {KIND_META, KIND_CONTEXT, KIND_DEVELOPER, KIND_COMPACT_SUMMARY, KIND_USAGE}
)


class Entry(BaseModel):
    """One normalised log entry.

    ``index``: 0-based position in the session's normalised log, stable under appends.
    ``tool_input``: parsed arguments (dict) or the raw input string (Codex freeform tools such as
    ``apply_patch``, or arguments that are not JSON).
    ``is_error``: for tool results, ``True``/``False`` when the log says, ``None`` when it gives
    no signal (e.g. a Codex output with no exit code). ``None`` on non-result entries.
    ``input_tokens``: input tokens consumed by the model call this entry belongs to, counted once
    per call (cache reads and writes included), so summing over entries gives the session's
    input-token clock.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    role: Role
    text: str = ""
    tool_name: str | None = None
    tool_input: dict[str, Any] | str | None = None
    is_error: bool | None = None
    input_tokens: int | None = None
    timestamp: str | None = None
    # Extras (all optional).
    kind: str | None = None
    tool_call_id: str | None = None
    exit_code: int | None = None


class LogProblem(BaseModel):
    """A line that could not be used; ``line`` is 1-based."""

    model_config = ConfigDict(frozen=True)

    line: int
    message: str


class ParsedLog(BaseModel):
    """A whole session log, normalised.

    ``format``: ``native``, ``claude_code``, ``codex``, or ``empty`` (a file with no lines).
    ``session_id``: from the log content where present, else the file stem.
    ``parent_session_id``: set for subagent logs (Claude Code sidechains), whose own
    ``session_id`` is ``<parent>.agent-<agentId>`` so it never collides with the parent's indices.
    """

    model_config = ConfigDict(frozen=True)

    path: Path
    format: str
    session_id: str
    entries: list[Entry]
    problems: list[LogProblem]
    parent_session_id: str | None = None


class SessionLogError(YoiError):
    """The log as a whole cannot be read: missing, unreadable, or not a known format.

    Line-level trouble never raises; it becomes a ``LogProblem``. Callers turn this into a message
    naming ``path``.
    """

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(message, path=path)
        self.path = Path(path)  # type: ignore[assignment]  # callers use it as a Path
