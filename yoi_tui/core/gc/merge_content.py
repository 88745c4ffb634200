"""What a GC merge writes (issue 25): which record is kept, and how the others' text joins it.

**The keeper** is the record whose slug is preferred (``kinds.slug_preference``: the shortest,
then the first in code-point order) — a rule of names alone (issue 30), so every clone picks the
same keeper whatever sources, text or usage each had seen when its GC ran (docs/team.md#who-runs-gc),
and it is the slug Phase 2 moves a near-identical title to. What the records hold does not decide:
two clones that had pulled different sessions counted different sources, and chose different
keepers (a ``replaced_by`` X-or-Y conflict, or a loop); the keeper holds all of every merged
record's content anyway. ``keeper_reason`` says so.

**The text** is merged Markdown block by Markdown block (``merge_blocks``), with markdown-it-py
(CommonMark, as the app's Markdown view renders it) telling where a block starts and ends: a
hard-wrapped paragraph, a list item, a fenced code block, a quote or a table moves as a whole or not
at all. Per section (``#`` headings, as ``runs.body_merge.merge_sections`` walks them, the walk Phase 2's line merge takes too; the other record's
title gives way to the keeper's): a block the keeper already holds (the same words, however
wrapped) is not repeated; a list item the keeper's list lacks joins the end of that list; any other
block is appended to the section, after a blank line; a section the keeper lacks is appended whole.
Every line of the keeper stays where it is, every block of the other record is in the result once (or already was: a block whose words one keeper
block holds in order, however wrapped, is not added again).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..runs.body_merge import Block, merge_sections
from ..store.kinds import slug_preference


@dataclass(frozen=True)
class Holding:
    """A record of a near-duplicate group, as the keeper rule and its reason see it."""

    slug: str
    sources: int
    body_chars: int
    created: float  # seconds since the epoch; 0 when unknown

    def key(self) -> tuple[Any, ...]:
        # The name alone: the counts differ between clones that pulled different sessions.
        return slug_preference(self.slug)


def choose_keeper(holdings: Sequence[Holding]) -> list[Holding]:
    """``holdings`` best first: the first is the keeper."""
    return sorted(holdings, key=Holding.key)


def keeper_reason(keeper: Holding, others: Sequence[Holding]) -> str:
    """Why ``keeper`` was kept over the strongest of ``others`` (one clause)."""
    if not others:
        return f"kept `{keeper.slug}`"
    rival = min(others, key=Holding.key)
    why = (f"its slug is preferred (shorter, then first in order than `{rival.slug}`: a rule of names, so "
           "every clone keeps the same record whatever it had pulled)")
    return f"kept `{keeper.slug}` because {why}"


# --------------------------------------------------------------------------- Markdown blocks


def _norm(lines: Sequence[str]) -> str:
    return " ".join(" ".join(lines).split())


@dataclass
class _MdBlock:
    start: int  # line index in the section's lines
    end: int  # one past the last line
    kind: str  # markdown-it token type: paragraph_open, bullet_list_open, fence, ...
    items: list[tuple[int, int]]  # a list's items (line ranges); empty for other blocks


def _parser() -> Callable[[str], list[Any]]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    return md.parse


def md_blocks(lines: Sequence[str], parse: Callable[[str], list[Any]] | None = None) -> list[_MdBlock]:
    """The top-level Markdown blocks of ``lines``, each with its exact line range; a non-blank line
    no block claims (it should not happen, but a parser is not the place to lose a line) becomes a
    block of its own."""
    tokens = (parse or _parser())("\n".join(lines) + "\n")
    blocks: list[_MdBlock] = []
    current: _MdBlock | None = None
    for token in tokens:
        if token.map is None:
            continue
        if token.level == 0 and token.nesting in (0, 1):
            start, end = token.map
            current = _MdBlock(start, min(end, len(lines)), token.type, [])
            blocks.append(current)
        elif (current is not None and token.type == "list_item_open" and token.level == 1
              and current.kind in ("bullet_list_open", "ordered_list_open")):
            start, end = token.map
            current.items.append((start, min(end, current.end)))
    claimed = {i for b in blocks for i in range(b.start, b.end)}
    for index, line in enumerate(lines):
        if line.strip() and index not in claimed:
            blocks.append(_MdBlock(index, index + 1, "line", []))
    blocks.sort(key=lambda b: b.start)
    return blocks


def _trimmed(lines: Sequence[str], start: int, end: int) -> list[str]:
    """Lines ``start:end`` without blank lines at either end (a list item's map includes its gap)."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return list(lines[start:end])


def _merge_section(target: Block, incoming: Sequence[str], parse: Callable[[str], list[Any]]) -> None:
    """Add to ``target`` the blocks of ``incoming`` it lacks (see the module docstring)."""
    lines = target.lines
    have = md_blocks(lines, parse)
    present = {_norm(_trimmed(lines, b.start, b.end)) for b in have}
    # A block whose words a keeper block already holds in order (the same sentences, wrapped or
    # cut differently) adds nothing: word-bounded containment within one block.
    padded = [f" {text} " for text in present]
    present_items = {_norm(_trimmed(lines, s, e)) for b in have for s, e in b.items}
    lists = [b for b in have if b.items]
    after_list: list[list[str]] = []  # items for the end of the keeper's last list
    appended: list[list[str]] = []  # whole blocks for the end of the section
    for block in md_blocks(incoming, parse):
        text = _trimmed(incoming, block.start, block.end)
        norm = _norm(text)
        if not norm or norm in present or any(f" {norm} " in text for text in padded):
            continue
        if block.items and lists and lists[-1].kind == block.kind:
            for start, end in block.items:
                item = _trimmed(incoming, start, end)
                item_norm = _norm(item)
                if item_norm and item_norm not in present_items:
                    after_list.append(item)
                    present_items.add(item_norm)
            continue
        appended.append(text)
        present.add(norm)
    if after_list:
        at = lists[-1].end
        while at > lists[-1].start and not lines[at - 1].strip():
            at -= 1
        lines[at:at] = [line for item in after_list for line in item]
    if appended:
        end = len(lines)
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        tail = lines[end:]
        del lines[end:]
        for text in appended:
            if lines or target.heading is not None:
                lines.append("")
            lines.extend(text)
        lines.extend(tail or [""])


def merge_blocks(keeper: str, other: str) -> str:
    """``keeper``'s body with the Markdown blocks of ``other`` it lacks (see the module docstring)."""
    if not keeper.strip():
        return other
    parse = _parser()
    return merge_sections(keeper, other, lambda target, lines, _blocks: _merge_section(target, lines, parse),
                          heading_gap=True)


__all__ = ["Holding", "choose_keeper", "keeper_reason", "md_blocks", "merge_blocks"]
