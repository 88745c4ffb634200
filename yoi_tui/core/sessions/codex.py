"""Adapter for Codex rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}`` (Codex 0.4x onwards). What becomes an entry:

- user text: ``event_msg``/``user_message`` (the clean prompt). The ``response_item`` user
  ``message`` twin just before it is skipped, except when it is harness-injected context
  (``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md instructions for ...``, ...),
  which is kept as role system kind ``context`` so cleaning can drop it visibly. Codex 0.169 writes
  no ``user_message``: its prompt is the ``response_item`` message, followed by an ``event_msg``
  ``item_completed`` whose item is a ``UserMessage``; a prompt message is held until the next line
  shows which twin follows, so either way it is one entry (with no twin it is skipped, as before).
- assistant text and reasoning: ``response_item`` ``message``/``reasoning`` only. Codex writes the
  same text again as ``event_msg`` ``agent_message``/``agent_reasoning``; those are ignored so
  nothing is doubled (the redacted 0.104 sample shows the twins cannot be matched by text).
- tool calls: ``function_call`` (arguments parsed from their JSON string), ``custom_tool_call``
  (raw ``input`` string, e.g. ``apply_patch``), ``local_shell_call``, ``web_search_call``.
- tool results: ``function_call_output``/``custom_tool_call_output``. Codex writes **no success
  flag**, so ``exit_code`` is read from the output (``Exit code: N`` of 0.6x ``shell_command``,
  ``metadata.exit_code`` of JSON outputs such as ``apply_patch``, ``Process exited with code N`` of
  unified exec, ``exit code: N`` of a 0.3x "failed in sandbox ... with execution error" text) and
  ``is_error = exit_code != 0``. A plain-text failure without a code (0.4x "failed in sandbox:
  ...", "apply_patch verification failed: ...", "error: ...") is ``is_error = True``. With no
  such signal ``is_error`` is ``None``.
- ``developer``/``system`` messages -> role system kind ``developer``; ``compacted`` -> kind
  ``compact_summary``; ``turn_aborted`` -> kind ``interrupt``.
- ``token_usage_record`` lines (0.169, one per model call, keyed by ``response_id``) -> a ``usage``
  entry of ``usage.input_tokens``; once a log has them, its ``token_count`` twins are not counted.
- ``token_count`` events -> an assistant entry of kind ``usage`` with empty text and
  ``input_tokens`` = the model call's input (``last_token_usage.input_tokens``, which includes cached
  input). Codex repeats each count once or twice; a count whose ``total_token_usage`` did not move
  is skipped. The count arrives *after* the call's output lines, so it is its own entry: attaching
  it to an earlier entry would change that entry when the log grows.

``session_meta`` gives the session id (the first one; resumed logs may hold several).
``turn_context``, ``ghost_snapshot`` and UI-only events are skipped quietly; an unknown top-level
``type`` or ``response_item`` type is a ``LogProblem``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._common import Emitter, RawLine, as_int, as_str
from .model import (
    KIND_COMPACT_SUMMARY,
    KIND_CONTEXT,
    KIND_DEVELOPER,
    KIND_INTERRUPT,
    KIND_MESSAGE,
    KIND_THINKING,
    KIND_TOOL_CALL,
    KIND_TOOL_RESULT,
    KIND_USAGE,
    LogProblem,
    ParsedLog,
)

FORMAT = "codex"

_ITEM_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "inter_agent_communication",
        "token_usage_record",
    }
)
# response_item payload types that carry nothing for memory (git snapshots for undo, encrypted
# compaction state, newer bookkeeping items).
_IGNORED_RESPONSE_ITEMS = frozenset(
    {
        "ghost_snapshot",
        "compaction",
        "compaction_summary",
        "other",
        "agent_message",
        "image_generation_call",
        "tool_search_call",
        "tool_search_output",
    }
)

IMAGE_PLACEHOLDER = "[image]"

# Text Codex puts into role-user messages on its own (FORMATS.md 2.4; prefixes as Codex writes them).
INJECTED_USER_PREFIXES: tuple[str, ...] = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for ",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<recommended_plugins>",
    "<turn_aborted>",
)

_EXIT_CODE_RES = (
    re.compile(r"^Exit code: (-?\d+)\s*$", re.MULTILINE),  # shell_command, 0.6x
    re.compile(r"^Process exited with code (-?\d+)\s*$", re.MULTILINE),  # exec_command, >= 0.10x
)
# Codex <= 0.5x reports a failed command or patch as plain text instead of its JSON output, e.g.
# "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1,
# stdout: ..." (0.3x), "failed in sandbox: <output>" (0.4x), "apply_patch verification failed: ..."
# and "error: Failed to find expected lines in ..." (a patch that does not apply).
_SANDBOX_EXIT_RE = re.compile(r"\Afailed in sandbox \S+ with execution error: [^\n]*?\bexit code: (-?\d+)")
_PLAIN_FAILURE_RE = re.compile(r"\A(?:failed in sandbox\b|apply_patch verification failed:|error: |exec_command failed: )")
# Codex >= 0.11x reports a command its sandbox refused as "exec_command failed: CreateProcess { message:
# "Codex(Sandbox(Denied { output: ExecToolCallOutput { exit_code: 128, ...": the exit code is inside.
_EXEC_FAILED_EXIT_RE = re.compile(r"\Aexec_command failed: .{0,400}?\bexit_code: (-?\d+)", re.DOTALL)


def looks_like(obj: dict[str, Any]) -> bool:
    """True when ``obj`` is a Codex rollout line."""
    return obj.get("type") in _ITEM_TYPES and "payload" in obj


def parse_output(output: Any) -> tuple[str, int | None, bool | None]:
    """Text, exit code and failure flag of a Codex tool output.

    ``output`` is a string (plain text, or a JSON string ``{"output", "metadata": {"exit_code"}}``),
    or in the newest builds an object/array of content items.
    """
    exit_code: int | None = None
    is_error: bool | None = None
    text = ""
    data: Any = output
    if isinstance(output, str):
        text = output
        stripped = output.lstrip()
        if stripped.startswith(("{", "[")):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError:
                data = None
        else:
            data = None
    if isinstance(data, dict):
        if "output" in data or "metadata" in data:
            inner = data.get("output")
            text = inner if isinstance(inner, str) else _content_text(inner) or text
            metadata = data.get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
                exit_code = metadata["exit_code"]
        elif "content" in data:
            text = _content_text(data.get("content")) or text
        if isinstance(data.get("isError"), bool):  # MCP CallToolResult
            is_error = data["isError"]
        elif isinstance(data.get("success"), bool):
            is_error = not data["success"]
    elif isinstance(data, list):
        text = _content_text(data) or text
    if exit_code is None:
        for pattern in _EXIT_CODE_RES:
            match = pattern.search(text)
            if match:
                exit_code = int(match.group(1))
                break
    if exit_code is None and data is None and isinstance(output, str):  # plain text, not JSON
        plain = output.lstrip()
        sandbox = _SANDBOX_EXIT_RE.match(plain) or _EXEC_FAILED_EXIT_RE.match(plain)
        if sandbox:
            exit_code = int(sandbox.group(1))
        elif _PLAIN_FAILURE_RE.match(plain):
            is_error = True
    if exit_code is not None:
        is_error = exit_code != 0
    return text, exit_code, is_error


def _content_text(items: Any) -> str:
    """Text of a list of content items (``input_text``/``output_text``/``text``/images)."""
    if isinstance(items, str):
        return items
    if not isinstance(items, list):
        return ""
    parts: list[str] = []
    for item in items:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict):
            itype = item.get("type")
            if itype in ("input_image", "image", "output_image"):
                parts.append(IMAGE_PLACEHOLDER)
            elif isinstance(item.get("text"), str):
                parts.append(item["text"])
    return "\n".join(parts)


def _is_injected(text: str) -> bool:
    return text.lstrip().startswith(INJECTED_USER_PREFIXES)


class _Parser:
    def __init__(self, problems: list[LogProblem]) -> None:
        self.problems = problems
        self.out = Emitter()
        self.session_id: str | None = None
        self.tool_names: dict[str, str] = {}
        self.last_total: Any = None
        # 0.169: a typed prompt is a response_item user message followed by its twin (a user_message
        # event in older builds, an item_completed UserMessage in 0.169); held until the next line.
        self.pending_user: tuple[str, str | None] | None = None
        # 0.169 logs each model call's usage as a token_usage_record (before its token_count twin).
        self.usage_records: set[str] = set()
        self.last_event_prompt: str | None = None  # a user_message's text: its UserMessage twin is not counted

    def feed(self, raw: RawLine) -> None:
        line = raw.obj
        ltype = line.get("type")
        payload = line.get("payload")
        if not isinstance(ltype, str):
            self.problems.append(LogProblem(line=raw.number, message="no 'type' field; skipped"))
            return
        if ltype not in _ITEM_TYPES:
            self.problems.append(
                LogProblem(line=raw.number, message=f"unknown record type {ltype!r}; skipped")
            )
            return
        if not isinstance(payload, dict):
            self.problems.append(
                LogProblem(line=raw.number, message=f"{ltype} line without a payload; skipped")
            )
            return
        ts = as_str(line.get("timestamp"))
        if self.pending_user is not None and not self._is_user_twin(ltype, payload):
            # No twin: as before 0.169, a role-user message alone is not taken as a prompt (older
            # builds put injected context there that the prefixes do not recognise, e.g. redacted).
            self.pending_user = None
        if ltype == "session_meta":
            if self.session_id is None:
                self.session_id = as_str(payload.get("id")) or as_str(payload.get("session_id"))
        elif ltype == "compacted":
            message = as_str(payload.get("message")) or ""
            if message.strip():
                self.out.emit("system", message, kind=KIND_COMPACT_SUMMARY, timestamp=ts)
        elif ltype == "event_msg":
            self.event(payload, ts)
        elif ltype == "response_item":
            self.response_item(raw, payload, ts)
        elif ltype == "token_usage_record":
            self.usage_record(payload, ts)
        # turn_context, world_state, inter_agent_communication: metadata only.

    @staticmethod
    def _is_user_twin(ltype: str, payload: dict[str, Any]) -> bool:
        if ltype != "event_msg":
            return False
        item = payload.get("item")
        return payload.get("type") == "user_message" or (
            payload.get("type") == "item_completed" and isinstance(item, dict) and item.get("type") == "UserMessage")

    def usage_record(self, payload: dict[str, Any], ts: str | None) -> None:
        """A 0.169 ``token_usage_record``: one model call's usage (``usage.input_tokens``), once per response."""
        usage = payload.get("usage")
        key = as_str(payload.get("response_id")) or json.dumps(payload, sort_keys=True)
        if not isinstance(usage, dict) or key in self.usage_records:
            return
        self.usage_records.add(key)
        used = as_int(usage.get("input_tokens"))
        if used > 0:
            self.out.emit("assistant", "", kind=KIND_USAGE, input_tokens=used, timestamp=ts)

    def event(self, payload: dict[str, Any], ts: str | None) -> None:
        etype = payload.get("type")
        item = payload.get("item")
        if etype == "item_completed" and isinstance(item, dict) and item.get("type") == "UserMessage":
            # 0.169's twin of the response_item prompt (no user_message event): the prompt held back.
            pending, self.pending_user = self.pending_user, None
            text = pending[0] if pending else _content_text(item.get("content"))
            if text.strip() and not _is_injected(text) and text.strip() != self.last_event_prompt:
                self.out.emit("user", text, kind=KIND_MESSAGE, timestamp=pending[1] if pending else ts)
            self.last_event_prompt = None
        elif etype == "user_message":
            self.pending_user = None  # the response_item twin: the event's text is the clean prompt
            text = as_str(payload.get("message")) or ""
            images = [*(payload.get("images") or []), *(payload.get("local_images") or [])]
            if images:
                text = "\n".join([text, *([IMAGE_PLACEHOLDER] * len(images))]).strip("\n")
            if text.strip():
                self.out.emit("user", text, kind=KIND_MESSAGE, timestamp=ts)
            self.last_event_prompt = text.strip()
        elif etype == "token_count":
            if not self.usage_records:  # 0.169 logs the same usage as token_usage_record: count it once
                self.token_count(payload, ts)
        elif etype == "turn_aborted":
            reason = as_str(payload.get("reason")) or "interrupted"
            self.out.emit("system", f"[turn aborted: {reason}]", kind=KIND_INTERRUPT, timestamp=ts)
        # Other events are UI notifications or twins of response items (agent_message,
        # agent_reasoning, task_started/complete, ...): nothing new for memory.

    def token_count(self, payload: dict[str, Any], ts: str | None) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return  # rate-limit-only updates carry no usage
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        if not isinstance(total, dict):
            return
        key = json.dumps(total, sort_keys=True)
        if key == self.last_total:
            return  # Codex repeats the same count after each output; count it once
        previous = self.last_total
        self.last_total = key
        if isinstance(last, dict):
            used = as_int(last.get("input_tokens"))
        else:
            before = as_int(json.loads(previous).get("input_tokens")) if previous else 0
            used = max(as_int(total.get("input_tokens")) - before, 0)
        if used > 0:
            self.out.emit("assistant", "", kind=KIND_USAGE, input_tokens=used, timestamp=ts)

    def response_item(self, raw: RawLine, payload: dict[str, Any], ts: str | None) -> None:
        itype = payload.get("type")
        if itype == "message":
            role = payload.get("role")
            text = _content_text(payload.get("content"))
            if role == "assistant":
                if text.strip():
                    self.out.emit("assistant", text, kind=KIND_MESSAGE, timestamp=ts)
            elif role == "user":
                # Injected context is kept as such; a typed prompt waits for its twin event (the
                # user_message event's text wins; 0.169 writes none) — see ``feed``.
                if _is_injected(text):
                    self.out.emit("system", text, kind=KIND_CONTEXT, timestamp=ts)
                elif text.strip():
                    self.pending_user = (text, ts)
            elif role in ("developer", "system"):
                if text.strip():
                    self.out.emit("system", text, kind=KIND_DEVELOPER, timestamp=ts)
            else:
                self.problems.append(
                    LogProblem(line=raw.number, message=f"message with unknown role {role!r}; skipped")
                )
        elif itype == "reasoning":
            summary = payload.get("summary")
            parts = [
                s["text"] for s in summary or [] if isinstance(s, dict) and isinstance(s.get("text"), str)
            ]
            text = "\n\n".join(part for part in parts if part.strip())
            if text:
                self.out.emit("assistant", text, kind=KIND_THINKING, timestamp=ts)
        elif itype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            self.tool_call(itype, payload, ts)
        elif itype in ("function_call_output", "custom_tool_call_output"):
            call_id = as_str(payload.get("call_id"))
            text, exit_code, is_error = parse_output(payload.get("output"))
            self.out.emit(
                "tool",
                text,
                tool_name=self.tool_names.get(call_id) if call_id else None,
                tool_call_id=call_id,
                is_error=is_error,
                exit_code=exit_code,
                kind=KIND_TOOL_RESULT,
                timestamp=ts,
            )
        elif itype in _IGNORED_RESPONSE_ITEMS:
            return
        else:
            self.problems.append(
                LogProblem(line=raw.number, message=f"unknown response_item type {itype!r}; skipped")
            )

    def tool_call(self, itype: str, payload: dict[str, Any], ts: str | None) -> None:
        call_id = as_str(payload.get("call_id")) or as_str(payload.get("id"))
        tool_input: dict[str, Any] | str | None
        if itype == "function_call":
            name = as_str(payload.get("name")) or "unknown"
            arguments = payload.get("arguments")
            tool_input = arguments if isinstance(arguments, (dict, str)) else None
            if isinstance(arguments, str):
                try:
                    decoded = json.loads(arguments)
                except json.JSONDecodeError:
                    decoded = None
                if isinstance(decoded, dict):
                    tool_input = decoded
        elif itype == "custom_tool_call":
            name = as_str(payload.get("name")) or "unknown"
            raw_input = payload.get("input")
            tool_input = raw_input if isinstance(raw_input, (dict, str)) else None
        else:
            name = "local_shell" if itype == "local_shell_call" else "web_search"
            action = payload.get("action")
            tool_input = action if isinstance(action, dict) else None
        if call_id:
            self.tool_names[call_id] = name
        self.out.emit(
            "assistant",
            "",
            tool_name=name,
            tool_input=tool_input,
            tool_call_id=call_id,
            kind=KIND_TOOL_CALL,
            timestamp=ts,
        )


def parse(path: Path, lines: Iterable[RawLine], problems: list[LogProblem]) -> ParsedLog:
    """Normalise a Codex rollout whose lines were already read."""
    parser = _Parser(list(problems))
    for raw in lines:
        parser.feed(raw)
    return ParsedLog(
        path=path,
        format=FORMAT,
        session_id=parser.session_id or path.stem,
        entries=parser.out.entries,
        problems=sorted(parser.problems, key=lambda p: p.line),
    )
