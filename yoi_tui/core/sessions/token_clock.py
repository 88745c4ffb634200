"""The token clock from session logs: each log's recorded input tokens, counted once per session.

Owns ``.yoi/state/token-clock/<session>.json`` (the index of the last entry already counted) and the
``tokens`` events it produces. Both the hook path (``yoi hook``, every event) and Phase 1 (every log
it reads) call ``advance_token_clock_from_log``; they share this state, so whichever reads a stretch
of the log first counts it and the other finds nothing new — a re-read never counts twice. The
tokens are what the log itself records: Claude Code's ``message.usage`` (fresh input + cache
writes + cache reads, once per model call) and Codex ``token_count`` events, normalised by the
adapters into ``Entry.input_tokens``.

A file lock around read → append → write keeps two processes (a hook and a ``yoi phase1``) from
both counting the same entries.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from ..errors import YoiError
from ..store.atomic import atomic_write_text
from ..store.safe_read import load_state_json
from ..store.workspace import Workspace
from ..usage.log import record_tokens, validate_session_id
from .model import ParsedLog

_LOCK_TIMEOUT_S = 30.0


def clock_path(ws: Workspace, session_id: str) -> Path:
    return ws.state_dir / "token-clock" / f"{quote(session_id, safe='')}.json"


def _last_counted(path: Path) -> int:
    try:
        return int(load_state_json(path)["last_index"])
    except (OSError, ValueError, KeyError, TypeError, YoiError):  # YoiError: not a regular file
        return -1


def advance_token_clock_from_log(ws: Workspace, log: ParsedLog, session_id: str | None = None, *,
                                 counts: tuple[list[tuple[int, int]], int] | None = None) -> int:
    """Record the input tokens of ``log``'s entries not counted before; returns them.

    ``session_id`` names the usage session the tokens are recorded under (default: the log's own
    id, which for Claude Code and Codex is the id their hooks send). What was counted is kept under
    the log's own id whatever the caller says, so a hook and ``yoi phase1`` share it even if a
    harness were to name the session differently. A log read as a stream has no entries: ``counts``
    then gives the (index, input tokens) of its entries that have tokens, and its last index.
    """
    from filelock import FileLock, Timeout

    session = validate_session_id(session_id or log.session_id)
    path = clock_path(ws, log.session_id)
    lock_file = ws.state_dir / "locks" / f"token-clock-{quote(log.session_id, safe='')}.lock"
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_file), timeout=_LOCK_TIMEOUT_S)
        lock.acquire()
    except (OSError, Timeout) as exc:
        raise YoiError(f"token clock not advanced: cannot lock {lock_file} ({exc})") from exc
    try:
        last = _last_counted(path)
        new = [e for e in log.entries if e.index > last]
        tokens = sum(e.input_tokens or 0 for e in new)
        if counts is not None:  # a streamed log: (index, input tokens) of its entries, and its last index
            tokens = sum(n for index, n in counts[0] if index > last)
            new_last = counts[1] if counts[1] > last else None
        else:
            new_last = new[-1].index if new else None
        if tokens:
            record_tokens(ws, tokens, session_id=session)
        if new_last is not None:
            atomic_write_text(path, json.dumps({"last_index": new_last}) + "\n")
        return tokens
    finally:
        lock.release()


def advance_token_clock(ws: Workspace, session_id: str, transcript: Path) -> int:
    """Parse ``transcript`` (any supported format) and advance the clock under ``session_id``."""
    from .detect import load_session

    return advance_token_clock_from_log(ws, load_session(transcript), session_id)
