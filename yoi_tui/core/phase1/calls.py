"""Tool calls paired with their results, as the rules extractor reads them.

A command's identity holds across its polls: Codex's unified exec starts a command with
``exec_command`` and, while it runs ("Process running with session ID 7"), reads more of it with
``write_stdin`` on that session. The polls are folded into the command that opened the session: the
call keeps the command's text and takes the last poll's result (its exit code, its output), so an
attempt is named after the command, an ``rg`` that ends with exit 1 is still "no match", and a poll
is never a call of its own — not even when the command it reads is not in sight (an earlier chunk).
A command that ended on the Ctrl-C the agent sent it (a dev server it stopped, exit 130) did not fail.
The session is named "session ID" (``write_stdin``'s ``session_id``) or, in other builds, "process ID".

A shell call that runs ``apply_patch`` (older Codex: ``["apply_patch", "*** Begin Patch …"]``) is an
edit, like the ``apply_patch`` tool.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..sessions.model import Entry
from .text import squash

_RUNNING_RE = re.compile(r"Process running with (?:session|process) ID:? (\d+)")
POLL_TOOLS = {"write_stdin"}
# Claude Code: a command started with run_in_background answers "Command running in background with
# ID: bash_9"; BashOutput (TaskOutput in later builds) reads it, "<status>failed</status>
# <exit_code>1</exit_code>" once it ended badly.
_BACKGROUND_ID_RE = re.compile(r"^Command running in background with ID: (\S+)")
BACKGROUND_POLL_TOOLS = {"BashOutput", "TaskOutput"}
_POLL_STATUS_RE = re.compile(r"<status>(\w+)</status>")
_POLL_EXIT_RE = re.compile(r"<exit_code>(-?\d+)</exit_code>")
SHELL_TOOLS = {"bash", "shell", "shell_command", "exec_command", "local_shell", "run_terminal_cmd"}
EDIT_TOOLS = {"edit", "write", "multiedit", "notebookedit", "apply_patch", "str_replace_editor", "create_file"}


@dataclass
class Call:
    entry: Entry
    result: Entry | None = None
    _patch: str | None = field(default=None, init=False, repr=False, compare=False)
    _shell: bool | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.entry.tool_name or "tool"

    @property
    def is_shell(self) -> bool:
        if self._shell is None:  # asked for every call by every rule: computed once
            self._shell = self.name.lower() in SHELL_TOOLS and not self.patch()
        return self._shell

    @property
    def is_edit(self) -> bool:
        return self.name.lower() in EDIT_TOOLS or bool(self.patch())

    def patch(self) -> str:
        """The patch this call applies: apply_patch's input, or a shell call running ``apply_patch``
        (older Codex: ``["apply_patch", "*** Begin Patch …"]``, or ``apply_patch <<'EOF'`` in bash)."""
        if self._patch is None:
            self._patch = self._find_patch()
        return self._patch

    def _find_patch(self) -> str:
        data = self.entry.tool_input
        if isinstance(data, str):
            return data if data.startswith("*** Begin Patch") else ""
        if self.name.lower() not in SHELL_TOOLS:
            return ""
        command = self.command()
        start = command.find("*** Begin Patch")
        if start < 0 or not re.match(r"^\s*(?:cd \S+\s*&&\s*)?apply_patch\b", command):
            return ""
        return command[start:]

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result.is_error is True

    @property
    def succeeded(self) -> bool:
        return self.result is not None and self.result.is_error is False

    @property
    def rejected(self) -> bool:
        return self.result is not None and self.result.kind == "rejected"

    @property
    def end(self) -> int:
        return self.result.index if self.result is not None else self.entry.index

    def command(self) -> str:
        """The shell command line ("" for other tools)."""
        data = self.entry.tool_input
        if isinstance(data, dict):
            for key in ("command", "cmd"):
                value = data.get(key)
                if isinstance(value, list):
                    parts = [str(v) for v in value]
                    # Codex wraps commands as ["bash", "-lc", "<script>"].
                    value = parts[-1] if len(parts) >= 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
                if isinstance(value, str) and value.strip():
                    return value
        return ""

    def describe(self) -> str:
        data = self.entry.tool_input
        patch = self.patch()
        if patch:
            files = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", patch, re.MULTILINE)
            return f"apply_patch {', '.join(files)}" if files else "apply_patch"
        if isinstance(data, str):
            return f"{self.name} {squash(data, 120)}"
        command = self.command()
        if command:
            # A heredoc or $(...) commit message is not what ran: show it as "…".
            first = re.sub(r"\"?\$\(cat <<.*|<<-?\s*['\"]?\w+['\"]?.*", "\"…\"", command.strip().splitlines()[0])
            return squash(first, 160)
        if isinstance(data, dict):
            for key in ("file_path", "path", "notebook_path", "url", "pattern", "query"):
                value = data.get(key)
                if isinstance(value, str) and value:
                    return f"{self.name} {value}"
            return f"{self.name} {squash(json.dumps(data, ensure_ascii=False, default=str), 100)}"
        return self.name

    def files(self) -> list[str]:
        """Files this call edits or reads (for naming what a fix touched)."""
        patch = self.patch()
        if patch:
            return re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", patch, re.MULTILINE)
        data = self.entry.tool_input
        if isinstance(data, dict):
            return [data[k] for k in ("file_path", "path", "notebook_path") if isinstance(data.get(k), str)]
        return []


def pair_calls(entries: list[Entry]) -> list[Call]:
    calls: list[Call] = []
    by_id: dict[str, Call] = {}
    for entry in entries:
        call: Call | None
        if entry.kind == "tool_call":
            call = Call(entry)
            calls.append(call)
            if entry.tool_call_id:
                by_id[entry.tool_call_id] = call
        elif entry.kind in ("tool_result", "rejected"):
            call = by_id.get(entry.tool_call_id or "") if entry.tool_call_id else None
            if call is None:  # logs without call ids: the latest call still waiting for its result
                call = next((c for c in reversed(calls) if c.result is None), None)
            if call is not None and call.result is None:
                call.result = entry
    return fold_polls(calls)


def _session_of(call: Call) -> str | None:
    """The unified-exec session a still-running command opened (from its output)."""
    if call.result is None or "Process running" not in call.result.text:
        return None  # a plain substring test first: outputs are long
    match = _RUNNING_RE.search(call.result.text)
    return match.group(1) if match else None


def _background_id(call: Call) -> str | None:
    """The id a Claude Code background command answered with ("Command running in background with ID: …")."""
    if call.result is None or not call.result.text.startswith("Command running in background"):
        return None
    match = _BACKGROUND_ID_RE.match(call.result.text)
    return match.group(1) if match else None


def _poll_result(poll: Entry) -> Entry:
    """A background poll's result as the command's own: failed (with its exit code) when the poll
    says the command ended with status ``failed``."""
    status = _POLL_STATUS_RE.search(poll.text[:200])
    if status is None or status.group(1) != "failed":
        return poll
    code = _POLL_EXIT_RE.search(poll.text[:400])
    return poll.model_copy(update={"is_error": True, "exit_code": int(code.group(1)) if code else poll.exit_code})


_INTERRUPT_CODES = {130, 143, 137, -2, -15}


def _stopped_by_agent(poll: Call, result: Entry) -> Entry:
    """A poll's result as the command's own: a command that ended on the interrupt the agent itself sent
    (``write_stdin`` with Ctrl-C, exit 130) was stopped, as the agent meant, not failed."""
    data = poll.entry.tool_input
    chars = data.get("chars") if isinstance(data, dict) else None
    if isinstance(chars, str) and "\x03" in chars and result.exit_code in _INTERRUPT_CODES and result.is_error:
        return result.model_copy(update={"is_error": False})
    return result


def fold_polls(calls: list[Call]) -> list[Call]:
    """``calls`` with each ``write_stdin`` poll folded into the ``exec_command`` whose session it reads,
    and each Claude Code ``BashOutput`` poll into the background command it reads (a server started
    in the background that crashed on start is that command failing)."""
    folded: list[Call] = []
    running: dict[str, Call] = {}
    background: dict[str, Call] = {}
    for call in calls:
        polled = call.entry.tool_input
        if call.name in BACKGROUND_POLL_TOOLS and isinstance(polled, dict):
            value = next((polled.get(k) for k in ("bash_id", "shell_id", "task_id") if polled.get(k) is not None), None)
            owner = background.get(str(value)) if value is not None else None
            if owner is not None:
                if call.result is not None:
                    owner.result = _poll_result(call.result)
                continue  # the poll is the command's own output, not a call of its own
        elif call.is_shell and (started := _background_id(call)) is not None:
            background[started] = call
        if call.name in POLL_TOOLS:
            data = call.entry.tool_input
            value = next((data.get(k) for k in ("session_id", "process_id") if isinstance(data, dict)
                          and data.get(k) is not None), None)
            session = str(value) if value is not None else None
            owner = running.get(session or "")
            if owner is not None and call.result is not None:
                owner.result = _stopped_by_agent(call, call.result)
                if _session_of(call) is None:
                    running.pop(session or "", None)  # the command ended
            continue  # a poll is never a call of its own; one whose command is not in sight tells nothing
        folded.append(call)
        session = _session_of(call) if call.is_shell else None
        if session is not None:
            running[session] = call
    return folded
