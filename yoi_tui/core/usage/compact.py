"""``yoi usage compact``: fold closed sessions' usage files into one file per month.

One file per session keeps concurrent writers and git merges apart, but a team of five makes about
12,000 of them a year and every lint/usage/GC run reads them all. A session is *closed* when its
last event is older than ``older_than_days`` (UUIDv7 ids carry their time); its events move into
``.yoi/usage/_month-YYYY-MM.jsonl`` for the month of the event, one line per session in the short
form of ``month_file`` (smaller than the session files it replaces). The loader
(``usage.load_events``) reads the session back, so every metric — clock, frequencies, sessions,
candidates — is exactly what it was; ``compact`` checks that before it reports success.

Crash safety: each month file is written atomically (what it already holds, then the new lines;
duplicates dropped) before any session file is removed; a crash in between leaves events in
both places, which the loader reads once (an identical event seen twice is skipped silently). Month
files are ``merge=union`` in ``.gitattributes``: two clones compacting the same sessions add the
same lines. In a workspace shared through git a clone folds only the sessions it began itself (``usage.
mark_own_session``; a session runs on one machine, so no other clone appends to its file): the
deletion reaches the others through git as a plain delete, never against an append — which would be
a modify/delete conflict no merge driver settles. Not guarded: an event appended to a session idle for ``older_than_days`` in the instant
between this reading its file and removing it (appenders do not re-check the file after their
lock), which is why only sessions idle that long are touched.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import YoiError
from ..store.atomic import atomic_write_bytes
from ..store.workspace import Workspace
from .log import COMPACTED_PREFIX, UsageError, own_sessions, usage_report, validate_session_id

DEFAULT_OLDER_THAN_DAYS = 30


@dataclass
class CompactResult:
    """What ``compact`` did (or would do, in a dry run)."""

    sessions: list[str] = field(default_factory=list)
    events: int = 0
    months: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # session file → why it was left alone
    files_before: int = 0
    files_after: int = 0
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "events": self.events, "months": self.months, "skipped": self.skipped,
                "files_before": self.files_before, "files_after": self.files_after, "dry_run": self.dry_run}


def _event_time(event_id: str) -> datetime | None:
    try:
        value = uuid.UUID(event_id)
    except ValueError:
        return None
    if value.version != 7:
        return None
    return datetime.fromtimestamp((value.int >> 80) / 1000, tz=UTC)


def _metrics(ws: Workspace) -> tuple[Any, ...]:
    stats, summary = usage_report(ws)
    return (sorted(json.dumps(s.to_json(), sort_keys=True) for s in stats), summary.clock, summary.sessions,
            summary.events, summary.invokes, summary.injects, summary.inject_tokens)


def _session_files(ws: Workspace) -> list[Path]:
    try:
        return sorted(p for p in ws.usage_dir.glob("*.jsonl")
                      if p.is_file() and not p.name.startswith(COMPACTED_PREFIX))
    except OSError:
        return []


def compact(ws: Workspace, *, older_than_days: int = DEFAULT_OLDER_THAN_DAYS, dry_run: bool = False,
            now: datetime | None = None) -> CompactResult:
    """Fold closed sessions into month files; raises ``YoiError`` if the metrics would not match."""
    if older_than_days < 0:
        raise YoiError(f"--older-than-days must be 0 or more, got {older_than_days}")
    cutoff = (now or datetime.now(UTC)) - timedelta(days=older_than_days)
    result = CompactResult(dry_run=dry_run)
    all_files = list(ws.usage_dir.glob("*.jsonl")) if ws.usage_dir.is_dir() else []
    result.files_before = len(all_files)
    by_month: dict[str, dict[str, dict[str, Any]]] = {}
    moving: list[Path] = []
    from ..store.git_driver import find_git_dir

    # Shared through git, another clone's session file is left to that clone: it may resume the
    # session and append, and git cannot merge an append into a file deleted here (modify/delete).
    mine = own_sessions(ws) if find_git_dir(str(ws.root)) is not None else None
    for path in _session_files(ws):
        if mine is not None and path.stem not in mine:
            result.skipped[path.name] = ("another clone's session (the workspace is shared through git): "
                                         "left to the clone that runs it")
            continue
        lines = _closed_session_lines(path, cutoff, result)
        if lines is None:
            continue
        for event in lines:
            stamp = _event_time(event["id"])
            assert stamp is not None
            by_month.setdefault(stamp.strftime("%Y-%m"), {})[event["id"].lower()] = event
        moving.append(path)
        result.sessions.append(path.stem)
        result.events += len(lines)
    result.months = sorted(by_month)
    result.files_after = result.files_before - len(moving) + sum(
        1 for m in by_month if not (ws.usage_dir / f"{COMPACTED_PREFIX}{m}.jsonl").exists())
    if dry_run or not moving:
        return result
    before = _metrics(ws)
    for month, events in sorted(by_month.items()):
        _write_month(ws.usage_dir / f"{COMPACTED_PREFIX}{month}.jsonl", events)
    for path in moving:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    after = _metrics(ws)
    if after != before:  # pragma: no cover - a guard: the loader and this module disagree
        raise YoiError("usage metrics changed after compaction; the session files were removed but the month "
                       "files hold every event — please report this", path=ws.usage_dir)
    return result


def _closed_session_lines(path: Path, cutoff: datetime, result: CompactResult) -> list[dict[str, Any]] | None:
    """The events of a closed session file, each with its ``session_id``; None: leave the file alone."""
    try:
        validate_session_id(path.stem)
    except UsageError:
        result.skipped[path.name] = "its name is not a session id; left as it is"
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        result.skipped[path.name] = f"cannot read: {exc.strerror or exc}"
        return None
    events: list[dict[str, Any]] = []
    latest: datetime | None = None
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            result.skipped[path.name] = "has a malformed line (run `yoi usage` to see it); left as it is"
            return None
        stamp = _event_time(obj.get("id", "")) if isinstance(obj, dict) and isinstance(obj.get("id"), str) else None
        if stamp is None or "session_id" in obj:
            result.skipped[path.name] = "has a line without a UUIDv7 id; left as it is"
            return None
        latest = stamp if latest is None or stamp > latest else latest
        events.append({**obj, "session_id": path.stem})
    if not events or latest is None or latest >= cutoff:
        return None  # empty, or still open (its last event is recent)
    return events


def _write_month(path: Path, new: dict[str, dict[str, Any]]) -> None:
    """Add the events ``new`` (id → event with its ``session_id``) to the month file at ``path``: one
    line per session (``month_file``) appended after the lines already there, which keep their
    order; an event the file already holds is not written again, a line found twice is kept once.

    Appending, never re-sorting: two clones adding their sessions' lines at the end of one month file
    meet in one hunk that ``merge=union`` settles by keeping both; lines moved around by one side
    came back twice from such merges (5 of 30 lines in a 4-clone campaign of bench/team.py)."""
    from .month_file import BadLine, decode_line, encode_session

    lines: list[bytes] = []
    present: set[str] = set()
    if path.exists():
        seen: set[bytes] = set()
        for raw in path.read_bytes().split(b"\n"):
            line = raw.strip()
            if not line or line in seen:
                continue
            seen.add(line)
            lines.append(line)
            try:
                present.update(str(event["id"]).lower() for _session, event in decode_line(json.loads(line)))
            except (BadLine, ValueError, KeyError, TypeError, RecursionError):
                pass  # kept verbatim (the loader reports it)
    by_session: dict[str, list[dict[str, Any]]] = {}
    for key in sorted(new):
        if key not in present:
            event = dict(new[key])
            by_session.setdefault(event.pop("session_id"), []).append(event)
    for _first, session, events in sorted((str(ev[0]["id"]).lower(), sid, ev) for sid, ev in by_session.items()):
        lines.append(json.dumps(encode_session(session, events), ensure_ascii=False,
                                separators=(",", ":")).encode("utf-8"))
    atomic_write_bytes(path, b"".join(line + b"\n" for line in lines))


__all__ = ["DEFAULT_OLDER_THAN_DAYS", "CompactResult", "compact"]
