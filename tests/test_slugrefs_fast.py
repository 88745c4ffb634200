"""``iter_slug_refs`` skips the code-span and URL masks on lines that cannot hold them, and
``referenced_slugs`` builds no ``SlugRef`` per hit: both must give exactly what the plain
per-line masking gives (checked against that original loop, copied here, on generated Markdown)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.core.retrieval.slugrefs import (
    _URL_RE,
    SlugRef,
    _code_ranges,
    _mask,
    _url_spans,
    iter_lines,
    iter_slug_refs,
    referenced_slugs,
)

# The patterns as first written: the module's are rewritten to start with a literal (faster to find).
_REF_RE = re.compile(r"(?<![\w/#&\]])#((?>[a-z0-9]+(?:-[a-z0-9]+)*))(?![\w-]*[A-Za-z0-9_])")
_INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_HEADING_MARKER_RE = re.compile(r"^ {0,3}#{1,6}(?=\s|$)")  # the scan no longer masks it: it changes nothing


def _plain(text: str) -> list[SlugRef]:
    """The loop before the fast paths: every mask on every line holding a '#'."""
    found = []
    for line_no, line_start, line, in_code in iter_lines(text):
        if in_code or "#" not in line:
            continue
        masked = _HEADING_MARKER_RE.sub(_mask, _URL_RE.sub(_mask, _INLINE_CODE_RE.sub(_mask, line)))
        for match in _REF_RE.finditer(masked):
            if match.group(1).isdigit():
                continue
            if match.start() >= 2 and masked[match.start() - 2: match.start()] == "](":
                continue
            found.append(SlugRef(match.group(1), line_no, match.start() + 1, line_start + match.start(),
                                 line_start + match.end()))
    return found


PIECES = ["#a-b", "#x1", "#12", " ", "\n", "`", "``", "```\n", "~~~\n", "https://", "http://e.org/#frag",
          "www.", "www.x.org#a", "ftp:/", "://", "](#", "[t](#y)", "## ", "# h", "#", "-", "a", "Z", "&#", "/#b",
          "x#y", "é", "#über", "w", ".", "(", ")", "<", "#a-", "#ab_c", "  ```", "````\n", "   ~~~~", "    ```\n",
          "```py\n", "\r", "\n\n", "\t```\n", "x```\n", "~~~```\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_same_references_as_the_plain_masking(pieces: list[str]) -> None:
    text = "".join(pieces)
    refs = list(iter_slug_refs(text))
    assert refs == _plain(text)
    assert referenced_slugs(text) == list(dict.fromkeys(r.slug for r in refs))
    for ref in refs:
        assert text[ref.start:ref.end] == "#" + ref.slug


def test_urls_code_spans_and_headings_still_mask() -> None:
    text = "see #keep `#code` https://x.org/p#frag www.y.org#w WWW.z#up\n## #head\n[a](#anchor) #12 #end"
    assert referenced_slugs(text) == ["keep", "head", "end"]


URL_PIECES = ["://", "www.", "http", "h", "W", "ww", "w", ".", "+", "-", "9", "a" * 31, "b" * 32, "x" * 40, " ", "\t",
              "<", ">", "(", ")", "[", "]", "#", "é", ":", "/", "s:/", "ftp", "Z://", "1://", "\n", "`",
              "1a://", "+a://", "a1+://", "-://", "x" * 30 + "://", "x" * 31 + "://", "1" * 31 + "a://"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(URL_PIECES), max_size=30))
def test_url_spans_are_the_url_pattern_matches(pieces: list[str]) -> None:
    # _url_spans tries _URL_RE only where a match can start: it must find exactly what finditer finds.
    line = "".join(pieces)
    assert _url_spans(line) == [match.span() for match in _URL_RE.finditer(line)]


FENCE_PIECES = ["```", "````", "~~~", "~~~~", "``", "~~", "`", "~", " ", "  ", "   ", "    ", "\t", "x", "py", "\n",
                "\n", "\r"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(FENCE_PIECES), max_size=30))
def test_code_ranges_cover_exactly_the_fenced_lines(pieces: list[str]) -> None:
    """The fence runs are found by a literal search (not a line-start pattern tried everywhere):
    a line is inside a range exactly when ``iter_lines`` calls it code."""
    text = "".join(pieces)
    ranges = _code_ranges(text)
    for _line_no, start, _line, in_code in iter_lines(text):
        assert any(first <= start <= last for first, last in ranges) == in_code
