"""Merging Markdown bodies without losing a line: the body merge Phase 2 and GC share.

``merge_sections(old, new, into)`` is the walk both merges take: a body is read as blocks (the
lines before the first heading, then one block per heading, any level, outside fenced code); each
block of ``new`` goes to the block of ``old`` with the same heading (``new``'s top ``# Title`` to
``old``'s title when it has one), where ``into`` adds what is missing, or, when ``old`` has no such
block, is appended whole at the end. Phase 2's ``merge_body`` adds lines; GC's
``gc.merge_content.merge_blocks`` adds whole Markdown blocks.

``merge_body(old, new)`` (the rules engines' update rule) keeps every line of ``old`` exactly where
it is and adds each non-blank line of ``new`` that the matching block of ``old`` does not already
hold (compared without surrounding whitespace): into the block with the same heading, or, when
``old`` has no such block, as a new block at the end. A new body's top ``# Title`` is dropped when
``old`` already has a title. Merging the same text twice changes nothing (idempotent), which is
what lets an interrupted or repeated Phase 2 run converge.

``replace_sections`` (for the summary) swaps the content of named ``##`` sections and keeps every
other section and the preamble as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..retrieval.slugrefs import iter_lines

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass
class Block:
    heading: str | None  # the heading line itself (None for the preamble)
    level: int
    lines: list[str] = field(default_factory=list)

    @property
    def key(self) -> str | None:
        if self.heading is None:
            return None
        match = _HEADING_RE.match(self.heading)
        title = match.group(2) if match else self.heading
        return f"{self.level}:{' '.join(title.lower().split())}"


def split_blocks(body: str) -> list[Block]:
    blocks = [Block(None, 0)]
    for _, _, line, in_code in iter_lines(body):
        heading = None if in_code else _HEADING_RE.match(line)
        if heading:
            blocks.append(Block(line, len(heading.group(1))))
        else:
            blocks[-1].lines.append(line)
    return blocks


def join_blocks(blocks: list[Block]) -> str:
    lines: list[str] = []
    for block in blocks:
        if block.heading is not None:
            lines.append(block.heading)
        lines.extend(block.lines)
    return "\n".join(lines)


def _content_end(lines: list[str]) -> int:
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end


def _norm(line: str) -> str:
    return " ".join(line.split())


def title_of_body(body: str) -> str | None:
    """The text of the first level-1 heading, if any."""
    for block in split_blocks(body):
        if block.level == 1 and block.heading is not None:
            match = _HEADING_RE.match(block.heading)
            return match.group(2) if match else None
    return None


def same_title(first: str, second: str) -> bool:
    """Two titles that differ only in case and spacing are one title."""
    return " ".join(first.lower().split()) == " ".join(second.lower().split())


def with_also_titled(body: str, title: str) -> str:
    """``body`` with an "Also titled: ``title``" line at the top of its title's block.

    ``merge_body`` keeps one title; this is how another wording of it is kept (GC's merge and
    Phase 2's near-identical updates write the same line, so both paths give the same body lines).
    """
    blocks = split_blocks(body)
    block = next((b for b in blocks if b.level == 1), blocks[0])
    block.lines[0:0] = ["", f"Also titled: {title}"]
    return join_blocks(blocks)


def retitle(body: str, title: str, also: str | None = None) -> str:
    """``body`` with its first ``# Title`` changed to ``title``; ``also`` (the old wording, when it is
    another title and not just another casing) kept as an "Also titled:" line, and a line that
    named ``title`` as another wording dropped (it is the title now)."""
    blocks = split_blocks(body)
    block = next((b for b in blocks if b.level == 1 and b.heading is not None), None)
    if block is None:
        return body
    block.heading = f"# {title}"
    block.lines = [line for line in block.lines if not same_title(line.strip(), f"Also titled: {title}")]
    if also is not None:
        block.lines[0:0] = ["", f"Also titled: {also}"]
    return join_blocks(blocks)


def merge_sections(old: str, new: str, into: Callable[[Block, list[str], list[Block]], None], *,
                   heading_gap: bool = False) -> str:
    """``old`` with each block of ``new`` merged in (see the module docstring); ``into(target,
    lines, blocks)`` adds a block's ``lines`` to the ``target`` block of ``old``'s ``blocks``. A block
    ``old`` lacks is appended with its blank edges trimmed (``heading_gap``: a blank line kept under
    its heading when it had one). A blank ``old`` is ``new``."""
    if not old.strip():
        return new
    old_blocks = split_blocks(old)
    old_has_title = any(b.level == 1 for b in old_blocks)
    for block in split_blocks(new):
        target: Block | None
        if block.level == 1 and old_has_title:
            # The old record's title stays; what follows the new title joins the old title's block.
            target = next(b for b in old_blocks if b.level == 1)
        else:
            target = next((b for b in old_blocks if b.key == block.key), None)
        if target is None:
            if block.heading is None and not any(line.strip() for line in block.lines):
                continue
            _ensure_gap(old_blocks)
            lines = _strip_blank_edges(block.lines)
            gap = heading_gap and block.heading is not None and block.lines[:1] == [""]
            old_blocks.append(Block(block.heading, block.level, ["", *lines, ""] if gap else [*lines, ""]))
            continue
        into(target, block.lines, old_blocks)
    merged = join_blocks(old_blocks)
    return merged if merged.endswith("\n") else merged + "\n"


def merge_body(old: str, new: str) -> str:
    """``old`` with the lines of ``new`` it lacks; never drops or reorders a line of ``old``."""
    return merge_sections(old, new, _add_lines)


def _add_lines(target: Block, lines: list[str], blocks: list[Block]) -> None:
    """Add to ``target`` each non-blank line of ``lines`` it does not hold (compared without
    surrounding whitespace), after its content."""
    content = [line for line in lines if line.strip()]
    present = {_norm(line) for line in target.lines}
    if target.heading is not None:
        present.add(_norm(target.heading))
    missing = [line for line in content if _norm(line) not in present]
    if not missing:
        return
    end = _content_end(target.lines)
    tail = target.lines[end:]
    if end == 0 and target.heading is not None and not target.lines:
        tail = [""]
    target.lines[end:] = []
    previous = target.lines[end - 1] if end > 0 else target.heading
    for line in missing:
        # Paragraph lines get a blank line between them (else Markdown joins them); list
        # items follow each other directly.
        if previous is not None and not (_is_list_item(previous) and _is_list_item(line)):
            target.lines.append("")
        target.lines.append(line)
        previous = line
    target.lines.extend(tail or ([""] if target is not blocks[-1] else []))


def _is_list_item(line: str) -> bool:
    return bool(re.match(r"^\s*([-*+]|\d+[.)])\s", line))


def _strip_blank_edges(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end] if lines[start:end] else []


def _ensure_gap(blocks: list[Block]) -> None:
    """Make the body end with exactly one blank line before an appended block."""
    last = blocks[-1]
    end = _content_end(last.lines)
    if end == 0 and last.heading is None and len(blocks) == 1:
        return
    last.lines[end:] = [""]


def replace_sections(body: str, sections: dict[str, list[str]]) -> str:
    """Set the content of the ``##`` sections named in ``sections`` (heading text → lines).

    Other sections and the preamble are kept verbatim; a missing section is appended in the order
    given. Section names compare case-insensitively.
    """
    blocks = split_blocks(body)
    for name, lines in sections.items():
        key = f"2:{' '.join(name.lower().split())}"
        target = next((b for b in blocks if b.key == key), None)
        new_lines = [*lines, ""]
        if target is None:
            _ensure_gap(blocks)
            blocks.append(Block(f"## {name}", 2, new_lines))
        else:
            target.lines = new_lines
    text = join_blocks(blocks).rstrip("\n") + "\n"
    return text if text.startswith("\n") or not body.startswith("\n") else "\n" + text
