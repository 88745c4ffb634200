"""Near-duplicate slugs (``similar-slugs``, GC merges) by blocking: the same pairs as comparing all.

``fuzz.ratio(a, b) = 100·(1 − d/(|a|+|b|))`` where ``d`` is the Indel distance (insertions and
deletions). A pair reaches ``ratio`` only if ``d ≤ ⌊(100 − ratio)(|a|+|b|)/100⌋``, and as
``d = |a| + |b| − 2·LCS(a, b)`` has the parity of ``|a| + |b|``, only if ``d ≤ τ``, that bound
lowered to this parity (``reachable_distance``). Comparing every pair grew with the square of the
slugs (18.9 s for 30,000 decisions); this finds a superset of the qualifying pairs through an index
and lets rapidfuzz decide each one, so the result is identical (``tests/test_lint_similar.py``
checks it against the all-pairs loop).

The blocking is the pigeonhole argument of PassJoin. Each slug ``r`` of length ``L`` is cut into
disjoint non-empty segments, at least ``τ + 1`` for every shorter-or-equal length it can pair with;
a slug ``s`` of length ``ℓ ≤ L`` looks at the first ``τ + 1`` (``τ`` of the pair of lengths). Take
an optimal alignment turning ``r`` into ``s`` (``d ≤ τ`` edits) and charge each edit to a segment:
a deletion to the segment of the deleted character, an insertion to the segment of the character
it goes in front of (the segments after the first ``τ + 1``, and the end, count as one tail). A
segment charged nothing occurs unchanged in ``s``, moved by ``shift`` = insertions minus deletions
charged before it; ``Δ − shift`` (``Δ = ℓ − L``) is made up by the edits after it. With ``e_k`` the
edits charged to segment ``k`` and ``h(k) = e_0 + … + e_{k−1} − k``: ``h(0) = 0``,
``h(τ+1) ≤ τ − (τ+1) < 0``, and ``h(k+1) − h(k) = e_k − 1`` goes down only by exactly 1 and only
where ``e_k = 0``. So some segment ``k`` is untouched with exactly ``k`` edits before it and at most
``τ − k`` after it: ``|shift| ≤ k``, ``|Δ − shift| ≤ τ − k`` (PassJoin's multi-match-aware window),
and ``shift ≡ k (mod 2)`` (insertions minus deletions has the parity of insertions plus deletions).
So segment ``k`` is probed at ``start + shift`` for those shifts: the first at one position, the
``τ+1``-st at one, the middle ones at a few. A length whose segments would be shorter than two
characters on average (low ratios, short slugs) is not cut: its slugs are candidates of every
shorter-or-equal slug they can pair with (rapidfuzz compares those faster than one-letter segments
would find them).

Speed (same result): how a length is cut does not matter to the argument, so the lengths with many
slugs are cut where a sample of their slugs collides least (``_cut``: slugs share leading words,
and a longer first segment, probed at one position, filters best). The slugs are visited from the
last in ``(length, slug)`` order and enter the index after probing it, so a slug meets exactly the
slugs after it: each pair once, never itself. Per slug length the probes are a fixed plan (the
substrings to cut, the table each probe looks in), run by ``map``/``itemgetter`` in C, and one
``process.extract`` decides all candidates of a slug (a partner matched by several segments is
listed once per match; its pair is kept once).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from operator import itemgetter, mul

from rapidfuzz import fuzz, process

# A length with at least this many slugs gets its segments laid out from a sample of this many
# (about half a millisecond a length; with fewer slugs the candidates it saves cost less).
_CUT_MIN_GROUP = 200
_CUT_SAMPLE = 48

_Table = dict[str, list[str]]  # segment text -> the indexed slugs holding it there
# the probes of one slug length: the substrings to cut, the gather giving each probe's substring,
# the table each probe looks in, and the lists of indexed slugs that are all candidates
_Plan = tuple[list[slice], Callable[[list[str]], tuple[str, ...]], list[_Table], list[list[str]]]


def max_distance(length_a: int, length_b: int, ratio: float) -> int:
    """The largest Indel distance at which two slugs of these lengths still reach ``ratio``."""
    return int((100 - ratio) * (length_a + length_b) / 100 + 1e-9)


def reachable_distance(length_a: int, length_b: int, ratio: float) -> int:
    """``max_distance`` lowered to the parity of ``length_a + length_b`` (−1: no pair reaches it).

    The Indel distance is ``|a| + |b| − 2·LCS(a, b)``: it has the parity of ``|a| + |b|``.
    """
    tau = max_distance(length_a, length_b, ratio)
    return tau - (tau + length_a + length_b) % 2


def longest_partner(length: int, ratio: float) -> int:
    """The longest slug that can reach ``ratio`` against one of ``length`` characters (with a margin).

    The Indel distance is at least ||a|−|b||, so a pair reaches ``ratio`` only if the longer is at
    most (200 − ratio)/ratio times the shorter.
    """
    if ratio <= 0:
        return sys.maxsize
    return int(length * (200 - ratio) / ratio) + 1


def _segments(length: int, parts: int) -> list[tuple[int, int]] | None:
    """``(start, size)`` of ``parts`` near-equal segments of a string (None: some would be empty)."""
    if parts > length:
        return None
    base, extra = divmod(length, parts)
    out: list[tuple[int, int]] = []
    start = 0
    for number in range(parts):
        size = base + (1 if number >= parts - extra else 0)
        out.append((start, size))
        start += size
    return out


def _cut(length: int, group: Sequence[str], parts: int) -> list[tuple[int, int]] | None:
    """``(start, size)`` of ``parts`` segments covering the slugs ``group`` of ``length`` (None: some
    would be empty).

    Any cut into non-empty segments keeps the blocking exact; the cut only decides how many
    candidates the probes find. A length with many slugs gets, by dynamic programming over segment
    ends, the cut with the fewest estimated hits: per segment the pairs of a sample that share its
    text (plus a pseudo-count, ``m²·8^−size``, for what a sample of ``m`` is too small to see), times
    the positions segment ``k`` of ``τ+1`` is probed at, about ``min(k, τ−k) + 1``. The first segment
    may grow to twice the even size, the others are the even size give or take one character; the
    even cut stays unless the chosen one is clearly better on the sample.
    """
    even = _segments(length, parts)
    if even is None or parts == 1 or len(group) < _CUT_MIN_GROUP:
        return even
    sample = group[::max(1, len(group) // _CUT_SAMPLE)][:_CUT_SAMPLE]
    size_of_sample = len(sample)
    tau = parts - 1
    base = length // parts
    first_sizes = range(base, 2 * base + 3)
    sizes = range(max(1, base - 1), base + 2)
    shared: dict[tuple[int, int], float] = {}

    def cost(start: int, size: int, number: int) -> float:
        pairs = shared.get((start, size))
        if pairs is None:
            counts = Counter(map(itemgetter(slice(start, start + size)), sample)).values()
            pairs = shared[start, size] = (sum(map(mul, counts, counts)) - size_of_sample) / 2 \
                + size_of_sample ** 2 / 8 ** size
        return pairs * (min(number, tau - number) + 1)

    best: dict[int, float] = {0: 0.0}  # end of the segments placed so far -> their least cost
    came_from: list[dict[int, int]] = []  # per segment: its end -> its start in that least-cost cut
    for number in range(parts):
        left = tau - number  # segments still to place after this one
        following: dict[int, float] = {}
        starts: dict[int, int] = {}
        for start, spent in best.items():
            for size in (first_sizes if number == 0 else sizes):
                end = start + size
                if not left * sizes.start <= length - end <= left * sizes[-1]:
                    continue
                total = spent + cost(start, size, number)
                if total < following.get(end, float("inf")):
                    following[end] = total
                    starts[end] = start
        best = following
        came_from.append(starts)
    chosen: list[tuple[int, int]] = []
    end = length
    for starts in reversed(came_from):
        chosen.append((starts[end], end - starts[end]))
        end = starts[end]
    chosen.reverse()
    even_cost = sum(cost(start, size, number) for number, (start, size) in enumerate(even))
    return chosen if even_cost - best[length] > max(even_cost / 4, size_of_sample / 4) else even


def similar_slug_pairs(slugs: Iterable[str], ratio: float) -> Iterator[tuple[str, str, float]]:
    """Near-duplicate pairs ``(a, b, score)`` among ``slugs`` (score ≥ ratio), each once with a <= b.

    A slug listed twice pairs with itself (score 100), and its pairs come once per copy, as the
    all-pairs comparison gives them.
    """
    counts = Counter(slugs)
    for slug, count in sorted(counts.items()):
        if count > 1 and fuzz.ratio(slug, slug) >= ratio:
            for _ in range(count * (count - 1) // 2):
                yield slug, slug, float(fuzz.ratio(slug, slug))
    for first, second, score in _unique_pairs(list(counts), ratio):
        for _ in range(counts[first] * counts[second]):
            yield first, second, score


def _unique_pairs(slugs: list[str], ratio: float) -> Iterator[tuple[str, str, float]]:
    if ratio <= 0:  # every pair qualifies: nothing to block on
        ordered = sorted(set(slugs), key=lambda slug: (len(slug), slug))
        for position, slug in enumerate(ordered):
            for other in ordered[position + 1:]:
                yield (slug, other, float(fuzz.ratio(slug, other))) if slug <= other else \
                    (other, slug, float(fuzz.ratio(slug, other)))
        return
    # Last first: a slug probes the index before entering it, so it meets the slugs after it in
    # (length, slug) order, each pair from its smaller side.
    ordered = sorted(set(slugs), key=lambda slug: (len(slug), slug), reverse=True)
    by_length: dict[int, list[str]] = {}
    for slug in ordered:
        by_length.setdefault(len(slug), []).append(slug)
    # length -> its segments (start, size, table) or None (not cut); and the slugs entered so far
    index: dict[int, list[tuple[int, int, _Table]] | None] = {}
    entered: dict[int, list[str]] = {}
    for length, group in by_length.items():
        # segments enough for every shorter-or-equal partner (one further off is over the bound)
        parts = 1 + max(reachable_distance(other, length, ratio)
                        for other in range(max(0, length - max_distance(length, length, ratio)), length + 1))
        # segments of one character match nearly every slug (low ratios): such a length is not cut
        cut = _cut(length, group, parts) if 2 * parts <= length else None
        index[length] = None if cut is None else [(start, size, {}) for start, size in cut]
        entered[length] = []
    plans: dict[int, _Plan] = {}
    get = dict.get
    for slug in ordered:
        own = len(slug)
        plan = plans.get(own)
        if plan is None:
            plan = plans[own] = _plan(own, ratio, index, entered)
        cuts, gather, tables, whole = plan
        # each substring cut once (probes of several partner lengths share it), each probe's hits
        hits = filter(None, map(get, tables, gather(list(map(slug.__getitem__, cuts)))))
        candidates = list(chain.from_iterable(chain(hits, whole)))
        if candidates:
            found = process.extract(slug, candidates, scorer=fuzz.ratio, score_cutoff=ratio, limit=None)
            if found:
                kept: set[str] = set()
                for other, score, _ in found:
                    if other not in kept:  # a partner matched by several segments comes once per match
                        kept.add(other)
                        yield (slug, other, float(score)) if slug <= other else (other, slug, float(score))
        segments = index[own]
        if segments is not None:
            for start, size, table in segments:
                table.setdefault(slug[start:start + size], []).append(slug)
        entered[own].append(slug)


def _plan(own: int, ratio: float, index: dict[int, list[tuple[int, int, _Table]] | None],
          entered: dict[int, list[str]]) -> _Plan:
    """The probes of a slug of length ``own`` into the index (``_Plan``)."""
    probes: list[tuple[int, int]] = []  # (position, size) of each probe's substring
    tables: list[_Table] = []
    whole: list[list[str]] = []
    for length in range(own, longest_partner(own, ratio) + 1):
        if length not in index:
            continue
        tau = reachable_distance(own, length, ratio)
        delta = own - length
        if -delta > tau:
            continue
        segments = index[length]
        if segments is None:
            whole.append(entered[length])
            continue
        for number, (start, size, table) in enumerate(segments[:tau + 1]):
            # the untouched segment `number` of the module docstring: |shift| <= number,
            # |delta - shift| <= tau - number, shift ≡ number (mod 2), inside the slug
            low = max(-number, delta - (tau - number))
            high = min(number, delta + (tau - number))
            for shift in range(low + (low - number) % 2, high + 1, 2):
                if 0 <= start + shift <= own - size:
                    probes.append((start + shift, size))
                    tables.append(table)
    distinct = sorted(set(probes))
    where = {probe: number for number, probe in enumerate(distinct)}
    gather = _gatherer([where[probe] for probe in probes])
    return [slice(position, position + size) for position, size in distinct], gather, tables, whole


def _gatherer(picks: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """``pieces -> tuple(pieces[pick] for pick in picks)``, by ``itemgetter`` (in C) when it can."""
    if len(picks) > 1:
        return itemgetter(*picks)
    fixed = tuple(picks)  # itemgetter of one index gives the item, not a tuple; of none, nothing
    return lambda pieces: tuple(pieces[pick] for pick in fixed)
