"""Phase 2 (SPEC 9): consolidate staging into records as a reviewable, revertible change set.

``runner`` drives a run (lock, recovery, snapshot, engine, apply, coalesce); ``rules_engine`` and
``llm_engine`` compute the changes on a scratch copy; ``tools`` are the llm engine's confined,
linted file tools. The change set, apply, journal and revert live in ``core.runs.changeset`` (shared with
GC); the occupancy lock in ``core.runs.lock``.
"""

from .runner import Phase2Report, PreparedRound, RoundReport, prepare_round, run_phase2, staging_pressure

__all__ = ["Phase2Report", "PreparedRound", "RoundReport", "prepare_round", "run_phase2", "staging_pressure"]
