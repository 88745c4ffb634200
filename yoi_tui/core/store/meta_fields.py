"""The frontmatter fields of each record kind (SPEC 3), and a check that needs no pydantic.

``models.py`` validates a record's ``meta`` with pydantic and words every problem. Importing
pydantic and building the models costs ~100 ms, most of a lint after one agent write, while nearly
every record is valid. ``meta_is_valid`` recognises a valid mapping with plain type checks; when it
says True, the pydantic model would report nothing (``tests/test_meta_fields.py`` checks that on
generated mappings), so the linter asks pydantic only about the rest, and its messages are
unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .kinds import RecordKind
from .records import timestamp_problem

_TIMESTAMPS = ("created_at", "updated_at")

REQUIRED_KEYS: dict[RecordKind, tuple[str, ...]] = {
    RecordKind.SUMMARY: ("updated_at",),
    RecordKind.DECISION: ("created_at", "updated_at", "sources", "status"),
    RecordKind.REQUEST: ("created_at", "updated_at", "sources"),
    RecordKind.KNOWLEDGE: ("kind", "description", "model_invokation", "user_invocable", "last_sources",
                           "created_at", "updated_at"),
}

KNOWN_KEYS: dict[RecordKind, frozenset[str]] = {
    RecordKind.SUMMARY: frozenset({"updated_at", "last_rewritten_from_range"}),
    RecordKind.DECISION: frozenset({"created_at", "updated_at", "sources", "status", "replaced_by"}),
    RecordKind.REQUEST: frozenset({"created_at", "updated_at", "sources", "replaced_by"}),
    RecordKind.KNOWLEDGE: frozenset({"kind", "description", "model_invokation", "user_invocable", "last_sources",
                                     "created_at", "updated_at", "replaced_by"}),
}
"""Every field the models declare (others are kept on rewrite; the linter warns about near-misses)."""

DECISION_STATUSES = ("open", "resolved", "replaced")


def _source_ok(value: Any) -> bool:
    if type(value) is not dict or len(value) != 2:
        return False
    session_id, span = value.get("session_id"), value.get("range")
    if type(session_id) is not str or not session_id or type(span) is not list or len(span) != 2:
        return False
    start, end = span
    return type(start) is int and type(end) is int and 0 <= start <= end


def _sources_ok(value: Any) -> bool:
    return type(value) is list and all(_source_ok(item) for item in value)


def _optional_str(meta: Mapping[str, Any], key: str) -> bool:
    value = meta.get(key)
    return value is None or type(value) is str


def meta_is_valid(kind: RecordKind, meta: Mapping[str, Any], *, missing_ok: bool = False) -> bool:
    """True only when ``meta`` has every required field with a valid value (the pydantic model of
    ``kind`` then reports nothing). False means "ask the model", not "invalid".

    ``missing_ok``: required fields may be missing, every field present must be valid — the model
    would then report nothing but the missing fields, which the linter reports itself
    (``missing-field``): a record without its ``status`` does not need pydantic imported.
    """
    if not missing_ok and any(key not in meta for key in REQUIRED_KEYS[kind]):
        return False
    if kind is RecordKind.SUMMARY:
        rewritten = meta.get("last_rewritten_from_range")
        return ("updated_at" not in meta or timestamp_problem(meta["updated_at"]) is None) and (
            rewritten is None or type(rewritten) is dict
            or (type(rewritten) is list and all(type(n) is int for n in rewritten)))
    if any(key in meta and timestamp_problem(meta[key]) is not None for key in _TIMESTAMPS):
        return False
    if not _optional_str(meta, "replaced_by"):
        return False
    if kind is RecordKind.KNOWLEDGE:
        return (_present_is(meta, "kind", str) and _present_is(meta, "description", str)
                and _present_is(meta, "model_invokation", bool) and _present_is(meta, "user_invocable", bool)
                and ("last_sources" not in meta or _sources_ok(meta["last_sources"])))
    if kind is RecordKind.DECISION and not _present_is(meta, "status", str):
        return False
    return "sources" not in meta or _sources_ok(meta["sources"])


def _present_is(meta: Mapping[str, Any], key: str, kind: type) -> bool:
    """The value of ``key`` is exactly of type ``kind``, or the key is missing."""
    return key not in meta or type(meta[key]) is kind
