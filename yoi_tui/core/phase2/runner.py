"""Running Phase 2 (SPEC 9): trigger → lock → recovery → snapshot → engine → change set → apply → coalesce.

One round:

1. **Trigger.** Staging file count ≥ ``phase2.staging_files`` or bytes ≥ ``phase2.staging_bytes``,
   or ``flush``. Under the trigger nothing runs (but an interrupted run is still finished).
2. **Lock** (``core.runs.consolidation_lock``, taken by ``core.runs.start.start_run``, like GC's): a live holder makes
   this run fail at once (``LockBusy``); a stale one is taken over and reported.
3. **Recovery**: a run a crash interrupted after it began applying is finished first
   (``changeset.recover_pending``), so the workspace is never left half-applied.
4. **Snapshot**: the staging files present now are the run's ``consumed`` set (written into the
   lock). Files arriving later are left for the next run; an unreadable one is reported and kept.
5. **Engine** (``rules`` or ``llm``) on a scratch copy; its differences are the ``ChangeSet``.
6. **Apply** (``changeset.apply``; journalled, crash-safe), which deletes the consumed staging —
   except staging the engine held back or whose change conflicted with a human edit.
7. **Coalesce**: if staging that arrived during the run is over the trigger, run again (at most
   ``MAX_ROUNDS`` rounds).

``dry_run`` stops after step 5 (no lock, no recovery, nothing written). The app uses
``prepare_round`` + ``PreparedRound.apply(only=..., deferred=...)`` to review a change set before
applying it; ``progress`` (``core.runs.progress``) reports each step and may cancel the round before
it applies anything (the lock is released).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from ..crashpoints import crashpoint
from ..errors import YoiError
from ..runs.changeset import (
    DEFERRED_IN_REVIEW,
    ApplyResult,
    ChangeSet,
    ConsumedInput,
    Scratch,
)
from ..runs.consolidation_lock import Takeover
from ..runs.engines import Engine as EngineOf
from ..runs.engines import Engines
from ..runs.progress import ProgressFn
from ..runs.progress import report as tell
from ..runs.report import PreparedRun, applied_json, check_review, listing
from ..runs.run_context import RunAborted
from ..runs.start import PENDING_NOTE, has_pending_runs, start_run
from ..store.ids import new_id
from ..store.reader import encode_exact, read_exact
from ..store.staging import StagingFile, list_staging, parse_staging, reject_staging
from ..store.workspace import Workspace
from .run_context import Phase2Context

MAX_ROUNDS = 5


Engine = EngineOf[Phase2Context]
ENGINES = Engines("Phase 2", __package__ or "", rules="rules_engine.RulesEngine", llm="llm_engine.LlmEngine")
make_engine = ENGINES.make  # (name, model=None) -> the engine


@dataclass
class Pressure:
    """Staging waiting for Phase 2 and whether it is over the trigger."""

    files: int
    bytes: int
    over: bool
    trigger_files: int
    trigger_bytes: int

    def describe(self) -> str:
        return (f"{self.files} staging file(s), {self.bytes} bytes (trigger: {self.trigger_files} files or "
                f"{self.trigger_bytes} bytes)")

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def staging_pressure(ws: Workspace, *, exclude: set[str] | frozenset[str] = frozenset()) -> Pressure:
    files = 0
    size = 0
    for path in list_staging(ws):
        if path.stem in exclude:
            continue
        try:
            size += path.stat().st_size
        except OSError:
            continue
        files += 1
    cfg = ws.config.phase2
    return Pressure(files, size, files >= cfg.staging_files or size >= cfg.staging_bytes,
                    cfg.staging_files, cfg.staging_bytes)


def _candidates(ws: Workspace, notes: list[str]) -> list[Any]:
    try:
        from ..usage.log import candidate_report
    except ImportError:
        notes.append("usage: the knowledge candidate report is not available; no knowledge is created")
        return []
    try:
        candidates = list(candidate_report(ws))
    except (YoiError, OSError, ValueError) as exc:
        notes.append(f"usage: candidate report failed ({exc}); no knowledge is created")
        return []
    return _not_deleted(ws, candidates, notes)


def _not_deleted(ws: Workspace, candidates: list[Any], notes: list[str]) -> list[Any]:
    """The candidates but a decision or request whose knowledge record (its slug) was deleted in git.

    The report is counted and a count never falls (docs/team.md), so a record stays on it: without
    this, knowledge a person deleted, ``git revert``/``yoi revert`` took out or GC dropped as unused
    would come back at the next run. Whether it was deleted is read from git (history, work tree),
    which every clone shares once it pulled: the same answer in each. Outside git nothing is known."""
    missing = [c for c in candidates if str(c.kind) in ("decision", "request")
               and not (ws.knowledge_dir / f"{c.slug}.md").exists()]
    if not missing:
        return candidates
    from ..store.team import deleted_in_git

    deleted = deleted_in_git(ws.root, ws.rel(ws.knowledge_dir))
    if not deleted:
        return candidates
    gone = {c.slug for c in missing if f"{c.slug}.md" in deleted}
    for slug in sorted(gone):
        notes.append(f"knowledge/{slug}.md was deleted (git); not promoted again from its {slug!r} origin")
    return [c for c in candidates if not (c.slug in gone and str(c.kind) in ("decision", "request"))]


def snapshot_staging(ws: Workspace, *, reject: bool = False
                     ) -> tuple[list[StagingFile], list[ConsumedInput], dict[str, str]]:
    """The staging present now: parsed files, their exact texts, and the unreadable ones (rel → why).

    With ``reject`` (the lock is held: not a dry run) an unreadable file is moved aside to
    ``memory/_staging/_rejected/`` with a reason file, and its "why" names where it went.
    """
    parsed: list[StagingFile] = []
    inputs: list[ConsumedInput] = []
    unreadable: dict[str, str] = {}
    for path in list_staging(ws):
        rel = ws.rel(path)
        why: str | None = None
        try:
            text = read_exact(path)
        except YoiError as exc:
            text, why = None, exc.message
        if text is None and why is None:
            continue  # deleted meanwhile
        staging: StagingFile | None = None
        if why is None and text is not None:
            try:
                staging = parse_staging(encode_exact(text))
            except ValueError as exc:
                why = str(exc)
            else:
                if staging.id != path.stem:
                    why = f"its id {staging.id} does not match the file name"
        if why is not None or staging is None or text is None:
            why = why or "unreadable"
            if reject:
                try:
                    moved = reject_staging(ws, path, why)
                    why = f"{why}; moved to {ws.rel(moved)}"
                except OSError as exc:
                    why = f"{why}; could not be moved aside ({exc.strerror or exc}), kept"
            unreadable[rel] = why
            continue
        parsed.append(staging)
        inputs.append(ConsumedInput(staging.id, rel, text))
    return parsed, inputs, unreadable


def drop_consumed_again(ws: Workspace, staging: list[StagingFile], inputs: list[ConsumedInput], *,
                        dry_run: bool) -> tuple[list[StagingFile], list[ConsumedInput], list[str]]:
    """Leave out staging this workspace's journals say a run already consumed (it came back through
    git): applied at most once. Outside a dry run the stale copy is removed (the lock is held)."""
    from ..runs.consumed import consumed_staging

    already = consumed_staging(ws, [s.id for s in staging])
    if not already:
        return staging, inputs, []
    notes: list[str] = []
    for staging_id, run_id in sorted(already.items()):
        path = ws.staging_dir / f"{staging_id}.json"
        action = "left in place (dry run)" if dry_run else "removed"
        if not dry_run:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                action = f"could not be removed ({exc.strerror or exc})"
        notes.append(f"staging {staging_id} was already consumed here by run {run_id} (it came back, e.g. "
                     f"through git); not applied again, {action}")
    return ([s for s in staging if s.id not in already], [i for i in inputs if i.id not in already], notes)


@dataclass
class RoundReport:
    """One Phase 2 round as the CLI and the app show it."""

    status: str  # applied | dry-run | nothing-to-do | aborted
    engine: str
    run_id: str | None = None
    changeset: ChangeSet | None = None
    result: ApplyResult | None = None
    takeover: Takeover | None = None
    recovered: list[ApplyResult] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)
    pressure: Pressure | None = None
    message: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    # Staging items left out because an earlier review rejected what they proposed (runs.rejections),
    # the item details of this run's changes (fingerprint -> staging, section, title), and the
    # rejections this round's review recorded.
    held_back: list[dict[str, Any]] = field(default_factory=list)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    remembered: list[Any] = field(default_factory=list)

    @property
    def conflicts(self) -> int:
        return len(self.result.conflicts) if self.result else 0

    def to_json(self, *, diff: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "engine": self.engine, "run_id": self.run_id,
                                "message": self.message,
                                "pressure": self.pressure.to_json() if self.pressure else None,
                                "takeover": self.takeover.to_json() if self.takeover else None,
                                "recovered": [r.to_json() for r in self.recovered],
                                "unreadable_staging": self.unreadable, "usage": self.usage,
                                "held_back": list(self.held_back)}
        if self.changeset is not None:
            cs = self.changeset
            files = []
            for change in cs.changes:
                item: dict[str, Any] = {"path": change.path, "op": change.op, "why": change.why,
                                        "reason": change.reason}
                if diff:
                    item["diff"] = change.diff()
                files.append(item)
            data.update({"files": files, "counts": cs.counts(), "consumed": [i.id for i in cs.inputs],
                         "held": cs.held, "notes": cs.notes})
        if self.result is not None:
            data.update(applied_json(self.result, self.remembered, inputs=True))
        return data


@dataclass
class Phase2Report:
    rounds: list[RoundReport] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """1 when something needs a person: an abort, a conflict, staging kept back (lint refused
        part of it, or its change conflicted) or broken staging (moved to ``_rejected/``); 2 when a
        file could not be written (a full disk, a read-only file system): an environment error."""
        if any(r.result is not None and r.result.write_failed for r in self.rounds):
            return 2
        for r in self.rounds:
            kept = {k: v for k, v in (r.result.inputs_kept if r.result is not None else {}).items()
                    if not v.endswith(DEFERRED_IN_REVIEW)}  # a person's own "later" needs no second look
            if r.status == "aborted" or r.conflicts or kept:
                return 1
            if r.unreadable:  # broken staging: moved aside (or, in a dry run, named) — a person must look
                return 1
        return 0

    def to_json(self, *, diff: bool = False) -> dict[str, Any]:
        return {"rounds": [r.to_json(diff=diff) for r in self.rounds], "exit": self.exit_code}


@dataclass
class PreparedRound(PreparedRun):
    """A computed change set, with the lock still held (None in a dry run), waiting to be applied."""

    report: RoundReport
    purpose: ClassVar[str] = "phase2"
    what: ClassVar[str] = "Phase 2"

    def apply(self, only: set[str] | None = None, *, deferred: set[str] | frozenset[str] = frozenset()) -> ApplyResult:
        """Apply (all files, or the accepted subset), then release the lock. ``deferred`` files keep
        their staging for a later run; the other files not accepted are rejected (staging consumed)."""
        if self.lock is None:
            raise YoiError("a dry-run change set cannot be applied; run again without --dry-run")
        return self.apply_reviewed(only, deferred)

    def remember(self, result: ApplyResult) -> None:
        """A rejected file's staging items are not folded in again (``runs.rejections``)."""
        from ..runs.rejections import record_phase2_rejections

        if not result.rejected:
            return
        self.remember_with(lambda: record_phase2_rejections(self.ws, result.rejected, self.report.items,
                                                            run_id=self.changeset.run_id),
                           again="the rejected items may be proposed again")


def _attribute_items(ctx: Phase2Context, changeset: ChangeSet, staging: list[StagingFile], engine: str) -> None:
    """Each change's ``items``: the staging items its writes came from. An engine that does not say
    (the llm engine) is given every item of the staging files behind the change (its ``why``)."""
    from ..runs.rejections import item_title, staging_items

    by_staging: dict[str, list[str]] = {}
    if engine != "rules":
        for one in staging:
            for section, _index, item, fingerprint in staging_items(one):
                by_staging.setdefault(one.id, []).append(fingerprint)
                ctx.item_info.setdefault(fingerprint, {"staging": one.id, "section": section,
                                                       "item": item_title(section, item)})
    for change in changeset.changes:
        found = set(ctx.item_paths.get(change.path, ()))
        if not found and not change.derived:
            found = {fp for staging_id in change.why for fp in by_staging.get(staging_id, ())}
        change.items = sorted(found)


def prepare_round(ws: Workspace, *, engine: str | None = None, flush: bool = False, dry_run: bool = False,
                  model: Any = None, keepalive: bool = False, progress: ProgressFn | None = None,
                  now: datetime | None = None) -> PreparedRound:
    """Steps 1–5 of a round. ``report.status`` is ``nothing-to-do`` when there is nothing to apply.

    ``progress`` is told each step (4 in all) and each record the engine writes; if it raises
    (``RunCancelled``) the round stops, the lock is released and nothing is written.
    """
    engine_name = engine or ws.config.phase2.engine
    pressure = staging_pressure(ws)
    report = RoundReport(status="nothing-to-do", engine=engine_name, pressure=pressure)
    pending = has_pending_runs(ws)
    if not flush and not pressure.over and not (pending and not dry_run):
        report.message = f"nothing to do: {pressure.describe()}; use --flush to run anyway"
        # Broken staging is named now, not only when the trigger fires (no lock: nothing is moved).
        report.unreadable = snapshot_staging(ws, reject=False)[2]
        return PreparedRound(ws, report, None)
    with start_run(ws, "phase2", dry_run=dry_run) as start:
        lock = start.lock
        tell(progress, "lock", 1, 4, line="dry run: no lock taken" if lock is None else "consolidation lock taken")
        report.run_id, report.takeover, report.recovered = start.run_id, start.takeover, start.recovered
        if lock is None and pending:
            report.message = PENDING_NOTE
        if not flush and not staging_pressure(ws).over:
            report.message = report.message or f"nothing to do: {staging_pressure(ws).describe()}"
            if lock is not None:
                lock.release()
            return PreparedRound(ws, report, None)
        staging, inputs, unreadable = snapshot_staging(ws, reject=lock is not None)
        report.unreadable = unreadable
        staging, inputs, repeat_notes = drop_consumed_again(ws, staging, inputs, dry_run=dry_run)
        from ..runs.rejections import hold_back_items

        staging, report.held_back, rejection_problems = hold_back_items(ws, staging)
        repeat_notes.extend(rejection_problems)
        snapshot_line = f"{len(staging)} staging file(s) to fold in" + (f", {len(unreadable)} unreadable" if unreadable else "")
        if lock is not None:
            lock.set_consumed([s.id for s in staging])
            if keepalive:
                lock.start_keepalive()
        if not staging:
            report.message = "; ".join(["nothing to do: no readable staging files", *repeat_notes])
            if lock is not None:
                lock.release()
            return PreparedRound(ws, report, None)
        report.run_id = report.run_id or new_id()
        notes: list[str] = []  # broken staging is reported from report.unreadable, not as a note
        notes.extend(repeat_notes)
        if report.takeover is not None:
            notes.append(report.takeover.describe())
        candidates = _candidates(ws, notes)
        runner = make_engine(engine_name, model)
        tell(progress, "snapshot", 2, 4, line=snapshot_line)
        with Scratch(ws) as scratch:
            if progress is not None:
                scratch.observer = lambda rel: tell(progress, "write", 3, 4, current=rel, line=f"writing {rel}")
            tell(progress, "engine", 3, 4, line=f"{engine_name} engine working on a scratch copy")
            ctx = Phase2Context(ws=ws, scratch=scratch, run_id=report.run_id, staging=staging,
                                candidates=candidates, now=now or datetime.now(UTC).replace(microsecond=0), notes=notes)
            try:
                runner.run(ctx)
            finally:
                report.usage = dict(ctx.usage)
            report.changeset = scratch.changeset(run_id=report.run_id, purpose="phase2", engine=engine_name,
                                                 inputs=inputs, held=ctx.held, notes=ctx.notes)
            _attribute_items(ctx, report.changeset, staging, engine_name)
            report.items = ctx.item_info
        crashpoint("phase2:computed")
        tell(progress, "changeset", 4, 4,
               line=f"{len(report.changeset.changes)} file(s) proposed" + ("" if dry_run else "; waiting for review"))
        report.status = "dry-run" if dry_run else "prepared"
        return PreparedRound(ws, report, lock)


def _check_review_paths(prepared: PreparedRound, reject: set[str], defer: set[str]) -> None:
    """The review's paths must name files of the change set, and each at most once."""
    check_review(reject, defer, prepared.changeset.paths(), release=prepared.release,
                 unknown=lambda names: f"not in the change set: {names} (the paths `yoi phase2 --flush --dry-run` "
                                       "shows, relative to the workspace)")


def run_phase2(ws: Workspace, *, engine: str | None = None, dry_run: bool = False, flush: bool = False,
               model: Any = None, max_rounds: int = MAX_ROUNDS, reject: Iterable[str] = (),
               defer: Iterable[str] = ()) -> Phase2Report:
    """Run Phase 2 headless: rounds until no staging pressure is left (see the module docstring).

    ``reject`` / ``defer``: the review from the command line — files of the first round's change
    set (paths as ``--dry-run`` shows them) to reject (remembered: their staging items are not
    proposed again) or defer (their staging kept); the rest is applied. A path that is not in the
    change set is a ``YoiError`` and nothing is applied."""
    report = Phase2Report()
    reject, defer = set(reject), set(defer)
    for round_no in range(max_rounds):
        try:
            prepared = prepare_round(ws, engine=engine, flush=flush and round_no == 0, dry_run=dry_run, model=model,
                                     keepalive=(engine or ws.config.phase2.engine) == "llm")
        except RunAborted as exc:
            report.rounds.append(RoundReport(status="aborted", engine=engine or ws.config.phase2.engine,
                                             message=exc.message))
            break
        report.rounds.append(prepared.report)
        if prepared.report.changeset is None and round_no == 0 and (reject or defer):
            raise YoiError(f"--reject/--defer: nothing was proposed, so {listing(reject | defer)} "
                           "is not in the change set")
        if prepared.report.changeset is not None and dry_run and (reject or defer):
            _check_review_paths(prepared, reject, defer)
        if prepared.report.changeset is None or dry_run:
            break
        consumed = {i.id for i in prepared.changeset.inputs}
        if round_no == 0 and (reject or defer):
            _check_review_paths(prepared, reject, defer)
            prepared.apply(only=set(prepared.changeset.paths()) - reject - defer, deferred=defer)
        else:
            prepared.apply()
        # Coalesce: staging that arrived during this run (not what it consumed or held back).
        if not staging_pressure(ws, exclude=consumed).over:
            break
    return report

