"""Order-independent content (issue 30): the canonical order every writer and the merge driver give.

Property tests over generated records of the shape Phase 2 writes (a title, labelled lines under
it, its sections of one-line entries, sources): the driver's three-way merge is symmetric (ours and
theirs swapped give the same content), gives exactly the set result (base, plus what either side
added, minus what either side removed) in canonical order, never holds a line twice, and merging
again changes nothing; Phase 2's update rule, applied to the same contributions in any order, gives
the same bytes; and ``canonical_body`` is idempotent and keeps a person's prose as it is.
"""

from __future__ import annotations

import itertools
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yoi_tui.core.runs.body_merge import merge_body
from yoi_tui.core.store.canonical import canonical_body, canonical_sources, capped_sources
from yoi_tui.core.store.merge import merge_records

# name: the prefix of its entries ("- " makes a list item); distinct, so no line is legitimately in two places
SECTIONS = {"Chosen": "chose ", "Options": "- ", "Rationale": "why ", "Failure and fix": "- fix "}
LABELS = ("Target: ", "Also titled: ")

_word = st.text(alphabet="abcdefgXYZ 12", min_size=1, max_size=6).map(lambda s: " ".join(s.split())).filter(bool)
_entry = st.tuples(st.sampled_from([*SECTIONS, *LABELS]), _word)
_source = st.tuples(st.sampled_from(["s1", "s2", "s3", "0197-a", "0197-b"]), st.integers(0, 5))

Content = frozenset[tuple[str, str]]  # (section or label, entry text)


def _raw(entries: list[tuple[str, str]]) -> str:
    """A body in Phase 2's layout, the entries in the order given (as one clone appended them)."""
    labelled = [f"{where}{text}" for where, text in entries if where in LABELS]
    out = ["", "# Pick the cache", ""]
    for line in labelled:
        out.extend([line, ""])
    for name, prefix in SECTIONS.items():
        lines = [f"{prefix}{text}" for where, text in entries if where == name]
        if not lines:
            continue
        out.append(f"## {name}")
        for i, line in enumerate(lines):
            if i and not prefix.startswith("-"):
                out.append("")
            out.append(line)
        out.append("")
    return "\n".join(out)


def _sources_yaml(sources: frozenset[tuple[str, int]]) -> str:
    items = canonical_sources({"session_id": s, "range": [n, n + 3]} for s, n in sources)
    return "".join(f"  - session_id: {i['session_id']}\n    range: [{i['range'][0]}, {i['range'][1]}]\n" for i in items)


def _record(content: Content, sources: frozenset[tuple[str, int]]) -> str:
    """A record as a canonical writer leaves it."""
    meta = ("created_at: 2026-11-02T09:00:00+00:00\nupdated_at: 2026-11-02T09:00:00+00:00\nsources:\n"
            + _sources_yaml(sources) + "status: open\n")
    return f"---\n{meta}---\n{canonical_body(_raw(sorted(content)))}"


def _body(text: str) -> str:
    return text.split("\n---\n", 1)[1]


def _non_blank_twice(body: str) -> list[str]:
    lines = [line for line in body.split("\n") if line.strip()]
    return [line for line in set(lines) if lines.count(line) > 1]


@st.composite
def _three_versions(draw: st.DrawFn) -> tuple[Any, ...]:
    """Base content, and per side what it added and what base content it removed."""
    base = frozenset(draw(st.lists(_entry, max_size=6)))
    base_sources = frozenset(draw(st.lists(_source, min_size=1, max_size=4)))
    sides = []
    for _ in range(2):
        added = frozenset(draw(st.lists(_entry, max_size=5)))
        removed = frozenset(draw(st.sets(st.sampled_from(sorted(base)))) if base else ())
        more = frozenset(draw(st.lists(_source, max_size=3)))
        sides.append((added, removed, more))
    return base, base_sources, sides


def _sides(case: tuple[Any, ...]) -> tuple[str, str, str, Content, frozenset[tuple[str, int]]]:
    base, base_sources, ((a_add, a_del, a_src), (b_add, b_del, b_src)) = case
    ours = (base | a_add) - a_del
    theirs = (base | b_add) - b_del
    # A base entry stays when neither side removed it; any other entry is in when either side has it.
    expected = frozenset({e for e in base if e in ours and e in theirs} | {e for e in ours | theirs if e not in base})
    return (_record(base, base_sources), _record(ours, base_sources | a_src), _record(theirs, base_sources | b_src),
            expected, base_sources | a_src | b_src)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_three_versions())
def test_property_the_driver_merge_is_symmetric_exact_and_idempotent(case: tuple[Any, ...]) -> None:
    base, ours, theirs, expected, sources = _sides(case)
    path = "memory/decisions/pick-the-cache.md"
    one = merge_records(base, ours, theirs, path=path, sources_max=100)
    two = merge_records(base, theirs, ours, path=path, sources_max=100)
    assert one is not None and two is not None and one.clean and two.clean
    # merge(a, b) == merge(b, a): the same bytes (frontmatter included: both sides list keys alike).
    assert one.text == two.text
    # Exactly the set result, in the canonical order: what either side added, minus what either removed.
    assert _body(one.text) == canonical_body(_raw(sorted(expected)))
    assert not _non_blank_twice(_body(one.text))
    merged_sources = [(i["session_id"], i["range"][0]) for i in yaml.safe_load(one.text.split("---\n")[1])["sources"]]
    assert merged_sources == sorted(sources)  # the union, in canonical order (session id, then range)
    # Idempotent: merging the result again with either side (or with itself) changes nothing.
    for side in (ours, theirs, one.text):
        again = merge_records(base, one.text, side, path=path, sources_max=100)
        assert again is not None and again.text == one.text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_entry, min_size=1, max_size=4), min_size=2, max_size=4))
def test_property_phase2_updates_in_any_order_give_the_same_bytes(contributions: list[list[tuple[str, str]]]) -> None:
    """The rules engine's update (``merge_body``, then ``canonical_body``) over the same sessions'
    contributions in every arrival order: one result, no line twice, every entry kept."""
    results = set()
    for order in itertools.permutations(contributions):
        body = canonical_body(_raw(order[0]))
        for contribution in order[1:]:
            merged = merge_body(body, _raw(contribution))
            body = canonical_body(merged) if merged != body else body
        results.add(body)
    assert len(results) == 1
    (body,) = results
    assert not _non_blank_twice(body)
    assert body == canonical_body(_raw(sorted({e for c in contributions for e in c})))


@settings(max_examples=200, deadline=None)
@given(st.lists(_source, max_size=12), st.lists(_source, max_size=12), st.integers(1, 8))
def test_property_capped_sources_keep_the_same_ones_whatever_was_trimmed_first(
        first: list[tuple[str, int]], second: list[tuple[str, int]], limit: int) -> None:
    def items(pairs: list[tuple[str, int]]) -> list[dict[str, Any]]:
        return [{"session_id": s, "range": [n, n + 3]} for s, n in pairs]
    everything = capped_sources(items(first + second), limit)
    # One clone trimmed what it had, then the rest arrived: the cap of the union is the same.
    assert capped_sources([*capped_sources(items(first), limit), *items(second)], limit) == everything
    assert capped_sources(items(second + first), limit) == everything


def test_canonical_body_orders_phase2_parts_and_keeps_a_persons_prose() -> None:
    body = ("\n# Pick the cache\n\nTarget: client/api.py\n\nAlso titled: Pick a cache\n\nA note a person wrote\n"
            "over two lines.\n\n## Rationale\nSession b found it faster.\n\nSession a found it simpler.\n\n"
            "## Notes\nFirst my point,\n\nthen my second.\n\n## Chosen\noption 2\n\n## Options\n- keep as is\n"
            "- option 2\n- keep as is\n\n## Failure and fix\n- a long item\n  wrapped by a person\n- b\n\n"
            "Merged into `pick-a-cache` by GC; kept as a stub until every clone has pulled the merge.\n")
    expected = ("\n# Pick the cache\n\nAlso titled: Pick a cache\n\nTarget: client/api.py\n\nA note a person wrote\n"
                "over two lines.\n\n## Chosen\noption 2\n\n## Notes\nFirst my point,\n\nthen my second.\n\n"
                "## Options\n- keep as is\n- option 2\n\n## Rationale\nSession a found it simpler.\n\n"
                "Session b found it faster.\n\n## Failure and fix\n- a long item\n  wrapped by a person\n- b\n\n"
                "Merged into `pick-a-cache` by GC; kept as a stub until every clone has pulled the merge.\n")
    assert canonical_body(body) == expected
    assert canonical_body(expected) == expected  # idempotent
    # A body with nothing of Phase 2's is left byte for byte.
    prose = "\nSome notes.\n\n## Ideas\n- b\n- a\n\n```\nz\na\n```\n"
    assert canonical_body(prose) == prose


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab #-`\nTAlso titled:rget", max_size=120))
def test_property_canonical_body_is_idempotent_and_loses_no_line(body: str) -> None:
    once = canonical_body(body)
    assert canonical_body(once) == once
    assert {line.rstrip() for line in body.split("\n") if line.strip()} == \
        {line.rstrip() for line in once.split("\n") if line.strip()}
