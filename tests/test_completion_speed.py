"""``#`` completion at scale (issue 15): candidates kept until the store changes, ranking in C.

``rank_slugs`` must rank exactly as the straightforward per-slug loop it replaced (kept here as the
reference), over random slugs, descriptions and queries.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from support import knowledge_meta, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.model.browse import RecordStore, SlugCandidates, SlugMatch, _subsequence, rank_slugs


def reference_rank(query: str, candidates: list[tuple[str, str]], limit: int = 50) -> list[SlugMatch]:
    """The ranking as first written: one Python pass per slug."""
    query = query.lower()
    if not query:
        return [SlugMatch(slug, desc, 0.0) for slug, desc in candidates[:limit]]
    matches: list[SlugMatch] = []
    for slug, desc in candidates:
        found = slug.find(query)
        if found == 0:
            score, positions = 300.0 - len(slug) / 100, tuple(range(len(query)))
        elif found > 0:
            bonus = 20.0 if slug[found - 1] == "-" else 0.0
            score, positions = 250.0 + bonus - len(slug) / 100, tuple(range(found, found + len(query)))
        elif (subsequence := _subsequence(query, slug)) is not None:
            score, positions = 200.0 - (subsequence[-1] - subsequence[0]), subsequence
        else:
            ratio = fuzz.partial_ratio(query, slug)
            if ratio >= 70:
                score, positions = 100.0 + ratio / 2, ()
            elif len(query) >= 3 and query in desc.lower():
                score, positions = 90.0, ()
            else:
                continue
        matches.append(SlugMatch(slug, desc, score, positions))
    matches.sort(key=lambda m: (-m.score, m.slug))
    return matches[:limit]


_slug = st.from_regex(r"[abcr][a-c\-r]{0,14}", fullmatch=True)
_desc = st.text(alphabet="abcABC r-.", max_size=20)


@settings(max_examples=300, deadline=None)
@given(pool=st.dictionaries(_slug, _desc, max_size=40),
       query=st.text(alphabet="abcrAB-.\n ", max_size=5), limit=st.integers(1, 60))
def test_rank_slugs_ranks_exactly_as_the_reference(pool: dict[str, str], query: str, limit: int) -> None:
    candidates = sorted(pool.items())
    assert rank_slugs(query, candidates, limit=limit) == reference_rank(query, candidates, limit)
    prepared = SlugCandidates(candidates)
    prepared.prepared()
    assert rank_slugs(query, prepared, limit=limit) == reference_rank(query, candidates, limit)


_wide_slug = st.from_regex(r"[a-z][a-z0-9\-]{0,12}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(pool=st.dictionaries(_wide_slug, st.text(alphabet="abcxyz qQ-", max_size=12), min_size=20, max_size=120),
       queries=st.lists(st.text(alphabet="abcqxyz0-", min_size=1, max_size=4), min_size=1, max_size=6),
       limit=st.integers(1, 60))
def test_rare_letters_rank_as_the_reference_with_kept_letter_sets(pool: dict[str, str], queries: list[str],
                                                                   limit: int) -> None:
    """A wide alphabet makes letters rare, so the ranking searches only the slugs holding them;
    several queries over one candidate set reuse the letter sets built for the earlier ones."""
    candidates = sorted(pool.items())
    prepared = SlugCandidates(candidates)
    for query in queries:
        assert rank_slugs(query, prepared, limit=limit) == reference_rank(query, candidates, limit)


_odd_slug = st.text(alphabet="abcİiK\u212a\U0010ffff-_é0\n\x00", min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(pool=st.dictionaries(_odd_slug, st.text(alphabet="abcİ \n\x00\U0010ffffé", max_size=20), max_size=40),
       queries=st.lists(st.text(alphabet="abcİiK\u212a\U0010ffff-\n\x00é ", max_size=20), min_size=1, max_size=4),
       limit=st.integers(1, 60))
def test_odd_slugs_and_queries_rank_as_the_reference(pool: dict[str, str], queries: list[str], limit: int) -> None:
    """Slugs a hostile file name can give (a newline, case-folding letters, the last code point) and
    any other string (a NUL, which no file name holds), queries of every kind, candidates unsorted."""
    candidates = list(pool.items())
    prepared = SlugCandidates(candidates)
    for query in queries:
        assert rank_slugs(query, prepared, limit=limit) == reference_rank(query, candidates, limit)


def test_unsorted_and_repeated_slugs_rank_as_the_reference() -> None:
    candidates = [("zeta-cat", "a cat"), ("cat", "one"), ("alpha-cat", "two"), ("cat", "again"), ("cart", "x")]
    candidates += [(f"cab-{n}", "filler") for n in range(60)]
    for query in ("c", "cat", "ca", "zc", "cat x", "aga", "filler"):
        for limit in (1, 3, 50, 100):
            assert rank_slugs(query, candidates, limit=limit) == reference_rank(query, candidates, limit)


def test_candidates_are_kept_until_the_store_changes(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    store = RecordStore.load(ws)
    first = store.knowledge_candidates()
    assert store.knowledge_candidates() is first  # no re-collecting per keystroke
    assert rank_slugs("rule", first) == rank_slugs("rule", list(first))
    known = store.stats()
    write_record(ws, "knowledge/zz-brand-new.md", knowledge_meta(), "\nNew.\n")
    store.apply(RecordStore.changes_since(ws, known))
    second = store.knowledge_candidates()
    assert second is not first and "zz-brand-new" in [slug for slug, _ in second]
    store.apply(RecordStore.changes_since(ws, store.stats()))  # nothing changed: kept
    assert store.knowledge_candidates() is second
