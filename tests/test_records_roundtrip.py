"""Reader and writer: byte-identical round trips, key order, unknown keys, newline style."""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support import T0, decision_meta, make_ws, write_record

from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.records import parse_record_text
from yoi_tui.core.store.writer import DELETE, new_record_text, render_record

KEY = st.text(alphabet=string.ascii_lowercase + "_-", min_size=1, max_size=12).filter(
    lambda k: k[0].isalpha() and k not in ("y", "n", "yes", "no", "on", "off", "null", "true", "false"))
SCALAR = st.one_of(
    st.booleans(),
    st.integers(min_value=-10**6, max_value=10**6),
    st.text(min_size=0, max_size=40).filter(lambda s: "\x00" not in s),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                 timezones=st.sampled_from([UTC, timezone(timedelta(hours=9))])),
)
SOURCE = st.builds(lambda s, a, n: {"session_id": s, "range": [a, a + n]},
                   st.text(alphabet=string.ascii_letters + string.digits + "-", min_size=1, max_size=20),
                   st.integers(0, 1000), st.integers(0, 50))
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=4), st.lists(SOURCE, max_size=3))
META = st.dictionaries(KEY, VALUE, min_size=1, max_size=8)
BODY = st.text(max_size=300).filter(lambda s: "\x00" not in s and "\r" not in s)


def _parse(text: str, tmp: Path) -> object:
    record, diags = parse_record_text(text, kind=RecordKind.DECISION, path=tmp / "x.md", rel="x.md")
    assert record is not None, diags
    return record


def _normalise(value: object) -> object:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


# YAML 1.1 reads U+2028/U+2029 (and NEL) as line breaks: written raw in a quoted value they were
# folded and moved every later key a line down (found by hypothesis in CI): they are escaped.
SEPARATORS = {"b": "\u2028", "a": [False], "c": "x\u2029y\x85", "d": [["\u2028", 1]]}


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=META, body=BODY)
@example(meta=SEPARATORS, body="")
def test_generated_records_round_trip_byte_identical(meta: dict, body: str, tmp_path: Path) -> None:
    text = new_record_text(meta, body)
    record = _parse(text, tmp_path)
    assert record.meta == meta or _normalise(record.meta) == _normalise(meta)
    assert list(record.meta) == list(meta)
    assert record.body == body
    assert render_record(record) == text
    assert render_record(record, {}, body) == text


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=META, body=BODY, key=st.sampled_from([0, 1, 2]), new_value=VALUE)
@example(meta={"b": "\u2028", "a": False}, body="", key=0, new_value=False)
@example(meta={"b": "\u2028\u2028", "a": [False]}, body="", key=0, new_value="")
def test_update_changes_only_that_key(meta: dict, body: str, key: int, new_value: object, tmp_path: Path) -> None:
    keys = list(meta)
    target = keys[key % len(keys)]
    record = _parse(new_record_text(meta, body), tmp_path)
    updated = _parse(render_record(record, {target: new_value}), tmp_path)
    assert list(updated.meta) == keys
    assert _normalise(updated.meta[target]) == _normalise(new_value)
    for other in keys:
        if other != target:
            assert updated.meta[other] == record.meta[other]
    assert updated.body == body


def test_unknown_keys_comments_and_quoting_survive_an_update(tmp_path: Path) -> None:
    text = ("---\n# a comment people wrote\ncreated_at: 2026-01-01T00:00:00+00:00\n"
            "updated_at: '2026-01-01T00:00:00+00:00'\nx-owner:   'team a'   # keep me\n"
            "sources:\n- {session_id: s1, range: [0, 3]}\nstatus: open\n---\n\nBody stays.\n")
    record = _parse(text, tmp_path)
    new = render_record(record, {"status": "resolved", "updated_at": T0})
    assert "# a comment people wrote\n" in new
    assert "x-owner:   'team a'   # keep me\n" in new
    assert "- {session_id: s1, range: [0, 3]}\n" in new
    assert "status: resolved\n" in new
    assert new.endswith("---\n\nBody stays.\n")
    assert new.index("created_at") < new.index("x-owner") < new.index("status")


def test_delete_and_append_keys(tmp_path: Path) -> None:
    record = _parse(new_record_text(decision_meta(extra="x"), "\nB\n"), tmp_path)
    new = _parse(render_record(record, {"extra": DELETE, "replaced_by": "other"}), tmp_path)
    assert "extra" not in new.meta
    assert list(new.meta)[-1] == "replaced_by"


def test_crlf_and_bom_files_round_trip_and_keep_their_style(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    text = new_record_text(decision_meta(), "\nLine one\nLine two\n").replace("\n", "\r\n")
    path = ws.decisions_dir / "crlf.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = read_record(ws, path)
    assert result.record is not None
    assert {d.rule for d in result.diagnostics} == {"encoding"}
    assert render_record(result.record) == text
    updated = render_record(result.record, {"status": "resolved"})
    assert "\r\n" in updated and "\n" not in updated.replace("\r\n", "")


def test_key_lines_point_at_the_keys(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/a.md", decision_meta())
    record = read_record(ws, path).record
    assert record is not None
    lines = path.read_text().split("\n")
    for key, (line, col) in record.key_lines.items():
        assert lines[line - 1].startswith(key + ":"), key
        assert col == 1
    assert lines[record.body_line - 2] == "---"
