"""Resident context (SPEC 5): the block a harness puts into a normal agent's system prompt.

It is the summary's body (what a person or Phase 2 wrote), the listings computed from the records
now (open decisions, recent requests, the other knowledge: ``summary_lists``; never stored), plus one line ``#slug — description`` for every knowledge record with
``model_invokation: true`` that is not replaced, wrapped in ``markers.CONTEXT_BEGIN``/``END`` so
Phase 1 strips it from session logs. Each injection is recorded as an ``inject`` event with its
estimated token cost — tracked apart from invokes, so being resident never protects a record.

Only knowledge files whose raw text mentions ``model_invokation`` have their YAML parsed, and what
the block needs from each record file is cached by its ``lstat`` signature (``listing_cache``), so
a warm call reads only the files that changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from ..errors import YoiError
from ..notices import warn
from ..store.records import read_record
from ..store.workspace import Workspace
from ..value_class import ValueClass
from .listing_cache import ListingCache
from .markers import CONTEXT_BEGIN, CONTEXT_END, escape_markers
from .summary_lists import generated_listings, scan_knowledge, strip_generated
from .usage import estimate_tokens, record_inject

INDEX_INTRO = ("Knowledge records (read one with the knowledge_search tool, slug=SLUG, "
               "or `yoi search knowledge --slug SLUG`):")
_FALSE_LINE_RE = re.compile(
    rb"(?m)^model_invokation:[ \t]*(?:false|False|FALSE|no|No|NO|off|Off|OFF)[ \t]*(?:#[^\n]*)?\r?$")


class ResidentContext(ValueClass):
    """The block, the knowledge slugs listed in it, its token estimate, and skipped files."""

    __slots__ = ("text", "slugs", "tokens", "problems")
    _defaults: ClassVar[dict[str, Any]] = {"tokens": 0}
    _factories: ClassVar[dict[str, Callable[[], Any]]] = {"slugs": list, "problems": list}
    text: str
    slugs: list[str]
    tokens: int
    problems: list[str]

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "slugs": self.slugs, "tokens": self.tokens}


def surely_not_resident(data: bytes) -> bool:
    """True when the raw file cannot have ``model_invokation: true`` (so its YAML is not parsed).

    That is: the key is never mentioned (the default is false), or mentioned exactly once, as a
    top-level ``model_invokation: false`` line. Anything else is parsed and decided by YAML.
    """
    count = data.count(b"model_invokation")
    if count == 0:
        return True
    return count == 1 and _FALSE_LINE_RE.search(data) is not None


def build_resident_context(ws: Workspace, *, cache: bool = True) -> ResidentContext:
    """Assemble the block without recording anything ("" when there is nothing to inject).

    ``cache``: take unchanged files' facts from ``listing_cache`` (False: read every file, store
    nothing — the same block, slower)."""
    problems: list[str] = []
    summary_body = ""
    if ws.summary_path.exists() or ws.summary_path.is_symlink():
        result = read_record(ws, ws.summary_path)
        if result.record is not None:
            # Listings an older Phase 2 stored in the file are stale: they are computed below.
            summary_body = strip_generated(result.record.body).strip()
        else:
            reason = result.diagnostics[0].message if result.diagnostics else "unreadable"
            problems.append(f"memory/summary.md: {reason}; left out")
    facts = ListingCache.load(ws) if cache else ListingCache(None)
    knowledge = scan_knowledge(ws, facts, problems)
    index = [(slug, facts.resident) for slug, facts in knowledge if facts.resident is not None]
    budget = ws.config.cap_for("summary") - len(summary_body)
    listings = generated_listings(ws, budget=budget, knowledge=knowledge, cache=facts)
    facts.save()
    if not summary_body and not index and not listings:
        return ResidentContext(text="", problems=problems)
    parts: list[str] = []
    if summary_body:
        parts.append(summary_body)
    if listings:
        parts.append(listings)
    if index:
        lines = [INDEX_INTRO, *(f"#{slug} — {desc}" if desc else f"#{slug}" for slug, desc in index)]
        parts.append("\n".join(lines))
    inner = "\n\n".join(parts)
    # A marker inside a record would end the block early when Phase 1 strips it; neutralise it.
    inner = escape_markers(inner)
    text = f"{CONTEXT_BEGIN}\n{inner}\n{CONTEXT_END}\n"
    return ResidentContext(text=text, slugs=[s for s, _ in index], tokens=estimate_tokens(text),
                           problems=problems)


def record_injection(ws: Workspace, built: ResidentContext, session_id: str | None = None) -> None:
    """Record ``built`` as an ``inject`` event (a failure to write is logged, never raised)."""
    if not built.text:
        return
    try:
        record_inject(ws, built.slugs, built.tokens, session_id)
    except YoiError as exc:
        warn("yoi.usage", "usage not recorded: %s", exc)


def resident_context(ws: Workspace, *, record: bool = True, session_id: str | None = None) -> str:
    """The resident context block; with ``record`` an ``inject`` event notes its token cost."""
    built = build_resident_context(ws)
    if record:
        record_injection(ws, built, session_id)
    return built.text
