"""Pydantic models of each record kind's frontmatter (SPEC 3).

They validate a record's ``meta`` mapping (strict types: a bool is ``true``/``false``, a timestamp
carries a UTC offset, a Source is ``{session_id, range: [start, end]}``) and give typed access.
Unknown keys are allowed here (they are preserved on rewrite; the linter warns about near-misses).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
)

from .kinds import RecordKind
from .meta_fields import DECISION_STATUSES, KNOWN_KEYS, REQUIRED_KEYS
from .records import as_timestamp, timestamp_problem


def _timestamp(value: Any) -> datetime:
    problem = timestamp_problem(value)
    if problem is not None:
        raise ValueError(problem)
    parsed = as_timestamp(value)
    assert parsed is not None
    return parsed


Timestamp = Annotated[datetime, BeforeValidator(_timestamp)]


class Source(BaseModel):
    """Where a claim came from: inclusive 0-based entry indices into a session's normalised log."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session_id: StrictStr = Field(min_length=1)
    range: tuple[StrictInt, StrictInt]

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        start, end = value
        if start < 0 or end < start:
            raise ValueError("range must be [start, end] with 0 <= start <= end")
        return value

    def key(self) -> tuple[str, int, int]:
        return (self.session_id, self.range[0], self.range[1])

    def as_yaml(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "range": [self.range[0], self.range[1]]}


class _Meta(BaseModel):
    model_config = ConfigDict(extra="allow")


class SummaryMeta(_Meta):
    updated_at: Timestamp
    last_rewritten_from_range: list[StrictInt] | dict[str, Any] | None = None


class DecisionMeta(_Meta):
    created_at: Timestamp
    updated_at: Timestamp
    sources: list[Source]
    status: StrictStr
    replaced_by: StrictStr | None = None


class RequestMeta(_Meta):
    created_at: Timestamp
    updated_at: Timestamp
    sources: list[Source]
    replaced_by: StrictStr | None = None


class KnowledgeMeta(_Meta):
    kind: StrictStr
    description: StrictStr
    model_invokation: StrictBool = False
    user_invocable: StrictBool = True
    last_sources: list[Source]
    created_at: Timestamp
    updated_at: Timestamp
    replaced_by: StrictStr | None = None


META_MODELS: dict[RecordKind, type[_Meta]] = {
    RecordKind.SUMMARY: SummaryMeta,
    RecordKind.DECISION: DecisionMeta,
    RecordKind.REQUEST: RequestMeta,
    RecordKind.KNOWLEDGE: KnowledgeMeta,
}

# The field lists live in ``meta_fields`` (no pydantic there); tests/test_meta_fields.py checks
# that KNOWN_KEYS names exactly these models' fields.
__all__ = ["DECISION_STATUSES", "KNOWN_KEYS", "META_MODELS", "REQUIRED_KEYS", "DecisionMeta", "KnowledgeMeta",
           "RequestMeta", "Source", "SummaryMeta"]
