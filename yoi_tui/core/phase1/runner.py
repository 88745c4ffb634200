"""The Phase 1 runner: log → new entries since the pointer → cleaned → chunks → staging files.

For each session log: parse it (any supported format), take the entries after the session's
pointer, check the token trigger (unless forced), clean them (secrets redacted, injected text
removed), split them into chunks that fit the model, extract each chunk with the chosen engine, and
write one staging file per non-empty chunk — atomically, with ``source`` attached here, never by the
engine. The pointer advances only after a chunk's staging file is durable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..errors import YoiError
from ..runs.crashpoints import crashpoint
from ..sessions.clean import clean_entries
from ..sessions.detect import load_session
from ..sessions.model import Entry, LogProblem, ParsedLog, SessionLogError
from ..store.models import Source
from ..store.staging import Activity, Extractor, write_staging
from ..store.workspace import Workspace
from .chunking import chunk_entries
from .pointer import read_pointer, write_pointer


class Engine(Protocol):
    name: str
    model: str | None

    def extract(self, entries: list[Entry], *, session_id: str) -> Activity: ...


class RulesEngine:
    """Adapter giving the deterministic extractor the engine interface."""

    name = "rules"
    model: str | None = None

    def extract(self, entries: list[Entry], *, session_id: str) -> Activity:
        from .rules_engine import extract

        return extract(entries)


def make_engine(ws: Workspace, name: str | None = None) -> Engine:
    """The engine named (or configured in ``phase1.engine``)."""
    chosen = name or ws.config.phase1.engine
    if chosen == "rules":
        return RulesEngine()
    if chosen == "llm":
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
    status: str = "error"  # written | nothing-new | below-threshold | empty | error
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


def _advance_clock(ws: Workspace, parsed: ParsedLog, result: SessionResult) -> int:
    """The token clock moves from the log's own token counts, hooks or not (idempotent per session)."""
    from ..sessions.token_clock import advance_token_clock_from_log

    try:
        return advance_token_clock_from_log(ws, parsed)
    except YoiError as exc:  # a clock problem must not stop extraction
        result.problems.append(LogProblem(line=0, message=f"token clock: {exc}"))
        return 0


def run_session(ws: Workspace, log_path: Path, engine: Engine, *, force: bool = False,
                progress: Callable[[str], None] | None = None) -> SessionResult:
    """Phase 1 over one log; never raises for a bad log (the result says what went wrong)."""
    result = SessionResult(log=str(log_path))
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
    threshold = ws.config.phase1.token_threshold
    if not force and result.tokens_since_pointer < threshold:
        result.status = "below-threshold"
        result.message = (f"{result.tokens_since_pointer} input tokens since the pointer, below the "
                          f"threshold of {threshold} (use --force)")
        return result
    cleaned = clean_entries(new)
    result.processed = (new[0].index, new[-1].index)
    extractor = Extractor(engine=engine.name, model=engine.model)  # type: ignore[arg-type]
    chunks = list(chunk_entries(cleaned, ws.config.phase1.chunk_tokens))
    for number, chunk in enumerate(chunks, start=1):
        if progress:
            progress(f"{parsed.session_id}: chunk {number}/{len(chunks)} (entries {chunk[0].index}-{chunk[-1].index})")
        activity = engine.extract(chunk, session_id=parsed.session_id)
        # The range covers the raw entries up to the chunk's end, so entries cleaning dropped
        # between chunks are never orphaned; the pointer then moves past them.
        start = chunk[0].index if number > 1 else new[0].index
        end = chunk[-1].index if number < len(chunks) else new[-1].index
        if not activity.is_empty():
            staging = write_staging(ws, Source(session_id=parsed.session_id, range=(start, end)), extractor, activity)
            result.staging.append(StagingWritten(staging.id, (start, end), _counts(activity)))
            crashpoint("phase1:staging-written")
        write_pointer(ws, parsed.session_id, end, log_path)
        crashpoint("phase1:pointer-moved")
    if not chunks:  # every new entry was injected text or empty: nothing to learn, move on
        write_pointer(ws, parsed.session_id, new[-1].index, log_path)
    result.status = "written" if result.staging else "empty"
    result.message = (f"{len(result.staging)} staging file(s) from entries {new[0].index}-{new[-1].index}"
                      if result.staging else f"nothing to save in entries {new[0].index}-{new[-1].index}")
    return result


def run_phase1(ws: Workspace, logs: list[Path], *, force: bool = False, engine: str | None = None,
               progress: Callable[[str], None] | None = None) -> list[SessionResult]:
    """Phase 1 over several logs; one bad log never stops the others."""
    chosen = make_engine(ws, engine)
    return [run_session(ws, Path(log), chosen, force=force, progress=progress) for log in logs]
