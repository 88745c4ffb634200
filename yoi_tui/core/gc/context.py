"""What a GC engine receives, and the one linted write path GC uses.

``GcContext`` carries the run: the real workspace (for usage, workflows and repository paths), the
scratch copy the engine reads and changes (``core.runs.changeset.Scratch``), the run id and clock, the
usage facts, and what the engine reports back (``operations``, ``notes``).

``GcWriter`` writes a record into the scratch copy only when the write-time linter agrees
(``check_write``, writer ``agent``): the sources a write may carry are the record's own plus those
of the records merged into it — copied, never invented. Deletions have no text to lint; the engine
deletes only what nothing left in the workspace points at (``facts.References``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..diagnostics import Diagnostic
from ..errors import YoiError
from ..lint import WorkspaceIndex, WriteContext, check_write
from ..lint.write_check import SourceKey
from ..runs.changeset import Scratch
from ..runs.rejections import GcRejections, Rejection
from ..store.atomic import is_locked
from ..store.reader import read_record
from ..store.records import Record, RecordHead
from ..store.workspace import Workspace
from .facts import UsageFacts
from .model import Operations


class GcAborted(YoiError):
    """The engine gave up (the llm engine's writes failed too often): nothing of the run is kept."""


@dataclass
class GcContext:
    ws: Workspace
    scratch: Scratch
    run_id: str
    now: datetime
    usage: UsageFacts
    operations: Operations = field(default_factory=Operations)
    notes: list[str] = field(default_factory=list)
    llm_usage: dict[str, int] = field(default_factory=dict)  # the llm engine's input/output tokens
    rejections: GcRejections | None = None  # earlier reviews' rejections (None: none consulted)

    def held_back(self, operation_id: str) -> Rejection | None:
        """The earlier rejection that holds ``operation_id`` back (its files unchanged), if any."""
        return self.rejections.held_for(operation_id) if self.rejections is not None else None

    @property
    def sws(self) -> Workspace:
        """The scratch workspace the engine reads and writes."""
        return self.scratch.ws

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)


class GcWriter:
    """Linted writes and deletions of records in the scratch copy, with GC's category and reason."""

    def __init__(self, ctx: GcContext) -> None:
        self.ctx = ctx
        self.index = WorkspaceIndex.from_names(ctx.sws)
        self.read_paths: set[str] = set()
        self._locked: dict[str, bool] = {}

    def locked(self, record: Record | RecordHead) -> bool:
        # The scratch copy keeps mode bits, so this is the real file's lock (chmod a-w). Asked up to
        # twice per record (drops, reports): answered once per file. GC never changes a file's mode,
        # and a file it deleted is not asked about again.
        answer = self._locked.get(record.rel)
        if answer is None:
            answer = self._locked[record.rel] = is_locked(str(record.path))
        return answer

    def errors(self, record: Record, text: str, *, allowed_sources: Iterable[SourceKey] = ()) -> list[Diagnostic]:
        """The write-time linter's errors for replacing ``record`` with ``text`` (empty: may write)."""
        self.read_paths.add(record.rel)
        context = WriteContext(writer="agent", read_paths=set(self.read_paths), allowed_sources=set(allowed_sources))
        return [d for d in check_write(self.ctx.sws, self.index, record.path, text, context, before_text=record.text)
                if d.is_error]

    def write(self, record: Record, text: str, *, category: list[str], reason: str) -> None:
        """Write a text ``errors`` accepted (the record's BOM is kept)."""
        self.ctx.scratch.write(record.rel, ("\ufeff" if record.bom else "") + text, category=category, reason=reason)
        updated = read_record(self.ctx.sws, record.path, text=text).record
        if updated is not None:
            self.index.add(updated)

    def create_errors(self, path: Path, text: str, *, allowed_sources: Iterable[SourceKey] = ()) -> list[Diagnostic]:
        """The write-time linter's errors for creating a new record at ``path``."""
        context = WriteContext(writer="agent", read_paths=set(self.read_paths), allowed_sources=set(allowed_sources))
        return [d for d in check_write(self.ctx.sws, self.index, path, text, context, before_text=None) if d.is_error]

    def create(self, path: Path, text: str, *, category: list[str], reason: str) -> None:
        """Create a record ``create_errors`` accepted."""
        rel = self.ctx.sws.rel(path)
        self.ctx.scratch.write(rel, text, category=category, reason=reason)
        self.read_paths.add(rel)
        created = read_record(self.ctx.sws, path, text=text).record
        if created is not None:
            self.index.add(created)

    def delete(self, record: Record | RecordHead, *, category: list[str], reason: str) -> None:
        self.ctx.scratch.delete(record.rel, category=category, reason=reason)
        self.index.remove(record.kind, record.slug)


def format_errors(errors: list[Diagnostic]) -> str:
    return "; ".join(f"{d.path}:{d.line}: {d.rule} {d.message}" for d in errors)


__all__ = ["GcAborted", "GcContext", "GcWriter", "format_errors"]
