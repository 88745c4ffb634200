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
# The "#" comes first and the look-behind after it (the same test: the character before the "#"),
# so ``re`` finds candidates by a literal search instead of trying the pattern at every position.
_REF_RE = re.compile(r"#(?<![\w/#&\]]#)((?>[a-z0-9]+(?:-[a-z0-9]+)*))(?![\w-]*[A-Za-z0-9_])")
_LINK_ANCHOR_RE = re.compile(r"\]\(#")
_URL_RE = re.compile(r"(?:[a-zA-Z][a-zA-Z0-9+.-]{0,31}://|www\.)[^\s<>()\[\]]+")
# The characters of a URL scheme in ``_URL_RE`` (it starts with a letter): ``_url_spans`` finds
# where a match through a "://" can start by stripping them.
_SCHEME_NON_LETTERS = "0123456789+.-"
_SCHEME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + _SCHEME_NON_LETTERS
_INLINE_CODE_RE = re.compile(r"(``*)(?:(?!\1).)+?\1")  # "``*", not "`+": a literal first (found by search)
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_LINE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


@dataclass(slots=True, frozen=True)
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


def _code_ranges(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` offsets of the fenced code blocks, fence lines included: ``iter_lines``'s
    ``in_code`` lines, found from the fence lines alone (most lines are never looked at)."""
    ranges: list[tuple[int, int]] = []
    fence: str | None = None
    opened = 0
    for match in _FENCE_LINE_RE.finditer(text):
        marker = match.group(1)
        if fence is None:
            fence, opened = marker, match.start()
        elif marker[0] == fence[0] and len(marker) >= len(fence):
            end = text.find("\n", match.start())
            ranges.append((opened, len(text) if end < 0 else end))
            fence = None
    if fence is not None:
        ranges.append((opened, len(text)))
    return ranges


def _iter_refs(text: str) -> list[tuple[str, int, int, int]]:
    """``(slug, line_no, start_in_line, line_start)`` of every reference: ``iter_slug_refs`` without
    building a ``SlugRef`` per hit (``referenced_slugs`` runs over every body in GC and lint).

    The masks are line-local (no code span or URL the patterns match holds a line break), so they
    are applied to the whole text at once, and the reference pattern — which starts with a literal
    "#" — runs over it once; matches on fenced-code lines are dropped. The same references as
    masking each line holding a "#" and scanning it (``tests/test_slugrefs_fast.py``), without a
    Python loop per line: a cold lint of 10,000 records looks at ~45,000 such lines.
    """
    found: list[tuple[str, int, int, int]] = []
    if "#" not in text:
        return found
    masked = text
    if "`" in masked:  # no backtick, no code span: the substitution would change nothing
        masked = _INLINE_CODE_RE.sub(_mask, masked)
    if "://" in masked or "www." in masked:  # every URL the pattern matches holds one of these
        cut = 0
        parts: list[str] = []
        for start, end in _url_spans(masked):
            parts += (masked[cut:start], " " * (end - start))
            cut = end
        if parts:
            masked = "".join(parts) + masked[cut:]
    # A heading's "#" marker is followed by a space or the line's end: it never starts a reference,
    # and blanking it changes no other match (the character after it is not one the pattern looks
    # at), so headings need no mask of their own.
    code = _code_ranges(text) if ("```" in text or "~~~" in text) else []
    block = 0
    line_no, counted = 1, 0
    for match in _REF_RE.finditer(masked):
        slug = match.group(1)
        if slug.isdigit():
            continue
        start = match.start()
        if masked[start - 2: start] == "](" and start >= 2:  # a link anchor (never across a line break)
            continue
        line_start = masked.rfind("\n", 0, start) + 1
        if code:
            while block < len(code) and code[block][1] < line_start:
                block += 1
            if block < len(code) and code[block][0] <= line_start:
                continue  # a line of a fenced code block
        line_no += masked.count("\n", counted, line_start)
        counted = line_start
        found.append((slug, line_no, start - line_start, line_start))
    return found


def _url_spans(line: str) -> list[tuple[int, int]]:
    """``[m.span() for m in _URL_RE.finditer(line)]``, trying the pattern only where a match can start.

    ``_URL_RE`` has no literal to look for first, so ``finditer`` tries it at every position (a
    third of the ``#slug`` scan of a cold lint). A match starts either at a "www." or at a letter
    followed by at most 31 scheme characters up to a "://" (":" is not one, so that "://" is where
    the run of scheme characters ends): for the next "://" the leftmost such letter is the first
    letter of the run of scheme characters (at most 32) before it, and the pattern itself decides at the earlier of the two candidates — as
    ``finditer`` would, resuming after a match or one position after a failed start.
    """
    spans: list[tuple[int, int]] = []
    pos, length = 0, len(line)
    www, first_scheme = line.find("www."), line.find("://", 1)  # each searched again only once passed
    while pos < length:
        if 0 <= www < pos:
            www = line.find("www.", pos)
        if 0 <= first_scheme <= pos:
            first_scheme = line.find("://", pos + 1)
        start, scheme = www, first_scheme
        while scheme >= 0 and (start < 0 or scheme - 32 < start):
            # The run of scheme characters ending at this "://" (within 32), from its first letter.
            head = line[max(pos, scheme - 32):scheme]
            tail = head[len(head.rstrip(_SCHEME_CHARS)):].lstrip(_SCHEME_NON_LETTERS)
            if tail:
                if start < 0 or scheme - len(tail) < start:
                    start = scheme - len(tail)
                break
            scheme = line.find("://", scheme + 1)
        if start < 0:
            break
        match = _URL_RE.match(line, start)
        if match is None:
            pos = start + 1
            continue
        spans.append(match.span())
        pos = match.end()
    return spans


def iter_slug_refs(text: str) -> Iterator[SlugRef]:
    """Every ``#slug`` reference in ``text`` in order (offsets index into ``text``)."""
    for slug, line_no, start, line_start in _iter_refs(text):
        yield SlugRef(slug, line_no, start + 1, line_start + start, line_start + start + 1 + len(slug))


def iter_ref_positions(text: str) -> list[tuple[str, int, int, int]]:
    """``(slug, line_no, start_in_line, line_start)`` of every reference, as ``iter_slug_refs``
    finds them (its ``col`` is ``start_in_line + 1``), without an object per reference."""
    return _iter_refs(text)


def find_slug_refs(text: str) -> list[SlugRef]:
    return list(iter_slug_refs(text))


def referenced_slugs(text: str) -> list[str]:
    """Distinct referenced slugs in first-seen order."""
    if "#" not in text:
        return []
    return list(dict.fromkeys(slug for slug, _line, _start, _line_start in _iter_refs(text)))
