"""The fast frontmatter reader agrees with PyYAML exactly, or declines (store/simple_yaml.py)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.core.store.records import _parse_yaml_mapping
from yoi_tui.core.store.simple_yaml import parse_simple


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (True is not 1, a date is not a datetime)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    return bool(a == b)


def _check(fm_text: str) -> Any:
    fast = parse_simple(fm_text)
    meta, key_lines, problem = _parse_yaml_mapping(fm_text, "x.md")
    if fast is None:
        return None
    assert problem is None, (fm_text, problem)
    assert _same(fast[0], meta), (fm_text, fast[0], meta)
    assert fast[1] == key_lines, fm_text
    return fast


SCALARS = [
    "plain words", "use-sqlite-for-the-cache", "a: b", "a:b", "x #c", "x#c", "yes", "Yes", "no", "on", "OFF",
    "true", "false", "True", "null", "Null", "~", "y", "n", "0", "7", "-3", "012", "0x1f", "1_000", "1e3",
    "1.5", ".inf", "-.inf", ".NaN", "2025-02-15T08:21:31+00:00", "2025-02-15T08:21:31Z",
    "2025-02-15T08:21:31-05:30", "2025-02-15T08:21:31.5+00:00", "2025-02-15 08:21:31", "2025-02-15",
    "2025-2-15", "2026-02-31", "2026-02-31T00:00:00+00:00", "2025-02-15T08:21:31+24:00",
    "01983cf5-f200-70a6-becc-5368863043d7", "12345678-1234-1234-1234-123456789012", "1234-56-78",
    '"quoted"', '""', "''", "'it''s'", "'a'b'", '"a\\"b"', '"\\u00e9"', '"tab\\there"', "[1, 2]", "[]",
    "[1,2]", "[ 1 ]", "[a, b]", "[1, 2", "{a: 1}", "!!str 3", "&anchor x", "*alias", "|", ">", "- x",
    "@at", "`tick`", "%pct", "x: y: z", "é accent", "em — dash", "nbsp\u00a0x", "trailing ", " leading",
    "two  spaces", "ends:", "q'uote", 'q"uote', "a, b", "a [b] {c}", "?x", "x?", "=", "<<", "~x",
    "line\u2028break", "nel\x85x", "ctl\x07x", "bom\ufeffx", "zero-width\u200bx", "C#", "http://x.y/z#a",
]
GOOD = ["plain words", "use-sqlite", "a:b", "x#c", "0", "7", "-3", "2025-02-15T08:21:31+00:00",
        "2025-02-15T08:21:31Z", "2025-02-15T08:21:31-05:30", "2025-02-15", "01983cf5-f200-70a6-becc-5368863043d7",
        '"quoted: x # y"', '""', "''", "'it''s'", "[1, 2]", "[]", "é accent", "em — dash", "q'uote", 'q"uote',
        "a, b", "a [b] {c}", "x?", "true", "false", "null", "http://x.y/z", "C-3PO", "Ünïcode wörds"]
KEYS = ["title", "status", "kind", "on", "yes", "null", "_k", "k2", "Key", "description", "sources", "k-1"]


@st.composite
def frontmatters(draw: st.DrawFn) -> str:
    lines: list[str] = []
    pool = draw(st.sampled_from([SCALARS, GOOD, GOOD]))
    keys = draw(st.sampled_from([KEYS, ["title", "status", "description", "sources", "k2", "_k"]]))
    unique = draw(st.booleans())
    chosen = draw(st.lists(st.sampled_from(keys), max_size=5, unique=unique))
    for key in chosen:
        shape = draw(st.sampled_from(["scalar", "scalar", "list", "maps", "empty", "raw"] if not unique
                                     else ["scalar", "scalar", "list", "maps", "maps", "empty"]))
        if shape == "scalar":
            lines.append(f"{key}: {draw(st.sampled_from(pool))}")
        elif shape == "empty":
            lines.append(f"{key}:")
        elif shape == "list":
            lines.append(f"{key}:")
            lines += [f"  - {draw(st.sampled_from(pool))}" for _ in range(draw(st.integers(1, 3)))]
        elif shape == "maps":
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 3))):
                inner = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3, unique=unique))
                for n, sub in enumerate(inner):
                    lead = "  - " if n == 0 else draw(st.sampled_from(["    ", "    ", "    ", "     ", "   ", "\t"]))
                    lines.append(f"{lead}{sub}: {draw(st.sampled_from(pool))}")
        else:
            lines.append(draw(st.sampled_from(["# comment", "", "  ", "- top", "key:value", "  x: 1",
                                               "...", "k: |", "  block", "k: >-", "k:  two"])))
    return "\n".join(lines)


@settings(max_examples=1500, deadline=None)
@given(frontmatters())
def test_agrees_with_pyyaml_or_declines(fm_text: str) -> None:
    _check(fm_text)


def test_reads_what_yoi_writes(tmp_path: Path) -> None:
    fm = ("created_at: 2025-02-15T08:21:31+00:00\nupdated_at: 2025-03-15T15:08:52Z\nstatus: resolved\n"
          "replaced_by: use-sqlite\ndescription: \"What 'x' means; read when: reviewing.\"\n"
          "model_invokation: false\nuser_invocable: true\nsources:\n"
          "  - session_id: 01983cf5-f200-70a6-becc-5368863043d7\n    range: [387, 421]\n"
          "  - session_id: 0190de03-0be0-7642-9981-ed8550332cb8\n    range: [3, 3]\ntags:\n  - one\n  - two\n"
          "published: 2025-01-02\ncount: 12")
    fast = _check(fm)
    assert fast is not None
    meta, key_lines = fast
    assert meta["sources"][0]["range"] == [387, 421]
    assert isinstance(meta["created_at"], datetime) and meta["published"] == date(2025, 1, 2)
    assert key_lines["sources"] == (9, 1)


def test_declines_what_it_cannot_read_exactly() -> None:
    for text in ["a: 1.5", "a: yes", "a: x # c", "a: \"\\u00e9\"", "a:\n\t- x", "on: 1", "a: 1\na: 2",
                 "a: '''", "a:\n- x", "a: 2026-02-31T00:00:00+00:00", "a: line\n  more", ""]:
        assert parse_simple(text) is None, text
        _check(text)


def test_refuses_exactly_the_characters_pyyaml_refuses() -> None:
    import sys

    import yaml.reader

    from yoi_tui.core.store.simple_yaml import _NON_PRINTABLE

    theirs = yaml.reader.Reader.NON_PRINTABLE
    differ = [code for code in range(sys.maxunicode + 1)
              if bool(_NON_PRINTABLE.match(chr(code))) != bool(theirs.match(chr(code)))]
    assert differ == []
