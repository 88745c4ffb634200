"""Staging: Phase 1's output and Phase 2's input (SPEC 8), ``memory/_staging/<uuidv7>.json``.

The activity schema is strict (unknown fields rejected, no free-form dicts: strict structured output
on Anthropic rejects ``dict[str, Any]``). ``source`` is attached by the runner, never by a model.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import YoiError
from .atomic import atomic_write_text
from .ids import new_id
from .models import Source
from .safe_read import loads_json, read_regular_bytes
from .workspace import Workspace

REJECTED_FOLDER = "_rejected"


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
    # What the agent reported it did for this request, in whole sentences (its last message before
    # the user's next request); absent when it reported nothing, and in older staging.
    done: str | None = None


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


def parse_staging(data: bytes) -> StagingFile:
    """Validate a staging file's bytes (UTF-8 JSON, nesting limited); ``ValueError`` says why not."""
    try:
        return StagingFile.model_validate(loads_json(data.decode("utf-8")))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the top level"
        raise ValueError(f"not a staging file ({where}: {first.get('msg')}; {exc.error_count()} problem(s))") from exc


def read_staging(path: Path) -> StagingFile:
    """Parse one staging file; a bad one raises ``YoiError`` naming it."""
    try:
        return parse_staging(read_regular_bytes(path))
    except OSError as exc:
        raise YoiError(f"unreadable staging file: {exc.strerror or exc}", path=path) from exc
    except ValueError as exc:
        raise YoiError(f"unreadable staging file: {exc}", path=path) from exc


def list_staging(ws: Workspace) -> list[Path]:
    """Staging files (``*.json`` that are not folders: a FIFO is listed, to be refused by name) in id order."""
    try:
        return sorted(p for p in ws.staging_dir.glob("*.json") if not p.is_dir())
    except OSError:
        return []


def rejected_dir(ws: Workspace) -> Path:
    return ws.staging_dir / REJECTED_FOLDER


def reject_staging(ws: Workspace, path: Path, why: str) -> Path:
    """Move a broken staging file aside to ``memory/_staging/_rejected/`` with ``<name>.reason.txt``.

    Never deleted: a person can read why, fix it and move it back. Returns the new path.
    """
    folder = rejected_dir(ws)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    number = 1
    while target.exists() or target.is_symlink():
        number += 1
        target = folder / f"{path.stem}.{number}{path.suffix}"
    os.rename(path, target)
    reason = (f"{ws.rel(path)} was moved here by yoi phase2 on {datetime.now(UTC).replace(microsecond=0).isoformat()}\n"
              f"why: {why}\n"
              f"fix it and move it back to {ws.rel(ws.staging_dir)}/ to have it consumed, or delete it.\n")
    atomic_write_text(target.with_name(target.name + ".reason.txt"), reason)
    return target
