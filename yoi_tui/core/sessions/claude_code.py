"""Adapter for Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Covers CLI 2.0.x and 2.1.x main transcripts and subagent files (2.0.x ``agent-<id>.jsonl``,
2.1.x ``<session>/subagents/agent-<id>.jsonl``). What becomes an entry:

- ``user`` lines: a typed prompt (string content or text blocks) -> role user; ``tool_result``
  blocks -> role tool (with ``is_error``, an ``Exit code N`` prefix parsed into ``exit_code``, a
  user rejection marked kind ``rejected``); images -> the placeholder ``[image]``; ``isMeta``
  caveats -> role system kind ``meta``; hook feedback (``Stop hook feedback: ...``, a hook's
  blocking error) -> role system kind ``hook_feedback`` (kept by cleaning: a failure signal); ``<command-name>`` lines -> kind ``command`` with text
  ``/name args``; ``<local-command-stdout>`` -> kind ``command_output``; ``[Request interrupted
  by user...]`` -> kind ``interrupt``; ``isCompactSummary`` -> kind ``compact_summary``.
- ``assistant`` lines: each content block is one entry (text, thinking, tool_use). Usage is
  counted once per ``message.id`` + ``requestId`` pair (Claude Code repeats it on every block's
  line) and put on the first entry of that model call.
- ``system`` lines: ``local_command`` as above; others with text become role system.
- Bookkeeping lines (``file-history-snapshot``, ``progress``, ``queue-operation``, ``summary``,
  metadata types) are skipped quietly; any other ``type`` is a ``LogProblem``.

``queue-operation`` lines are skipped on purpose: typed-ahead input either shows up later as a
normal user line or is removed, so taking it would double-count or invent prompts. Lines whose
``uuid`` was already seen in the file (resume copies) are skipped.

Subagent files carry their parent's ``sessionId``; their session id becomes
``<sessionId>.agent-<agentId>`` (so Source ranges never mix two logs' indices) and the parent's id
is kept in ``ParsedLog.parent_session_id``. User text in a subagent file is the parent agent's
instruction, so it gets kind ``agent_prompt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._common import Emitter, RawLine, as_int, as_str
from .model import (
    KIND_AGENT_PROMPT,
    KIND_API_ERROR,
    KIND_COMMAND,
    KIND_COMMAND_OUTPUT,
    KIND_COMPACT_SUMMARY,
    KIND_HOOK_FEEDBACK,
    KIND_INTERRUPT,
    KIND_MESSAGE,
    KIND_META,
    KIND_REJECTED,
    KIND_SYSTEM,
    KIND_THINKING,
    KIND_TOOL_CALL,
    KIND_TOOL_RESULT,
    LogProblem,
    ParsedLog,
    Role,
)

FORMAT = "claude_code"

# Types that hold conversation content.
_CONTENT_TYPES = frozenset({"user", "assistant", "system"})
# Types known to carry no conversation content (FORMATS.md 1.3); skipped without a problem.
_IGNORED_TYPES = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "pr-link",
        "agent-name",
        "custom-title",
        "last-prompt",
        "attachment",
        "permission-mode",
        "ai-title",
        "agent-setting",
        "bridge-session",
        "worktree-state",
        # 2.1.3xx bookkeeping: the API request as sent (its shape, its message blobs and params;
        # the same messages are logged as user/assistant lines), the tools used so far, the
        # session's cost, a latch with no content.
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "tools-used",
        "cost-state",
        "atis-latch",
    }
)
KNOWN_TYPES = _CONTENT_TYPES | _IGNORED_TYPES

IMAGE_PLACEHOLDER = "[image]"
DOCUMENT_PLACEHOLDER = "[document]"

_COMMAND_NAME_RE = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LOCAL_OUTPUT_RE = re.compile(r"<local-command-(stdout|stderr)>(.*?)</local-command-\1>", re.DOTALL)
_CAVEAT_TAG = "<local-command-caveat>"
# "Stop hook feedback: ...", "PreToolUse:Bash hook blocking error from command: ...".
_HOOK_FEEDBACK_RE = re.compile(r"\A\s*[\w:]+ hook (?:feedback|blocking error|error)\b")
_INTERRUPT_PREFIX = "[Request interrupted by user"
# 2.1.x prefixes a failed Bash result with its exit status; 2.0.x does not (FORMATS.md 1.4).
_EXIT_CODE_RE = re.compile(r"\AExit code (-?\d+)\b")
_REJECTION_MARKERS = (
    "The user doesn't want to proceed with this tool use",
    "User rejected tool use",
)


def looks_like(obj: dict[str, Any]) -> bool:
    """True when ``obj`` is a Claude Code transcript line."""
    kind = obj.get("type")
    if kind in _CONTENT_TYPES:
        return "sessionId" in obj or "uuid" in obj or isinstance(obj.get("message"), dict)
    return kind in _IGNORED_TYPES and "payload" not in obj


def _block_text(content: Any) -> str:
    """Text of a tool_result ``content`` (a string or a list of text/image blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif btype == "image":
            parts.append(IMAGE_PLACEHOLDER)
        elif btype == "document":
            parts.append(DOCUMENT_PLACEHOLDER)
        elif btype == "tool_reference" and isinstance(block.get("tool_name"), str):
            parts.append(f"[tool: {block['tool_name']}]")
    return "\n".join(parts)


def _command_text(text: str) -> str | None:
    """``/name args`` for a ``<command-name>`` line, else None."""
    match = _COMMAND_NAME_RE.search(text)
    if not match:
        return None
    name = match.group(1).strip()
    if not name.startswith("/"):
        name = "/" + name
    args_match = _COMMAND_ARGS_RE.search(text)
    args = args_match.group(1).strip() if args_match else ""
    return f"{name} {args}" if args else name


class _Parser:
    def __init__(self, path: Path, problems: list[LogProblem]) -> None:
        self.path = path
        self.problems = problems
        self.out = Emitter()
        self.session_id: str | None = None
        self.agent_id: str | None = None
        self.sidechain = False
        self.seen_uuids: set[str] = set()
        self.tool_names: dict[str, str] = {}
        # (message.id, requestId) pairs whose usage is already on an entry.
        self.counted_calls: set[tuple[str, str]] = set()

    # -- helpers ---------------------------------------------------------------------------

    def _user_text(self, text: str, *, is_meta: bool, sidechain: bool, ts: str | None) -> None:
        """Classify one piece of user-role text and emit it."""
        if _HOOK_FEEDBACK_RE.match(text):
            self.out.emit("system", text.strip(), kind=KIND_HOOK_FEEDBACK, timestamp=ts)
            return
        if is_meta or text.lstrip().startswith(_CAVEAT_TAG):
            self.out.emit("system", text, kind=KIND_META, timestamp=ts)
            return
        command = _command_text(text)
        if command is not None:
            self.out.emit("user", command, kind=KIND_COMMAND, timestamp=ts)
            return
        output = _LOCAL_OUTPUT_RE.search(text)
        if output is not None and text.lstrip().startswith("<local-command-"):
            inner = output.group(2).strip()
            if inner:  # an empty stdout (e.g. /clear) carries nothing
                self.out.emit("system", inner, kind=KIND_COMMAND_OUTPUT, timestamp=ts)
            return
        if text.lstrip().startswith(_INTERRUPT_PREFIX):
            self.out.emit("system", text.strip(), kind=KIND_INTERRUPT, timestamp=ts)
            return
        if not text.strip():
            return
        self.out.emit("user", text, kind=KIND_AGENT_PROMPT if sidechain else KIND_MESSAGE, timestamp=ts)

    def _tool_result(self, block: dict[str, Any], line: dict[str, Any], ts: str | None) -> None:
        text = _block_text(block.get("content"))
        call_id = as_str(block.get("tool_use_id"))
        exit_match = _EXIT_CODE_RE.match(text)
        exit_code = int(exit_match.group(1)) if exit_match else None
        flagged = block.get("is_error")
        is_error = flagged is True
        if exit_code is not None and exit_code != 0:
            is_error = True
        extra = line.get("toolUseResult")
        if isinstance(extra, dict) and extra.get("interrupted") is True:
            is_error = True
        rejected = any(marker in text for marker in _REJECTION_MARKERS) or extra == "User rejected tool use"
        kind = KIND_REJECTED if rejected and is_error else KIND_TOOL_RESULT
        self.out.emit(
            "tool",
            text,
            tool_name=self.tool_names.get(call_id) if call_id else None,
            tool_call_id=call_id,
            is_error=is_error,
            exit_code=exit_code,
            kind=kind,
            timestamp=ts,
        )

    # -- line types ------------------------------------------------------------------------

    def user(self, line: dict[str, Any], message: dict[str, Any], ts: str | None) -> None:
        is_meta = line.get("isMeta") is True
        sidechain = line.get("isSidechain") is True
        content = message.get("content")
        if line.get("isCompactSummary") is True:
            self.out.emit("system", _block_text(content), kind=KIND_COMPACT_SUMMARY, timestamp=ts)
            return
        if isinstance(content, str):
            self._user_text(content, is_meta=is_meta, sidechain=sidechain, ts=ts)
            return
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "tool_result":
                self._tool_result(block, line, ts)
            elif btype == "text" and isinstance(block.get("text"), str):
                self._user_text(block["text"], is_meta=is_meta, sidechain=sidechain, ts=ts)
            elif btype in ("image", "document"):
                placeholder = IMAGE_PLACEHOLDER if btype == "image" else DOCUMENT_PLACEHOLDER
                role: Role = "system" if is_meta else "user"
                self.out.emit(role, placeholder, kind=KIND_META if is_meta else KIND_MESSAGE, timestamp=ts)

    def assistant(self, line: dict[str, Any], message: dict[str, Any], ts: str | None) -> None:
        tokens: int | None = None
        call_key: tuple[str, str] | None = None
        usage = message.get("usage")
        if isinstance(usage, dict):
            call_key = (str(message.get("id") or line.get("uuid")), str(line.get("requestId") or ""))
            if call_key not in self.counted_calls:
                # Input consumed by the call = fresh input + cache writes + cache reads.
                tokens = (
                    as_int(usage.get("input_tokens"))
                    + as_int(usage.get("cache_creation_input_tokens"))
                    + as_int(usage.get("cache_read_input_tokens"))
                )
        api_error = line.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>"
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            fields: dict[str, Any]
            role: Role
            if btype == "text":
                text = as_str(block.get("text")) or ""
                if not text.strip():  # Claude Code writes "\n\n" blocks before thinking
                    continue
                role = "system" if api_error else "assistant"
                fields = {"kind": KIND_API_ERROR if api_error else KIND_MESSAGE}
            elif btype == "thinking":
                text = as_str(block.get("thinking")) or ""
                if not text.strip():
                    continue
                role, fields = "assistant", {"kind": KIND_THINKING}
            elif btype in ("tool_use", "server_tool_use"):
                name = as_str(block.get("name")) or "unknown"
                call_id = as_str(block.get("id"))
                if call_id:
                    self.tool_names[call_id] = name
                raw_input = block.get("input")
                text = ""
                role = "assistant"
                fields = {
                    "kind": KIND_TOOL_CALL,
                    "tool_name": name,
                    "tool_input": raw_input if isinstance(raw_input, (dict, str)) else None,
                    "tool_call_id": call_id,
                }
            else:
                continue  # redacted_thinking and future block types carry nothing we can read
            if tokens is not None and call_key is not None:
                fields["input_tokens"] = tokens
                self.counted_calls.add(call_key)
                tokens = None
            self.out.emit(role, text, timestamp=ts, **fields)

    def system(self, line: dict[str, Any], ts: str | None) -> None:
        subtype = as_str(line.get("subtype"))
        content = line.get("content")
        text = content if isinstance(content, str) else ""
        if subtype == "local_command":
            self._user_text(text, is_meta=False, sidechain=False, ts=ts)
            return
        if subtype == "compact_boundary":
            self.out.emit("system", "[conversation compacted]", kind=KIND_SYSTEM, timestamp=ts)
            return
        if subtype == "api_error":
            error = line.get("error")
            detail = text or (str(error) if error else "API error")
            self.out.emit("system", detail, kind=KIND_API_ERROR, timestamp=ts)
            return
        if text.strip():
            self.out.emit("system", text, kind=KIND_SYSTEM, timestamp=ts)

    # -- driver ----------------------------------------------------------------------------

    def feed(self, raw: RawLine) -> None:
        line = raw.obj
        ltype = line.get("type")
        if not isinstance(ltype, str):
            self.problems.append(LogProblem(line=raw.number, message="no 'type' field; skipped"))
            return
        if ltype in _IGNORED_TYPES:
            return
        if ltype not in _CONTENT_TYPES:
            self.problems.append(
                LogProblem(line=raw.number, message=f"unknown record type {ltype!r}; skipped")
            )
            return
        uuid = as_str(line.get("uuid"))
        if uuid is not None:
            if uuid in self.seen_uuids:
                return
            self.seen_uuids.add(uuid)
        sid = as_str(line.get("sessionId"))
        if sid and self.session_id is None:
            self.session_id = sid
        if line.get("isSidechain") is True:
            self.sidechain = True
            if self.agent_id is None:
                self.agent_id = as_str(line.get("agentId"))
        ts = as_str(line.get("timestamp"))
        if ltype == "system":
            self.system(line, ts)
            return
        message = line.get("message")
        if not isinstance(message, dict):
            self.problems.append(
                LogProblem(line=raw.number, message=f"{ltype} line without a message; skipped")
            )
            return
        if ltype == "user":
            self.user(line, message, ts)
        else:
            self.assistant(line, message, ts)


def parse(path: Path, lines: Iterable[RawLine], problems: list[LogProblem]) -> ParsedLog:
    """Normalise a Claude Code transcript whose lines were already read."""
    parser = _Parser(path, list(problems))
    for raw in lines:
        parser.feed(raw)
    session_id = parser.session_id or path.stem
    parent: str | None = None
    if parser.sidechain and parser.agent_id is None and path.stem.startswith("agent-"):
        # A sidechain file without agentId on its lines: the 2.0.x file name carries the id.
        parser.agent_id = path.stem.removeprefix("agent-")
    if parser.agent_id:
        parent = parser.session_id
        session_id = f"{session_id}.agent-{parser.agent_id}"
    return ParsedLog(
        path=path,
        format=FORMAT,
        session_id=session_id,
        entries=parser.out.entries,
        problems=sorted(parser.problems, key=lambda p: p.line),
        parent_session_id=parent,
    )
