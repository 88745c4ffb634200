"""What GC proposes (SPEC 10): operations with categories and a one-line reason each.

A ``GcOperation`` is one thing GC found about one record: the operation (``drop``, ``merge``,
``split``, ``trim``, ``rewrite``), its categories (``outdated``, ``superseded``, ``unused``,
``noisy``; a record may have several), a one-line reason, and its ``state``:

* ``proposed`` — the change is in the run's change set; ``paths`` are the files it changes (a merge
  changes several). Every file of the change set belongs to exactly one proposed operation, so a
  reviewer can accept or reject per operation (``PreparedGc.apply(operations=...)``);
* ``reported`` — worth a person's look, but this engine does not change it (the rules engine does
  not rewrite prose; it keeps records people wrote unless they are clearly dead);
* ``locked`` — the file is read-only (a person locked it): never touched;
* ``protected`` — frequently used (``usage.protect_threshold``): never dropped;
* ``refused`` — the write-time linter refused the new text; nothing was changed;
* ``held`` — a person rejected this operation in an earlier review and the files it changes still
  hold the same bytes (``core.runs.rejections``): not proposed again until one of them changes or
  the rejection is withdrawn (``details.rejection`` is its id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Category = Literal["outdated", "superseded", "unused", "noisy"]
Operation = Literal["drop", "merge", "split", "trim", "rewrite"]
State = Literal["proposed", "reported", "locked", "protected", "refused", "held"]

CATEGORIES: tuple[str, ...] = ("outdated", "superseded", "unused", "noisy")
OPERATIONS: tuple[str, ...] = ("drop", "merge", "split", "trim", "rewrite")
STATES: tuple[str, ...] = ("proposed", "reported", "locked", "protected", "refused", "held")


@dataclass
class GcOperation:
    """One GC finding about one record (see the module docstring)."""

    op: Operation
    state: State
    categories: list[str]
    reason: str
    kind: str
    slug: str
    path: str
    paths: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """Stable across runs and clones: ``drop:memory/decisions/x.md`` (the operation and the record
        it is about, which the same records always give); non-proposed ids carry their state."""
        return f"{self.op}:{self.path}" if self.state == "proposed" else f"{self.state}:{self.op}:{self.path}"

    @property
    def operation_id(self) -> str:
        """The id it has (or would have) when proposed: what a rejection is remembered under."""
        return f"{self.op}:{self.path}"

    def add(self, categories: list[str], reason: str, details: dict[str, Any] | None = None) -> None:
        """Fold another finding of the same operation on the same record into this one."""
        for category in categories:
            if category not in self.categories:
                self.categories.append(category)
        if reason and reason not in self.reason.split("; "):
            self.reason = f"{self.reason}; {reason}" if self.reason else reason
        for key, value in (details or {}).items():
            if isinstance(value, list) and isinstance(self.details.get(key), list):
                self.details[key] = [*self.details[key], *(v for v in value if v not in self.details[key])]
            else:
                self.details[key] = value

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "op": self.op, "state": self.state, "categories": list(self.categories),
                "reason": self.reason, "kind": self.kind, "slug": self.slug, "path": self.path,
                "paths": list(self.paths), "details": dict(self.details)}


class Operations:
    """The run's findings in the order found; same (op, path, state) findings fold into one."""

    def __init__(self) -> None:
        self.items: list[GcOperation] = []
        self._by_key: dict[tuple[str, str, str], GcOperation] = {}

    def add(self, op: Operation, state: State, categories: list[str], reason: str, *, kind: str, slug: str,
            path: str, paths: list[str] | None = None, details: dict[str, Any] | None = None) -> GcOperation:
        key = (op, path, state)
        existing = self._by_key.get(key)
        if existing is not None:
            existing.add(categories, reason, details)
            for rel in paths or []:
                if rel not in existing.paths:
                    existing.paths.append(rel)
            return existing
        item = GcOperation(op=op, state=state, categories=list(dict.fromkeys(categories)), reason=reason,
                           kind=kind, slug=slug, path=path, paths=list(paths or []), details=dict(details or {}))
        self.items.append(item)
        self._by_key[key] = item
        return item

    def take(self, op: str, path: str, state: str) -> GcOperation | None:
        """Remove and return the finding (op, path, state), e.g. a reported rewrite an engine then did."""
        item = self._by_key.pop((op, path, state), None)
        if item is not None:
            self.items.remove(item)
        return item

    def __iter__(self) -> Iterator[GcOperation]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def format_tokens(tokens: int) -> str:
    """``2_140_000`` → ``2.1M``, ``350_000`` → ``350k`` (token-clock amounts in reasons)."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.0f}k"
    return str(tokens)


class StreamedList:
    """A JSON list produced while it is written (``cli.common.print_json`` streams it), so
    ``GcReport.to_json(stream=True)`` does not hold 41,000 operation dicts and 11,000 diffs at
    once; ``list(...)`` gives the plain list."""

    streamed = True

    def __init__(self, count: int, make: Callable[[], Iterator[Any]]) -> None:
        self.count = count
        self._make = make

    def __iter__(self) -> Iterator[Any]:
        return self._make()

    def __len__(self) -> int:
        return self.count


__all__ = ["CATEGORIES", "OPERATIONS", "STATES", "Category", "GcOperation", "Operation", "Operations", "State",
           "StreamedList",
           "format_tokens"]

