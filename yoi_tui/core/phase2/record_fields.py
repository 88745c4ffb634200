"""Phase 2's field-by-field write (``llm.write_mode = "fields"``): the model fills a record's fields, yoi writes it.

A small model rarely writes a whole record — YAML frontmatter, timestamps, sources, body layout —
that the linter accepts. In fields mode the llm engine's write tool is ``write_record``: its one
argument is the record's fields, a JSON schema whose enums list only what exists (the staging
items' ids, the records that may be updated, the knowledge candidates), so a server that
constrains to the schema can only produce a call that names real things. This module owns that
schema and what the fields become:

* ``staged_items`` numbers the consumed staging's items (``decision-1``, ``request-1``,
  ``discussion-1``, ``attempt-1``, in staging order) and ``describe_item`` shows one in the prompt;
* ``fields_model`` is the pydantic model of one write (its JSON schema is the tool's arguments);
* ``body_from_fields`` lays the body out like the rules engine's records (``# Title``, ``##
  Summary``, ``## Chosen``, ``## Options``, ``## Rationale``, ``## Discussion``, ``## Failure and
  fix``): every field one Markdown line (no stray headings, fences or YAML), a ``#word`` naming no
  knowledge record put in a code span (``defang``);
* ``item_sources`` are the sources: each cited item's own entries (the staging range when Phase 1
  gave none), copied from staging — the model only picks ids, it never types a source.

The bounds of the schema keep a new record under its body cap. ``Phase2Tools.write_fields`` renders
the frontmatter with the project's record writer, merges an update into the existing body
(``merge.merge_body``: no line of it is lost), and writes through the same linted path as
``write_file``: a refusal goes back to the model with the findings and counts towards
``phase2.max_failed_writes``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..retrieval.slugrefs import iter_slug_refs
from ..store.models import Source
from ..store.staging import StagingFile
from .request_text import asked_text, done_text, with_instruction

SECTIONS = (("decisions", "decision"), ("requests", "request"), ("discussions", "discussion"),
            ("attempts", "attempt"))
MAX_ITEMS = 8  # items one write may cite
PROMPT_FIELD_CHARS = 240  # of one staging field in the prompt


@dataclass(frozen=True)
class StagedItem:
    """One item of a consumed staging file, with the id the model cites it by."""

    id: str
    staging: StagingFile
    section: str  # decisions | requests | discussions | attempts
    item: Any

    @property
    def source(self) -> Source:
        """Where the item came from: its own entries when Phase 1 gave them, else the staging range."""
        if self.item.range is None:
            return self.staging.source
        return Source(session_id=self.staging.source.session_id, range=self.item.range)


def staged_items(staging: Iterable[StagingFile]) -> dict[str, StagedItem]:
    """Every item of ``staging``, by id (``decision-1`` ...), numbered per section in staging order."""
    counts = dict.fromkeys((name for name, _ in SECTIONS), 0)
    found: dict[str, StagedItem] = {}
    for staging_file in staging:
        for section, word in SECTIONS:
            for item in getattr(staging_file.activity, section):
                counts[section] += 1
                item_id = f"{word}-{counts[section]}"
                found[item_id] = StagedItem(item_id, staging_file, section, item)
    return found


def _short(text: Any) -> str:
    line = " ".join(str(text or "").split())
    return line if len(line) <= PROMPT_FIELD_CHARS else line[:PROMPT_FIELD_CHARS - 1] + "…"


def describe_item(staged: StagedItem) -> str:
    """One prompt line for ``staged``: its id, then its fields."""
    item = staged.item
    if staged.section == "decisions":
        parts = [f"title: {_short(item.title)}", f"chosen: {_short(item.chosen)}"]
        if item.options:
            parts.append("options: " + "; ".join(_short(o) for o in item.options))
        parts.append(f"rationale: {_short(item.rationale)}")
    elif staged.section == "requests":
        parts = ([f"title: {_short(item.title)}"] if item.title else []) + \
            [f"intent: {_short(item.intent)}", f"target: {_short(item.target)}", f"summary: {_short(item.summary)}"] + \
            ([f"done: {_short(item.done)}"] if item.done else [])
    elif staged.section == "discussions":
        parts = [f"topic: {_short(item.topic)}"] + (["points: " + "; ".join(_short(p) for p in item.points)]
                                                     if item.points else [])
    else:
        parts = [f"tried: {_short(item.trial)}", f"result: {_short(item.result)}", f"outcome: {item.outcome}"]
    return f"- {staged.id}: " + " | ".join(parts)


def _text(limit: int, description: str) -> Any:
    return Annotated[str, Field(max_length=limit, description=description)]


def _lines(count: int, limit: int, description: str) -> Any:
    return Annotated[list[Annotated[str, Field(max_length=limit)]], Field(max_length=count, description=description)]


def fields_model(item_ids: list[str], update_paths: list[str] | None, candidates: list[str]) -> type[BaseModel]:
    """The fields of one ``write_record`` call; the enums hold only ``item_ids``, ``update_paths``
    (None: too many to list, any path) and (a kind ``knowledge`` only when there are any) ``candidates``."""
    kinds = ("decision", "request", "knowledge") if candidates else ("decision", "request")
    fields: dict[str, Any] = {}
    if update_paths is None or update_paths:
        path: Any = Literal[tuple(update_paths)] if update_paths else Annotated[str, Field(max_length=200)]
        fields["update"] = (path | None, Field(
            default=None, description="an existing record to add this to (its text is kept, yours merged in); "
                                      "leave out to create a new record"))
    fields["kind"] = (Literal[kinds], Field(description="the kind of record"))
    fields["items"] = (Annotated[list[Literal[tuple(item_ids)]], Field(  # type: ignore[misc]  # a Literal of run-time ids, for pydantic
        min_length=1, max_length=MAX_ITEMS, description="the ids of the staging items this record is based on")], ...)
    fields["title"] = (Annotated[str, Field(min_length=3, max_length=100,
                                            description="a short title, e.g. 'Use SQLite for the cache'")], ...)
    fields["status"] = (Literal["open", "resolved"] | None, Field(
        default=None, description="decisions: resolved when a choice was made, open when not"))
    fields["summary"] = (_text(600, "what it is about, in one to three sentences"), "")
    fields["chosen"] = (_text(300, "decisions: what was chosen"), "")
    fields["options"] = (_lines(4, 120, "decisions: the options that were considered"), [])
    fields["rationale"] = (_text(600, "decisions: why"), "")
    fields["discussion"] = (_lines(4, 200, "points that were discussed"), [])
    fields["failure_and_fix"] = (_lines(4, 250, "what failed, why, and what fixed it"), [])
    if candidates:
        fields["derived_from"] = (Literal[tuple(candidates)] | None, Field(
            default=None, description="knowledge only: the candidate-report record it comes from"))
        fields["description"] = (_text(200, "knowledge only: one line, what it is and when to read it"), "")
    return create_model("RecordFields", __config__=ConfigDict(extra="forbid"), **fields)


def summary_line(request: Any) -> str:
    """A request's Summary line: what was asked and, when the agent reported it, what was done
    ("Remove the stray files and push. Done: Removed `root.txt`; pushed to a PR branch."), without
    template scaffolding, openers and a report that says nothing (``request_text``). A summary cut
    before the instruction its staged title was read from ends with that instruction."""
    asked = with_instruction(asked_text(one_line(request.summary)), one_line(getattr(request, "title", None) or ""))
    done = done_text(one_line(getattr(request, "done", None) or ""))
    if not done:
        return asked
    return f"{asked} Done: {done}" if asked else f"Done: {done}"


def one_line(text: str) -> str:
    """Collapse whitespace: staging text or a field becomes one Markdown line (no stray headings or fences)."""
    return " ".join(str(text).split())


def defang(text: str, is_knowledge: Callable[[str], bool]) -> str:
    """Put ``#word`` that names no knowledge record into a code span (so it is not a reference)."""
    refs = [r for r in iter_slug_refs(text) if not is_knowledge(r.slug)]
    for ref in reversed(refs):
        text = f"{text[:ref.start]}`#{ref.slug}`{text[ref.end:]}"
    return text


def title_of(fields: Any) -> str:
    title = one_line(fields.title).lstrip("#").strip() or "Untitled"
    return title[:1].upper() + title[1:]


def body_from_fields(fields: Any, is_knowledge: Callable[[str], bool]) -> str:
    """The record body ``fields`` describe, laid out like the rules engine's records."""
    def line(text: str) -> str:
        return defang(one_line(text), is_knowledge)

    parts = [f"\n# {line(title_of(fields))}\n"]
    for heading, value in (("Summary", fields.summary), ("Chosen", fields.chosen), ("Options", fields.options),
                           ("Rationale", fields.rationale), ("Discussion", fields.discussion),
                           ("Failure and fix", fields.failure_and_fix)):
        if isinstance(value, str):
            if one_line(value):
                parts.append(f"\n## {heading}\n{line(value)}\n")
            continue
        kept = [line(entry) for entry in value if one_line(entry)]
        if kept:
            parts.append(f"\n## {heading}\n" + "".join(f"- {entry}\n" for entry in kept))
    return "".join(parts)


def item_sources(items: Iterable[StagedItem]) -> list[dict[str, Any]]:
    """The sources of ``items`` (YAML-shaped), without duplicates, in citation order."""
    seen: set[tuple[str, int, int]] = set()
    out: list[dict[str, Any]] = []
    for staged in items:
        source = staged.source
        if source.key() not in seen:
            seen.add(source.key())
            out.append(source.as_yaml())
    return out
