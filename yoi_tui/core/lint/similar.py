"""Near-duplicate slugs (``similar-slugs``, GC merges) by blocking: the same pairs as comparing all.

``fuzz.ratio(a, b) = 100·(1 − d/(|a|+|b|))`` where ``d`` is the Indel distance (insertions and
deletions). A pair reaches ``ratio`` only if ``d ≤ τ = ⌊(100 − ratio)(|a|+|b|)/100⌋``. Comparing
every pair grew with the square of the slugs (18.9 s for 30,000 decisions); this finds a superset
of the qualifying pairs through an index and lets rapidfuzz decide each one, so the result is
identical (``tests/test_lint_similar.py`` checks it against the all-pairs loop).

The blocking is the pigeonhole argument of PassJoin: cut each slug ``s`` of length ``L`` into
``τ_L + 1`` segments, ``τ_L`` the largest distance any shorter-or-equal partner may have. If
``d(r, s) ≤ τ`` then at most ``τ`` segments are touched by an edit, so one of any ``τ + 1``
segments occurs unchanged in ``r``, shifted by ``shift`` with ``|shift| + |Δ − shift| ≤ τ``
(``Δ = |r| − L``: edits before the segment move it, edits after it make up the rest of the length
difference). Taking the *first* intact segment ``i`` of the first ``τ+1``, the ``i−1`` before it each
hold an edit, so at most ``τ−i+1`` edits follow it and ``|Δ − shift| ≤ τ−i+1`` (PassJoin's
multi-match-aware bound, its right half): later segments get narrower windows. Each slug probes,
for each partner length, those few substrings of itself in a dict.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from rapidfuzz import fuzz, process


def max_distance(length_a: int, length_b: int, ratio: float) -> int:
    """The largest Indel distance at which two slugs of these lengths still reach ``ratio``."""
    return int((100 - ratio) * (length_a + length_b) / 100 + 1e-9)


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
    ordered = sorted(set(slugs), key=lambda slug: (len(slug), slug))
    if ratio <= 0:  # every pair qualifies: nothing to block on
        for position, slug in enumerate(ordered):
            for other in ordered[position + 1:]:
                yield (slug, other, float(fuzz.ratio(slug, other))) if slug <= other else \
                    (other, slug, float(fuzz.ratio(slug, other)))
        return
    by_length: dict[int, list[str]] = defaultdict(list)
    for slug in ordered:
        by_length[len(slug)].append(slug)
    # length -> one table per segment: segment text -> the slugs of that length holding it there
    index: dict[int, list[tuple[int, int, dict[str, list[str]]]] | None] = {}
    for length, group in by_length.items():
        segments = _segments(length, max_distance(length, length, ratio) + 1)
        if segments is None:
            index[length] = None
            continue
        tables: list[tuple[int, int, dict[str, list[str]]]] = []
        for start, size in segments:
            table: dict[str, list[str]] = defaultdict(list)
            for slug in group:
                table[slug[start:start + size]].append(slug)
            tables.append((start, size, dict(table)))
        index[length] = tables
    for slug in ordered:
        own = len(slug)
        pieces: dict[int, list[str]] = {}  # size -> every substring of that size, by start (built once per slug)
        for length in range(own, longest_partner(own, ratio) + 1):
            group = by_length.get(length)
            if not group:
                continue
            tau = max_distance(own, length, ratio)
            if length - own > tau:
                continue
            tables = index[length]
            if tables is None:
                candidates = set(group)
            else:
                candidates = set()
                half = (tau - (length - own)) // 2
                delta = own - length
                for number, (start, size, table) in enumerate(tables[:tau + 1]):
                    # Position-aware (|shift| + |delta - shift| <= tau), and the first intact segment's
                    # bound: the `number` segments before it each hold an edit, so at most
                    # tau - number edits follow it and its shift is within that of delta.
                    low = max(0, start + delta - half, start + delta - (tau - number))
                    high = min(own - size, start + half, start + delta + (tau - number))
                    if low > high:
                        continue
                    # The probes of one segment in one go: a slice of the slug's substrings of that
                    # size, shared by every partner length (map runs the lookups in a C-level loop).
                    sized = pieces.get(size)
                    if sized is None:
                        sized = pieces[size] = [slug[pos:pos + size] for pos in range(own - size + 1)]
                    for hit in map(table.get, sized[low:high + 1]):
                        if hit:
                            candidates.update(hit)
            if length == own:  # each pair once: from its smaller side
                candidates = {other for other in candidates if other > slug}
            if not candidates:
                continue
            # rapidfuzz decides every candidate, in C
            for other, score, _ in process.extract(slug, list(candidates), scorer=fuzz.ratio, score_cutoff=ratio,
                                                   limit=None):
                yield (slug, other, float(score)) if slug <= other else (other, slug, float(score))
