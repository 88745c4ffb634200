"""The summary's generated listings — open decisions, recent requests — computed when the
resident context is built, never stored (an older summary's stored "Knowledge index" is stripped
too: the resident context lists no knowledge but the ``model_invokation: true`` records).

They used to be regenerated into ``memory/summary.md`` by every Phase 2 run, so every commit
rewrote the summary and two clones' commits always conflicted on it. Now the file holds only what a
person or Phase 2 wrote; ``strip_generated`` removes the listings' sections from an older summary
(the migration keeps every other section), and ``generated_listings`` renders them fresh from the
records, within the room the summary cap leaves.

Records are pre-selected from their raw frontmatter (cheap); a knowledge file is parsed only when
it may be resident (it mentions ``model_invokation``). What the listings need from each decision, request and
knowledge file (``ListingFacts``, ``KnowledgeFacts``) is cached per file by ``listing_cache`` (read
again when the file's ``lstat`` signature changes), so a warm ``yoi context`` reads none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.kinds import RecordKind
from ..store.reader import decode_text
from ..store.records import as_timestamp, parse_record_text
from ..store.workspace import DECISIONS_REL, KNOWLEDGE_REL, REQUESTS_REL, Workspace
from .listing_cache import ListingCache, ListingFacts

GENERATED_SECTIONS = ("Open decisions", "Recent requests", "Knowledge index")
RECENT_REQUESTS = 10
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_GENERATED_KEYS = {" ".join(name.lower().split()) for name in GENERATED_SECTIONS}


def _sections_of(body: str) -> list[tuple[str | None, int, list[str]]]:
    """``(title, level, lines)`` blocks: the preamble (title None), then one per heading outside code."""
    blocks: list[tuple[str | None, int, list[str]]] = [(None, 0, [])]
    fence: str | None = None
    for line in body.split("\n"):
        fenced = _FENCE_RE.match(line)
        if fenced:
            marker = fenced.group(1)
            fence = marker[0] * 3 if fence is None else (None if line.strip().startswith(fence) else fence)
        heading = _HEADING_RE.match(line) if fence is None and not fenced else None
        if heading:
            blocks.append((" ".join(heading.group(2).lower().split()), len(heading.group(1)), [line]))
        else:
            blocks[-1][2].append(line)
    return blocks


def strip_generated(body: str) -> str:
    """``body`` without the generated ``##`` listing sections (the rest kept verbatim)."""
    blocks = _sections_of(body)
    if not any(level == 2 and title in _GENERATED_KEYS for title, level, _ in blocks):
        return body
    kept: list[str] = []
    for title, level, lines in blocks:
        if level == 2 and title in _GENERATED_KEYS:
            continue
        kept.extend(lines)
    text = "\n".join(kept).rstrip("\n")
    return text + "\n" if text.strip() else ""


def raw_frontmatter(text: str) -> str:
    """The frontmatter block of a record's text, unparsed ("" when there is none)."""
    if not text.startswith("---"):
        return ""
    end = text.find("\n---", 3)
    return text[:end] if end > 0 else ""


_VALUE_RES: dict[str, re.Pattern[str]] = {}


def raw_frontmatter_value(frontmatter: str, key: str) -> str | None:
    """A top-level scalar's raw value (quotes stripped), for pre-selection only."""
    pattern = _VALUE_RES.get(key)
    if pattern is None:  # compiled once per key: this runs for every record file on a cold context
        pattern = _VALUE_RES[key] = re.compile(rf"^{re.escape(key)}:[ \t]*(.*?)[ \t]*\r?$", re.MULTILINE)
    match = pattern.search(frontmatter)
    if match is None:
        return None
    value = match.group(1).strip().strip("'\"")
    return value or None


_TITLE_RE = re.compile(r"^ {0,3}# +(.+?)\s*#*\s*$")


_FIRST_TITLE_RE = re.compile(r"^ {0,3}# +(.+?)[^\S\n]*#*[^\S\n]*$", re.MULTILINE)
_FENCE_LINE_RE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.MULTILINE)


def raw_title(text: str) -> str | None:
    """The first ``# Title`` of a record's body, read from the raw text (no YAML parse)."""
    end = text.find("\n---", 3) if text.startswith("---") else -1
    start = end + 4 if end > 0 else 0
    if end <= 0 or text[start:start + 1] in ("", "\n"):
        # The common case in one regex search: no fence line before the first title line.
        match = _FIRST_TITLE_RE.search(text, start)
        if _FENCE_LINE_RE.search(text, start, match.start() if match else len(text)) is None:
            return " ".join(match.group(1).split()) if match else None
    fence = False
    for line in (text[end + 4:] if end > 0 else text).split("\n"):
        if _FENCE_RE.match(line):
            fence = not fence
        elif not fence:
            match = _TITLE_RE.match(line)
            if match:
                return " ".join(match.group(1).split())
    return None


def facts_of(text: str) -> ListingFacts:
    """The listing facts of a decision's or request's text (the pure function the cache remembers)."""
    fm = raw_frontmatter(text)
    raw = raw_frontmatter_value(fm, "updated_at")
    stamp = as_timestamp(raw) if raw is not None else None
    return ListingFacts(replaced=bool(raw_frontmatter_value(fm, "replaced_by")),
                        status=raw_frontmatter_value(fm, "status"),
                        stamp=stamp.timestamp() if stamp is not None else 0.0,
                        title=raw_title(text))


def _record_facts(rel: str, data: bytes, problems: list[str] | None) -> tuple[ListingFacts | None, bool]:
    text, _reason = decode_text(data)
    return (None, False) if text is None else (facts_of(text), True)


def scan_records(ws: Workspace, cache: ListingCache, folder: Path, prefix: str) -> list[tuple[str, ListingFacts]]:
    """``(slug, facts)`` of every readable decision or request in ``folder``, in name order."""
    return cache.scan(ws, folder, prefix, _record_facts, ListingFacts.from_json)


def _recency_of(facts: ListingFacts, slug: str) -> tuple[float, str]:
    return (-facts.stamp, slug)


def _open_decisions(decisions: list[tuple[str, ListingFacts]], budget: int) -> tuple[list[str], int]:
    """Open, live decisions, most recently updated first, as many as ``budget`` characters hold;
    and how many there are.

    Parsing thousands of decisions only to list their titles cost seconds at 10,000 records; the
    facts come from the raw frontmatter lines (plain scalars in every record yoi writes), and are
    cached per file (``listing_cache``).
    """
    found = sorted((_recency_of(facts, slug), slug, facts) for slug, facts in decisions
                   if facts.status == "open" and not facts.replaced)
    items: list[str] = []
    used = 0
    for _key, slug, facts in found:
        if used > budget:
            break
        line = f"- {facts.title or slug.replace('-', ' ')} (`{slug}`)"
        used += len(line) + 1
        items.append(line)
    return items, len(found)


def _recent_requests(requests: list[tuple[str, ListingFacts]]) -> tuple[list[str], int]:
    candidates = sorted((_recency_of(facts, slug), slug, facts) for slug, facts in requests if not facts.replaced)
    items = [f"- {facts.title or slug.replace('-', ' ')} (`{slug}`)" for _key, slug, facts in candidates[:RECENT_REQUESTS]]
    return items, len(candidates)


@dataclass(slots=True, frozen=True)
class KnowledgeFacts:
    """One knowledge file as the resident context sees it (a pure function of its text)."""

    replaced: bool  # a raw ``replaced_by`` is set
    resident: str | None  # resident (``model_invokation: true``, live): its one-line description
    stamp: float  # a resident record's ``updated_at`` as a POSIX time (0.0 otherwise or unknown)

    def to_json(self) -> list[Any]:
        return [self.replaced, self.resident, self.stamp]

    @classmethod
    def from_json(cls, data: Any) -> KnowledgeFacts | None:
        if not isinstance(data, list) or len(data) != 3 or type(data[0]) is not bool \
                or not (data[1] is None or type(data[1]) is str) \
                or not isinstance(data[2], int | float) or type(data[2]) is bool:
            return None
        return cls(data[0], data[1], float(data[2]))


def knowledge_facts(ws: Workspace, rel: str, data: bytes, problems: list[str] | None,
                    surely_not_resident: bool) -> tuple[KnowledgeFacts | None, bool]:
    """A knowledge file's facts (None: left out) and whether they may be cached (not when the file
    has a problem, which is then reported on every run). Only files that may be resident have their
    YAML parsed: nothing else of a knowledge record reaches the context (SPEC 5)."""
    text, reason = decode_text(data)
    if text is None:
        if not surely_not_resident and problems is not None:
            problems.append(f"{rel}: {reason}; left out")
        return None, False
    fm = raw_frontmatter(text)
    replaced = bool(raw_frontmatter_value(fm, "replaced_by"))
    if surely_not_resident:
        return KnowledgeFacts(replaced, None, 0.0), True
    record, diags = parse_record_text(text, kind=RecordKind.KNOWLEDGE, path=Path(ws.root / rel), rel=rel)
    if record is None:
        if problems is not None:
            problems.append(f"{rel}: {diags[0].message if diags else 'unreadable'}; left out")
        return None, False
    if record.model_invokation and not record.is_replaced:
        stamp = as_timestamp(record.meta.get("updated_at")) or as_timestamp(record.meta.get("created_at"))
        return KnowledgeFacts(False, " ".join(record.description.split()),
                              stamp.timestamp() if stamp is not None else 0.0), True
    return KnowledgeFacts(replaced or record.is_replaced, None, 0.0), True


def scan_knowledge(ws: Workspace, cache: ListingCache, problems: list[str] | None = None,
                   ) -> list[tuple[str, KnowledgeFacts]]:
    """``(slug, facts)`` of every readable knowledge file, in name order, from ``cache`` where the
    file is unchanged; problems (unreadable, unparseable) are reported on every run."""
    from .resident_context import surely_not_resident

    def compute(rel: str, data: bytes, found: list[str] | None) -> tuple[KnowledgeFacts | None, bool]:
        return knowledge_facts(ws, rel, data, found, surely_not_resident(data))

    return cache.scan(ws, ws.knowledge_dir, KNOWLEDGE_REL, compute, KnowledgeFacts.from_json, problems)


def generated_listings(ws: Workspace, *, budget: int, cache: ListingCache | bool = True) -> str:
    """The listings computed from memory — open decisions, recent requests — as Markdown ``##``
    sections within ``budget`` characters ("" when none). Knowledge is never listed here: only the
    descriptions of ``model_invokation: true`` records may reach the context (``context``).

    ``cache``: the ``ListingCache`` to serve the files' facts from (the caller saves it), True to
    load and save the workspace's, False to read every file and store nothing.

    Empty listings are left out. Over the budget, the longest listing is shortened first (its
    tail stays reachable by search).
    """
    if budget <= 0:
        return ""
    facts = cache if isinstance(cache, ListingCache) else ListingCache.load(ws) if cache else ListingCache(None)
    requests, request_total = _recent_requests(scan_records(ws, facts, ws.requests_dir, REQUESTS_REL))
    decisions, decision_total = _open_decisions(scan_records(ws, facts, ws.decisions_dir, DECISIONS_REL), budget)
    if not isinstance(cache, ListingCache):
        facts.save()
    listings = [(GENERATED_SECTIONS[0], decisions, decision_total, DECISIONS_REL),
                (GENERATED_SECTIONS[1], requests, request_total, REQUESTS_REL)]
    limits = [len(items) for _name, items, _total, _folder in listings]
    while True:
        parts = []
        for (name, items, total, folder), limit in zip(listings, limits, strict=True):
            if not items or not limit:
                continue
            shown = items[:limit]
            more = total - len(shown)
            if more > 0:
                shown = [*shown, f"- … and {more} more in {folder}"]
            parts.append("\n".join([f"## {name}", *shown]))
        text = "\n\n".join(parts)
        if len(text) <= budget or not any(limits):
            break
        longest = max(range(len(limits)), key=lambda i: limits[i])
        limits[longest] = max(0, limits[longest] - max(1, limits[longest] // 4))
    return text if len(text) <= budget else ""


__all__ = ["GENERATED_SECTIONS", "generated_listings", "strip_generated"]
