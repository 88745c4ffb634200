"""Cheap literal prefilters for the regex scans that run over every record and every log line.

The secret and prompt-injection patterns are unanchored regexes with look-behinds: Python's ``re``
tries them at every position of the text, which made them most of the cost of linting a workspace.
Each such pattern can only match text that contains one of a few literal words (``password``,
``sk-``, ``ignore`` ...). ``fold(text)`` lower-cases the text once; ``maybe(folded, needles)`` is a
plain substring test (a C ``memchr``-speed scan) that says whether the regex can match at all.

The prefilter must never skip a text the regex would match (results stay identical, only faster).
Under ``re.IGNORECASE`` an ASCII letter also matches a few non-ASCII characters: ``ı`` (dotless i)
and ``ſ`` (long s) through their upper case, ``K`` (Kelvin sign) and ``İ`` through their lower
case. For non-ASCII text ``fold`` therefore appends a second folding (upper-cased, then
lower-cased, combining dot above dropped) in which those characters become their ASCII letters.
``tests/test_prefilter.py`` checks this against ``re`` for every Unicode code point.
"""

from __future__ import annotations

from collections.abc import Iterable


def fold(text: str) -> str:
    """A lower-case form of ``text`` in which every needle an IGNORECASE regex could match occurs."""
    low = text.lower()
    if text.isascii():
        return low
    return low + "\n" + text.upper().lower().replace("\u0307", "")


def maybe(folded: str, needles: Iterable[str]) -> bool:
    """True when one of the lower-case ``needles`` occurs in ``folded`` (no needles: always true)."""
    needles = tuple(needles)
    return not needles or any(needle in folded for needle in needles)
