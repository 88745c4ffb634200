"""The pydantic-free frontmatter check never passes what the pydantic models reject (store/meta_fields.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.meta_fields import KNOWN_KEYS, REQUIRED_KEYS, meta_is_valid
from yoi_tui.core.store.models import META_MODELS


def test_field_lists_are_the_models_fields() -> None:
    for kind, model in META_MODELS.items():
        assert KNOWN_KEYS[kind] == frozenset(model.model_fields)
        required = {name for name, info in model.model_fields.items() if info.is_required()}
        assert set(REQUIRED_KEYS[kind]) >= required


STAMP = datetime(2026, 1, 5, 10, tzinfo=UTC)
VALUES: list[Any] = [
    STAMP, datetime(2026, 1, 5, 10), datetime(2026, 1, 5, tzinfo=timezone(timedelta(hours=-5))), date(2026, 1, 5),
    "2026-01-05T10:00:00+00:00", "2026-01-05T10:00:00", "yesterday", "", "open", "resolved", "replaced", "x",
    None, True, False, 0, 1, -1, 2.5, [], {}, [1, 2], [True, 1],
    [{"session_id": "s1", "range": [0, 3]}], [{"session_id": "", "range": [0, 3]}],
    [{"session_id": "s1", "range": [3, 0]}], [{"session_id": "s1", "range": [-1, 0]}],
    [{"session_id": "s1", "range": [0, 1, 2]}], [{"session_id": "s1", "range": [True, 1]}],
    [{"session_id": "s1", "range": [0, 1], "extra": 1}], [{"session_id": 5, "range": [0, 1]}],
    [{"session_id": "s1"}], [{"session_id": "s1", "range": (0, 1)}], ["s1"], {"a": 1},
    [{"session_id": "s1", "range": [0, 3]}, {"session_id": "s2", "range": [2, 2]}],
]
KEYS = sorted(set().union(*KNOWN_KEYS.values()) | {"tags", "title"})


def _valid(kind: RecordKind) -> dict[str, Any]:
    base: dict[str, Any] = {"created_at": STAMP, "updated_at": "2026-01-06T10:00:00+02:00"}
    if kind is RecordKind.SUMMARY:
        return {"updated_at": STAMP}
    if kind is RecordKind.KNOWLEDGE:
        return {**base, "kind": "term", "description": "d", "model_invokation": False, "user_invocable": True,
                "last_sources": [{"session_id": "s", "range": [1, 2]}]}
    base["sources"] = [{"session_id": "s", "range": [0, 0]}]
    if kind is RecordKind.DECISION:
        base["status"] = "open"
    return base


def _model_accepts(kind: RecordKind, meta: dict[str, Any]) -> bool:
    try:
        META_MODELS[kind].model_validate(meta)
    except ValidationError:
        return False
    return True


def test_valid_records_pass_without_pydantic() -> None:
    for kind in RecordKind:
        meta = _valid(kind)
        assert meta_is_valid(kind, meta) and _model_accepts(kind, meta)
        assert meta_is_valid(kind, {**meta, "replaced_by": "other", "tags": [1]})


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(list(RecordKind)), st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES)),
       st.booleans())
def test_never_passes_what_the_model_rejects(kind: RecordKind, changes: dict[str, Any], start_valid: bool) -> None:
    meta = {**(_valid(kind) if start_valid else {}), **changes}
    if meta_is_valid(kind, meta):
        assert _model_accepts(kind, meta), meta


def _model_errors(kind: RecordKind, meta: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        META_MODELS[kind].model_validate(meta)
    except ValidationError as exc:
        return list(exc.errors())
    return []


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(list(RecordKind)), st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES)),
       st.booleans(), st.sets(st.sampled_from(KEYS)))
def test_missing_ok_passes_only_what_the_model_finds_missing(kind: RecordKind, changes: dict[str, Any],
                                                              start_valid: bool, dropped: set[str]) -> None:
    # The linter skips pydantic when the fields present are valid: the model must then report
    # nothing but missing fields (which check_fields reports).
    meta = {key: value for key, value in {**(_valid(kind) if start_valid else {}), **changes}.items()
            if key not in dropped}
    if meta_is_valid(kind, meta, missing_ok=True):
        errors = _model_errors(kind, meta)
        assert all(error["type"] == "missing" and len(error["loc"]) == 1 for error in errors), (meta, errors)
    assert meta_is_valid(kind, meta) == (meta_is_valid(kind, meta, missing_ok=True)
                                         and all(key in meta for key in REQUIRED_KEYS[kind]))


def test_a_record_missing_a_field_is_linted_without_pydantic(tmp_path: Any) -> None:
    import subprocess
    import sys

    record = tmp_path / "memory" / "decisions" / "no-status.md"
    record.parent.mkdir(parents=True)
    record.write_text("---\ncreated_at: 2026-01-05T10:00:00+00:00\nupdated_at: 2026-01-05T10:00:00+00:00\n"
                      "sources: []\n---\n\nbody\n", encoding="utf-8")
    code = ("import sys; from pathlib import Path; from yoi_tui.core.lint import lint_workspace; "
            "from yoi_tui.core.store.workspace import Workspace; "
            f"r = lint_workspace(Workspace(Path({str(tmp_path)!r}))); "
            "print([d.rule for d in r.diagnostics]); print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "['missing-field']" and out[1] == "False"
