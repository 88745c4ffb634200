"""Progress of a writer run (Phase 1, Phase 2, GC) as front ends show it, and how a run is cancelled.

A runner given a ``progress`` callback calls it at each step boundary and for each record the
engine writes. The callback may raise ``RunCancelled`` (the app does when a person pressed escape):
the runner stops there, and because every step before the apply runs inside ``start_run``, the lock
is released and nothing is written to the workspace. No Textual here: the app wraps these in its
own messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import YoiError


@dataclass(frozen=True)
class Progress:
    """One step: ``phase`` (``lock``, ``snapshot``, ``engine``, ``write``, ``changeset``, ``log``...),
    ``done`` of ``total`` steps, the record or log being worked on, and a line for the run's log."""

    phase: str
    done: int
    total: int
    current: str | None = None
    line: str | None = None


ProgressFn = Callable[[Progress], None]


class RunCancelled(YoiError):
    """A person cancelled the run before it applied anything."""


def report(progress: ProgressFn | None, phase: str, done: int, total: int, current: str | None = None,
           line: str | None = None) -> None:
    """Call ``progress`` if given (it may raise ``RunCancelled``)."""
    if progress is not None:
        progress(Progress(phase, done, total, current, line))


__all__ = ["Progress", "ProgressFn", "RunCancelled", "report"]
