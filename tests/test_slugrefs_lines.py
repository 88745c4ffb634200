"""The shared fenced-code walk of ``core.slugrefs``: which lines are code, and their offsets.

The slug parser, GC's path finder (``gc.facts.named_paths``) and Phase 2's block splitter
(``phase2.merge.split_blocks``) all read code through ``iter_lines``, so they must agree on it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.core.gc.facts import named_paths
from yoi_tui.core.retrieval.slugrefs import iter_lines, iter_prose_lines, iter_slug_refs
from yoi_tui.core.runs.body_merge import split_blocks

TEXT = "intro #a\n```py\n#b `x/in_code.py`\n```\n~~~~\n```\n#c\n~~~\n#d\n~~~~~\n## Tail #e `src/a.py`\n    ```\n#f"


def test_fence_lines_and_their_content_are_code() -> None:
    flags = [(n, line, code) for n, _, line, code in iter_lines(TEXT)]
    assert [n for n, _, code in flags if code] == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    # a ``` line does not close a ~~~~ block, nor does a shorter ~~~; an indented fence is no fence
    assert [line for _, line, code in flags if not code] == ["intro #a", "## Tail #e `src/a.py`", "    ```", "#f"]


def test_offsets_index_into_the_text() -> None:
    for _, start, line, _ in iter_lines(TEXT):
        assert TEXT[start:start + len(line)] == line
    assert [(n, line) for n, _, line in iter_prose_lines(TEXT)] == [
        (1, "intro #a"), (11, "## Tail #e `src/a.py`"), (12, "    ```"), (13, "#f")]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert [code for *_, code in iter_lines("a\n```\n#x\n\n")] == [False, True, True, True, True]
    assert list(iter_prose_lines("")) == [(1, 0, "")]


def test_the_three_readers_agree_on_what_is_code() -> None:
    assert [r.slug for r in iter_slug_refs(TEXT)] == ["a", "e", "f"]
    assert named_paths(TEXT) == ["src/a.py"]
    blocks = split_blocks(TEXT)
    assert [b.heading for b in blocks] == [None, "## Tail #e `src/a.py`"]
    assert "#b `x/in_code.py`" in blocks[0].lines and "#d" in blocks[0].lines



def _walked_paths(body: str) -> list[str]:
    """``named_paths`` without its shortcuts: every prose line walked, as it was."""
    from yoi_tui.core.gc.facts import paths_in_line

    found: list[str] = []
    for _, _, line in iter_prose_lines(body):
        paths_in_line(line, found)
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["`src/a.py`", "``b/c.md``", "```\n", "~~~\n", "   ```py\n", "`x`", "\n", " ",
                                 "`d/`", "text", "`e/f.txt:12`", "``", "`g/../h.py`", "~~", "`./i/j.json#L3`"]),
                max_size=20))
def test_named_paths_shortcuts_match_the_line_walk(pieces: list[str]) -> None:
    """``named_paths`` skips the fence walk for a body without backticks, or without a run of three
    backticks or tildes: the same paths as walking every prose line."""
    body = "".join(pieces)
    assert named_paths(body) == _walked_paths(body)
