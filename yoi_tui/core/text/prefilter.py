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

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

_FIRST = itemgetter(0)


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


def _has(folded: str, required: str | tuple[str, ...]) -> bool:
    return required in folded if isinstance(required, str) else any(word in folded for word in required)


def maybe(folded: str, needles: Iterable[str], requires: Iterable[str | tuple[str, ...]] = ()) -> bool:
    """True when one of the lower-case ``needles`` (none given: no condition) and all of ``requires``
    occur in ``folded``; a tuple in ``requires`` asks for one of its words."""
    for required in requires:
        if not _has(folded, required):
            return False
    found = None
    for needle in needles:
        if needle in folded:
            return True
        found = False
    return found is None


class NeedlePlan:
    """``maybe`` for a whole table of scans at once: which entries a folded text admits.

    Testing each entry's needles with ``in`` reads a text once per absent needle (60 needles: 60
    reads of every record). The plan tests needles of one character with ``in`` (when present they
    are found at once) and finds the longer ones in one Aho-Corasick pass
    (``ahocorasick-rs``, overlapping matches, so every needle present is seen), then maps the set
    present to the entries it admits, in table order, memoised (texts share a few such sets).
    ``entries`` are ``(needles, requires)`` pairs with ``maybe``'s meaning.
    """

    def __init__(self, entries: Sequence[tuple[Sequence[str], Sequence[str | tuple[str, ...]]]]) -> None:
        self.entries = [(tuple(needles), tuple(requires)) for needles, requires in entries]
        self.always = [i for i, (needles, requires) in enumerate(self.entries) if not needles and not requires]
        every = sorted({n for needles, requires in self.entries
                        for n in (*needles, *(w for r in requires for w in ((r,) if isinstance(r, str) else r)))})
        # A one-character needle is found by memchr at once; every longer one by the automaton in
        # one pass (a two-character `in` reads the whole text when the pair is absent).
        self.short = [n for n in every if len(n) == 1]
        self.long = [n for n in every if len(n) > 1]
        self.memo: dict[frozenset[str], list[int]] = {}
        self.automaton: Any = None
        try:
            import ahocorasick_rs

            self.automaton = ahocorasick_rs.AhoCorasick(self.long) if self.long else None
        except ImportError:  # pragma: no cover - a platform without the wheel: substring tests
            pass

    def present(self, folded: str) -> frozenset[str]:
        """The needles that occur in ``folded``."""
        found = set(filter(folded.__contains__, self.short))  # loops in C: this runs for every record
        if self.automaton is not None:
            matches = self.automaton.find_matches_as_indexes(folded, overlapping=True)
            found.update(map(self.long.__getitem__, map(_FIRST, matches)))
        elif self.long:
            found.update(needle for needle in self.long if needle in folded)
        return frozenset(found)

    def candidates(self, folded: str) -> list[int]:
        """Indexes of the entries whose scan can match ``folded``, in table order."""
        return self.chosen(self.present(folded))

    def chosen(self, present: frozenset[str]) -> list[int]:
        """Indexes of the entries the needles ``present`` admit, in table order."""
        if not present:
            return self.always
        chosen = self.memo.get(present)
        if chosen is None:
            if len(self.memo) > 4096:
                self.memo.clear()
            chosen = self.memo[present] = [
                i for i, (needles, requires) in enumerate(self.entries)
                if all((r in present) if isinstance(r, str) else not present.isdisjoint(r) for r in requires)
                and (not needles or not present.isdisjoint(needles))]
        return chosen


class JointPlan:
    """The ``NeedlePlan``s of several tables answered from one pass over a text.

    The linter asks both the secret and the injection tables about every file: one plan over
    their entries folds the text once and runs one Aho-Corasick scan instead of two, and
    ``candidates`` gives each table's indexes as its own plan would (memoised per needle set).
    """

    def __init__(self, tables: Sequence[Sequence[tuple[Sequence[str], Sequence[str | tuple[str, ...]]]]]) -> None:
        self.bounds: list[tuple[int, int]] = []
        entries: list[tuple[Sequence[str], Sequence[str | tuple[str, ...]]]] = []
        for table in tables:
            self.bounds.append((len(entries), len(entries) + len(table)))
            entries.extend(table)
        self.plan = NeedlePlan(entries)
        self.memo: dict[frozenset[str], list[list[int]]] = {}

    def candidates(self, folded: str) -> list[list[int]]:
        """For each table, the indexes of its entries whose scan can match ``folded``."""
        present = self.plan.present(folded)
        split = self.memo.get(present)
        if split is None:
            if len(self.memo) > 4096:
                self.memo.clear()
            chosen = self.plan.chosen(present)
            split = self.memo[present] = [[i - low for i in chosen if low <= i < high] for low, high in self.bounds]
        return split
