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


def test_a_record_is_an_immutable_value() -> None:
    import dataclasses

    text = "---\nstatus: open\n---\n\n# Title\n"
    path = Path("/w/memory/decisions/x.md")
    record, _ = parse_record_text(text, kind=RecordKind.DECISION, path=str(path), rel="memory/decisions/x.md")
    assert record is not None and type(record.path) is type(path) and record.path == path  # a str becomes a Path
    for name, value in (("text", "other"), ("meta", {}), ("path", path), ("slug", "y")):
        try:
            setattr(record, name, value)
        except dataclasses.FrozenInstanceError:
            pass
        else:
            raise AssertionError(f"{name} was set")
    assert not hasattr(record, "__dict__")  # slots
    assert record.line_of("status") == (2, 1) and record.body == "\n# Title\n"


def test_a_record_pickles_to_an_equal_record() -> None:
    import pickle

    text = "---\nstatus: open\ncreated_at: 2026-01-02T03:04:05+00:00\n---\n\n# Title\n"
    path = Path("/w/memory/decisions/x.md")
    for newline in ("\n", "\r\n"):
        record, _ = parse_record_text(text.replace("\n", newline), kind=RecordKind.DECISION, path=path,
                                      rel="memory/decisions/x.md")
        assert record is not None
        again = pickle.loads(pickle.dumps(record))
        assert again == record and again.path == path and again.body == record.body
        assert again.line_of("created_at") == (3, 1)


def test_a_head_knows_the_bytes_it_was_read_from(tmp_path: Path) -> None:
    """``RecordHead``: what a bulk reader keeps; its digest is of the bytes (the BOM too) and
    means the same in every process (a text's ``hash`` does not)."""
    import pickle
    import subprocess
    import sys

    from yoi_tui.core.store.reader import content_digest, read_record_digest
    from yoi_tui.core.store.records import RecordHead
    from yoi_tui.core.store.workspace import Workspace

    root = tmp_path / "ws"
    path = root / "memory" / "decisions" / "x.md"
    path.parent.mkdir(parents=True)
    data = "\ufeff---\nstatus: open\nsources: []\n---\n\n# Title\n".encode()
    path.write_bytes(data)
    result, size, digest = read_record_digest(Workspace(root), path)
    assert result.record is not None and size == len(data) and digest == content_digest(data)
    head = RecordHead.of(result.record, size, digest, meta={"status": "open"})
    assert (head.kind, head.slug, head.path, head.rel, head.bom) == (
        RecordKind.DECISION, "x", str(path), "memory/decisions/x.md", True)
    assert head.status == "open" and not head.is_replaced and pickle.loads(pickle.dumps(head)) == head
    assert head.describes(size, digest) and not head.describes(size, content_digest(data[3:] + b" "))
    assert not head.describes(size - 3, content_digest(data[3:]))  # the same text without its BOM
    other = subprocess.run([sys.executable, "-c", "import sys; from yoi_tui.core.store.reader import content_digest; "
                            "print(content_digest(open(sys.argv[1], 'rb').read()).hex())", str(path)],
                           capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "random",
                                                                            **__import__("os").environ})
    assert other.stdout.strip() == digest.hex()
