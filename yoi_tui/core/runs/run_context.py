"""What every writer run's engine receives (Phase 2's and GC's), and how a run gives up.

``RunContext`` carries the run: the real workspace, the scratch copy the engine reads and changes
(``changeset.Scratch``), the run id and clock, and the notes the engine reports back. Phase 2's
context (``phase2.run_context``) adds the consumed staging and the knowledge candidates, GC's
(``gc.run_context``) the usage facts and the operations; the linted writer and the file tools take
any of them.

``RunAborted``: the engine gave up (the llm engine's writes failed too often, its budget was spent);
the scratch copy is thrown away, nothing of the run is kept and no staging is consumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..errors import YoiError
from ..store.workspace import Workspace
from .changeset import Scratch

SourceKey = tuple[str, int, int]


class RunAborted(YoiError):
    """The engine gave up; nothing it wrote is kept and no staging is consumed."""


@dataclass
class RunContext:
    ws: Workspace
    scratch: Scratch
    run_id: str
    now: datetime
    notes: list[str] = field(default_factory=list)

    @property
    def sws(self) -> Workspace:
        """The scratch workspace the engine reads and writes."""
        return self.scratch.ws

    def allowed_sources(self) -> set[SourceKey]:
        """Sources any write of this run may carry besides a record's own (Phase 2: the consumed staging's)."""
        return set()

    def note_written(self, rel: str) -> None:
        """The linted writer wrote ``rel`` (Phase 2 records which staging items it came from)."""

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)


__all__ = ["RunAborted", "RunContext", "SourceKey"]
