"""Usage metrics (SPEC 6): the event log in ``.yoi/usage/<session_id>.jsonl`` and what is computed from it.

Owns: writing events (``tokens`` clock ticks, ``invoke``s of records, ``inject``ions of resident
context), the session id, reading every session file back (a malformed line is reported and
skipped, never fatal), and the arithmetic: the token clock, each record's frequency in invokes
per million input tokens, the protection flag, and the knowledge candidate report Phase 2 reads.

Appends are safe with many writers at once (several CLI processes, the MCP server, the app):

* each append is ONE ``os.write`` of whole lines on an ``O_APPEND`` descriptor. On Linux local file
  systems the kernel positions and writes an ``O_APPEND`` write to a regular file under the inode
  lock, so two writers never interleave or overwrite each other's bytes;
* and, around that write, an exclusive ``flock`` on the usage file itself. POSIX only promises
  atomic writes for pipes; the lock covers file systems where ``O_APPEND`` is emulated (NFS clients
  seek and write; Linux maps ``flock`` to NFS byte-range locks) and makes the rare short write
  (disk nearly full) safe to complete with a second write. Under the lock we also look at the
  file's last byte: a line torn by a writer killed mid-write is closed with a newline first, so it
  stays one malformed (reported, skipped) line instead of swallowing our event. ``flock`` rather
  than a ``filelock`` lock file: it costs one system call instead of ~0.3 ms per append, needs no
  extra file, and the kernel releases it when a holder dies, so it can never go stale. Where
  ``fcntl`` does not exist (Windows, whose C runtime emulates ``O_APPEND`` with seek+write)
  ``filelock`` guards the append with a lock file in the git-ignored ``.yoi/state/locks/``. If no
  lock can be had (a file system without locks, a 10 s timeout) the single ``O_APPEND`` write
  still goes ahead: losing the event would be worse.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import YoiError
from ..notices import warn
from ..store.ids import new_id
from ..store.kinds import RecordKind
from ..store.record_listing import md_dir_entries, record_folders
from ..store.safe_read import NotRegularFile, read_regular_bytes
from ..store.workspace import Workspace

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl (Windows): the log is appended unlocked


SESSION_ENV = "YOI_SESSION_ID"
EVENT_TYPES = ("tokens", "invoke", "inject")
VIAS = ("search", "slug", "expand", "workflow")
RECORD_KINDS = tuple(k.value for k in RecordKind)
# Kinds Phase 2 may turn into knowledge (SPEC 6); the summary is always resident, never a candidate.
CANDIDATE_KINDS = ("decision", "request", "knowledge")

# Session ids become file names: keep them to characters that are safe on every file system.
_SESSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# A UUID in its canonical form with version 7 and the RFC 4122 variant: uuid.UUID reads it and says
# version 7 (``_check_event`` asks uuid.UUID about any other form).
_CANONICAL_V7 = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}\Z")
_LOCK_TIMEOUT_S = 10.0
COMPACTED_PREFIX = "_month-"  # never a session id (those start with a letter or digit)
_MAX_LINE_BYTES = 64 * 1024

_process_session_id: str | None = None


class UsageError(YoiError):
    """A usage event could not be recorded (bad session id, bad value, unwritable folder)."""


# --------------------------------------------------------------------------- session ids


def validate_session_id(session_id: str) -> str:
    """``session_id`` when it is usable as a file name, else ``UsageError``."""
    if not isinstance(session_id, str) or not _SESSION_RE.match(session_id) or session_id.endswith(".lock"):
        raise UsageError(
            f"bad session id {session_id!r}: use 1-128 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit (it names .yoi/usage/<session_id>.jsonl)")
    return session_id


def current_session_id() -> str:
    """``$YOI_SESSION_ID`` when set, else one UUIDv7 generated once per process."""
    global _process_session_id
    env = os.environ.get(SESSION_ENV, "").strip()
    if env:
        return validate_session_id(env)
    if _process_session_id is None:
        _process_session_id = new_id()
    return _process_session_id


def resolve_session_id(session_id: str | None) -> str:
    """An explicit session id (validated) or ``current_session_id()``."""
    return validate_session_id(session_id) if session_id else current_session_id()


def estimate_tokens(text: str) -> int:
    """Rough input-token count of ``text``: ~4 ASCII characters per token, one per other character.

    Used for the cost of resident injections when the harness has no tokenizer. CJK text runs near
    one token per character, so counting non-ASCII characters one each keeps Japanese memory honest.
    """
    if not text:
        return 0
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


# --------------------------------------------------------------------------- writing


def usage_path(ws: Workspace, session_id: str) -> Path:
    return ws.usage_dir / f"{validate_session_id(session_id)}.jsonl"


def _lock_path(ws: Workspace, session_id: str) -> Path:
    return ws.state_dir / "locks" / f"usage-{session_id}.lock"


def _encode(event: Mapping[str, Any]) -> bytes:
    line = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    data = (line + "\n").encode("utf-8")
    if len(data) > _MAX_LINE_BYTES:
        raise UsageError(f"usage event is {len(data)} bytes; at most {_MAX_LINE_BYTES} per line")
    return data


def _ends_without_newline(fd: int) -> bool:
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    if hasattr(os, "pread"):
        last = os.pread(fd, 1, size - 1)
    else:  # pragma: no cover - Windows; we hold the lock and O_APPEND writes ignore the offset
        os.lseek(fd, size - 1, os.SEEK_SET)
        last = os.read(fd, 1)
    return last not in (b"\n", b"")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # pragma: no cover - the kernel reports errors as exceptions
            raise OSError("write returned 0")
        view = view[written:]


def _flock(fd: int) -> bool:
    """Exclusive ``flock`` on the usage file itself; False if it cannot be had within the timeout."""
    assert fcntl is not None
    deadline = time.monotonic() + _LOCK_TIMEOUT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.0005)
        except OSError:  # ENOLCK and friends: a file system without locks
            return False


def _open_append(path: Path) -> int:
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags, 0o644)


def _append_locked_fd(fd: int, data: bytes, locked: bool) -> None:
    if locked:
        if _ends_without_newline(fd):
            data = b"\n" + data  # close a line torn by a crashed writer; see module docstring
        _write_all(fd, data)
    else:
        os.write(fd, data)  # one write: atomic for O_APPEND on local POSIX file systems


def _append(path: Path, data: bytes, lock_path: Path) -> None:
    if fcntl is not None:
        fd = _open_append(path)
        try:
            locked = _flock(fd)
            if not locked:
                warn("yoi.usage", "usage: could not lock %s; appending without the lock", path)
            _append_locked_fd(fd, data, locked)
        finally:
            os.close(fd)  # also releases the flock
        return
    _append_with_lock_file(path, data, lock_path)  # pragma: no cover - Windows


def _append_with_lock_file(path: Path, data: bytes, lock_path: Path) -> None:  # pragma: no cover - Windows
    from filelock import FileLock, Timeout

    lock: FileLock | None = None
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_path), timeout=_LOCK_TIMEOUT_S)
        lock.acquire()
    except (OSError, Timeout) as exc:
        warn("yoi.usage", "usage: could not lock %s (%s); appending without the lock", lock_path, exc)
        lock = None
    try:
        fd = _open_append(path)
        try:
            _append_locked_fd(fd, data, lock is not None)
        finally:
            os.close(fd)
    finally:
        if lock is not None:
            lock.release()


OWN_SESSIONS = "usage-own"  # .yoi/state/usage-own/<session_id>: sessions this clone began (local, never shared)


def mark_own_session(ws: Workspace, session_id: str) -> None:
    """Remember that this clone began ``session_id``'s usage file. Only this clone appends to it (a
    session runs on one machine), so only this clone may fold it away in a shared workspace
    (``compact``): a file deleted in one clone while another appended to it would be a
    modify/delete conflict in git, which no merge driver settles."""
    folder = ws.state_dir / OWN_SESSIONS
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.close(os.open(folder / session_id, os.O_CREAT | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o644))
    except OSError:
        pass  # then this clone leaves the file to be (no harm: it is only not compacted)


def own_sessions(ws: Workspace) -> set[str]:
    """The session ids this clone began (``mark_own_session``)."""
    try:
        return {entry.name for entry in os.scandir(ws.state_dir / OWN_SESSIONS)}
    except OSError:
        return set()


class UsageLog:
    """Appends events for one session of one workspace."""

    def __init__(self, ws: Workspace, session_id: str | None = None) -> None:
        self.ws = ws
        self.session_id = resolve_session_id(session_id)

    @property
    def path(self) -> Path:
        return usage_path(self.ws, self.session_id)

    def record_events(self, events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Append several events in one write (each gets an ``id`` if it has none). Returns them."""
        prepared: list[dict[str, Any]] = []
        for event in events:
            item = {"id": new_id(), **event}
            if item.get("type") not in EVENT_TYPES:
                raise UsageError(f"usage event type must be one of {', '.join(EVENT_TYPES)}, got {item.get('type')!r}")
            prepared.append(item)
        if not prepared:
            return []
        data = b"".join(_encode(e) for e in prepared)
        path = self.path
        if not os.path.exists(path):
            mark_own_session(self.ws, self.session_id)
        try:
            _append(path, data, _lock_path(self.ws, self.session_id))
        except OSError as exc:
            raise UsageError(f"cannot append usage events: {exc.strerror or exc}", path=self.path) from exc
        return prepared

    def record_event(self, event: Mapping[str, Any]) -> dict[str, Any]:
        return self.record_events([event])[0]

    def record_invokes(self, invokes: Iterable[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """One ``invoke`` event per ``(slug, record_kind, via)``, written together."""
        events = []
        for slug, record_kind, via in invokes:
            kind = str(record_kind.value if isinstance(record_kind, RecordKind) else record_kind)
            if kind not in RECORD_KINDS:
                raise UsageError(f"record_kind must be one of {', '.join(RECORD_KINDS)}, got {kind!r}")
            if via not in VIAS:
                raise UsageError(f"via must be one of {', '.join(VIAS)}, got {via!r}")
            if not isinstance(slug, str) or not slug:
                raise UsageError(f"invoke slug must be a non-empty string, got {slug!r}")
            events.append({"type": "invoke", "slug": slug, "record_kind": kind, "via": via})
        return self.record_events(events)

    def record_invoke(self, slug: str, record_kind: str, via: str) -> dict[str, Any]:
        return self.record_invokes([(slug, record_kind, via)])[0]

    def record_tokens(self, input_tokens: int) -> dict[str, Any] | None:
        """A clock tick: input tokens this session consumed since its last event (0 writes nothing)."""
        if isinstance(input_tokens, bool) or not isinstance(input_tokens, int) or input_tokens < 0:
            raise UsageError(f"input_tokens must be a whole number >= 0, got {input_tokens!r}")
        if input_tokens == 0:
            return None
        return self.record_event({"type": "tokens", "input_tokens": input_tokens})

    def record_inject(self, slugs: list[str], tokens: int) -> dict[str, Any]:
        """A resident-context injection and its token cost (not an invoke)."""
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise UsageError(f"inject tokens must be a whole number >= 0, got {tokens!r}")
        return self.record_event({"type": "inject", "slugs": list(slugs), "tokens": tokens})


def record_event(ws: Workspace, event: Mapping[str, Any], session_id: str | None = None) -> dict[str, Any]:
    """Append one event (``type`` required; ``id`` added) to the session's usage file."""
    return UsageLog(ws, session_id).record_event(event)


def record_invoke(ws: Workspace, slug: str, record_kind: str, via: str,
                  session_id: str | None = None) -> dict[str, Any]:
    """Append one explicit ``invoke`` of a record (``via``: search, slug, expand or workflow)."""
    return UsageLog(ws, session_id).record_invoke(slug, record_kind, via)


def record_invokes(ws: Workspace, invokes: Iterable[tuple[str, str, str]],
                   session_id: str | None = None) -> list[dict[str, Any]]:
    """Append several ``(slug, record_kind, via)`` invokes in one write."""
    return UsageLog(ws, session_id).record_invokes(invokes)


def record_tokens(ws: Workspace, input_tokens: int, session_id: str | None = None) -> dict[str, Any] | None:
    """Advance the token clock by the input tokens the session consumed since its last event."""
    return UsageLog(ws, session_id).record_tokens(input_tokens)


def record_inject(ws: Workspace, slugs: list[str], tokens: int, session_id: str | None = None) -> dict[str, Any]:
    """Record a resident-context injection of ``slugs`` costing ``tokens`` input tokens."""
    return UsageLog(ws, session_id).record_inject(slugs, tokens)


def record_quietly(ws: Workspace, invokes: list[tuple[str, str, str]], session_id: str | None) -> None:
    """Record invokes for a read path (search, expand): a failure is logged, never raised.

    A read-only checkout must still be searchable; the warning reaches stderr through logging.
    """
    if not invokes:
        return
    try:
        record_invokes(ws, invokes, session_id)
    except YoiError as exc:
        warn("yoi.usage", "usage not recorded: %s", exc)


# --------------------------------------------------------------------------- reading


def _problem(rel: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(rel, line, 1, "usage-malformed", "warning", message + "; line skipped", None)


def _check_event(obj: Any) -> str | None:
    """Why a parsed line is not a usable event (None when it is one)."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    event_id = obj.get("id")
    if not isinstance(event_id, str):
        return "missing string 'id'"
    if _CANONICAL_V7.match(event_id) is None:  # every id yoi writes: the same verdict without uuid.UUID
        import uuid  # reading the log only (recording a hit does not parse ids)

        try:
            parsed = uuid.UUID(event_id)
        except ValueError:
            return f"id {event_id!r} is not a UUID"
        if parsed.version != 7:
            return f"id {event_id!r} is not a UUIDv7 (events are ordered by their time-based ids)"
    kind = obj.get("type")
    if kind == "tokens":
        value = obj.get("input_tokens")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"tokens event needs 'input_tokens' >= 0, got {value!r}"
    elif kind == "invoke":
        if not isinstance(obj.get("slug"), str) or not obj["slug"]:
            return "invoke event needs a string 'slug'"
        if obj.get("record_kind") not in RECORD_KINDS:
            return f"invoke 'record_kind' must be one of {', '.join(RECORD_KINDS)}, got {obj.get('record_kind')!r}"
        if obj.get("via") not in VIAS:
            return f"invoke 'via' must be one of {', '.join(VIAS)}, got {obj.get('via')!r}"
    elif kind == "inject":
        slugs = obj.get("slugs")
        tokens = obj.get("tokens")
        if not isinstance(slugs, list) or not all(isinstance(s, str) for s in slugs):
            return "inject event needs 'slugs' as a list of strings"
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            return f"inject event needs 'tokens' >= 0, got {tokens!r}"
    else:
        return f"unknown event type {kind!r} (expected {', '.join(EVENT_TYPES)})"
    return None


# json.loads without its per-call work on bytes (detecting the encoding, decoding): a usage line of
# a file that is plain UTF-8 parses to the same object, or fails with the same message.
_DECODE = json.JSONDecoder().decode
_SPACES = " \t\n\r\x0b\x0c"  # what bytes.strip() removes
_SPACES_BYTES = _SPACES.encode()


def _plain_utf8(data: bytes) -> str | None:
    """``data`` as text when each of its lines is one ``json.loads`` reads as UTF-8 as it stands:
    valid UTF-8 with no NUL (which ``json.loads`` takes for UTF-16/32) and no byte-order mark."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text or "\ufeff" in text else text


def load_events(ws: Workspace) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """Every valid event of every session, in UUIDv7 order, each with its file's ``session_id``.

    Problems (unreadable files, malformed lines, duplicate ids) come back as warnings with the
    file and line; the rest of the log is still used.
    """
    events: list[dict[str, Any]] = []
    problems: list[Diagnostic] = []
    seen: dict[str, str] = {}
    seen_events: dict[str, tuple[str, tuple[str, dict[str, Any]]]] = {}
    try:
        names = sorted(e.name for e in os.scandir(ws.usage_dir) if e.name.endswith(".jsonl"))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    except OSError as exc:
        return [], [_problem(ws.rel(ws.usage_dir), 1, f"cannot list usage folder: {exc.strerror or exc}")]
    for name in names:
        path = ws.usage_dir / name
        rel = ws.rel(path)
        session_id = name[: -len(".jsonl")]
        # A compacted month file (``_month-YYYY-MM.jsonl``, see compact) names no session:
        # each of its lines carries the session it came from.
        compacted = name.startswith(COMPACTED_PREFIX)
        try:
            data = read_regular_bytes(path)  # a FIFO named *.jsonl here must not block every command
        except NotRegularFile as exc:
            problems.append(_problem(rel, 1, exc.message))
            continue
        except OSError as exc:
            problems.append(_problem(rel, 1, f"cannot read: {exc.strerror or exc}"))
            continue
        text = _plain_utf8(data)
        # str lines, or bytes lines when the file is not plain UTF-8: each with its strip set and decoder
        lines: Any
        parse: Callable[[Any], Any]
        spaces: Any
        if text is not None:
            lines, parse, spaces = text.split("\n"), _DECODE, _SPACES
        else:
            lines, parse, spaces = data.split(b"\n"), json.loads, _SPACES_BYTES
        for line_no, raw in enumerate(lines, start=1):
            if not raw.strip(spaces):
                continue
            try:
                parsed = parse(raw)
            except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
                problems.append(_problem(rel, line_no, f"not valid JSON ({str(exc).splitlines()[0][:80]})"))
                continue
            if compacted:
                from .month_file import BadLine, decode_line

                try:
                    items = list(decode_line(parsed))
                except (BadLine, ValueError) as exc:
                    problems.append(_problem(rel, line_no, f"not a compacted usage line ({exc})"))
                    continue
            else:
                items = [(session_id, parsed)]
            for line_session, obj in items:
                _take_event(obj, line_session, rel, line_no, compacted, seen, seen_events, events, problems)
    events.sort(key=lambda e: e["id"])
    return events, problems


def _take_event(obj: Any, line_session: str | None, rel: str, line_no: int, compacted: bool, seen: dict[str, str],
                seen_events: dict[str, tuple[str, tuple[str, dict[str, Any]]]], events: list[dict[str, Any]],
                problems: list[Diagnostic]) -> None:
    """Check one event read from ``rel``:``line_no`` and add it to ``events`` (or report why not)."""
    reason = _check_event(obj)
    if reason is not None:
        problems.append(_problem(rel, line_no, reason))
        return
    event_id = obj["id"].lower()
    if not isinstance(line_session, str) or not _SESSION_RE.match(line_session):
        problems.append(_problem(rel, line_no, "compacted usage line without a valid 'session_id'"))
        return
    if event_id in seen:
        first_rel, first = seen_events[event_id]
        if (compacted or first_rel.rsplit("/", 1)[-1].startswith(COMPACTED_PREFIX)) \
                and first == (line_session, obj):
            # The same event in a month file and a session file (a compaction interrupted
            # before it removed the session file) or twice in a month file (two clones
            # compacted it and git's union merge kept both lines): counted once, no warning.
            return
        problems.append(_problem(rel, line_no, f"duplicate event id {event_id} (also in {seen[event_id]})"))
        return
    seen[event_id] = f"{rel}:{line_no}"
    seen_events[event_id] = (rel, (line_session, dict(obj)))
    obj["id"] = event_id
    obj["session_id"] = line_session
    events.append(obj)


# --------------------------------------------------------------------------- arithmetic


def window_frequency(invoke_clocks: list[int], now: int, *, window: int, floor: int) -> float:
    """Invokes per million input tokens over the record's window (SPEC 6).

    ``invoke_clocks`` are the clock readings at the record's invokes, oldest first. The window
    starts at the ``window``-th most recent invoke (the first, if there are fewer); the frequency is
    the invokes in it divided by the tokens elapsed since it began, that denominator raised to at
    least ``floor`` so a burst of invokes within a few tokens does not look frequent.
    """
    if not invoke_clocks:
        return 0.0
    in_window = invoke_clocks[-window:]
    elapsed = now - in_window[0]
    return len(in_window) / max(elapsed, floor) * 1_000_000


def collapse_sessions(sessions: list[str]) -> list[int]:
    """Indices of invokes left after counting consecutive invokes from one session as one."""
    kept: list[int] = []
    previous: str | None = None
    for index, session in enumerate(sessions):
        if session != previous:
            kept.append(index)
        previous = session
    return kept


@dataclass(slots=True)
class RecordStat:
    """Usage of one record: raw invokes and frequency, plus the candidate-report view."""

    slug: str
    kind: str
    invokes: int = 0
    sessions: int = 0
    frequency: float = 0.0
    protected: bool = False
    collapsed_invokes: int = 0
    candidate_frequency: float = 0.0
    candidate: bool = False
    exists: bool = True
    last_invoke_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"slug": self.slug, "kind": self.kind, "invokes": self.invokes, "sessions": self.sessions,
                "frequency": self.frequency, "protected": self.protected,
                "collapsed_invokes": self.collapsed_invokes, "candidate_frequency": self.candidate_frequency,
                "candidate": self.candidate, "exists": self.exists, "last_invoke_id": self.last_invoke_id}


@dataclass(slots=True)
class UsageSummary:
    """Workspace-wide figures: the clock and event counts, and what could not be read."""

    clock: int = 0
    sessions: int = 0
    events: int = 0
    invokes: int = 0
    injects: int = 0
    inject_tokens: int = 0
    problems: list[Diagnostic] = field(default_factory=list)


@dataclass(slots=True)
class _Acc:
    clocks: list[int] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    last_id: str | None = None


def _existing_records(ws: Workspace) -> set[tuple[str, str]]:
    """``(kind value, slug)`` of every record file present (names only: no file is opened)."""
    found: set[tuple[str, str]] = set()
    if os.path.lexists(ws.summary_path):
        found.add(("summary", "summary"))
    for _prefix, kind, folder in record_folders(ws):
        try:
            found.update((kind.value, e.name[:-3]) for e in md_dir_entries(folder))
        except OSError:
            continue
    return found


def compute_stats(events: list[dict[str, Any]], *, window: int, floor: int, protect_threshold: float,
                  candidate_min_invokes: int, candidate_min_sessions: int,
                  candidate_threshold: float = 0.0,
                  existing: set[tuple[str, str]] | None = None,
                  invoked_only: bool = False) -> tuple[list[RecordStat], UsageSummary]:
    """Pure arithmetic over events already in UUIDv7 order (see ``load_events``). ``invoked_only``:
    stats of the invoked records alone (``existing`` still says which of them exist).

    A record is a knowledge candidate by counts alone: invoked from at least
    ``candidate_min_sessions`` sessions, at least ``candidate_min_invokes`` times once consecutive
    invokes from one session count as one. No token clock: both counts only grow as usage files are
    merged in (an invoke added between two of one session's makes two runs of them, never fewer), so
    a record that qualified in one clone's view qualifies in every clone that has those files and
    whatever else — promotion does not depend on what a clone had pulled (docs/team.md). The
    windowed ``candidate_frequency`` is still computed, for the report's order and columns, and a
    ``candidate_threshold`` above 0 (off by default) adds SPEC §6's frequency floor on top of the
    counts: a solo workspace's choice, since a windowed floor makes promotion depend on when a clone
    ran relative to what it had pulled."""
    clock = 0
    accs: dict[tuple[str, str], _Acc] = {}
    summary = UsageSummary(events=len(events))
    sessions: set[str] = set()
    for event in events:
        sessions.add(event.get("session_id", ""))
        kind = event["type"]
        if kind == "tokens":
            clock += event["input_tokens"]
        elif kind == "invoke":
            acc = accs.get((event["record_kind"], event["slug"]))
            if acc is None:
                acc = accs[(event["record_kind"], event["slug"])] = _Acc()
            acc.clocks.append(clock)
            acc.sessions.append(event.get("session_id", ""))
            acc.last_id = event["id"]
            summary.invokes += 1
        elif kind == "inject":
            summary.injects += 1
            summary.inject_tokens += event["tokens"]
    summary.clock = clock
    summary.sessions = len(sessions)
    keys = set(accs) if invoked_only else set(accs) | (existing or set())
    stats: list[RecordStat] = []
    for key in keys:
        acc = accs.get(key, _Acc())
        frequency = window_frequency(acc.clocks, clock, window=window, floor=floor)
        kept = collapse_sessions(acc.sessions)
        collapsed_clocks = [acc.clocks[i] for i in kept]
        candidate_frequency = window_frequency(collapsed_clocks, clock, window=window, floor=floor)
        distinct_sessions = len(set(acc.sessions))
        exists = existing is None or key in existing
        stats.append(RecordStat(
            slug=key[1], kind=key[0], invokes=len(acc.clocks), sessions=distinct_sessions,
            frequency=frequency, protected=frequency >= protect_threshold,
            collapsed_invokes=len(kept), candidate_frequency=candidate_frequency,
            candidate=(key[0] in CANDIDATE_KINDS and exists and distinct_sessions >= candidate_min_sessions
                       and len(kept) >= candidate_min_invokes
                       and (candidate_threshold <= 0 or candidate_frequency >= candidate_threshold)),
            exists=exists, last_invoke_id=acc.last_id,
        ))
    stats.sort(key=lambda s: (-s.frequency, s.kind, s.slug))
    return stats, summary


def usage_report(ws: Workspace) -> tuple[list[RecordStat], UsageSummary]:
    """Stats of every record that exists or was ever invoked, plus the workspace summary."""
    events, problems = load_events(ws)
    cfg = ws.config.usage
    stats, summary = compute_stats(
        events, window=cfg.window, floor=cfg.denominator_floor, protect_threshold=cfg.protect_threshold,
        candidate_min_invokes=cfg.candidate_min_invokes, candidate_min_sessions=cfg.candidate_min_sessions,
        candidate_threshold=cfg.candidate_threshold, existing=_existing_records(ws))
    summary.problems = problems
    return stats, summary


def record_stats(ws: Workspace) -> list[RecordStat]:
    """Per-record usage, most frequent first (records never invoked are included with 0)."""
    return usage_report(ws)[0]


def candidate_report(ws: Workspace) -> list[RecordStat]:
    """Records Phase 2 may turn into knowledge: invoked from enough sessions, often enough.

    Consecutive invokes of a record from one session count as one for this report, so a single
    session hammering a record cannot make it a candidate. Counts, not the token clock: the same
    usage files give the same report in every clone, and more files never take a record off it
    (``compute_stats``; docs/team.md#one-content-whatever-the-push-order).
    """
    # A record never invoked was invoked from no session, fewer than candidate_min_sessions (>= 1):
    # only the invoked ones are looked at (at 10,000 records, most are never invoked).
    events, _problems = load_events(ws)
    cfg = ws.config.usage
    every, _summary = compute_stats(
        events, window=cfg.window, floor=cfg.denominator_floor, protect_threshold=cfg.protect_threshold,
        candidate_min_invokes=cfg.candidate_min_invokes, candidate_min_sessions=cfg.candidate_min_sessions,
        candidate_threshold=cfg.candidate_threshold, existing=_existing_records(ws), invoked_only=cfg.candidate_min_sessions >= 1)
    stats = [s for s in every if s.candidate]
    stats.sort(key=lambda s: (-s.candidate_frequency, s.kind, s.slug))
    return stats


def frequencies_for_lint(ws: Workspace) -> dict[tuple[str, str], float]:
    """``{(kind value, slug): frequency}`` for the linter's ``compressible`` rule."""
    events, _problems = load_events(ws)
    cfg = ws.config.usage
    return invoke_frequencies(events, window=cfg.window, floor=cfg.denominator_floor)


def invoke_frequencies(events: list[dict[str, Any]], *, window: int, floor: int) -> dict[tuple[str, str], float]:
    """The ``frequency`` ``compute_stats`` gives each invoked record, without the rest of its
    statistics (a cold lint reads the whole log for this alone)."""
    clock = 0
    clocks: dict[tuple[str, str], list[int]] = {}
    for event in events:
        kind = event["type"]
        if kind == "tokens":
            clock += event["input_tokens"]
        elif kind == "invoke":
            key = (event["record_kind"], event["slug"])
            seen = clocks.get(key)
            if seen is None:
                clocks[key] = [clock]
            else:
                seen.append(clock)
    return {key: window_frequency(found, clock, window=window, floor=floor) for key, found in clocks.items()}
