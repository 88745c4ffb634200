"""Shared plumbing for the adapters: reading JSONL lines and numbering entries.

Owns two rules every adapter must follow:
- a bad line (not JSON, not an object, bad UTF-8, truncated) becomes a ``LogProblem`` with its
  1-based line number and never raises;
- entries are numbered in emission order, and each line's entries depend only on that line and
  the lines before it, so appending to a log never renumbers or changes earlier entries.

Because of the second rule a log can also be read as a stream (``iter_lines``; an ``Emitter``
created inside ``emitting_to(sink)`` hands each entry to ``sink`` instead of keeping it), with the
same lines, problems and entries as reading it whole (``split_lines``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.safe_read import MAX_JSON_DEPTH, JsonTooDeep, NotRegularFile, loads_json, open_regular
from .model import Entry, LogProblem, Role, SessionLogError


@dataclass(frozen=True)
class RawLine:
    """One parsed JSONL line: its 1-based number and the decoded object."""

    number: int
    obj: dict[str, Any]


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """Read a log's bytes, turning OS errors into ``SessionLogError``."""
    try:
        fd = open_regular(path)  # never a FIFO or device: opening one could block for ever
        with os.fdopen(fd, "rb") as handle:
            return handle.read() if limit is None else handle.read(limit)
    except NotRegularFile as exc:
        what = "is a directory" if "folder" in exc.message else exc.message.replace("; not read", "").replace(", not a file", "")
        raise SessionLogError(path, f"{what}, not a session log file") from exc
    except FileNotFoundError as exc:
        raise SessionLogError(path, "no such file") from exc
    except PermissionError as exc:
        raise SessionLogError(path, "permission denied") from exc
    except OSError as exc:
        raise SessionLogError(path, f"cannot read: {exc.strerror or exc}") from exc


def _parse_line(number: int, raw: bytes, *, unterminated_last: bool,
                problems: list[LogProblem]) -> RawLine | None:
    """One line's object, or None (and a problem) when it is unusable; blank lines give None."""
    raw = raw.rstrip(b"\r")
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        problems.append(LogProblem(line=number, message="invalid UTF-8 bytes replaced with U+FFFD"))
    try:
        obj = loads_json(text)
    except JsonTooDeep:
        problems.append(LogProblem(line=number, message=f"JSON nested deeper than {MAX_JSON_DEPTH} levels; skipped"))
        return None
    except json.JSONDecodeError as exc:
        if unterminated_last:
            message = "truncated last line (the log may still be being written); skipped"
        else:
            message = f"invalid JSON ({exc.msg} at column {exc.colno}); skipped"
        problems.append(LogProblem(line=number, message=message))
        return None
    if not isinstance(obj, dict):
        problems.append(LogProblem(line=number, message="not a JSON object; skipped"))
        return None
    return RawLine(number=number, obj=obj)


def split_lines(data: bytes, *, complete: bool = True) -> tuple[list[RawLine], list[LogProblem]]:
    """Parse JSONL bytes into objects, recording a problem for every unusable line.

    ``complete`` says ``data`` is the whole file; when false (a prefix read for detection) an
    unterminated last line is silently dropped instead of reported as truncated.

    Bad bytes inside one line are decoded with U+FFFD replacement and reported, but the line is
    still used: one mangled character should not cost a whole tool result.
    """
    lines: list[RawLine] = []
    problems: list[LogProblem] = []
    chunks = data.split(b"\n")
    # A file ending in "\n" leaves an empty last chunk; otherwise the last chunk is a line whose
    # writer may still be busy (logs are read while being appended to).
    unterminated = chunks[-1] != b""
    if not unterminated:
        chunks.pop()
    for number, raw in enumerate(chunks, start=1):
        is_last = number == len(chunks)
        if is_last and unterminated and not complete:
            break
        line = _parse_line(number, raw, unterminated_last=is_last and unterminated, problems=problems)
        if line is not None:
            lines.append(line)
    return lines, problems


def iter_lines(path: Path, problems: list[LogProblem]) -> Iterator[RawLine]:
    """The lines of the log at ``path``, read and parsed one at a time (problems go to ``problems``):
    the same lines and problems as ``split_lines(read_bytes(path))``, with only one line in memory."""
    try:
        fd = open_regular(path)
    except (NotRegularFile, OSError):
        read_bytes(path)  # raises the SessionLogError that says why
        raise
    with os.fdopen(fd, "rb") as handle:
        number = 0
        pending = handle.readline()
        while pending:
            number += 1
            following = handle.readline()
            unterminated = not pending.endswith(b"\n")
            raw = pending[:-1] if not unterminated else pending
            line = _parse_line(number, raw, unterminated_last=unterminated and not following, problems=problems)
            if line is not None:
                yield line
            pending = following


def read_lines(path: Path) -> tuple[list[RawLine], list[LogProblem]]:
    """Read and parse a whole JSONL log."""
    return split_lines(read_bytes(path))


_SINK: ContextVar[Callable[[Entry], None] | None] = ContextVar("yoi_entry_sink", default=None)


@contextmanager
def emitting_to(sink: Callable[[Entry], None]) -> Iterator[None]:
    """Emitters created inside this block hand each entry to ``sink`` instead of keeping it."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


class Emitter:
    """Collects entries (or hands them to the sink of ``emitting_to``) and assigns indices in
    emission (= file) order."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.count = 0
        self._sink = _SINK.get()

    def emit(self, role: Role, text: str = "", **fields: Any) -> Entry:
        return self.keep(Entry(index=self.count, role=role, text=text, **fields))

    def keep(self, entry: Entry) -> Entry:
        """Take ``entry`` (built with ``index=self.count``) as the next one."""
        self.count += 1
        if self._sink is not None:
            self._sink(entry)
        else:
            self.entries.append(entry)
        return entry


def as_int(value: Any) -> int:
    """An integer from a usage field, treating missing or odd values as 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return 0


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
