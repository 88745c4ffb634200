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


# The characters an IGNORECASE pattern matches to an ASCII letter (and İ, whose lower case is two
# characters long): without them, ``text.lower()`` has the text's positions and its ASCII letters.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def unfolds_exactly(text: str) -> bool:
    """True when ``text.lower()`` keeps every position and an IGNORECASE match of ASCII needles in
    ``text`` is exactly a plain match of them in ``text.lower()``."""
    return text.isascii() or not any(char in text for char in _FOLDS_TO_ASCII)


def maybe(folded: str, needles: Iterable[str], requires: Iterable[str] = ()) -> bool:
    """True when one of the lower-case ``needles`` (none given: no condition) and all of ``requires``
    occur in ``folded``."""
    for needle in requires:
        if needle not in folded:
            return False
    found = None
    for needle in needles:
        if needle in folded:
            return True
        found = False
    return found is None
