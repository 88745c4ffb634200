"""What a Phase 2 engine receives, and the one linted write path both engines use.

``Phase2Context`` carries the run: the real workspace, the scratch copy the engine works on, the
consumed staging files (fixed at the start), the knowledge candidate report, the run's clock, and
what the engine reports back (``notes``; ``held``: staging ids that must not be deleted because
part of their content could not be written).

``LintedWriter.write`` runs ``check_write`` (writer ``agent``; sources allowed: the consumed
staging's) on every text before it enters the scratch copy; a text with an error is not written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import RecordLockedError, YoiError
from ..lint import WorkspaceIndex, WriteContext, check_write
from ..runs.changeset import Scratch
from ..store.atomic import is_locked
from ..store.kinds import RecordKind, path_for
from ..store.reader import read_record
from ..store.records import Record
from ..store.staging import StagingFile
from ..store.workspace import Workspace

SourceKey = tuple[str, int, int]


class Phase2Aborted(YoiError):
    """The engine gave up; nothing it wrote is kept and no staging is consumed."""


@dataclass
class Phase2Context:
    ws: Workspace
    scratch: Scratch
    run_id: str
    staging: list[StagingFile]
    candidates: list[Any]
    now: datetime
    notes: list[str] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    # Which staging items each written file came from (``runs.rejections``): the fingerprints of the
    # items the engine is working on (``from_items``) are recorded against every file it writes.
    item_paths: dict[str, set[str]] = field(default_factory=dict)
    item_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    active_items: tuple[str, ...] = ()

    @contextlib.contextmanager
    def from_items(self, staging: StagingFile, items: Iterable[tuple[str, Any]]) -> Iterator[None]:
        """Writes inside come from these ``(section, item)``s of ``staging``."""
        from ..runs.rejections import item_fingerprint, item_title

        fingerprints = []
        for section, item in items:
            fingerprint = item_fingerprint(staging.source.session_id, section, item)
            self.item_info.setdefault(fingerprint, {"staging": staging.id, "section": section,
                                                    "item": item_title(section, item)})
            fingerprints.append(fingerprint)
        previous, self.active_items = self.active_items, (*self.active_items, *fingerprints)
        try:
            yield
        finally:
            self.active_items = previous

    def note_written(self, rel: str) -> None:
        if self.active_items:
            self.item_paths.setdefault(rel, set()).update(self.active_items)

    @property
    def sws(self) -> Workspace:
        """The scratch workspace the engine reads and writes."""
        return self.scratch.ws

    def staging_ids(self) -> list[str]:
        return [s.id for s in self.staging]

    def allowed_sources(self) -> set[SourceKey]:
        return {s.source.key() for s in self.staging}

    def hold(self, staging_ids: Iterable[str], reason: str) -> None:
        for staging_id in staging_ids:
            self.held.setdefault(staging_id, reason)


class LintedWriter:
    """Reads records from the scratch copy and writes them only when the write-time linter agrees."""

    def __init__(self, ctx: Phase2Context) -> None:
        self.ctx = ctx
        self.index = WorkspaceIndex.from_names(ctx.sws)
        self.read_paths: set[str] = set()
        self.written: dict[Path, str] = {}  # latest text written per path in this run

    def rel(self, path: Path) -> str:
        return self.ctx.sws.rel(path)

    def read(self, kind: RecordKind, slug: str) -> Record | None:
        """The record in the scratch copy (None: absent or unreadable); marks it as read."""
        path = path_for(self.ctx.sws, kind, slug)
        result = read_record(self.ctx.sws, path)
        if result.record is not None:
            self.read_paths.add(result.record.rel)
        return result.record

    def locked(self, kind: RecordKind, slug: str) -> bool:
        return is_locked(path_for(self.ctx.sws, kind, slug))

    def check(self, path: Path, text: str, before_text: str | None,
              allowed_sources: set[SourceKey] | None = None) -> list[Diagnostic]:
        """``allowed_sources``: sources beyond the consumed staging's that ``text`` may carry (a
        record moved to a new slug keeps the sources it had)."""
        context = WriteContext(writer="agent", read_paths=set(self.read_paths),
                               allowed_sources=self.ctx.allowed_sources() | (allowed_sources or set()))
        return check_write(self.ctx.sws, self.index, path, text, context, before_text=before_text)

    def write(self, path: Path, text: str, *, before_text: str | None, bom: bool = False,
              why: Iterable[str] = (), derived: bool = False, reason: str | None = None,
              allowed_sources: set[SourceKey] | None = None) -> list[Diagnostic]:
        """Lint then write; returns the errors (nothing was written when there is one)."""
        errors = [d for d in self.check(path, text, before_text, allowed_sources) if d.is_error]
        if errors:
            return errors
        rel = self.rel(path)
        try:
            self.ctx.scratch.write(rel, ("\ufeff" if bom else "") + text, why=why, derived=derived, reason=reason)
        except RecordLockedError as exc:
            return [Diagnostic(rel, 1, 1, "locked", "error", exc.message)]
        self.read_paths.add(rel)
        self.ctx.note_written(rel)
        self.written[Path(path)] = text
        record = read_record(self.ctx.sws, path, text=text).record
        if record is not None:
            self.index.add(record)
        return []


def format_errors(errors: list[Diagnostic]) -> str:
    return "; ".join(f"{d.path}:{d.line}:{d.col}: {d.rule} {d.message}" for d in errors)
