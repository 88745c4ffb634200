"""Write-time rules: the one call every writer makes before committing a record write.

Adds to the static rules: ``workflow-write`` (agents never write ``memory/workflow/``),
``slug-exists`` (no creating over an existing slug; agents update only what they have read),
``invented-source`` (an agent's sources are copied from the record or consumed staging, never
invented; a range inside a consumed staging range of the same session is the lines one item came
from, and is allowed) and
``injection-pattern`` as an error for agents. A result with any error means: do not write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..diagnostics import Diagnostic
from ..store.kinds import RecordKind, kind_for_path
from ..store.reader import read_record
from ..store.workspace import Workspace
from .index import WorkspaceIndex
from .runner import lint_text

SourceKey = tuple[str, int, int]


@dataclass
class WriteContext:
    """Who writes and what they may cite."""

    writer: Literal["agent", "human"] = "agent"
    read_paths: set[str] = field(default_factory=set)
    allowed_sources: set[SourceKey] = field(default_factory=set)


def source_keys(items: Iterable[Any]) -> set[SourceKey]:
    """Source keys from YAML-shaped sources, skipping malformed ones (field-type reports those)."""
    keys: set[SourceKey] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        session, rng = item.get("session_id"), item.get("range")
        if isinstance(session, str) and isinstance(rng, list | tuple) and len(rng) == 2 \
                and all(isinstance(v, int) and not isinstance(v, bool) for v in rng):
            keys.add((session, int(rng[0]), int(rng[1])))
    return keys


def _sources_of(meta: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    for key in ("sources", "last_sources"):
        value = meta.get(key)
        if isinstance(value, list):
            found.extend(value)
    return found


def check_write(ws: Workspace, index: WorkspaceIndex, path: Path, new_text: str, ctx: WriteContext,
                *, before_text: str | None) -> list[Diagnostic]:
    """All findings for writing ``new_text`` to ``path`` (``before_text``: None when creating)."""
    path = Path(os.path.abspath(path))
    rel = ws.rel(path)
    agent = ctx.writer == "agent"
    if agent and ws.contains(path) and Path(path).resolve().is_relative_to(ws.workflow_dir.resolve()):
        return [Diagnostic(rel, 1, 1, "workflow-write", "error",
                           "agents never write into memory/workflow/ (workflows are maintained by people)")]
    kind = kind_for_path(ws, path)
    diags: list[Diagnostic] = []
    if kind is not None and kind is not RecordKind.SUMMARY:
        slug = path.name[:-3]
        exists = path.exists() or index.has(kind, slug)
        if before_text is None and exists:
            diags.append(Diagnostic(rel, 1, 1, "slug-exists", "error",
                                    f"a {kind.value} record '{slug}' already exists",
                                    "read it and update it instead of creating a new one"))
        elif agent and before_text is not None and rel not in ctx.read_paths:
            diags.append(Diagnostic(rel, 1, 1, "slug-exists", "error",
                                    "overwriting a record that was not read in this run",
                                    "read the record first, then update it"))
    diags.extend(lint_text(ws, path, new_text, index))
    if kind is None:
        return sorted(diags)
    new = read_record(ws, path, text=new_text).record if agent else None
    if new is not None:  # people may cite sessions by hand; agents only copy
        before_sources: set[SourceKey] = set()
        if before_text is not None:
            before = read_record(ws, path, text=before_text).record
            before_sources = source_keys(_sources_of(before.meta)) if before else set()
        allowed = before_sources | ctx.allowed_sources
        for key in sorted(k for k in source_keys(_sources_of(new.meta)) - allowed if not _within(k, allowed)):
            field_name = "last_sources" if kind is RecordKind.KNOWLEDGE else "sources"
            line, col = new.line_of(field_name)
            diags.append(Diagnostic(rel, line, col, "invented-source", "error",
                                    f"source {key[0]} [{key[1]}, {key[2]}] is neither on the record nor in "
                                    "the consumed staging", "copy sources from staging; never invent them"))
    if agent:
        diags = [Diagnostic(d.path, d.line, d.col, d.rule, "error", d.message, d.hint)
                 if d.rule == "injection-pattern" else d for d in diags]
    return sorted(diags)


def _within(key: SourceKey, allowed: set[SourceKey]) -> bool:
    """``key``'s range lies inside an allowed range of the same session (an item's own lines)."""
    return any(session == key[0] and start <= key[1] and key[2] <= end for session, start, end in allowed)
