"""Running an import: read the foreign files, build the change set, apply it under the lock.

Like Phase 2 and GC: ``dry_run`` takes no lock and writes nothing; otherwise the consolidation lock
is taken (``runs.start.start_run``, purpose ``import``), interrupted runs are finished first, and
``runs.changeset.apply`` writes the files atomically and journals the run, so ``yoi revert RUN``
undoes it byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runs.changeset import ApplyResult, apply
from ..runs.start import start_run
from ..store.workspace import Workspace
from .build import ImportPlan, build_plan
from .discover import files_to_read, read_file


@dataclass
class ImportReport:
    plan: ImportPlan
    files: list[str] = field(default_factory=list)
    status: str = "nothing-to-do"  # nothing-to-do | dry-run | applied
    applied: ApplyResult | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"status": self.status, "run_id": self.plan.changeset.run_id if self.status == "applied" else None,
                "files_read": self.files, **self.plan.to_json()}
        if self.applied is not None:
            data["conflicts"] = self.applied.to_json()["conflicts"]
        return data


def plan_import(ws: Workspace, paths: list[Path]) -> tuple[ImportPlan, list[str]]:
    files = files_to_read(paths)
    root = paths[0] if len(paths) == 1 and paths[0].is_dir() else ws.root
    notes = [item for file in files for item in read_file(file, root)]
    return build_plan(ws, notes), [str(f) for f in files]


def run_import(ws: Workspace, paths: list[Path], *, dry_run: bool = False) -> ImportReport:
    plan, files = plan_import(ws, paths)
    report = ImportReport(plan, files)
    if not plan.changeset.changes:
        return report
    if dry_run:
        report.status = "dry-run"
        return report
    with start_run(ws, "import", dry_run=False) as start:
        assert start.lock is not None
        try:
            plan.changeset.run_id = start.run_id or plan.changeset.run_id
            report.applied = apply(ws, plan.changeset)
        finally:
            start.lock.release()
    report.status = "applied"
    return report
