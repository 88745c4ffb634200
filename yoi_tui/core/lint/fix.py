"""``yoi lint --fix``: the mechanical repairs of a hand-written record's frontmatter.

Only what has one right answer is changed; everything a person must decide (a status, a
description, a body over its cap) is left to the linter's message:

- a misspelled known key (``model_invocation``, ``user-invocable``, ``createdAt``) is renamed in
  place, keeping its value, when the record does not already have the right key; Claude Code's
  ``disable-model-invocation: true`` becomes ``model_invokation: false`` (its opposite);
- a missing ``created_at`` / ``updated_at`` is filled from the other one, else from the file's
  modification time; a timestamp without a UTC offset is read as UTC, a bare date as midnight UTC;
- a knowledge record's missing flags get their defaults (``model_invokation: false``,
  ``user_invocable: true``); missing ``sources`` / ``last_sources`` become ``[]``.

Every other line of the file stays byte for byte (``writer.render_record``); the new text is
checked to parse before it is offered, and it is written with ``writer.save_text`` — atomically,
under the workspace write lock, and only if the file is still the text that was read.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from ..store.kinds import RecordKind
from ..store.meta_fields import KNOWN_KEYS, REQUIRED_KEYS
from ..store.reader import read_record
from ..store.records import Record, as_timestamp, parse_record_text, timestamp_problem
from ..store.workspace import Workspace
from ..store.writer import DELETE, render_record, save_text

# Keys another harness spells differently, with a function from its value to ours (None: no
# mechanical answer for that value).
_ALIASES: dict[str, tuple[str, Any]] = {
    "disable-model-invocation": ("model_invokation", lambda v: (not v) if isinstance(v, bool) else None),
    "disable_model_invocation": ("model_invokation", lambda v: (not v) if isinstance(v, bool) else None),
}
_FLAG_DEFAULTS = {"model_invokation": False, "user_invocable": True}
_SOURCE_KEYS = {RecordKind.KNOWLEDGE: "last_sources", RecordKind.DECISION: "sources", RecordKind.REQUEST: "sources"}
_TIMESTAMPS = ("created_at", "updated_at")
RULES_FIXED = frozenset({"missing-field", "unknown-field", "field-type"})
"""The lint rules whose findings ``plan_fix`` may repair (a whole-workspace fix looks at those files)."""


@dataclass
class FixedRecord:
    """One record's repairs: its text before and after, and a line per change."""

    rel: str
    path: Path
    before: str
    after: str
    bom: bool = False
    changes: list[str] = field(default_factory=list)

    def diff(self) -> str:
        """A unified diff of the change, ``a/<rel>`` to ``b/<rel>``."""
        lines = difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                     f"a/{self.rel}", f"b/{self.rel}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.rel, "changes": list(self.changes), "diff": self.diff()}


def _normal(key: str) -> str:
    """A key folded for comparison: case, hyphens and camelCase do not matter."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower().replace("-", "_").replace(" ", "_")


def _known_key_for(key: str, kind: RecordKind, meta: dict[str, Any]) -> str | None:
    """The known key of ``kind`` that ``key`` misspells (None: not a near-miss, or ambiguous)."""
    known = sorted(KNOWN_KEYS[kind])
    folded = _normal(key)
    exact = [k for k in known if k == folded]
    close = exact or difflib.get_close_matches(folded, known, n=2, cutoff=0.8)
    if not close or close[0] == key or close[0] in meta:
        return None
    if len(close) > 1 and not exact and difflib.SequenceMatcher(None, folded, close[0]).ratio() == \
            difflib.SequenceMatcher(None, folded, close[1]).ratio():
        return None  # two keys as near: no single answer
    return close[0]


def fixable_spelling(record: Record, key: str) -> str | None:
    """The known key ``plan_fix`` turns ``key`` of ``record`` into (None: it leaves the key alone)."""
    kind = record.kind
    if key in KNOWN_KEYS[kind]:
        return None
    alias = _ALIASES.get(key) if kind is RecordKind.KNOWLEDGE else None
    if alias is not None:
        target, convert = alias
        return target if target not in record.meta and convert(record.meta[key]) is not None else None
    return _known_key_for(key, kind, record.meta)


def spelling_fixes(record: Record) -> tuple[dict[str, str], frozenset[str]]:
    """``({key: the known key plan_fix turns it into}, {known keys two or more keys stand for})``:
    the second have no single answer, and ``plan_fix`` touches none of their keys."""
    targets = {key: fixable_spelling(record, key) for key in record.meta if key not in KNOWN_KEYS[record.kind]}
    claimed = [target for target in targets.values() if target is not None]
    ambiguous = frozenset(target for target in claimed if claimed.count(target) > 1)
    return {key: t for key, t in targets.items() if t is not None and t not in ambiguous}, ambiguous


def _rename_line(text: str, line: int, old: str, new: str) -> str | None:
    """``text`` with the key ``old`` on 1-based file ``line`` renamed ``new`` (None: not found there)."""
    lines = text.splitlines(keepends=True)
    if not 0 < line <= len(lines):
        return None
    pattern = re.compile(rf"^([\"']?){re.escape(old)}\1(?=[ \t]*:)")
    if not pattern.match(lines[line - 1]):
        return None
    lines[line - 1] = pattern.sub(new, lines[line - 1], count=1)
    return "".join(lines)


def _utc(value: Any) -> datetime | None:
    """A timestamp with an offset for a value without one (a naive datetime as UTC, a date at 00:00 UTC)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            try:
                value = date.fromisoformat(value.strip())
            except ValueError:
                return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return None


def _file_time(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime, UTC).replace(microsecond=0)
    except OSError:
        return datetime.now(UTC).replace(microsecond=0)


def plan_fix(ws: Workspace, record: Record) -> FixedRecord | None:
    """The mechanical repairs of ``record`` (None: nothing to repair)."""
    text, changes = record.text, []
    kind = record.kind
    current = record
    # 1. Renames, in place, one line each (the text is parsed again after each). Two keys that
    # both stand for one known key have no single answer: neither is touched.
    renames, ambiguous = spelling_fixes(record)
    for key in list(record.meta):
        if key not in renames:
            continue
        alias = _ALIASES.get(key) if kind is RecordKind.KNOWLEDGE else None
        target: str | None
        if alias is not None:
            target, convert = alias
            value = convert(current.meta[key])
            if value is None or target in current.meta:
                continue
            text = render_record(current, {key: DELETE, target: value})
            changes.append(f"'{key}: {_yaml(current.meta[key])}' is '{target}: {_yaml(value)}' here")
        else:
            target = _known_key_for(key, kind, current.meta)
            renamed = _rename_line(text, current.key_lines.get(key, (0, 0))[0], key, target) if target else None
            if renamed is None:
                continue
            text = renamed
            changes.append(f"renamed '{key}' to '{target}'")
        reparsed = _parse(text, record)
        if reparsed is None:  # never offer a text that does not parse: keep the renames before this one
            text = current.text
            changes.pop()
            break
        current = reparsed
    # 2. Values without a UTC offset, and missing keys.
    updates: dict[str, Any] = {}
    for key in _TIMESTAMPS:
        if key in current.meta and timestamp_problem(current.meta[key]) is not None:
            fixed = _utc(current.meta[key])
            if fixed is not None:
                updates[key] = fixed
                changes.append(f"'{key}' read as UTC: {fixed.isoformat()}")
    required = REQUIRED_KEYS[kind]
    stamps = {k: updates.get(k, as_timestamp(current.meta.get(k))) for k in _TIMESTAMPS if k in required}
    for key in stamps:
        if key in current.meta:
            continue
        other = next((v for k, v in stamps.items() if k != key and v is not None), None)
        updates[key] = other or _file_time(record.path)
        changes.append(f"added '{key}' ({'from the other timestamp' if other else 'the file modification time'})")
    for key, default in _FLAG_DEFAULTS.items():
        if key in required and key not in current.meta and key not in ambiguous:  # a person's value, twice
            updates[key] = default
            changes.append(f"added '{key}: {_yaml(default)}' (the default)")
    sources = _SOURCE_KEYS.get(kind)
    if sources in required and sources not in current.meta:
        updates[sources] = []
        changes.append(f"added '{sources}: []' (no sessions yet)")
    if updates:
        text = render_record(current, updates)
        if _parse(text, record) is None:
            return None
    return _result(record, text, changes)


def _result(record: Record, text: str, changes: list[str]) -> FixedRecord | None:
    if not changes or text == record.text:
        return None
    return FixedRecord(record.rel, record.path, record.text, text, record.bom, changes)


def _parse(text: str, like: Record) -> Record | None:
    parsed, _diags = parse_record_text(text, kind=like.kind, path=like.path, rel=like.rel, bom=like.bom)
    return parsed


def _yaml(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def plan_fixes(ws: Workspace, paths: list[Path]) -> list[FixedRecord]:
    """The repairs of each record file in ``paths`` that has any (unreadable files are skipped:
    the linter reports them)."""
    planned = []
    for path in paths:
        result = read_record(ws, path)
        if result.record is not None:
            fixed = plan_fix(ws, result.record)
            if fixed is not None:
                planned.append(fixed)
    return planned


def apply_fix(fixed: FixedRecord) -> None:
    """Write one repair: atomically, under the write lock, refused (``RecordChangedError``) if the
    file changed since it was read, or locked (``RecordLockedError``)."""
    save_text(fixed.path, fixed.after, expected_before=fixed.before, bom=fixed.bom)


__all__ = ["RULES_FIXED", "FixedRecord", "apply_fix", "fixable_spelling", "plan_fix", "plan_fixes", "spelling_fixes"]
