"""Foreign notes → knowledge records → one change set, linted, never overwriting a record.

- A new slug becomes ``knowledge/<slug>.md`` (``op: add``) with the mapped fields, ``last_sources: []``
  (it comes from no session), ``imported_from`` naming the file, and ``paths`` when the source had
  globs. Two notes with one slug in the same import get ``-2``, ``-3`` … suffixes.
- An existing slug is never overwritten: when the record already holds the imported text nothing
  happens (so importing yoi's own export is a no-op); otherwise the change is a *merge proposal* —
  the imported text appended under ``## Imported from <file>`` (``op: modify``), reviewed and
  accepted or rejected like any other change.
- Every result is linted as the write it is (``lint.check_write``, a human writer). ``#word`` tags
  that name no knowledge record (Obsidian tags, issue numbers the linter does not recognise) are
  put in code spans so they do not become dangling references; a record still carrying an error is
  left out and reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..diagnostics import Diagnostic
from ..errors import YoiError
from ..lint.index import IndexEntry, WorkspaceIndex
from ..lint.write_check import WriteContext, check_write
from ..runs.changeset import ChangeSet, FileChange
from ..store.ids import new_id
from ..store.kinds import RecordKind
from ..store.reader import read_exact, read_record
from ..store.workspace import KNOWLEDGE_REL, Workspace
from ..store.writer import new_record_text
from .foreign import ForeignNote, ForeignProblem

DESCRIPTION_MAX = 1024


@dataclass
class ImportPlan:
    """The change set and what happened to each note (``(slug, origin)`` pairs)."""

    changeset: ChangeSet
    created: list[tuple[str, str]] = field(default_factory=list)
    merged: list[tuple[str, str]] = field(default_factory=list)
    unchanged: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (origin, why)
    warnings: list[Diagnostic] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "created": [{"slug": s, "from": o} for s, o in self.created],
            "merged": [{"slug": s, "from": o} for s, o in self.merged],
            "unchanged": [{"slug": s, "from": o} for s, o in self.unchanged],
            "skipped": [{"from": o, "why": w} for o, w in self.skipped],
            "warnings": [d.to_json() for d in self.warnings],
        }


def _one_line(text: str) -> str:
    line = re.sub(r"\s+", " ", text).strip()
    return line if len(line) <= DESCRIPTION_MAX else line[: DESCRIPTION_MAX - 1].rstrip() + "…"


def _meta(ws: Workspace, note: ForeignNote, now: datetime) -> dict[str, Any]:
    kinds = list(ws.config.records.knowledge_kinds)
    kind = note.kind if not kinds or note.kind in kinds else ("fact" if "fact" in kinds else kinds[0])
    meta: dict[str, Any] = {
        "kind": kind, "description": _one_line(note.description), "model_invokation": note.model_invokation,
        "user_invocable": note.user_invocable, "last_sources": [], "created_at": now, "updated_at": now,
        "imported_from": note.origin,
    }
    if note.paths:
        meta["paths"] = list(note.paths)
    if note.fields:
        meta["skill_fields"] = dict(note.fields)  # written back by ``yoi export skills``
    return meta


def _defuse_refs(text: str, diags: list[Diagnostic]) -> str:
    """Put each ``#word`` a ``dangling-ref`` finding points at into a code span."""
    lines = text.split("\n")
    for diag in sorted((d for d in diags if d.rule == "dangling-ref"), key=lambda d: (d.line, -d.col)):
        index = diag.line - 1
        if 0 <= index < len(lines):
            line = lines[index]
            start = diag.col - 1
            match = re.match(r"#[\w-]+", line[start:])
            if match:
                lines[index] = f"{line[:start]}`{match.group(0)}`{line[start + match.end():]}"
    return "\n".join(lines)


def _lint(ws: Workspace, index: WorkspaceIndex, path: Path, text: str, before: str | None,
          slug: str) -> tuple[str, list[Diagnostic]]:
    own = index.entries[RecordKind.KNOWLEDGE].pop(slug, None) if before is None else None
    try:
        diags = check_write(ws, index, path, text, WriteContext(writer="human"), before_text=before)
        if any(d.rule == "dangling-ref" for d in diags):
            text = _defuse_refs(text, diags)
            diags = check_write(ws, index, path, text, WriteContext(writer="human"), before_text=before)
    finally:
        if own is not None or before is None:
            index.entries[RecordKind.KNOWLEDGE][slug] = own
    return text, diags


def _plain(text: str) -> str:
    """Text with the code spans ``_defuse_refs`` adds taken off again, for "already imported?"."""
    return re.sub(r"`(#[\w-]+)`", r"\1", text)


def _holds(ws: Workspace, slug: str, plain_body: str) -> bool:
    """Does ``knowledge/<slug>.md`` already hold this text (code spans around `#tags` aside)?"""
    path = ws.knowledge_dir / f"{slug}.md"
    try:
        before = read_exact(path)
    except YoiError:
        return False
    if before is None:
        return False
    existing = read_record(ws, path, text=before).record
    return plain_body in _plain(existing.body if existing is not None else before)


def _unique(slug: str, taken: set[str]) -> str:
    if slug not in taken:
        return slug
    number = 2
    while f"{slug[:60]}-{number}" in taken:
        number += 1
    return f"{slug[:60]}-{number}"


def build_plan(ws: Workspace, notes: list[ForeignNote | ForeignProblem], *, now: datetime | None = None) -> ImportPlan:
    now = now or datetime.now(UTC).replace(microsecond=0)
    plan = ImportPlan(ChangeSet(run_id=new_id(), purpose="import", engine="import",
                                created_at=now.isoformat()))
    index = WorkspaceIndex.from_names(ws)
    taken: set[str] = set()
    bodies: dict[str, tuple[str, str]] = {}  # foreign slug -> (body, origin) of its first note
    ready: list[tuple[ForeignNote, str]] = []
    for item in notes:
        if isinstance(item, ForeignProblem):
            plan.skipped.append((item.origin, item.message))
            continue
        if not item.slug:
            plan.skipped.append((item.origin, "no usable name for a slug"))
            continue
        if not item.body.strip():
            plan.skipped.append((item.origin, "empty: nothing to import"))
            continue
        slug = item.slug
        plain = _plain(item.body).strip()
        first = bodies.setdefault(item.slug, (plain, item.origin))
        if first[1] != item.origin and first[0] == plain:
            # e.g. one exported skill in both .claude/skills and .agents/skills, or a Cursor rule and
            # the skill yoi exported from it (its `#tags` in code spans): the same knowledge
            plan.unchanged.append((item.slug, item.origin))
            continue
        if slug not in taken and _holds(ws, slug, plain):
            # The record is already there with this text (yoi's own export, or a second import):
            # nothing to propose, and no `-2` copy of it.
            plan.unchanged.append((slug, item.origin))
            taken.add(slug)
            continue
        if slug in taken:
            slug = _unique(slug, taken)
        taken.add(slug)
        ready.append((item, slug))
        if not index.has(RecordKind.KNOWLEDGE, slug):  # so imported records may refer to each other
            index.entries[RecordKind.KNOWLEDGE][slug] = IndexEntry(
                RecordKind.KNOWLEDGE, slug, f"{KNOWLEDGE_REL}{slug}.md", None, None, item.description,
                item.user_invocable, item.model_invokation, item.kind)
    for note, slug in ready:
        path = ws.knowledge_dir / f"{slug}.md"
        rel = f"{KNOWLEDGE_REL}{slug}.md"
        before = read_exact(path)
        if before is None:
            text = new_record_text(_meta(ws, note, now), note.body)
        else:
            existing = read_record(ws, path, text=before).record
            existing_body = existing.body if existing is not None else before
            if _plain(note.body).strip() in _plain(existing_body):
                plan.unchanged.append((slug, note.origin))
                continue
            text = before.rstrip("\n") + f"\n\n## Imported from {note.origin}\n" + note.body
        text, diags = _lint(ws, index, path, text, before, slug)
        errors = [d for d in diags if d.severity == "error"]
        if errors:
            plan.skipped.append((note.origin, "; ".join(f"{d.rule}: {d.message}" for d in errors)))
            continue
        plan.warnings.extend(diags)
        op: Literal["add", "modify"] = "add" if before is None else "modify"
        plan.changeset.changes.append(FileChange(path=rel, op=op, before=before, after=text,
                                                 reason=f"imported from {note.origin}"))
        (plan.created if before is None else plan.merged).append((slug, note.origin))
    return plan
