"""The summary's generated listings — open decisions, recent requests, knowledge index — computed
when the resident context is built, never stored.

They used to be regenerated into ``memory/summary.md`` by every Phase 2 run, so every commit
rewrote the summary and two clones' commits always conflicted on it. Now the file holds only what a
person or Phase 2 wrote; ``strip_generated`` removes the listings' sections from an older summary
(the migration keeps every other section), and ``generated_listings`` renders them fresh from the
records, within the room the summary cap leaves.

Records are pre-selected from their raw frontmatter (cheap); only the ones listed are parsed.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from ..store.kinds import RecordKind
from ..store.records import as_timestamp, parse_record_text
from ..store.workspace import Workspace
from .search import decode_text, iter_folder_bytes

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


def raw_frontmatter_value(frontmatter: str, key: str) -> str | None:
    """A top-level scalar's raw value (quotes stripped), for pre-selection only."""
    match = re.search(rf"^{key}:[ \t]*(.*?)[ \t]*\r?$", frontmatter, re.MULTILINE)
    if match is None:
        return None
    value = match.group(1).strip().strip("'\"")
    return value or None


def _recency(value: object, slug: str) -> tuple[float, str]:
    stamp = as_timestamp(value) if not isinstance(value, datetime) else value
    return (-(stamp.timestamp() if stamp else 0.0), slug)


def _title(body: str) -> str | None:
    for title, level, lines in _sections_of(body):
        if level == 1 and title is not None:
            match = _HEADING_RE.match(lines[0])
            return " ".join(match.group(2).split()) if match else None
    return None


def _parse(ws: Workspace, kind: RecordKind, rel: str, text: str):  # type: ignore[no-untyped-def]
    record, _ = parse_record_text(text, kind=kind, path=Path(ws.root / rel), rel=rel)
    return record


def _texts(ws: Workspace, folder: Path, prefix: str) -> list[tuple[str, str, str]]:
    found = []
    for slug, rel, data in iter_folder_bytes(ws, folder, prefix):
        text, _reason = decode_text(data)
        if text is not None:
            found.append((slug, rel, text))
    return found


_TITLE_RE = re.compile(r"^ {0,3}# +(.+?)\s*#*\s*$")


def _raw_title(text: str) -> str | None:
    """The first ``# Title`` of a record's body, read from the raw text (no YAML parse)."""
    end = text.find("\n---", 3) if text.startswith("---") else -1
    fence = False
    for line in (text[end + 4:] if end > 0 else text).split("\n"):
        if _FENCE_RE.match(line):
            fence = not fence
        elif not fence:
            match = _TITLE_RE.match(line)
            if match:
                return " ".join(match.group(1).split())
    return None


def _open_decisions(ws: Workspace, budget: int) -> tuple[list[str], int]:
    """Open, live decisions, most recently updated first — from the raw frontmatter lines — as many
    as ``budget`` characters hold; and how many there are.

    Parsing thousands of decisions only to list their titles cost seconds at 10,000 records; the
    three keys read here are plain scalars in every record yoi writes.
    """
    found: list[tuple[tuple[float, str], str, str]] = []
    for slug, _rel, text in _texts(ws, ws.decisions_dir, "memory/decisions/"):
        fm = raw_frontmatter(text)
        if raw_frontmatter_value(fm, "status") != "open" or raw_frontmatter_value(fm, "replaced_by"):
            continue
        found.append((_recency(raw_frontmatter_value(fm, "updated_at"), slug), slug, text))
    found.sort()
    items: list[str] = []
    used = 0
    for _key, slug, text in found:
        if used > budget:
            break
        line = f"- {_raw_title(text) or slug.replace('-', ' ')} (`{slug}`)"
        used += len(line) + 1
        items.append(line)
    return items, len(found)


def _recent_requests(ws: Workspace) -> tuple[list[str], int]:
    candidates = []
    for slug, _rel, text in _texts(ws, ws.requests_dir, "memory/requests/"):
        fm = raw_frontmatter(text)
        if raw_frontmatter_value(fm, "replaced_by"):
            continue
        candidates.append((_recency(raw_frontmatter_value(fm, "updated_at"), slug), slug, text))
    candidates.sort()
    items = [f"- {_raw_title(text) or slug.replace('-', ' ')} (`{slug}`)"
             for _key, slug, text in candidates[:RECENT_REQUESTS]]
    return items, len(candidates)


def _plain_description(frontmatter: str) -> str | None:
    """A one-line plain ``description:`` read without YAML (None: quoted, folded or absent — parse)."""
    match = re.search(r"^description:[ \t]*(.*?)[ \t]*\r?$", frontmatter, re.MULTILINE)
    if match is None:
        return None
    value = match.group(1)
    end = match.end()
    following = frontmatter[end + 1:end + 2]
    if not value or following in (" ", "\t"):
        return None
    if len(value) >= 2 and value[0] == value[-1] == "'" and "'" not in value[1:-1].replace("''", ""):
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)  # YAML's double-quoted escapes are a superset; the rest parses
        except ValueError:
            return None
        return decoded if isinstance(decoded, str) else None
    if value[0] in "'\"|>&*!%@`{[" or " #" in value:
        return None
    return value


def _knowledge_index(ws: Workspace, skip: set[str], budget: int,
                     texts: list[tuple[str, str, str]] | None = None) -> tuple[list[str], int]:
    """Live knowledge lines by slug, parsed only until ``budget`` is spent; and how many there are."""
    items: list[str] = []
    total = 0
    used = 0
    for slug, rel, text in texts if texts is not None else _texts(ws, ws.knowledge_dir, "knowledge/"):
        fm = raw_frontmatter(text)
        if slug in skip or raw_frontmatter_value(fm, "replaced_by"):
            continue
        total += 1
        if used > budget:
            continue  # counted for "… and N more", not read
        description = _plain_description(fm)
        if description is None:
            record = _parse(ws, RecordKind.KNOWLEDGE, rel, text)
            if record is None or record.is_replaced:
                total -= 1
                continue
            description = " ".join(record.description.split()) or (_title(record.body) or "")
        line = f"- #{slug} — {description}".rstrip(" —")
        used += len(line) + 1
        items.append(line)
    return items, total


def generated_listings(ws: Workspace, *, budget: int, skip_knowledge: set[str] | None = None,
                       knowledge_texts: list[tuple[str, str, str]] | None = None) -> str:
    """The three listings as Markdown ``##`` sections within ``budget`` characters ("" when none).

    ``knowledge_texts``: ``(slug, rel, text)`` of the knowledge files the caller already read (the
    resident context reads them all), so they are not read twice.

    Empty listings are left out. Over the budget, the longest listing is shortened first (its
    tail stays reachable by search), as the summary cap used to force.
    """
    if budget <= 0:
        return ""
    requests, request_total = _recent_requests(ws)
    knowledge, knowledge_total = _knowledge_index(ws, skip_knowledge or set(), budget, knowledge_texts)
    decisions, decision_total = _open_decisions(ws, budget)
    listings = [(GENERATED_SECTIONS[0], decisions, decision_total, "memory/decisions/"),
                (GENERATED_SECTIONS[1], requests, request_total, "memory/requests/"),
                (GENERATED_SECTIONS[2], knowledge, knowledge_total, "knowledge/")]
    limits = [len(items) for _name, items, _total, _folder in listings]
    while True:
        parts = []
        for (name, items, total, folder), limit in zip(listings, limits, strict=True):
            if not items:
                continue
            shown = items[:limit]
            more = (total if total is not None else len(items)) - len(shown)
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
