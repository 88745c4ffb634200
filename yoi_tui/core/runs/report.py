"""The report lifecycle of a writer run (Phase 2's round, GC's run), after its engine is done.

``PreparedRun`` is a computed change set with the consolidation lock still held (None in a dry
run): ``apply_reviewed`` checks the lock is still this run's, applies all the files or the accepted
ones (``changeset.apply``: journalled, crash-safe; the deferred files keep their inputs), lets the
pipeline remember what the review rejected (``remember``: ``runs.rejections``), marks the report
``applied`` and releases the lock whatever happens. ``check_review`` refuses a command-line
review (``--reject`` / ``--defer``) that names something twice or something not proposed, before
anything is applied. ``applied_json`` is the part of a report's JSON that says what was applied.

How a run gives up is ``run_context.RunAborted``; its progress, ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..crashpoints import crashpoint
from ..errors import YoiError
from ..store.workspace import Workspace
from .changeset import ApplyResult, ChangeSet, apply
from .consolidation_lock import ConsolidationLock


@dataclass
class PreparedRun:
    """A computed change set waiting to be applied; ``report`` has ``changeset``, ``result``,
    ``status`` and ``remembered``. ``purpose`` names the run's crash points (``phase2:before-apply``),
    ``what`` the run in messages."""

    ws: Workspace
    report: Any
    lock: ConsolidationLock | None
    purpose: ClassVar[str] = "run"
    what: ClassVar[str] = "writer"

    @property
    def changeset(self) -> ChangeSet:
        if self.report.changeset is None:
            raise YoiError(f"this {self.what} run has no change set")
        changeset: ChangeSet = self.report.changeset
        return changeset

    def apply_reviewed(self, only: set[str] | None, deferred: set[str] | frozenset[str]) -> ApplyResult:
        """Apply (all files, or ``only``) with ``deferred`` kept for a later run, then release the lock."""
        assert self.lock is not None, "a dry-run change set is refused before it gets here"
        try:
            self.lock.verify()
            crashpoint(f"{self.purpose}:before-apply")
            result = apply(self.ws, self.changeset, only=only, deferred=deferred)
            crashpoint(f"{self.purpose}:applied")
            self.remember(result)
            self.report.result = result
            self.report.status = "applied"
            return result
        finally:
            self.release()

    def remember(self, result: ApplyResult) -> None:
        """Record what the review rejected so it is not proposed again (each pipeline its own way)."""

    def remember_with(self, record: Callable[[], list[Any]], *, again: str) -> None:
        """``report.remembered = record()``; a failure to write the rejections is a note (the run is
        applied; only the memory of the rejection is missing): ``again`` says what follows."""
        try:
            self.report.remembered = record()
        except OSError as exc:
            self.changeset.notes.append(f"could not remember the rejections ({exc.strerror or exc}); {again}")

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def check_review(reject: set[str], defer: set[str], proposed: Iterable[str], *, release: Callable[[], None],
                 unknown: Callable[[str], str]) -> None:
    """A command-line review must name each proposal at most once and only proposals; otherwise the
    lock is released and a ``YoiError`` says why (``unknown(listing)``: the message for names that
    are not proposed)."""
    both = reject & defer
    missing = (reject | defer) - set(proposed)
    if both or missing:
        release()
        if both:
            raise YoiError(f"--reject and --defer both name {listing(both)}")
        raise YoiError(unknown(listing(missing)))


def listing(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))


def applied_json(result: ApplyResult, remembered: list[Any], *, inputs: bool = False) -> dict[str, Any]:
    """What was applied, as a report's JSON says it (``inputs``: with the staging deleted and kept,
    Phase 2's)."""
    data: dict[str, Any] = {"applied": [{"path": c.path, "op": c.op} for c in result.applied],
                            "applied_counts": result.counts(),
                            "conflicts": [{"path": c.path, "reason": r} for c, r in result.conflicts]}
    if inputs:
        data.update({"staging_deleted": result.inputs_deleted, "staging_kept": result.inputs_kept})
    data.update({"rejected": [c.path for c in result.rejected],
                 "deferred": [c.path for c in result.deferred],
                 "remembered": [r.to_json() for r in remembered],
                 "journal": str(result.journal_path) if result.journal_path else None})
    return data


__all__ = ["PreparedRun", "applied_json", "check_review", "listing"]
