"""Phase 2 (SPEC 9): consolidate staging into records as a reviewable, revertible change set.

``runner`` drives a run (lock, recovery, snapshot, engine, apply, coalesce); ``rules_engine`` and
``llm_engine`` compute the changes on a scratch copy; ``tools`` are the llm engine's write tools
(over ``core.runs.file_tools``). The writer-run framework shared with GC — engines, context, linted
writer, file and agent tools, body merge, change set, lock, report — lives in ``core.runs``.

Names are imported from their modules on first use (PEP 562): importing this package does not
import the runner (staging models, pydantic: ~80 ms).
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
