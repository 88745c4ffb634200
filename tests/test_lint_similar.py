"""similar-slugs by blocking (issue 15): exactly the pairs the all-pairs comparison finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

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


@settings(max_examples=200, deadline=None)
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
