"""Canonical content: the one order every writer and the merge driver give what they merge (issue 30).

A team's clones consume different sessions first, so the same contributions reach a record in
another order in every clone — and a writer that appends gives another file in every push order.
Whatever is *merged* (accumulated from several contributions) is therefore kept in an order that
depends on the set of contributions alone; what a person wrote stays as it is:

* **sources** (``sources``, ``last_sources``): one entry per ``(session_id, range)``, sorted by
  session id, then range start, then range end (``source_sort_key``); capped to the last
  ``sources_max`` of that order (``capped_sources``). A cap of a canonical list keeps the same
  entries whatever was trimmed before: a trimmed source had ``sources_max`` greater ones beside it.
* **the sections Phase 2 writes** (``## Chosen``, ``Options``, ``Rationale``, ``Summary``, ``Then``,
  ``Discussion``, ``Failure and fix``, ``Lessons``) come in that order, in the places such sections
  hold among a person's own sections (which keep theirs); inside one, when every entry is one line
  (one-line paragraphs and one-line list items, as Phase 2 writes them), the entries are unique
  (compared without surrounding or doubled spaces) and sorted — paragraphs first, then list items,
  each in code-point order — paragraphs separated by a blank line, list items adjacent. A section
  holding a longer paragraph, a fence or an indented line is a person's prose: kept verbatim.
* **the title's labelled lines** (``Also titled:``, ``Also described as:``, ``Target:``): unique,
  sorted, right under the ``# Title``, before the title block's other paragraphs (kept in order).
* **the trailer lines** GC and Phase 2 add (``Merged into `x` by GC…``, ``Moved to `x` by Phase 2…``,
  ``Derived from the decision `x`.``): unique, sorted, at the end of the body.

``canonical_body`` is idempotent and never drops a line other than a repeated entry. The record
format is unchanged: these are orders of what was already there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

MANAGED_SECTIONS = ("chosen", "options", "rationale", "summary", "then", "discussion", "failure and fix", "lessons")
LABELS = ("Also titled: ", "Also described as: ", "Target: ")
TRAILER_RE = re.compile(r"^(?:Merged into `[a-z0-9-]+` by GC|Moved to `[a-z0-9-]+` by Phase 2"
                        r"|Derived from the (?:decision|request) `[a-z0-9-]+`\.$)")
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_RE = re.compile(r"^([-*+]|\d+[.)])\s")


# --------------------------------------------------------------------------- sources


def source_sort_key(item: Any) -> tuple[int, str, int, int, str]:
    """Session id, range start, range end (then the entry's JSON, for a malformed one)."""
    if isinstance(item, dict):
        rng = item.get("range")
        if isinstance(rng, list) and len(rng) == 2 and all(isinstance(v, int) for v in rng):
            return (0, str(item.get("session_id")), rng[0], rng[1], "")
    return (1, "", 0, 0, json.dumps(item, sort_keys=True, default=str))


def _identity(item: Any) -> tuple[Any, ...]:
    key = source_sort_key(item)
    return key[:4] if key[0] == 0 else key


def canonical_sources(items: Iterable[Any]) -> list[Any]:
    """``items`` once each (by session and range; the first spelling kept), in canonical order."""
    seen: dict[tuple[Any, ...], Any] = {}
    for item in items:
        seen.setdefault(_identity(item), item)
    return [seen[k] for k in sorted(seen, key=lambda k: source_sort_key(seen[k]))]


def capped_sources(items: Iterable[Any], limit: int) -> list[Any]:
    """``canonical_sources(items)`` cut to its last ``limit`` entries (no cap when ``limit`` <= 0)."""
    result = canonical_sources(items)
    return result[-limit:] if 0 < limit < len(result) else result


def accumulated_sources(previous: Any, new: Iterable[Any], limit: int) -> list[Any]:
    """What a write that adds ``new`` to a record's ``previous`` sources leaves: both, capped.

    Every writer caps as it adds (Phase 2's rules and its model tools alike), with the rule the merge
    driver and GC's trim apply: then every state of a record in every clone is the top ``limit`` of
    the sources it has seen, and merging two such states gives the top ``limit`` of their union —
    the same list whichever clone pushed first. A record written over the cap and capped only by a
    later merge would carry one more source in a push order whose last change was no merge.
    """
    items = list(previous) if isinstance(previous, list) else []
    return capped_sources([*items, *new], limit)


# --------------------------------------------------------------------------- body


def _norm(line: str) -> str:
    return " ".join(line.split())


class Section:
    """One part of a Markdown body, as ``split_sections`` cuts it: the text before the first
    heading (``heading`` None, level 0), or a ``#`` heading's line and the lines under it."""

    __slots__ = ("heading", "level", "name", "lines", "fenced")

    def __init__(self, heading: str | None, level: int, name: str) -> None:
        self.heading, self.level = heading, level
        self.name = name  # the heading's text, lower-cased, whitespace runs as one space ("" for none)
        self.lines: list[str] = []  # the lines under the heading (the heading line not among them)
        self.fenced = False  # holds a fenced code block: never reordered


def split_sections(body: str) -> list[Section]:
    """``body`` cut at its ``#`` headings — the one Markdown section splitter of the store (the
    canonical order here, the record merge in ``store.merge``). A line inside a fenced code block
    (```` ``` ```` or ``~~~``, closed by a fence of the same character at least as long) is never a
    heading; a fence line belongs to the section it is in and marks it ``fenced``. The first
    section is the text before any heading (possibly empty)."""
    sections = [Section(None, 0, "")]
    fence: str | None = None
    for line in body.split("\n"):
        match = _FENCE_RE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker[0] * len(marker)
            elif line.strip().startswith(fence):
                fence = None
            sections[-1].fenced = True
            sections[-1].lines.append(line)
            continue
        heading = _HEADING_RE.match(line) if fence is None else None
        if heading:
            sections.append(Section(line, len(heading.group(1)), _norm(heading.group(2)).lower()))
        else:
            sections[-1].lines.append(line)
    return sections


def _entries(lines: list[str]) -> list[str] | None:
    """The one-line entries of a section, or None when it holds anything longer (a person's prose)."""
    entries: list[str] = []
    previous_blank = True
    for line in lines:
        if not line.strip():
            previous_blank = True
            continue
        if line != line.lstrip() or (not previous_blank and not _LIST_RE.match(line)):
            return None  # an indented line, or a paragraph of more than one line
        if not previous_blank and not _LIST_RE.match(entries[-1]):
            return None  # a list item right under a paragraph line: one block
        entries.append(line.rstrip())
        previous_blank = False
    return entries


def _unique_sorted(entries: Iterable[str]) -> list[str]:
    found: dict[str, str] = {}
    for entry in entries:
        found.setdefault(_norm(entry), entry)
    return sorted(found.values(), key=lambda e: (bool(_LIST_RE.match(e)), _norm(e), e))


def _layout(entries: list[str]) -> list[str]:
    """Entries as Phase 2 lays them out: a blank line between paragraphs, list items adjacent."""
    out: list[str] = []
    for entry in entries:
        if out and not (_LIST_RE.match(out[-1]) and _LIST_RE.match(entry)):
            out.append("")
        out.append(entry)
    return out


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _title_lines(section: Section) -> list[str] | None:
    """The title block with its labelled lines sorted on top (None: nothing to change)."""
    if section.fenced:
        return None
    blocks = _blocks(section.lines)
    labelled = [b[0].rstrip() for b in blocks if len(b) == 1 and b[0].startswith(LABELS)]
    if not labelled:
        return None
    others = [b for b in blocks if not (len(b) == 1 and b[0].startswith(LABELS))]
    out: list[str] = []
    for entry in _unique_sorted(labelled):
        out.extend(("", entry))
    for block in others:
        out.append("")
        out.extend(block)
    out.append("")
    return out


def _set_merge(base: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    """Entries three ways, as sets: a base entry stays while both sides hold it; any other entry
    either side holds is in. Compared without surrounding or doubled spaces."""
    b, o, t = ({_norm(e) for e in side} for side in (base, ours, theirs))
    keep = (b & o & t) | (o - b) | (t - b)
    # The spelling that sorts first, so the result does not depend on which side is ours.
    return _unique_sorted(sorted(e for e in [*ours, *theirs] if _norm(e) in keep))


def merge_section(base: list[str] | None, ours: list[str], theirs: list[str]) -> list[str] | None:
    """The merged lines of one section (its heading line first, as ``store.merge`` splits a body;
    ``[]``: the section is gone)
    when canonical content decides it — a Phase 2 section of one-line entries on every side (merged
    as sets of entries), or a title block (its labelled lines merged as sets, the rest line by line
    by ``merge_lines``) — else None (a person's prose: the caller merges it line by line)."""
    from .merge import merge_lines

    if not ours or not theirs:
        return None
    heading = _HEADING_RE.match(ours[0])
    if heading is None or any(_FENCE_RE.match(line) for side in (base or [], ours, theirs) for line in side):
        return None
    level, name = len(heading.group(1)), _norm(heading.group(2)).lower()
    if level == 2 and name in MANAGED_SECTIONS:
        parts = [_entries(side[1:]) for side in (base or [ours[0]], ours, theirs)]
        if any(part is None for part in parts):
            return None
        b, o, t = (part or [] for part in parts)
        merged = _set_merge(b, o, t)
        if not merged and b:
            return []  # every entry removed (by one side or the other): the section goes with them
        return [ours[0], *_layout(merged), ""]
    if level != 1:
        return None

    def split(side: list[str]) -> tuple[list[str], list[str]]:
        blocks = _blocks(side[1:])
        labelled = [blk[0].rstrip() for blk in blocks if len(blk) == 1 and blk[0].startswith(LABELS)]
        rest = [line for blk in blocks if not (len(blk) == 1 and blk[0].startswith(LABELS)) for line in ("", *blk)]
        return labelled, rest

    (bl, br), (ol, orest), (tl, tr) = split(base or [ours[0]]), split(ours), split(theirs)
    out = [ours[0]]
    for entry in _set_merge(bl, ol, tl):
        out.extend(("", entry))
    out.extend(merge_lines(br, orest, tr))
    out.append("")
    return out


def canonical_body(body: str) -> str:
    """``body`` with its merged parts in canonical order (see the module docstring)."""
    if not body.strip():
        return body
    sections = split_sections(body)
    trailers: list[str] = []
    for section in sections:
        if section.fenced:
            continue
        kept = [line for line in section.lines if not TRAILER_RE.match(line)]
        if len(kept) != len(section.lines):
            trailers.extend(line.rstrip() for line in section.lines if TRAILER_RE.match(line))
            section.lines = kept
    title = next((s for s in sections if s.level == 1), None)
    if title is not None:
        lines = _title_lines(title)
        if lines is not None:
            title.lines = lines
    # Phase 2's sections: merged by name, in rank order, into the places they hold.
    rank = {name: i for i, name in enumerate(MANAGED_SECTIONS)}
    slots = [i for i, s in enumerate(sections) if s.level == 2 and s.name in rank]
    managed: dict[str, Section] = {}
    dropped: set[int] = set()
    for i in slots:
        section = sections[i]
        first = managed.get(section.name)
        if first is None:
            managed[section.name] = section
            continue
        mine, theirs = _entries(first.lines), _entries(section.lines)
        if first.fenced or section.fenced or mine is None or theirs is None:
            continue  # a person's prose under a repeated heading: both kept as they are
        first.lines = [*mine, "", *theirs]
        dropped.add(i)
    slots = [i for i in slots if i not in dropped]
    ordered = sorted((sections[i] for i in slots), key=lambda s: rank[s.name])
    for i, section in zip(slots, ordered, strict=True):
        sections[i] = section
    sections = [s for i, s in enumerate(sections) if i not in dropped]
    for section in sections:
        if section.level == 2 and section.name in rank and not section.fenced:
            entries = _entries(section.lines)
            if entries is not None:
                section.lines = [*_layout(_unique_sorted(entries)), ""]
    out: list[str] = []
    for section in sections:
        if section.heading is not None:
            out.append(section.heading)
        out.extend(section.lines)
    if trailers:
        while out and not out[-1].strip():
            out.pop()
        for line in _unique_sorted(trailers):
            out.extend(("", line))
        out.append("")
    text = "\n".join(out)
    return text if text.endswith("\n") or not body.endswith("\n") else text + "\n"


__all__ = ["LABELS", "MANAGED_SECTIONS", "TRAILER_RE", "Section", "canonical_body", "accumulated_sources", "canonical_sources", "capped_sources",
           "merge_section", "source_sort_key", "split_sections"]
