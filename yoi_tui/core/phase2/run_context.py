"""What a Phase 2 engine receives: the writer run's context with the staging it folds in.

``Phase2Context`` is ``runs.run_context.RunContext`` (the real workspace, the scratch copy, the
run's id, clock and notes) plus the consumed staging files (fixed at the start), the knowledge
candidate report, and what the engine reports back beyond notes (``held``: staging ids that must
not be deleted because part of their content could not be written; ``usage``: the llm engine's
tokens). Its writes may carry the consumed staging's sources (``allowed_sources``), and each
written file is attributed to the staging items the engine is working on (``from_items``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..runs.run_context import RunContext, SourceKey
from ..store.staging import StagingFile


@dataclass
class Phase2Context(RunContext):
    staging: list[StagingFile] = field(default_factory=list)
    candidates: list[Any] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    # Which staging items each written file came from (``runs.rejections``): the fingerprints of the
    # items the engine is working on (``from_items``) are recorded against every file it writes.
    item_paths: dict[str, set[str]] = field(default_factory=dict)
    item_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    active_items: tuple[str, ...] = ()

    @contextlib.contextmanager
    def from_items(self, staging: StagingFile, items: Iterable[tuple[str, Any]]) -> Iterator[None]:
        """Writes inside come from these ``(section, item)``s of ``staging``."""
        from ..runs.rejections import item_fingerprint, item_title

        fingerprints = []
        for section, item in items:
            fingerprint = item_fingerprint(staging.source.session_id, section, item)
            self.item_info.setdefault(fingerprint, {"staging": staging.id, "section": section,
                                                    "item": item_title(section, item)})
            fingerprints.append(fingerprint)
        previous, self.active_items = self.active_items, (*self.active_items, *fingerprints)
        try:
            yield
        finally:
            self.active_items = previous

    def note_written(self, rel: str) -> None:
        if self.active_items:
            self.item_paths.setdefault(rel, set()).update(self.active_items)

    def staging_ids(self) -> list[str]:
        return [s.id for s in self.staging]

    def allowed_sources(self) -> set[SourceKey]:
        return {s.source.key() for s in self.staging}

    def hold(self, staging_ids: Iterable[str], reason: str) -> None:
        for staging_id in staging_ids:
            self.held.setdefault(staging_id, reason)


__all__ = ["Phase2Context"]
