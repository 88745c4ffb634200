"""Finding ``#slug`` references in Markdown: the one parser the linter, expansion and the app share.

A reference is ``#`` followed by a slug, not preceded by a word character, ``/``, ``#``, ``&`` or
``](`` (so URL fragments, ``##``, HTML entities and link anchors are not references). Fenced code
blocks, inline code spans, URLs and Markdown headings' ``#`` markers are not references either
(SPEC 4). Purely numeric ``#123`` reads as an issue number and is ignored.

The fenced-code walk is shared: ``iter_lines`` marks every line that belongs to a fenced code
block, ``iter_prose_lines`` yields the others; GC's path finder and Phase 2's block splitter use
them too, so all agree on what is code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Atomic groups and a bounded URL scheme keep every pattern linear in the line's length: a 300k-
# character line of letters made the unbounded scheme (and a backtracking slug) quadratic.
_REF_RE = re.compile(r"(?<![\w/#&\]])#((?>[a-z0-9]+(?:-[a-z0-9]+)*))(?![\w-]*[A-Za-z0-9_])")
_LINK_ANCHOR_RE = re.compile(r"\]\(#")
_URL_RE = re.compile(r"(?:[a-zA-Z][a-zA-Z0-9+.-]{0,31}://|www\.)[^\s<>()\[\]]+")
_INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING_MARKER_RE = re.compile(r"^ {0,3}#{1,6}(?=\s|$)")


@dataclass(frozen=True)
class SlugRef:
    """A ``#slug`` occurrence: 1-based line within the scanned text, 1-based column of ``#``."""

    slug: str
    line: int
    col: int
    start: int
    end: int


def _mask(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


def iter_lines(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Every line of ``text`` (split on ``\n``): ``(line_no, start, line, in_code)``.

    ``line_no`` is 1-based, ``start`` the offset of the line's first character in ``text``.
    ``in_code`` is True for the lines of a fenced code block, its opening and closing fence lines
    included: a fence is 3+ backticks or tildes after at most 3 spaces; the block closes at a fence
    of the same character at least as long, or runs to the end of the text.
    """
    fence: str | None = None
    offset = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        start = offset
        offset += len(line) + 1
        fence_match = _FENCE_RE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            yield line_no, start, line, True
        elif fence_match:
            fence = fence_match.group(1)
            yield line_no, start, line, True
        else:
            yield line_no, start, line, False


def iter_prose_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """The lines of ``text`` outside fenced code blocks: ``(line_no, start, line)`` as ``iter_lines``."""
    for line_no, start, line, in_code in iter_lines(text):
        if not in_code:
            yield line_no, start, line


def iter_slug_refs(text: str) -> Iterator[SlugRef]:
    """Every ``#slug`` reference in ``text`` in order (offsets index into ``text``)."""
    # ``iter_lines`` rather than ``iter_prose_lines``: one generator less in the linter's hot loop.
    for line_no, line_start, line, in_code in iter_lines(text):
        if in_code or "#" not in line:
            continue
        masked = _INLINE_CODE_RE.sub(_mask, line)
        masked = _URL_RE.sub(_mask, masked)
        masked = _HEADING_MARKER_RE.sub(_mask, masked)
        for match in _REF_RE.finditer(masked):
            slug = match.group(1)
            if slug.isdigit():
                continue
            if match.start() >= 2 and masked[match.start() - 2: match.start()] == "](":
                continue
            yield SlugRef(slug, line_no, match.start() + 1, line_start + match.start(), line_start + match.end())


def find_slug_refs(text: str) -> list[SlugRef]:
    return list(iter_slug_refs(text))


def referenced_slugs(text: str) -> list[str]:
    """Distinct referenced slugs in first-seen order."""
    seen: dict[str, None] = {}
    for ref in iter_slug_refs(text):
        seen.setdefault(ref.slug, None)
    return list(seen)
