"""``#slug`` expansion of a prompt (SPEC 5): the library behind ``yoi expand`` and the app's composer.

Every ``#slug`` the shared parser (``slugrefs``) finds — not in code, URLs or headings — that names a
knowledge record with ``user_invocable: true`` gets that record's body appended after the prompt,
each in a ``<yoi-knowledge slug="...">`` … ``</yoi-knowledge>`` block (``markers``) so Phase 1 can
strip it from session logs later. The prompt itself is left exactly as typed.

- A slug that resolves to nothing usable (no such record, unreadable, ``user_invocable: false``) is
  left as typed and reported in ``unknown`` (every occurrence, with line and column).
- A replaced record is followed along its ``replaced_by`` chain and its replacement is expanded
  (reported in ``redirected``): the replacement is what the author would want read.
- Expansion is idempotent: references inside already-injected blocks are ignored and a slug
  whose block is already present is not appended again. Bodies are not expanded recursively.
- Each expanded record counts as one invoke with ``via="expand"``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..store.kinds import RecordKind, is_valid_slug, path_for
from ..store.reader import read_record
from ..store.records import Record
from ..store.workspace import Workspace
from ..text.markers import INJECTED_BLOCK_RE, KNOWLEDGE_END, escape_markers, knowledge_begin
from ..usage.log import record_quietly
from .slugrefs import SlugRef, iter_slug_refs

_MAX_CHAIN = 20
# Marker text inside a body would end its block early when Phase 1 strips injected blocks, leaving
# the rest of the body in the log; neutralise it (visibly, no invisible characters).
_BLOCK_SLUG_RE = re.compile(r'<yoi-knowledge slug="([a-z0-9-]*)">')


@dataclass(slots=True)
class ExpandResult:
    """The expanded prompt, the slugs expanded (in order), and the references left as typed."""

    text: str
    expanded: list[str] = field(default_factory=list)
    unknown: list[SlugRef] = field(default_factory=list)
    redirected: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "expanded": self.expanded,
            "unknown": [{"slug": r.slug, "line": r.line, "col": r.col, "reason": self.reasons.get(r.slug, "")}
                        for r in self.unknown],
            "redirected": self.redirected,
        }


def _load_knowledge(ws: Workspace, slug: str) -> tuple[Record | None, str]:
    if not is_valid_slug(slug):
        return None, "not a valid slug"
    path = path_for(ws, RecordKind.KNOWLEDGE, slug)
    if not os.path.lexists(path):
        return None, "no knowledge record with this slug"
    result = read_record(ws, path)
    if result.record is None:
        reason = result.diagnostics[0].message if result.diagnostics else "unreadable"
        return None, f"knowledge/{slug}.md cannot be read: {reason}"
    return result.record, ""


def resolve_user_invocable(ws: Workspace, slug: str) -> tuple[Record | None, str]:
    """The record ``#slug`` expands to (following ``replaced_by``), or None and why not."""
    seen: list[str] = []
    current = slug
    while True:
        record, reason = _load_knowledge(ws, current)
        if record is None:
            return None, reason if current == slug else f"replaced by #{current}, which fails: {reason}"
        if not record.is_replaced or not record.replaced_by:
            break
        seen.append(current)
        current = record.replaced_by
        if current in seen or len(seen) > _MAX_CHAIN:
            return None, "replaced_by chain loops"
    if not record.user_invocable:
        return None, f"knowledge/{current}.md has user_invocable: false"
    return record, ""


def knowledge_block(slug: str, body: str) -> str:
    """One delimited block holding a record's body."""
    body = escape_markers(body)
    return f"{knowledge_begin(slug)}\n{body.strip(chr(10))}\n{KNOWLEDGE_END}"


def expand_prompt(ws: Workspace, text: str, *, record: bool = True,
                  session_id: str | None = None) -> ExpandResult:
    """``text`` with a knowledge block appended for each ``#slug`` it references (see module doc)."""
    injected = [(m.start(), m.end()) for m in INJECTED_BLOCK_RE.finditer(text)]
    present = {m.group(1) for m in _BLOCK_SLUG_RE.finditer(text)} if injected else set()

    def inside_block(ref: SlugRef) -> bool:
        return any(start <= ref.start < end for start, end in injected)

    result = ExpandResult(text=text)
    resolved: dict[str, Record | None] = {}
    blocks: list[str] = []
    for ref in iter_slug_refs(text):
        if inside_block(ref):
            continue
        if ref.slug not in resolved:
            target, reason = resolve_user_invocable(ws, ref.slug)
            resolved[ref.slug] = target
            if target is None:
                result.reasons[ref.slug] = reason
            else:
                if target.slug != ref.slug:
                    result.redirected[ref.slug] = target.slug
                if target.slug not in result.expanded and target.slug not in present:
                    result.expanded.append(target.slug)
                    blocks.append(knowledge_block(target.slug, target.body))
        if resolved[ref.slug] is None:
            result.unknown.append(ref)
    if blocks:
        result.text = text.rstrip("\n") + "\n\n" + "\n\n".join(blocks) + "\n"
    if record and result.expanded:
        record_quietly(ws, [(slug, "knowledge", "expand") for slug in result.expanded], session_id)
    return result

