"""``Record`` keeps ``body`` and ``frontmatter_lines`` as positions in its text: same values as before."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.records import _second_frontmatter_line, parse_record_text

PIECES = ["---", "--- ", "---\x1c", "---\xa0\u2028", "\x85", "...", "a: 1", "b: [1, 2]", "# c", "", " ", "body", "---x", "é", "\r", "c: 'x'", "", "---", "d: 2", "  "]


def expected(text: str) -> tuple[str, list[str], int, int | None] | None:
    """The body, frontmatter lines, body line and second-block line as the parser defined them
    before (split every line, join the body)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[0].rstrip() != "---":
        return None
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:
        return None
    return "\n".join(lines[close + 1:]), lines[1:close], close + 2, _second_frontmatter_line(lines, close + 1)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_body_and_frontmatter_lines_are_what_the_text_says(parts: list[str], newline: str, tail: bool) -> None:
    text = newline.join(["---", *parts]) + (newline if tail else "")
    record, diags = parse_record_text(text, kind=RecordKind.DECISION, path=Path("/w/memory/decisions/x.md"),
                                  rel="memory/decisions/x.md")
    want = expected(text)
    if record is None:
        return
    assert want is not None
    assert record.body == want[0] and record.frontmatter_lines == want[1] and record.body_line == want[2]
    assert record.body_length == len(want[0])
    assert [d.line for d in diags if "more than one frontmatter" in d.message] == ([want[3]] if want[3] else [])
    assert record.text == text
    record.frontmatter_lines.append("changed")  # a copy: the record is unchanged
    assert record.frontmatter_lines == want[1]
    assert record == parse_record_text(text, kind=RecordKind.DECISION, path=Path("/w/memory/decisions/x.md"),
                                       rel="memory/decisions/x.md")[0]


def test_a_released_text_raises_until_restored() -> None:
    text = "---\nstatus: open\n---\n\n# Title\n"
    path = Path("/w/memory/decisions/x.md")
    record, _ = parse_record_text(text, kind=RecordKind.DECISION, path=path, rel="memory/decisions/x.md")
    again, _ = parse_record_text(text, kind=RecordKind.DECISION, path=path, rel="memory/decisions/x.md")
    assert record is not None and again is not None
    record.release_text()
    assert record.text_released and record.meta == {"status": "open"} and record.status == "open"
    for name in ("text", "body", "frontmatter_lines"):
        try:
            getattr(record, name)
        except ValueError as exc:
            assert "released" in str(exc)
        else:
            raise AssertionError(f"{name} answered after release")
    try:
        record.line_of("status")  # the key positions go with the text
    except ValueError as exc:
        assert "released" in str(exc)
    else:
        raise AssertionError("line_of answered after release")
    assert record != again and record == record  # compared without reading the text
    record.restore_text(again)
    assert record == again and record.body == "\n# Title\n" and record.frontmatter_lines == ["status: open"]
    assert record.line_of("status") == (2, 1)


def test_a_record_pickles_to_an_equal_record() -> None:
    """GC's workers send the records they read back pickled, read and released ones alike."""
    import pickle

    text = "---\nstatus: open\ncreated_at: 2026-01-02T03:04:05+00:00\n---\n\n# Title\n"
    path = Path("/w/memory/decisions/x.md")
    for released in (False, True):
        record, _ = parse_record_text(text, kind=RecordKind.DECISION, path=str(path), rel="memory/decisions/x.md")
        assert record is not None
        if released:
            record.release_text()
        again = pickle.loads(pickle.dumps(record))
        assert again == record and again.path == path and again.text_released is released
        if not released:
            assert again.body == record.body and again.line_of("created_at") == (3, 1)
