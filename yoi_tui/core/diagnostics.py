"""The finding every check produces: a linter diagnostic with a stable rule name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(slots=True, frozen=True, order=True)
class Diagnostic:
    """One finding: where, which rule, how bad, what is wrong and how to fix it.

    Immutable, hashable, compared and ordered field by field (path, line, col, rule, …).
    """

    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    hint: str | None = None

    def replace(self, **changes: Any) -> Diagnostic:
        """A copy with ``changes`` (``dataclasses.replace`` checks each field for ``init=False``: twice
        as slow, and ``yoi lint`` from a subfolder rewrites the path of every finding)."""
        return Diagnostic(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in order (flat: no deep copy as ``dataclasses.asdict`` makes)."""
        return {"path": self.path, "line": self.line, "col": self.col, "rule": self.rule,
                "severity": self.severity, "message": self.message, "hint": self.hint}

    def to_json(self) -> dict[str, object]:
        return self.as_dict()

    @property
    def is_error(self) -> bool:
        return self.severity == "error"
