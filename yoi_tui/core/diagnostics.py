"""The finding every check produces: a linter diagnostic with a stable rule name."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding: where, which rule, how bad, what is wrong and how to fix it."""

    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    hint: str | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"
