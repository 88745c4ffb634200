"""The frontmatter fast path (``store/simple_yaml.py``) answers exactly as PyYAML, or not at all."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yoi_tui.core.store.records import _parse_yaml_mapping, read_record
from yoi_tui.core.store.simple_yaml import parse_simple
from yoi_tui.core.store.workspace import Workspace


def typed(value: Any) -> Any:
    """``value`` with every type (and a timestamp's offset) spelled out, so 1 != True != 1.0."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, datetime):
        return ("datetime", value.isoformat(), repr(value.tzinfo))
    if isinstance(value, date):
        return ("date", value.isoformat())
    return (type(value).__name__, repr(value))


def check(fm_text: str) -> bool:
    """Assert the fast path agrees with PyYAML; True when it answered (did not fall back)."""
    fast = parse_simple(fm_text)
    meta, key_lines, problem = _parse_yaml_mapping(fm_text, "x.md")
    if fast is None:
        return False
    assert problem is None, (fm_text, problem)
    assert typed(fast[0]) == typed(meta), fm_text
    assert fast[1] == key_lines, fm_text
    return True


# Scalars that look alike but YAML types differently, plus random text with the characters that matter.
TRICKY = ["yes", "No", "ON", "off", "y", "n", "true", "False", "null", "Null", "~", "", "0", "00", "012", "0x1F",
          "0o17", "0b101", "1_000", "+5", "-5", "1:20", "1.5", ".inf", "-.inf", ".nan", "1e3", "1.0e+3",
          "2025-03-16", "2025-3-6", "2025-03-16T04:35:56+00:00", "2025-03-16T04:35:56Z",
          "2025-03-16 04:35:56.25 -05:30", "2025-02-31", "2025-03-16T04:35:56+02:00", "<<", "=", "a: b", "a:",
          "a #b", "a#b", "- x", "[x]", "{a: 1}", "'q'", "'it''s'", '"d"', '"a\\nb"', "&a x", "*a", "!!str 1",
          "|", ">", "%x", "@x", "`x`", "?", "http://x.y/z", "a, b", "[1, 2]", "[]", "[ ]", "[a,b]", "[1, ]",
          "[a: b]", "x\ty", "é", "\u00a0", "\u2028", "0194-41d0", "019441d0-6138", "3.", "1__2"]
ALPHABET = st.sampled_from(list("abyYnNtTfFoO019-+.:_#'\" ,[]{}!&*|>%@`~=<?\\xXe") + ["\t", "é", "\u00a0"])
SAFE = st.text(st.sampled_from(list("abcxyz0123456789-_.:/ ")), min_size=1, max_size=14)
scalar = st.one_of(st.sampled_from(TRICKY), SAFE, SAFE, st.text(ALPHABET, max_size=12))
NAMES = ["title", "status", "sources", "range", "created_at", "session_id", "kind", "replaced_by", "_k"]
key = st.one_of(*[st.sampled_from(NAMES)] * 6,
                st.sampled_from(["on", "null", "yes", "a-b", "1", "x y", "~", "y"]), st.text(ALPHABET, min_size=1, max_size=5))
spaces = st.sampled_from([" ", " ", " ", "  ", "", " \t"])


@st.composite
def item_lines(draw: st.DrawFn, indent: str) -> list[str]:
    if draw(st.booleans()):
        return [f"{indent}-{draw(spaces)}{draw(scalar)}"]
    first = f"{indent}- {draw(key)}:{draw(spaces)}{draw(scalar)}"
    more = draw(st.lists(st.tuples(key, spaces, scalar), max_size=3))
    inner = indent + draw(st.sampled_from(["  ", "  ", "  ", "   ", " "]))
    return [first] + [f"{inner}{k}:{sp}{v}" for k, sp, v in more]


@st.composite
def frontmatter(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(key)
        shape = draw(st.sampled_from(["scalar", "scalar", "scalar", "items", "items", "empty", "odd"]))
        if shape == "scalar":
            lines.append(f"{name}:{draw(spaces)}{draw(scalar)}")
        elif shape == "items":
            lines.append(f"{name}:{draw(st.sampled_from(['', ' ']))}")
            indent = draw(st.sampled_from(["  ", "  ", "  ", "", "    ", " "]))
            for _ in range(draw(st.integers(1, 3))):
                lines.extend(draw(item_lines(indent)))
        elif shape == "empty":
            lines.append(f"{name}:")
        else:
            lines.append(draw(st.sampled_from(["", "# c", "  x: 1", "- a", "key: a\n  b", "k: |", "  y", "...",
                                               "k: v # c", "k: 'a", "k:\n  -", "k:\n  - a:\n      b: 1"])))
    return "\n".join(lines)


CLEAN = st.one_of(st.sampled_from(TRICKY), st.text(st.sampled_from(list("abnoty0129-_./:# '")), min_size=1, max_size=10))


@st.composite
def clean_frontmatter(draw: st.DrawFn) -> str:
    """Mostly the shapes yoi writes, with tricky scalars: exercises the answers, not the fallbacks."""
    lines: list[str] = []
    for name in draw(st.lists(st.sampled_from(NAMES + ["on", "1"]), unique=True, max_size=5)):
        if draw(st.booleans()):
            lines.append(f"{name}: {draw(CLEAN)}")
            continue
        lines.append(f"{name}:")
        indent = draw(st.sampled_from(["  ", ""]))
        for _ in range(draw(st.integers(0, 3))):
            if draw(st.booleans()):
                lines.append(f"{indent}- {draw(CLEAN)}")
            else:
                inner = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3))
                lines.append(f"{indent}- {inner[0]}: {draw(CLEAN)}")
                lines.extend(f"{indent}  {k}: [{draw(CLEAN)}, {draw(CLEAN)}]" for k in inner[1:])
    return "\n".join(lines)


@settings(max_examples=800, deadline=None)
@given(clean_frontmatter())
def test_clean_shapes_equal_pyyaml(fm_text: str) -> None:
    check(fm_text)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter())
def test_fast_path_equals_pyyaml(fm_text: str) -> None:
    check(fm_text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b_c", "d"]), scalar), max_size=4, unique_by=lambda t: t[0]))
def test_scalars_equal_pyyaml(pairs: list[tuple[str, str]]) -> None:
    check("\n".join(f"{k}: {v}" for k, v in pairs))
    check("\n".join(f"{k}: [{v}, {v}]" for k, v in pairs))
    check("s:\n" + "\n".join(f"  - {v}" for _k, v in pairs))


def test_what_yoi_writes_takes_the_fast_path() -> None:
    written = (
        "created_at: 2025-03-16T04:35:56+00:00\nupdated_at: 2025-04-05T19:12:25+00:00\n"
        "sources:\n  - session_id: 019441d0-6138-750e-b9cc-32cad22f02f3\n    range: [23, 27]\n"
        "  - session_id: 'abc'\n    range: [1, 2]\nstatus: resolved\nreplaced_by: other-slug\n"
        "description: Use a[0], then b: no wait\ntitle: \"Quoted: title\"\nmodel_invokation: true\n"
        "user_invocable: false\nkind: howto\nlast_sources: []"
    )
    fast = parse_simple(written.replace("b: no wait", "b no wait"))
    assert fast is not None
    assert fast[0]["sources"][0]["range"] == [23, 27] and fast[0]["model_invokation"] is True
    assert check(written.replace("b: no wait", "b no wait"))
    assert parse_simple(written) is None  # ": " in a plain scalar is PyYAML's error to word


def test_fallbacks_still_give_pyyaml_results_and_errors(tmp_path: Any) -> None:
    """Records outside the subset read exactly as before: values from PyYAML, errors worded by it."""
    (tmp_path / "memory" / "decisions").mkdir(parents=True)
    ws = Workspace(tmp_path)
    odd = tmp_path / "memory" / "decisions" / "odd.md"
    odd.write_text("---\n# a comment\nstatus: open   # trailing\ntags: !!set {a, b}\n---\nbody\n")
    rec = read_record(ws, odd).record
    assert rec is not None and rec.meta == {"status": "open", "tags": {"a", "b"}}
    assert rec.key_lines == {"status": (3, 1), "tags": (4, 1)}
    dup = tmp_path / "memory" / "decisions" / "dup.md"
    dup.write_text("---\nstatus: open\nstatus: resolved\n---\nbody\n")
    result = read_record(ws, dup)
    assert result.record is None and "duplicate key 'status'" in result.diagnostics[0].message
    bad = tmp_path / "memory" / "decisions" / "bad.md"
    bad.write_text("---\ntitle: a: b\n---\nbody\n")
    result = read_record(ws, bad)
    assert result.record is None and result.diagnostics[0].rule == "frontmatter-invalid"
