"""What a GC engine receives: the writer run's context with GC's facts and findings.

``GcContext`` is ``runs.run_context.RunContext`` (the real workspace — for usage, workflows and
repository paths — the scratch copy the engine reads and changes, the run id, clock and notes) plus
the usage facts and what the engine reports back beyond notes (``operations``; ``llm_usage``: the
llm engine's tokens), and the rejections of earlier reviews that hold an operation back.

GC writes through ``runs.linted_writer.LintedWriter`` like Phase 2: the sources a write may carry
are the record's own plus those of the records merged into it — copied, never invented. Deletions
have no text to lint; the engine deletes only what nothing left in the workspace points at
(``facts.References``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..runs.rejections import GcRejections, Rejection
from ..runs.run_context import RunContext
from .facts import UsageFacts
from .model import Operations


@dataclass
class GcContext(RunContext):
    usage: UsageFacts = field(kw_only=True)
    operations: Operations = field(default_factory=Operations)
    llm_usage: dict[str, int] = field(default_factory=dict)  # the llm engine's input/output tokens
    rejections: GcRejections | None = None  # earlier reviews' rejections (None: none consulted)

    def held_back(self, operation_id: str) -> Rejection | None:
        """The earlier rejection that holds ``operation_id`` back (its files unchanged), if any."""
        return self.rejections.held_for(operation_id) if self.rejections is not None else None


__all__ = ["GcContext"]
