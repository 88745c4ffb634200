"""The finding every check produces: a linter diagnostic with a stable rule name."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from .value_class import FrozenValueClass

Severity = Literal["error", "warning"]


class Diagnostic(FrozenValueClass):
    """One finding: where, which rule, how bad, what is wrong and how to fix it.

    Immutable, hashable, compared and ordered field by field (path, line, col, rule, …), like the
    frozen, ordered dataclass it was (``FrozenValueClass``: ``dataclasses`` is not imported on the
    path of every ``yoi search`` and hook call).
    """

    __slots__ = ("path", "line", "col", "rule", "severity", "message", "hint")
    _defaults: ClassVar[dict[str, Any]] = {"hint": None}
    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    hint: str | None

    def __lt__(self, other: Diagnostic) -> bool:
        return self._values() < other._values() if type(other) is Diagnostic else NotImplemented

    def __le__(self, other: Diagnostic) -> bool:
        return self._values() <= other._values() if type(other) is Diagnostic else NotImplemented

    def __gt__(self, other: Diagnostic) -> bool:
        return self._values() > other._values() if type(other) is Diagnostic else NotImplemented

    def __ge__(self, other: Diagnostic) -> bool:
        return self._values() >= other._values() if type(other) is Diagnostic else NotImplemented

    def replace(self, **changes: Any) -> Diagnostic:
        """A copy with ``changes`` (``dataclasses.replace`` for this class)."""
        return Diagnostic(**{**self.as_dict(), **changes})

    def to_json(self) -> dict[str, object]:
        return self.as_dict()

    @property
    def is_error(self) -> bool:
        return self.severity == "error"
