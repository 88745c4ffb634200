"""The Phase 1 runner: log → new entries since the pointer → cleaned → chunks → staging files.

For each session log: parse it (any supported format), take the entries after the session's
pointer, check the token trigger (unless forced), clean them (secrets redacted, injected text
removed), split them into chunks that fit the model, extract each chunk with the chosen engine, and
write one staging file per non-empty chunk — atomically, with ``source`` attached here, never by the
engine. The pointer advances only after a chunk's staging file is durable.

The log is read as a stream (``stream_session``): its entries are parked in an ``EntrySpool`` as
they are read, then read back after the pointer, cleaned and chunked one at a time, so memory stays
flat whatever the log's size. ``streaming=False`` reads it whole (``load_session``), as before; both
write the same staging.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..crashpoints import crashpoint
from ..errors import ModelStopped, YoiError
from ..sessions.clean import clean_entries, clean_entry
from ..sessions.detect import load_session, stream_session
from ..sessions.model import Entry, LogProblem, ParsedLog, SessionLogError
from ..store.models import Source
from ..store.staging import Activity, Extractor, write_staging
from ..store.workspace import Workspace
from .chunking import chunk_entries
from .pointer import read_pointer, write_pointer
from .spool import EntrySpool

if TYPE_CHECKING:  # the rules engine's modules load when it first extracts
    from .rules_attempts import AttemptCarry


class Engine(Protocol):
    name: str
    model: str | None

    def extract(self, entries: list[Entry], *, session_id: str, last: bool = True) -> Activity:
        """The items of one chunk; the chunks of a log come in order, ``last`` marking its final one."""
        ...


class RulesEngine:
    """Adapter giving the deterministic extractor the engine interface. Between the chunks of one log
    it keeps the attempts still open (``rules_attempts.AttemptCarry``), so a failure fixed a chunk or
    more later is one story, told fixed; the last chunk of the log drops them."""

    name = "rules"
    model: str | None = None

    def __init__(self) -> None:
        self._carry: dict[str, AttemptCarry] = {}

    def extract(self, entries: list[Entry], *, session_id: str, last: bool = True) -> Activity:
        from .rules_engine import extract_chunk

        carry = self._carry.pop(session_id, None)
        activity, carry = extract_chunk(entries, carry, last=last)
        if carry is not None and not last:
            self._carry[session_id] = carry
        return activity


def make_engine(ws: Workspace, name: str | None = None) -> Engine:
    """The engine named (or configured in ``phase1.engine``)."""
    chosen = name or ws.config.phase1.engine
    if chosen == "rules":
        return RulesEngine()
    if chosen == "llm":
        from ..runs.llm import require_llm_libraries

        require_llm_libraries()  # the llm extra: say what to install, before any import fails
        from .llm_engine import LlmEngine

        return LlmEngine(ws)
    raise YoiError(f"unknown Phase 1 engine '{chosen}' (use rules or llm)")


@dataclass
class StagingWritten:
    id: str
    range: tuple[int, int]
    counts: dict[str, int]


@dataclass
class SessionResult:
    """What Phase 1 did with one log."""

    log: str
    session_id: str = ""
    format: str = ""
    status: str = "error"  # written | nothing-new | below-threshold | empty | stopped | error
    message: str = ""
    tokens_since_pointer: int = 0
    clock_tokens: int = 0  # input tokens this read added to the token clock (0 when already counted)
    processed: tuple[int, int] | None = None
    staging: list[StagingWritten] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "log": self.log, "session_id": self.session_id, "format": self.format, "status": self.status,
            "message": self.message, "tokens_since_pointer": self.tokens_since_pointer,
            "clock_tokens": self.clock_tokens,
            "processed": list(self.processed) if self.processed else None,
            "staging": [{"id": s.id, "range": list(s.range), "counts": s.counts} for s in self.staging],
            "problems": [{"line": p.line, "message": p.message} for p in self.problems],
        }


def _counts(activity: Activity) -> dict[str, int]:
    return {"decisions": len(activity.decisions), "discussions": len(activity.discussions),
            "attempts": len(activity.attempts), "requests": len(activity.requests)}


def _advance_clock(ws: Workspace, parsed: ParsedLog, result: SessionResult,
                   counts: tuple[list[tuple[int, int]], int] | None = None) -> int:
    """The token clock moves from the log's own token counts, hooks or not (idempotent per session)."""
    from ..sessions.token_clock import advance_token_clock_from_log

    try:
        return advance_token_clock_from_log(ws, parsed, counts=counts)
    except YoiError as exc:  # a clock problem must not stop extraction
        result.problems.append(LogProblem(line=0, message=f"token clock: {exc}"))
        return 0


def run_session(ws: Workspace, log_path: Path, engine: Engine, *, force: bool = False,
                progress: Callable[[str], None] | None = None, streaming: bool = True) -> SessionResult:
    """Phase 1 over one log; never raises for a bad log (the result says what went wrong). A model that
    gives no valid answer (``ModelStopped``) ends the log with status ``stopped``: the staging of the
    chunks before it is kept and the pointer stays after them."""
    result = SessionResult(log=str(log_path))
    if not streaming:
        return _run_whole(ws, log_path, engine, result, force=force, progress=progress)
    with EntrySpool() as spool:
        try:
            parsed = stream_session(log_path, spool.add)
        except SessionLogError as exc:
            result.message = exc.message
            return result
        result.session_id, result.format, result.problems = parsed.session_id, parsed.format, list(parsed.problems)
        result.clock_tokens = _advance_clock(ws, parsed, result, (spool.tokens, spool.last_index))
        last = read_pointer(ws, parsed.session_id)
        first = spool.first_after(last)
        if first is None:
            result.status, result.message = "nothing-new", f"no entries after index {last}"
            return result
        result.tokens_since_pointer = spool.tokens_after(last)
        if not _over_threshold(ws, result, force):
            return result
        cleaned = (c for c in map(clean_entry, spool.entries_after(last)) if c is not None)
        _extract_chunks(ws, log_path, engine, result, parsed.session_id, cleaned, (first, spool.last_index),
                        progress)
    return result


def _run_whole(ws: Workspace, log_path: Path, engine: Engine, result: SessionResult, *, force: bool,
               progress: Callable[[str], None] | None) -> SessionResult:
    """The log read whole: every entry in memory at once (the reference the stream must match)."""
    try:
        parsed = load_session(log_path)
    except SessionLogError as exc:
        result.message = exc.message
        return result
    result.session_id, result.format, result.problems = parsed.session_id, parsed.format, list(parsed.problems)
    result.clock_tokens = _advance_clock(ws, parsed, result)
    last = read_pointer(ws, parsed.session_id)
    new = [e for e in parsed.entries if e.index > last]
    if not new:
        result.status, result.message = "nothing-new", f"no entries after index {last}"
        return result
    result.tokens_since_pointer = sum(e.input_tokens or 0 for e in new)
    if not _over_threshold(ws, result, force):
        return result
    _extract_chunks(ws, log_path, engine, result, parsed.session_id, clean_entries(new),
                    (new[0].index, new[-1].index), progress)
    return result


def _over_threshold(ws: Workspace, result: SessionResult, force: bool) -> bool:
    threshold = ws.config.phase1.token_threshold
    if not force and result.tokens_since_pointer < threshold:
        result.status = "below-threshold"
        result.message = (f"{result.tokens_since_pointer} input tokens since the pointer, below the "
                          f"threshold of {threshold} (use --force)")
        return False
    return True


def _with_last(chunks: Iterable[list[Entry]]) -> Iterator[tuple[list[Entry], bool]]:
    """Each chunk and whether it is the last (one chunk of look-ahead, never the whole list)."""
    iterator = iter(chunks)
    current = next(iterator, None)
    while current is not None:
        following = next(iterator, None)
        yield current, following is None
        current = following


def _extract_chunks(ws: Workspace, log_path: Path, engine: Engine, result: SessionResult, session_id: str,
                    cleaned: Iterable[Entry], new: tuple[int, int], progress: Callable[[str], None] | None) -> None:
    """Chunk the cleaned new entries ``new`` (first, last index), extract each chunk, write its staging
    file and move the pointer after it."""
    result.processed = new
    extractor = Extractor(engine=engine.name, model=engine.model)  # type: ignore[arg-type]  # "rules" or "llm" (the factory's keys); validated by the model
    number = 0
    for number, (chunk, is_last) in enumerate(_with_last(chunk_entries(cleaned, ws.config.phase1.chunk_tokens)),
                                              start=1):
        if progress:
            progress(f"{session_id}: chunk {number} (entries {chunk[0].index}-{chunk[-1].index})")
        start = chunk[0].index if number > 1 else new[0]
        try:
            activity = engine.extract(chunk, session_id=session_id, last=is_last)
        except ModelStopped as exc:  # a clean stop: what is durable stays, the rest is read again next run
            result.status = "stopped"
            kept = f"the {len(result.staging)} staging file(s) written before it are kept" if result.staging \
                else "no staging was written"
            result.message = (f"stopped: {exc.message}; {kept}, and entries from {start} on are read again "
                              "next run")
            return
        # The range covers the raw entries up to the chunk's end, so entries cleaning dropped
        # between chunks are never orphaned; the pointer then moves past them.
        end = chunk[-1].index if not is_last else new[1]
        if not activity.is_empty():
            staging = write_staging(ws, Source(session_id=session_id, range=(start, end)), extractor, activity)
            result.staging.append(StagingWritten(staging.id, (start, end), _counts(activity)))
            crashpoint("phase1:staging-written")
        write_pointer(ws, session_id, end, log_path)
        crashpoint("phase1:pointer-moved")
    if number == 0:  # every new entry was injected text or empty: nothing to learn, move on
        write_pointer(ws, session_id, new[1], log_path)
    result.status = "written" if result.staging else "empty"
    result.message = (f"{len(result.staging)} staging file(s) from entries {new[0]}-{new[1]}"
                      if result.staging else f"nothing to save in entries {new[0]}-{new[1]}")


def run_phase1(ws: Workspace, logs: list[Path], *, force: bool = False, engine: str | None = None,
               progress: Callable[[str], None] | None = None) -> list[SessionResult]:
    """Phase 1 over several logs; one bad log never stops the others."""
    chosen = make_engine(ws, engine)
    return [run_session(ws, Path(log), chosen, force=force, progress=progress) for log in logs]
