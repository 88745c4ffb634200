"""Phase 2 (SPEC 9): consolidate staging into records as a reviewable, revertible change set.

``runner`` drives a run (lock, recovery, snapshot, engine, apply, coalesce); ``rules_engine`` and
``llm_engine`` compute the changes on a scratch copy; ``tools`` are the llm engine's confined,
linted file tools. The change set, apply, journal and revert live in ``core.runs.changeset`` (shared with
GC); the occupancy lock in ``core.runs.lock``.

Names are imported from their modules on first use (PEP 562): GC uses ``phase2.merge`` (the
line-keeping body merge), and importing the runner with it (staging models, pydantic: ~80 ms)
cost every GC run that merged or folded a record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

_HOMES = {name: "runner" for name in ("Phase2Report", "PreparedRound", "RoundReport", "prepare_round", "run_phase2",
                                      "staging_pressure")}

__all__ = ["Phase2Report", "PreparedRound", "RoundReport", "prepare_round", "run_phase2", "staging_pressure"]

if TYPE_CHECKING:
    from .runner import Phase2Report, PreparedRound, RoundReport, prepare_round, run_phase2, staging_pressure

__getattr__ = lazy_names(__name__, _HOMES, globals())
