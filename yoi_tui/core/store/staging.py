"""Staging: Phase 1's output and Phase 2's input (SPEC 8), ``memory/_staging/<uuidv7>.json``.

The activity schema is strict (unknown fields rejected, no free-form dicts: strict structured output
on Anthropic rejects ``dict[str, Any]``). ``source`` is attached by the runner, never by a model.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import YoiError
from .atomic import atomic_write_text
from .ids import new_id
from .models import Source
from .workspace import Workspace


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Item(_Strict):
    """One extracted item. ``range``: the entries it came from (inclusive indices into the session's
    normalised log), so a record's source points at those lines rather than the whole chunk; absent
    in staging written before it existed (the staging file's own range applies then)."""

    range: tuple[int, int] | None = None

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and (value[0] < 0 or value[1] < value[0]):
            raise ValueError("range must be [start, end] with 0 <= start <= end")
        return value


class Decision(_Item):
    title: str
    options: list[str] = Field(default_factory=list)
    chosen: str
    rationale: str


class Discussion(_Item):
    topic: str
    points: list[str] = Field(default_factory=list)


class Attempt(_Item):
    trial: str
    result: str
    outcome: Literal["success", "failure", "partial"]


class Request(_Item):
    intent: str
    target: str
    summary: str
    # A short imperative title read from the request's own sentence ("Give the button a background");
    # absent in older staging, where Phase 2 builds one from intent and target.
    title: str | None = None


class Activity(_Strict):
    """What happened in a range of a session. Empty lists are a valid answer: nothing to save."""

    decisions: list[Decision] = Field(default_factory=list)
    discussions: list[Discussion] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)
    requests: list[Request] = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.decisions or self.discussions or self.attempts or self.requests)


class Extractor(_Strict):
    engine: Literal["rules", "llm"]
    model: str | None = None


class StagingFile(_Strict):
    id: str
    created_at: datetime
    source: Source
    extractor: Extractor
    activity: Activity


def staging_path(ws: Workspace, staging_id: str) -> Path:
    return ws.staging_dir / f"{staging_id}.json"


def write_staging(ws: Workspace, source: Source, extractor: Extractor, activity: Activity) -> StagingFile:
    """Durably write one staging file (atomic + fsync) and return it."""
    staging = StagingFile(id=new_id(), created_at=datetime.now(UTC), source=source, extractor=extractor,
                          activity=activity)
    atomic_write_text(staging_path(ws, staging.id), staging.model_dump_json(indent=2) + "\n")
    return staging


def read_staging(path: Path) -> StagingFile:
    """Parse one staging file; a bad one raises ``YoiError`` naming it."""
    try:
        return StagingFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
        raise YoiError(f"unreadable staging file: {exc}", path=path) from exc


def list_staging(ws: Workspace) -> list[Path]:
    """Staging files in id (= creation) order."""
    try:
        return sorted(p for p in ws.staging_dir.glob("*.json") if p.is_file())
    except OSError:
        return []
