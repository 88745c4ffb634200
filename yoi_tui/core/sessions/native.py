"""The native yoi session-log format: reading and writing.

A native log is JSONL (UTF-8, one JSON object per line, ``\\n``-terminated):

- line 1, the header: ``{"yoi_session": 1, "session_id": "<id>"}``. ``yoi_session`` is the format
  version (only 1 exists); further header keys (e.g. ``created_at``, ``harness``) are allowed and
  ignored.
- every other line is one entry: the ``Entry`` fields except ``index`` (the index is the entry's
  position among entry lines, so it can never disagree with the file):

  ``role`` (required: ``user|assistant|tool|system``), ``text`` (default ``""``), ``tool_name``,
  ``tool_input`` (object or string), ``is_error``, ``input_tokens``, ``timestamp`` (ISO 8601),
  ``kind``, ``tool_call_id``, ``exit_code``.

Unknown keys on an entry line are ignored (a newer writer may add fields). A line that is not an
object, has no valid ``role`` or has a field of the wrong type is a ``LogProblem`` and is skipped.
A header version other than 1 makes the whole file unreadable (``SessionLogError``): guessing at a
future format would risk wrong indices.

This module owns the format; ``docs/session-formats.md`` describes it for people.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ._common import Emitter, RawLine
from .model import Entry, LogProblem, ParsedLog, SessionLogError

FORMAT = "native"
HEADER_KEY = "yoi_session"
VERSION = 1

_ENTRY_FIELDS = frozenset(Entry.model_fields) - {"index"}


def looks_like(obj: dict[str, Any]) -> bool:
    """True when ``obj`` is a native header line."""
    return HEADER_KEY in obj


def parse(path: Path, lines: Iterable[RawLine], problems: list[LogProblem]) -> ParsedLog:
    """Normalise a native log whose lines were already read."""
    problems = list(problems)
    emitter = Emitter()
    session_id: str | None = None
    for position, line in enumerate(lines):
        obj = line.obj
        if HEADER_KEY in obj:
            if position != 0:
                problems.append(LogProblem(line=line.number, message="second header line; skipped"))
                continue
            if obj.get(HEADER_KEY) != VERSION:
                raise SessionLogError(
                    path, f"unsupported native log version {obj.get(HEADER_KEY)!r} (supported: {VERSION})"
                )
            sid = obj.get("session_id")
            if isinstance(sid, str) and sid:
                session_id = sid
            continue
        fields = {key: value for key, value in obj.items() if key in _ENTRY_FIELDS}
        try:
            # strict: a native writer is ours, so "5" for an int is a bug worth reporting.
            entry = Entry.model_validate({"index": emitter.count, **fields}, strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "line"
            problems.append(
                LogProblem(line=line.number, message=f"bad entry ({where}: {first['msg']}); skipped")
            )
            continue
        emitter.keep(entry)
    return ParsedLog(
        path=path,
        format=FORMAT,
        session_id=session_id or path.stem,
        entries=emitter.entries,
        problems=sorted(problems, key=lambda p: p.line),
    )


def header_line(session_id: str, **extra: Any) -> str:
    """The header line (with its newline) for a new native log."""
    return json.dumps({HEADER_KEY: VERSION, "session_id": session_id, **extra}, ensure_ascii=False) + "\n"


def entry_line(entry: Entry) -> str:
    """One entry as a native line (with its newline); ``index`` and unset fields are left out."""
    data = entry.model_dump(exclude={"index"}, exclude_none=True)
    return json.dumps(data, ensure_ascii=False) + "\n"


def write_log(path: Path, session_id: str, entries: Iterable[Entry]) -> None:
    """Write a complete native log (used by the demo workspace and tests)."""
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(header_line(session_id))
        for entry in entries:
            handle.write(entry_line(entry))


def append_entries(path: Path, entries: Iterable[Entry]) -> None:
    """Append entries to an existing native log (a harness records its session this way)."""
    with path.open("a", encoding="utf-8", newline="\n") as handle:
        for entry in entries:
            handle.write(entry_line(entry))
