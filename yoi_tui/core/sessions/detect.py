"""Format detection and ``load_session``, THE entry point for reading any session log.

The format is decided from content, never from the file name: the first JSON-object lines are
matched against each adapter's ``looks_like``. Order matters only for robustness: the native
header is unambiguous, Codex lines have a ``payload``, Claude Code lines do not.

Error policy (SPEC 7):
- a missing/unreadable file, a directory, or content that is no known format -> ``SessionLogError``;
- an empty (or whitespace-only) file -> a ``ParsedLog`` of format ``empty`` with no entries;
- a bad line inside a recognised log -> a ``LogProblem``, never an exception. Bad UTF-8 inside a
  line is decoded with U+FFFD replacement and reported as a problem; the line is still used.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from . import claude_code, codex, native
from ._common import RawLine, emitting_to, iter_lines, read_bytes, split_lines
from .model import Entry, LogProblem, ParsedLog, SessionLogError

FORMAT_EMPTY = "empty"
FORMATS: tuple[str, ...] = (native.FORMAT, claude_code.FORMAT, codex.FORMAT)

_Parse = Callable[[Path, Iterable[RawLine], list[LogProblem]], ParsedLog]
_ADAPTERS: tuple[tuple[str, Callable[[dict[str, Any]], bool], _Parse], ...] = (
    (native.FORMAT, native.looks_like, native.parse),
    (codex.FORMAT, codex.looks_like, codex.parse),
    (claude_code.FORMAT, claude_code.looks_like, claude_code.parse),
)

# How much of a file detect_format reads, and how many object lines it inspects: enough to get
# past a damaged first line, small enough to stay instant on a multi-megabyte transcript.
_DETECT_BYTES = 1 << 20
_DETECT_LINES = 50


def _classify(lines: list[RawLine]) -> str | None:
    for raw in lines[:_DETECT_LINES]:
        for name, looks_like, _ in _ADAPTERS:
            if looks_like(raw.obj):
                return name
    return None


def detect_format(path: Path | str) -> str:
    """The format of the log at ``path``: ``native``, ``claude_code``, ``codex`` or ``empty``.

    Raises ``SessionLogError`` when the file cannot be read or is no known format.
    """
    path = Path(path)
    data = read_bytes(path, _DETECT_BYTES)
    if not data.strip():
        return FORMAT_EMPTY
    lines, _ = split_lines(data, complete=len(data) < _DETECT_BYTES)
    found = _classify(lines)
    if found is None:
        raise SessionLogError(path, _unknown_message(lines))
    return found


def _unknown_message(lines: list[RawLine]) -> str:
    if not lines:
        return "not a session log (no JSON object lines)"
    return "not a recognised session log format (expected a yoi native, Claude Code or Codex JSONL log)"


def load_session(path: Path | str, *, format: str | None = None) -> ParsedLog:
    """Read and normalise one session log.

    ``format`` forces an adapter (one of ``FORMATS``); by default it is detected from content.
    Raises ``SessionLogError`` only for whole-file trouble (see the module docstring).
    """
    path = Path(path)
    data = read_bytes(path)
    if not data.strip():
        return ParsedLog(path=path, format=FORMAT_EMPTY, session_id=path.stem, entries=[], problems=[])
    lines, problems = split_lines(data)
    name = format or _classify(lines)
    if name is None:
        raise SessionLogError(path, _unknown_message(lines))
    for adapter_name, _, parse in _ADAPTERS:
        if adapter_name == name:
            return parse(path, lines, problems)
    raise SessionLogError(path, f"unknown format {name!r} (known: {', '.join(FORMATS)})")


def stream_session(path: Path | str, sink: Callable[[Entry], None], *, format: str | None = None) -> ParsedLog:
    """``load_session`` as a stream: each entry goes to ``sink`` as its line is read (one line in
    memory at a time) and the ``ParsedLog`` returned carries no entries. The same entries, session
    id and problems as ``load_session``; the same errors."""
    path = Path(path)
    problems: list[LogProblem] = []
    lines = iter_lines(path, problems)
    head = list(itertools.islice(lines, _DETECT_LINES))
    if not head and not problems:
        return ParsedLog(path=path, format=FORMAT_EMPTY, session_id=path.stem, entries=[], problems=[])
    name = format or _classify(head)
    if name is None:
        raise SessionLogError(path, _unknown_message(head))
    for adapter_name, _, parse in _ADAPTERS:
        if adapter_name == name:
            with emitting_to(sink):
                # The adapters take the problems so far and add their own; later line problems
                # land in ``problems`` while they iterate, so they are merged afterwards.
                parsed = parse(path, _Chain(head, lines), [])
            merged = sorted([*problems, *parsed.problems], key=lambda p: p.line)
            return parsed.model_copy(update={"problems": merged})
    raise SessionLogError(path, f"unknown format {name!r} (known: {', '.join(FORMATS)})")


class _Chain:
    """The detection lines, then the rest of the stream (an iterable the adapters loop over once)."""

    def __init__(self, head: list[RawLine], rest: Iterable[RawLine]) -> None:
        self._head, self._rest = head, rest

    def __iter__(self) -> Iterator[RawLine]:
        return itertools.chain(self._head, self._rest)


__all__ = ["FORMATS", "FORMAT_EMPTY", "detect_format", "load_session", "stream_session"]
