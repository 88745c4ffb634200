"""Messages shared across the app's screens (workers post them; ``@on`` handlers own the UI state).

Thread workers never touch widgets: they post one of these (``post_message`` is thread-safe).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from .core.diagnostics import Diagnostic
from .core.runs.progress import Progress
from .model.browse import RecordStore, StoreChanges


@dataclass
class StoreLoaded(Message):
    """Every record was read (the first full load after the fast first paint)."""

    store: RecordStore


@dataclass
class RecordsChanged(Message):
    """Files changed on disk (git pull, another editor, our own save): re-read entries and gone paths."""

    changes: StoreChanges

    def can_replace(self, message: Message) -> bool:
        return False


@dataclass
class WorkspaceLinted(Message):
    """A whole-workspace lint finished. ``generation`` drops results of a superseded run."""

    generation: int
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class RecordSaved(Message):
    """The editor saved ``rel``; ``diagnostics`` are the live-lint findings of the saved text."""

    rel: str
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class RunProgress(Message):
    """A run's worker reached a step (``core.runs.progress.Progress``): bar + a log line."""

    progress: Progress


@dataclass
class RunPrepared(Message):
    """A Phase 2 / GC worker computed its change set (``PreparedRound``/``PreparedGc``): review it."""

    kind: str
    prepared: Any


@dataclass
class RunEnded(Message):
    """A run ended without a change set to review: ``status`` done | nothing | cancelled | busy | failed."""

    kind: str
    status: str
    message: str
    lines: list[str] = field(default_factory=list)


@dataclass
class ReviewApplied(Message):
    """The reviewed change set was applied (``ApplyResult``), or not (``result`` None, ``error`` why)."""

    result: Any
    error: str | None = None
