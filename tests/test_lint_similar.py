"""similar-slugs by blocking (issue 15): exactly the pairs the all-pairs comparison finds."""

from __future__ import annotations

import random
from collections.abc import Callable
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from yoi_tui.core.lint import similar
from yoi_tui.core.lint.similar import similar_slug_pairs


def all_pairs(slugs: list[str], ratio: float) -> list[tuple[str, str, float]]:
    """The reference: every pair compared (a slug listed twice pairs with itself)."""
    ordered = sorted(slugs)
    out = []
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            score = fuzz.ratio(a, b)
            if score >= ratio:
                out.append((a, b, float(score)))
    return sorted(out)


_slug = st.from_regex(r"[a-d][a-d\-]{0,30}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(base=st.lists(_slug, min_size=1, max_size=25), edits=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 40),
                                                                             st.sampled_from("abcd-x")), max_size=30),
       ratio=st.sampled_from([0.0, 50.0, 70.0, 85.0, 90.0, 93.5, 97.0, 100.0]))
def test_blocking_finds_exactly_the_all_pairs_result(base: list[str], edits: list[tuple[int, int, str]],
                                                    ratio: float) -> None:
    slugs = list(base)
    for which, at, char in edits:  # near-duplicates: a few insertions into copies of the base slugs
        source = base[which % len(base)]
        slugs.append(source[:at] + char + source[at:])
    assert sorted(similar_slug_pairs(slugs, ratio)) == all_pairs(slugs, ratio)


def test_realistic_slugs() -> None:
    words = ["cache", "redis", "drop", "adopt", "queue", "worker", "retry", "policy", "token", "budget"]
    slugs = [f"{a}-{b}-{c}" for a in words for b in words for c in words[:4]]
    slugs += ["drop-redis-caches", "adopt-queue-workers", "retry-polcy-token", "cache-redis-dro"]
    for ratio in (85.0, 90.0, 95.0):
        assert sorted(similar_slug_pairs(slugs, ratio)) == all_pairs(slugs, ratio)


_edit = st.tuples(st.sampled_from("id"), st.integers(0, 60), st.sampled_from("abcd-"))


@settings(max_examples=300, deadline=None)
@given(base=st.lists(st.from_regex(r"[a-c][a-c\-]{4,34}", fullmatch=True), min_size=1, max_size=12),
       copies=st.lists(st.tuples(st.integers(0, 11), st.lists(_edit, max_size=5)), max_size=20),
       ratio=st.sampled_from([75.0, 80.0, 85.0, 88.0, 90.0, 92.5, 95.0]))
def test_blocking_finds_pairs_several_insertions_and_deletions_apart(
        base: list[str], copies: list[tuple[int, list[tuple[str, int, str]]]], ratio: float) -> None:
    slugs = list(base)
    for which, edits in copies:  # edits anywhere, before and after each segment of the partner
        text = base[which % len(base)]
        for op, at, char in edits:
            at %= len(text) + 1
            text = text[:at] + char + text[at:] if op == "i" or len(text) < 2 else text[:at] + text[at + 1:]
        slugs.append(text)
    assert sorted(similar_slug_pairs(slugs, ratio)) == all_pairs(slugs, ratio)


def fast_all_pairs(slugs: list[str], ratio: float) -> list[tuple[str, str, float]]:
    """The same reference for thousands of slugs: every pair compared, by rapidfuzz in C."""
    ordered = sorted(slugs)
    out = []
    for i, a in enumerate(ordered):
        for b, score, _ in process.extract(a, ordered[i + 1:], scorer=fuzz.ratio, score_cutoff=ratio, limit=None):
            out.append((a, b, float(score)))
    return sorted(out)


_RATIOS = [50.0, 60.0, 66.7, 75.0, 80.0, 85.0, 88.0, 90.0, 92.5, 95.0, 97.0, 99.0, 100.0]
# insertions, deletions and substitutions (two Indel edits) anywhere; a copy without edits is a duplicate
_any_edit = st.tuples(st.sampled_from("ids"), st.integers(0, 80), st.sampled_from("ab-x"))
_copies = st.lists(st.tuples(st.integers(0, 11), st.lists(_any_edit, max_size=6)), max_size=25)


def _edited(base: list[str], copies: list[tuple[int, list[tuple[str, int, str]]]]) -> list[str]:
    slugs = list(base)
    for which, edits in copies:
        text = base[which % len(base)]
        for op, at, char in edits:
            at %= len(text) + 1
            if op == "i" or not text:
                text = text[:at] + char + text[at:]
            else:
                at = min(at, len(text) - 1)
                text = text[:at] + (char if op == "s" else "") + text[at + 1:]
        slugs.append(text)
    return slugs


def _random_cut(seed: int) -> Callable[[int, object, int], list[tuple[int, int]] | None]:
    """Cuts into `parts` non-empty segments at random ends: the blocking must be exact for any cut."""
    rng = random.Random(seed)

    def cut(length: int, group: object, parts: int) -> list[tuple[int, int]] | None:
        if parts > length:
            return None
        ends = [*sorted(rng.sample(range(1, length), parts - 1)), length]
        return [(start, end - start) for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    return cut


@settings(max_examples=500, deadline=None)
@given(base=st.lists(st.from_regex(r"[ab\-]{0,44}", fullmatch=True), min_size=1, max_size=12), copies=_copies,
       ratio=st.sampled_from(_RATIOS), seed=st.integers(0, 2 ** 32 - 1))
def test_blocking_is_exact_for_any_cut_of_the_slugs(base: list[str], copies: list[tuple[int, list[tuple[str, int, str]]]],
                                                     ratio: float, seed: int) -> None:
    # Awkward lengths (0 to ~50, odd and even: the windows use the parity of the lengths), a
    # two-letter alphabet (segments collide), duplicates, and the segments laid out anywhere.
    slugs = _edited(base, copies)
    with mock.patch.object(similar, "_cut", _random_cut(seed)):
        assert sorted(similar_slug_pairs(slugs, ratio)) == all_pairs(slugs, ratio)


@settings(max_examples=300, deadline=None)
@given(base=st.lists(st.from_regex(r"[abc][abc\-]{2,36}", fullmatch=True), min_size=1, max_size=12), copies=_copies,
       ratio=st.sampled_from(_RATIOS), sample=st.sampled_from([2, 5, 48]))
def test_chosen_cuts_find_exactly_the_all_pairs_result(base: list[str], copies: list[tuple[int, list[tuple[str, int, str]]]],
                                                       ratio: float, sample: int) -> None:
    # _cut lays out every length (not only those with hundreds of slugs) from a sample
    slugs = _edited(base, copies)
    with mock.patch.object(similar, "_CUT_MIN_GROUP", 1), mock.patch.object(similar, "_CUT_SAMPLE", sample):
        assert sorted(similar_slug_pairs(slugs, ratio)) == all_pairs(slugs, ratio)


@settings(max_examples=300, deadline=None)
@given(group=st.lists(st.from_regex(r"[ab\-]{30}", fullmatch=True), min_size=1, max_size=60),
       parts=st.integers(1, 31), sample=st.sampled_from([1, 3, 48]))
def test_cut_is_a_cut(group: list[str], parts: int, sample: int) -> None:
    with mock.patch.object(similar, "_CUT_MIN_GROUP", 1), mock.patch.object(similar, "_CUT_SAMPLE", sample):
        cut = similar._cut(30, sorted(group), parts)
    if parts > 30:
        assert cut is None
        return
    assert cut is not None and len(cut) == parts
    assert all(size >= 1 for _, size in cut)
    assert [start for start, _ in cut] == [sum(size for _, size in cut[:number]) for number in range(parts)]
    assert sum(size for _, size in cut) == 30


def test_thousands_of_slugs_from_few_words() -> None:
    # The shape of real decision slugs: a verb from a short list, then nouns; segments of a few
    # letters match hundreds of slugs, and lengths with hundreds of slugs get a chosen cut.
    rng = random.Random(15)
    verbs = ["use", "adopt", "drop", "keep", "move", "split", "defer", "pin", "avoid", "prefer"]
    nouns = ["cache", "redis", "queue", "worker", "retry", "policy", "token", "budget", "schema", "index",
             "socket", "tracer", "logger", "bundle", "widget", "mirror", "ledger", "cursor", "parser", "shard"]
    slugs = sorted({"-".join([rng.choice(verbs), *rng.sample(nouns, rng.choice([2, 3]))]) for _ in range(3000)})
    for slug in slugs[::40]:  # near-duplicates: a plural, a dropped letter, a letter doubled, two swapped
        at = rng.randrange(1, len(slug) - 1)
        slugs += [slug + "s", slug[:at] + slug[at + 1:], slug[:at] + slug[at] + slug[at:],
                  slug[:at - 1] + slug[at] + slug[at - 1] + slug[at + 1:]]
    lengths: dict[int, list[str]] = {}
    for slug in slugs:
        lengths.setdefault(len(slug), []).append(slug)
    crowded = max(lengths.values(), key=len)
    assert len(crowded) >= similar._CUT_MIN_GROUP
    parts = similar.max_distance(len(crowded[0]), len(crowded[0]), 90.0) + 1
    assert similar._cut(len(crowded[0]), sorted(crowded), parts) != similar._segments(len(crowded[0]), parts)
    for ratio in (80.0, 85.0, 90.0, 95.0):
        assert sorted(similar_slug_pairs(slugs, ratio)) == fast_all_pairs(slugs, ratio)
