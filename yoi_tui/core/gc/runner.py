"""Running GC (SPEC 10): lock → recovery → engine on a scratch copy → change set → apply.

GC is a writer like Phase 2 and shares all of its machinery:

1. **Lock**: the same consolidation lock (``core.runs.consolidation_lock``, purpose ``gc``), taken and followed by
   recovery in ``core.runs.start.start_run`` as for Phase 2, so GC, Phase 2 and ``yoi revert`` never
   run at once; a live holder makes GC fail at once (``LockBusy``).
2. **Recovery**: a run a crash interrupted while applying (Phase 2's or GC's) is finished first.
3. **Engine** (``rules``, or ``llm``: the rules, then a model rewrites what they only report) on a
   ``Scratch`` copy; its differences
   become a ``ChangeSet`` whose files carry GC's categories and reason, and a list of
   ``GcOperation``s (proposed, or only reported).
4. **Apply** (``changeset.apply``: journalled, crash-safe, a file edited meanwhile is a conflict and
   left alone); ``yoi revert RUN`` undoes the run to the exact bytes.

``dry_run`` takes no lock, finishes nothing and writes nothing. The app calls ``prepare_gc`` (the
lock stays held while a person reviews; ``progress`` reports each step and may cancel before
anything is applied) and ``PreparedGc.apply(operations=..., deferred_operations=...)`` with the
operations they accepted and deferred (the rest are journalled as rejected).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from ..crashpoints import crashpoint
from ..errors import YoiError
from ..runs.changeset import ApplyResult, ChangeSet, Scratch
from ..runs.consolidation_lock import Takeover
from ..runs.engines import Engine, Engines
from ..runs.progress import ProgressFn
from ..runs.progress import report as tell
from ..runs.report import PreparedRun, applied_json, check_review
from ..runs.run_context import RunAborted
from ..runs.start import PENDING_NOTE, has_pending_runs, start_run
from ..store.ids import new_id
from ..store.workspace import Workspace
from .facts import UsageFacts
from .model import GcOperation, StreamedList, format_tokens
from .run_context import GcContext

GcEngine = Engine[GcContext]
ENGINES = Engines("GC", __package__ or "", rules="rules_engine.GcRulesEngine", llm="llm_engine.GcLlmEngine")
make_gc_engine = ENGINES.make  # (name, model=None) -> the engine


@dataclass
class GcReport:
    """One GC run as the CLI and the app show it.

    ``status``: ``prepared`` (change set computed, lock held), ``applied``, ``dry-run``,
    ``nothing-to-do`` (no change proposed; findings may still be reported), or ``aborted`` (the
    engine gave up; nothing was changed).
    """

    status: str
    engine: str
    run_id: str | None = None
    changeset: ChangeSet | None = None
    operations: list[GcOperation] = field(default_factory=list)
    result: ApplyResult | None = None
    takeover: Takeover | None = None
    recovered: list[ApplyResult] = field(default_factory=list)
    message: str | None = None
    clock: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    remembered: list[Any] = field(default_factory=list)  # rejections this run's review recorded

    @property
    def proposed(self) -> list[GcOperation]:
        return [o for o in self.operations if o.state == "proposed"]

    @property
    def findings(self) -> list[GcOperation]:
        """Everything not in the change set: reported, locked, protected, refused (not held back)."""
        return [o for o in self.operations if o.state not in ("proposed", "held")]

    @property
    def held(self) -> list[GcOperation]:
        """Operations an earlier review rejected, held back while their files are unchanged."""
        return [o for o in self.operations if o.state == "held"]

    @property
    def exit_code(self) -> int:
        """1 when a person should look: an aborted run, a change the linter refused, a conflict; 2
        when a file could not be written (a full disk, a read-only file system)."""
        if self.result is not None and self.result.write_failed:
            return 2
        if self.status == "aborted" or any(o.state == "refused" for o in self.operations):
            return 1
        if self.result is not None and self.result.conflicts:
            return 1
        return 0

    def operation_of(self, path: str) -> GcOperation | None:
        return next((o for o in self.proposed if path in o.paths), None)

    def to_json(self, *, diff: bool = False, stream: bool = False) -> dict[str, Any]:
        """The report as JSON data. ``stream``: ``operations`` and ``files`` are ``StreamedList``s,
        built while ``print_json`` writes them (50,000 records: 41,000 operations, 11,000 diffs)."""
        operations = self.operations
        data: dict[str, Any] = {
            "status": self.status, "engine": self.engine, "run_id": self.run_id, "message": self.message,
            "clock": self.clock, "usage": dict(self.usage), "takeover": self.takeover.to_json() if self.takeover else None,
            "recovered": [r.to_json() for r in self.recovered],
            "operations": (StreamedList(len(operations), lambda: (o.to_json() for o in operations)) if stream
                           else [o.to_json() for o in operations]),
            "counts": {"add": 0, "modify": 0, "delete": 0}, "files": [], "notes": [],
        }
        by_state: dict[str, int] = {}
        for item in self.operations:
            by_state[item.state] = by_state.get(item.state, 0) + 1
        data["by_state"] = by_state
        data["held_back"] = [{"operation": o.operation_id, "rejection": o.details.get("rejection"), "op": o.op,
                              "path": o.path, "categories": list(o.categories), "reason": o.reason}
                             for o in self.held]
        if self.changeset is not None:
            owners: dict[str, GcOperation] = {}  # path -> first proposed operation naming it (as operation_of)
            for item in self.proposed:
                for rel in item.paths:
                    owners.setdefault(rel, item)
            changes = self.changeset.changes

            def entries() -> Iterator[dict[str, Any]]:
                for change in changes:
                    owner = owners.get(change.path)  # one lookup: operation_of per file was O(files x operations)
                    entry: dict[str, Any] = {"path": change.path, "op": change.op, "category": change.category,
                                             "reason": change.reason, "operation": owner.id if owner else None}
                    if diff:
                        entry["diff"] = change.diff()
                    yield entry

            files: Any = StreamedList(len(changes), entries) if stream else list(entries())
            data.update({"files": files, "counts": self.changeset.counts(), "notes": self.changeset.notes})
        if self.result is not None:
            data.update(applied_json(self.result, self.remembered))
        data["exit"] = self.exit_code
        return data


@dataclass
class PreparedGc(PreparedRun):
    """A computed GC change set with the lock still held (None in a dry run or with nothing to apply)."""

    report: GcReport
    purpose: ClassVar[str] = "gc"
    what: ClassVar[str] = "GC"

    @property
    def operations(self) -> list[GcOperation]:
        return self.report.operations

    def paths_for(self, operation_ids: Iterable[str]) -> set[str]:
        """The change-set files of the given proposed operations (a merge spans several files)."""
        wanted = set(operation_ids)
        by_id = {o.id: o for o in self.report.proposed}
        unknown = wanted - set(by_id)
        if unknown:
            raise YoiError(f"not a proposed operation of this run: {', '.join(sorted(unknown))}")
        return {path for op_id in wanted for path in by_id[op_id].paths}

    def apply(self, only: set[str] | None = None, *, operations: Iterable[str] | None = None,
              deferred_operations: Iterable[str] = ()) -> ApplyResult:
        """Apply all files, the files in ``only``, or the files of the accepted ``operations``; then
        release the lock. The files of ``deferred_operations`` are journalled as deferred, everything
        else not accepted as rejected."""
        if self.lock is None:
            raise YoiError("a dry-run GC change set cannot be applied; run again without --dry-run")
        try:
            if operations is not None:
                only = (only or set()) | self.paths_for(operations)
            deferred = self.paths_for(deferred_operations)
        except BaseException:
            self.release()
            raise
        return self.apply_reviewed(only, deferred)

    def remember(self, result: ApplyResult) -> None:
        """Every proposed operation whose files were all rejected is remembered with the bytes they
        held (``core.runs.rejections``): not proposed again while they are unchanged."""
        from ..runs.rejections import GcRejections

        rejected = {c.path for c in result.rejected}
        befores = {c.path: c.before for c in self.changeset.changes}
        operations = [o for o in self.report.proposed if o.paths and all(p in rejected for p in o.paths)]
        if not operations:
            return
        store = GcRejections(self.ws)
        self.remember_with(lambda: [store.record(o, befores, run_id=self.changeset.run_id) for o in operations],
                           again="they may be proposed again")


def _hold_back(operations: list[GcOperation], changeset: ChangeSet, rejections: Any) -> None:
    """Proposed operations an earlier review rejected, on files that still hold the bytes they were
    rejected on, leave the change set (state ``held``). Drops are decided in the engine already
    (what they point at must stay as well); this catches every other operation of any engine."""
    from ..runs.rejections import digest_text, held_reason

    if not rejections.by_operation:
        return
    by_path = {c.path: c for c in changeset.changes}
    removed: set[str] = set()
    for item in operations:
        if item.state != "proposed" or item.operation_id not in rejections.by_operation:
            continue
        current = {p: digest_text(by_path[p].before) for p in item.paths if p in by_path}
        rejection = rejections.matching(item.operation_id, current)
        if rejection is None:
            continue
        item.state = "held"
        item.reason = f"{item.reason}; {held_reason(rejection, 'gc')}"
        item.details["rejection"] = rejection.id
        removed.update(item.paths)
    if removed:
        changeset.changes = [c for c in changeset.changes if c.path not in removed]


def _settle(operations: list[GcOperation], changeset: ChangeSet) -> list[GcOperation]:
    """Keep each proposed operation's files to those that really changed (an engine may write a text
    back to what it was); an operation left with none is dropped. A changed file no operation
    claims is reported in the notes (it would still be applied with the whole change set)."""
    changed = set(changeset.paths())
    kept: list[GcOperation] = []
    claimed: set[str] = set()
    for item in operations:
        if item.state == "proposed":
            item.paths = [p for p in item.paths if p in changed]
            if not item.paths:
                continue
            claimed.update(item.paths)
        kept.append(item)
    for path in sorted(changed - claimed):
        changeset.notes.append(f"{path}: changed by the engine outside any operation")
    return kept


def prepare_gc(ws: Workspace, *, engine: str | None = None, dry_run: bool = False, model: Any = None,
               keepalive: bool = False, progress: ProgressFn | None = None,
               now: datetime | None = None) -> PreparedGc:
    """Steps 1–3: compute GC's change set (holding the lock unless ``dry_run``).

    ``progress`` is told each step (4 in all) and each record the engine writes; if it raises
    (``RunCancelled``) the run stops, the lock is released and nothing is written.

    ``report.status`` is ``nothing-to-do`` when no change is proposed (the lock is then released).
    Raises ``LockBusy`` when another run holds the lock, ``YoiError`` for an unavailable engine.
    """
    engine_name = engine or ws.config.gc.engine
    runner = make_gc_engine(engine_name, model)  # before the lock: an unknown engine leaves nothing behind
    report = GcReport(status="nothing-to-do", engine=engine_name)
    with start_run(ws, "gc", dry_run=dry_run) as start:
        lock = start.lock
        tell(progress, "lock", 1, 4, line="dry run: no lock taken" if lock is None else "consolidation lock taken")
        report.run_id, report.takeover, report.recovered = start.run_id, start.takeover, start.recovered
        notes: list[str] = []
        if lock is not None:
            if keepalive:
                lock.start_keepalive()
        elif has_pending_runs(ws):
            notes.append(PENDING_NOTE)
        if report.takeover is not None:
            notes.append(report.takeover.describe())
        report.run_id = report.run_id or new_id()
        usage = UsageFacts.load(ws)
        report.clock = usage.clock
        tell(progress, "snapshot", 2, 4, line=f"usage read: token clock {format_tokens(usage.clock)}")
        with Scratch(ws) as scratch:
            if progress is not None:
                scratch.observer = lambda rel: tell(progress, "write", 3, 4, current=rel, line=f"writing {rel}")
            tell(progress, "engine", 3, 4, line=f"{engine_name} engine working on a scratch copy")
            from ..runs.rejections import GcRejections

            rejections = GcRejections(ws)
            notes.extend(rejections.problems)
            ctx = GcContext(ws=ws, scratch=scratch, run_id=report.run_id, now=now or datetime.now(UTC).replace(microsecond=0),
                            usage=usage, notes=notes, rejections=rejections)
            try:
                runner.run(ctx)
            finally:
                report.usage = dict(ctx.llm_usage)
            report.changeset = scratch.changeset(run_id=report.run_id, purpose="gc", engine=engine_name,
                                                 notes=ctx.notes)
        report.operations = _settle(list(ctx.operations), report.changeset)
        _hold_back(report.operations, report.changeset, rejections)
        crashpoint("gc:computed")
        tell(progress, "changeset", 4, 4, line=f"{len(report.proposed)} operation(s) proposed, "
             f"{len(report.findings)} finding(s) reported")
        if not report.changeset.changes:
            findings = len(report.findings)
            report.message = ("no change proposed" + (f"; {findings} finding(s) reported" if findings else "")
                              + f" (clock {format_tokens(usage.clock)} tokens)")
            report.run_id = None  # nothing is journalled under it
            if lock is not None:
                lock.release()
            return PreparedGc(ws, report, None)
        report.status = "dry-run" if dry_run else "prepared"
        return PreparedGc(ws, report, lock)


def run_gc(ws: Workspace, *, engine: str | None = None, dry_run: bool = False, model: Any = None,
           reject: Iterable[str] = (), defer: Iterable[str] = ()) -> GcReport:
    """Run GC headless: compute the change set and apply all of it (or only show it with ``dry_run``).

    ``reject`` / ``defer``: the review from the command line — ids of proposed operations (as
    ``--dry-run --json`` gives them) to reject (remembered while their files are unchanged) or
    defer; the rest is applied. An id that is not proposed is a ``YoiError``; nothing is applied.
    An aborted engine (``RunAborted``) gives a report with status ``aborted``: nothing was changed.
    """
    engine_name = engine or ws.config.gc.engine
    reject, defer = set(reject), set(defer)
    try:
        prepared = prepare_gc(ws, engine=engine, dry_run=dry_run, model=model, keepalive=engine_name == "llm")
    except RunAborted as exc:
        return GcReport(status="aborted", engine=engine_name, message=exc.message)
    if reject or defer:
        check_review(reject, defer, (o.id for o in prepared.report.proposed), release=prepared.release,
                     unknown=lambda names: f"not a proposed operation: {names} (the operations[].id of "
                                           "`yoi gc --dry-run --json` whose state is proposed)")
    if prepared.lock is not None and not dry_run:
        if reject or defer:
            accepted = [o.id for o in prepared.report.proposed if o.id not in reject and o.id not in defer]
            prepared.apply(operations=accepted, deferred_operations=sorted(defer))
        else:
            prepared.apply()
    return prepared.report


__all__ = ["GcEngine", "GcReport", "PreparedGc", "make_gc_engine", "prepare_gc", "run_gc"]
