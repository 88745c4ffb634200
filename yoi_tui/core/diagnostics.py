"""The finding every check produces: a linter diagnostic with a stable rule name."""

from __future__ import annotations

from typing import Any, Literal

Severity = Literal["error", "warning"]

_FIELDS = ("path", "line", "col", "rule", "severity", "message", "hint")


class Diagnostic:
    """One finding: where, which rule, how bad, what is wrong and how to fix it.

    Immutable, compared and ordered field by field (path, line, col, rule, …), like the frozen,
    ordered dataclass it was: written out because ``dataclasses`` imports ``inspect`` and ``ast``
    (~5 ms), and this module is on the path of every ``yoi search`` and hook call.
    """

    __slots__ = _FIELDS

    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    hint: str | None

    def __init__(self, path: str, line: int, col: int, rule: str, severity: Severity, message: str,
                 hint: str | None = None) -> None:
        for name, value in zip(_FIELDS, (path, line, col, rule, severity, message, hint), strict=True):
            object.__setattr__(self, name, value)

    def _key(self) -> tuple[Any, ...]:
        return (self.path, self.line, self.col, self.rule, self.severity, self.message, self.hint)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Diagnostic is immutable (use replace)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a Diagnostic is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Diagnostic, self._key())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"Diagnostic({inner})"

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if type(other) is Diagnostic else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Diagnostic) -> bool:
        return self._key() < other._key() if type(other) is Diagnostic else NotImplemented

    def __le__(self, other: Diagnostic) -> bool:
        return self._key() <= other._key() if type(other) is Diagnostic else NotImplemented

    def __gt__(self, other: Diagnostic) -> bool:
        return self._key() > other._key() if type(other) is Diagnostic else NotImplemented

    def __ge__(self, other: Diagnostic) -> bool:
        return self._key() >= other._key() if type(other) is Diagnostic else NotImplemented

    def replace(self, **changes: Any) -> Diagnostic:
        """A copy with ``changes`` (``dataclasses.replace`` for this class)."""
        values = dict(zip(_FIELDS, self._key(), strict=True))
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise TypeError(f"Diagnostic has no field(s) {', '.join(sorted(unknown))}")
        values.update(changes)
        return Diagnostic(**values)

    def to_json(self) -> dict[str, object]:
        return dict(zip(_FIELDS, self._key(), strict=True))

    @property
    def is_error(self) -> bool:
        return self.severity == "error"
