"""The line format of compacted usage month files (``.yoi/usage/_month-YYYY-MM.jsonl``).

One line per session (and month): a JSON array, the session id first, then its events, each in a
short positional form when it has exactly the keys ``yoi`` writes —

* ``tokens``: ``[id, input_tokens]``;
* ``invoke``: ``[id, slug, record_kind, via]``;
* ``inject``: ``[id, tokens, slugs]``;

— and as the event object itself otherwise. ``id`` is the event's UUIDv7 as 22 base64url
characters when it is in canonical lower-case form (what ``yoi`` writes), else the id as written.
Why this shape: the first format (each event line plus a ``session_id`` key) made the month files
1.44x the bytes of the session files they replaced (issue 30), and a line per session is still one
whole line for ``merge=union`` (each clone folds only its own sessions, so two clones never write
the same session's line differently). Dropping the key names and the dashes saves 40-55 bytes an
event; the session id is written once a line, so a month file is smaller than the session files
it replaces unless a session has a single event and an id longer than about 40 characters.

The older format (a JSON object a line, with ``session_id``) is still read: month files already in
repositories stay valid, and ``compact`` never rewrites their lines.
"""

from __future__ import annotations

import base64
import re
import uuid
from collections.abc import Iterator
from typing import Any

_CANONICAL_V7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z")
_SHORT_ID = re.compile(r"[A-Za-z0-9_-]{22}\Z")
_SHAPES: dict[str | None, tuple[str, ...]] = {"tokens": ("input_tokens",), "invoke": ("slug", "record_kind", "via"), "inject": ("tokens", "slugs")}


class BadLine(ValueError):
    """A month-file line that is neither format (the loader reports it and skips the line)."""


def _short_id(event_id: str) -> str | None:
    if not _CANONICAL_V7.match(event_id):
        return None
    return base64.urlsafe_b64encode(uuid.UUID(event_id).bytes).decode("ascii").rstrip("=")


def _long_id(short: str) -> str:
    return str(uuid.UUID(bytes=base64.urlsafe_b64decode(short + "==")))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _compact_event(event: dict[str, Any]) -> Any:
    """The short form of ``event`` (no ``session_id``), or the event itself when it has another shape."""
    fields = _SHAPES.get(event.get("type"))
    short = _short_id(event["id"]) if isinstance(event.get("id"), str) else None
    if fields is None or short is None or set(event) != {"id", "type", *fields}:
        return event
    values = [event[f] for f in fields]
    kind = event["type"]
    if kind == "tokens" and _is_int(values[0]):
        return [short, *values]
    if kind == "invoke" and all(isinstance(v, str) for v in values):
        return [short, *values]
    if kind == "inject" and _is_int(values[0]) and isinstance(values[1], list) \
            and all(isinstance(s, str) for s in values[1]):
        return [short, *values]
    return event


def encode_session(session_id: str, events: list[dict[str, Any]]) -> list[Any]:
    """The line (as a JSON value) holding ``events`` of ``session_id`` (events without ``session_id``)."""
    return [session_id, *(_compact_event(e) for e in events)]


def _expand(item: Any) -> dict[str, Any]:
    if isinstance(item, dict):
        return item
    if not isinstance(item, list) or not item or not isinstance(item[0], str) or not _SHORT_ID.match(item[0]):
        raise BadLine("an event is neither an object nor a short form with a 22-character id")
    event_id = _long_id(item[0])
    if len(item) == 2 and _is_int(item[1]):
        return {"id": event_id, "type": "tokens", "input_tokens": item[1]}
    if len(item) == 4 and all(isinstance(v, str) for v in item[1:]):
        return {"id": event_id, "type": "invoke", "slug": item[1], "record_kind": item[2], "via": item[3]}
    if len(item) == 3 and _is_int(item[1]) and isinstance(item[2], list):
        return {"id": event_id, "type": "inject", "slugs": item[2], "tokens": item[1]}
    raise BadLine(f"an event's short form {item[:1]!r}... has no known shape")


def decode_line(value: Any) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """(session id, event) for each event of a parsed month-file line: a session line (a list) or
    an old single-event line (an object carrying ``session_id``; None when it lacks one)."""
    if isinstance(value, dict):
        session = value.pop("session_id", None)
        yield (session if isinstance(session, str) else None), value
        return
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise BadLine("neither a session line (a list, the session id first) nor an event object")
    for item in value[1:]:
        yield value[0], _expand(item)


__all__ = ["BadLine", "decode_line", "encode_session"]
