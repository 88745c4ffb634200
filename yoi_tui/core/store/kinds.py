"""Record kinds, slugs, and the mapping between a kind+slug and its path in the workspace."""

from __future__ import annotations

import os
import re
from enum import StrEnum
from pathlib import Path

from ..diagnostics import Diagnostic
from .workspace import DECISIONS_REL, KNOWLEDGE_REL, REQUESTS_REL, Workspace

SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SLUG_MAX = 64


class RecordKind(StrEnum):
    SUMMARY = "summary"
    DECISION = "decision"
    REQUEST = "request"
    KNOWLEDGE = "knowledge"


MEMORY_KINDS = (RecordKind.SUMMARY, RecordKind.DECISION, RecordKind.REQUEST)
# The record folders (workspace-relative prefixes) and the kind of the files in them, in path order.
RECORD_FOLDERS = ((DECISIONS_REL, RecordKind.DECISION), (REQUESTS_REL, RecordKind.REQUEST),
                  (KNOWLEDGE_REL, RecordKind.KNOWLEDGE))


def is_valid_slug(slug: str) -> bool:
    return len(slug) <= SLUG_MAX and SLUG_RE.match(slug) is not None


def slugify(title: str, max_len: int = SLUG_MAX) -> str:
    """A kebab-case slug from free text, cut at a word boundary within ``max_len``."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > max_len:
            break
        slug = candidate
    return slug or (words[0][:max_len] if words else "untitled")


def slug_preference(slug: str) -> tuple[int, str]:
    """Which of several near-duplicate slugs names their record: the shortest, then the first
    alphabetically. Decided by the names alone, so every clone and every arrival order picks the
    same one (GC keeps it when it merges near-duplicates; Phase 2 moves a record to it)."""
    return (len(slug), slug)


def folder_for(ws: Workspace, kind: RecordKind) -> Path:
    return {
        RecordKind.DECISION: ws.decisions_dir,
        RecordKind.REQUEST: ws.requests_dir,
        RecordKind.KNOWLEDGE: ws.knowledge_dir,
        RecordKind.SUMMARY: ws.memory_dir,
    }[kind]


def path_for(ws: Workspace, kind: RecordKind, slug: str) -> Path:
    if kind is RecordKind.SUMMARY:
        return ws.summary_path
    return folder_for(ws, kind) / f"{slug}.md"


def kind_for_path(ws: Workspace, path: Path) -> RecordKind | None:
    """The record kind a path would hold by its place in the layout (None: not a record path)."""
    parts = ws.rel_parts(path)
    if parts is None:
        return None
    rel = tuple(parts)
    if not rel or not rel[-1].endswith(".md"):
        return None
    if rel == ("memory", "summary.md"):
        return RecordKind.SUMMARY
    if len(rel) == 3 and rel[0] == "memory":
        return {"decisions": RecordKind.DECISION, "requests": RecordKind.REQUEST}.get(rel[1])
    if len(rel) == 2 and rel[0] == "knowledge":
        return RecordKind.KNOWLEDGE
    return None


def slug_of(path: Path | str) -> str:
    name = path.name if isinstance(path, Path) else os.path.basename(path)
    return name[:-3] if name.endswith(".md") else name


def layout_problems(ws: Workspace) -> list[Diagnostic]:
    """A file (or FIFO, or dangling link) where a record folder belongs: one error per such path.

    Without this a file named ``memory/decisions`` would simply hide every decision.
    """
    problems: list[Diagnostic] = []
    for folder in (ws.memory_dir, ws.decisions_dir, ws.requests_dir, ws.knowledge_dir, ws.staging_dir,
                   ws.workflow_dir):
        if not os.path.lexists(folder) or folder.is_dir():
            continue
        rel = ws.rel(folder)
        problems.append(Diagnostic(rel, 1, 1, "file-unreadable", "error",
                                   f"{rel} is not a folder; the records that belong in {rel}/ cannot be read",
                                   f"move the file away and create the folder {rel}/ (yoi init does)"))
    return problems
