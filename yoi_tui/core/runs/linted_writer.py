"""The one write path of a writer run's engines: nothing enters the scratch copy unless the
write-time linter agrees.

``LintedWriter`` keeps the scratch copy's ``WorkspaceIndex`` (names only, updated with every write
and deletion) and the paths the engine has read. ``errors`` runs ``check_write`` (writer ``agent``;
the sources a write may carry: the run's own, ``RunContext.allowed_sources``, plus those given —
copied, never invented) and keeps the errors; ``put`` writes a text they accepted, ``write`` does
both (Phase 2's rules engine and file tools), ``rewrite`` puts a record's new text, ``delete`` removes a record (deletions have no text to
lint: GC deletes only what nothing left points at). ``format_errors`` is how a refusal reads in a
run's notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import RecordLockedError
from ..lint import WorkspaceIndex, WriteContext, check_write
from ..store.atomic import is_locked
from ..store.kinds import RecordKind, path_for
from ..store.reader import read_record
from ..store.records import Record, RecordHead
from .run_context import RunContext, SourceKey


class LintedWriter:
    """Reads records from the scratch copy and writes them only when the write-time linter agrees.

    ``remember_texts``: keep the latest text written per path (``written``; Phase 2's rules engine
    reads its own writes back; GC, which may write thousands of records, does not)."""

    def __init__(self, ctx: RunContext, *, remember_texts: bool = False) -> None:
        self.ctx = ctx
        self.index = WorkspaceIndex.from_names(ctx.sws)
        self.read_paths: set[str] = set()
        self.written: dict[Path, str] = {}  # latest text written per path in this run (remember_texts)
        self._remember = remember_texts
        self._locked: dict[str, bool] = {}

    def rel(self, path: Path | str) -> str:
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

    def locked_record(self, record: Record | RecordHead) -> bool:
        # The scratch copy keeps mode bits, so this is the real file's lock (chmod a-w). GC asks up to
        # twice per record (drops, reports): answered once per file. No engine changes a file's mode,
        # and a file deleted is not asked about again.
        answer = self._locked.get(record.rel)
        if answer is None:
            answer = self._locked[record.rel] = is_locked(str(record.path))
        return answer

    def errors(self, path: Path, text: str, *, before_text: str | None,
               allowed_sources: Iterable[SourceKey] = ()) -> list[Diagnostic]:
        """The write-time linter's errors for writing ``text`` at ``path`` (empty: may write).
        ``allowed_sources``: sources beyond the run's that ``text`` may carry (a record moved to a new
        slug keeps the sources it had; a merge keeps the merged records')."""
        context = WriteContext(writer="agent", read_paths=set(self.read_paths),
                               allowed_sources=self.ctx.allowed_sources() | set(allowed_sources))
        return [d for d in check_write(self.ctx.sws, self.index, path, text, context, before_text=before_text)
                if d.is_error]

    def record_errors(self, record: Record, text: str, *, allowed_sources: Iterable[SourceKey] = ()) -> list[Diagnostic]:
        """``errors`` for replacing ``record`` (read now) with ``text``."""
        self.read_paths.add(record.rel)
        return self.errors(record.path, text, before_text=record.text, allowed_sources=allowed_sources)

    def put(self, path: Path, text: str, *, bom: bool = False, **change: Any) -> None:
        """Write a text ``errors`` accepted (``bom``: with a byte-order mark); ``change``: the change
        set's ``why``/``category``/``reason``/``derived`` for this file. Raises ``RecordLockedError``."""
        rel = self.rel(path)
        self.ctx.scratch.write(rel, ("\ufeff" if bom else "") + text, **change)
        self.read_paths.add(rel)
        self.ctx.note_written(rel)
        if self._remember:
            self.written[Path(path)] = text
        record = read_record(self.ctx.sws, path, text=text).record
        if record is not None:
            self.index.add(record)

    def rewrite(self, record: Record, text: str, **change: Any) -> None:
        """``put`` a new text for ``record`` (its byte-order mark kept)."""
        self.put(record.path, text, bom=record.bom, **change)

    def write(self, path: Path, text: str, *, before_text: str | None, bom: bool = False,
              allowed_sources: Iterable[SourceKey] = (), **change: Any) -> list[Diagnostic]:
        """Lint then write; returns the errors (nothing was written when there is one)."""
        errors = self.errors(path, text, before_text=before_text, allowed_sources=allowed_sources)
        if errors:
            return errors
        try:
            self.put(path, text, bom=bom, **change)
        except RecordLockedError as exc:
            return [Diagnostic(self.rel(path), 1, 1, "locked", "error", exc.message)]
        return []

    def delete(self, record: Record | RecordHead, **change: Any) -> None:
        self.ctx.scratch.delete(record.rel, **change)
        self.index.remove(record.kind, record.slug)


def format_errors(errors: list[Diagnostic], *, columns: bool = True) -> str:
    """Lint errors on one line, for a run's notes: ``path:line:col: rule message`` each (``columns``
    False: without the column, as GC's notes have always read)."""
    return "; ".join(f"{d.path}:{d.line}" + (f":{d.col}" if columns else "") + f": {d.rule} {d.message}"
                     for d in errors)


__all__ = ["LintedWriter", "format_errors"]
