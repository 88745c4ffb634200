"""Writing records: render frontmatter changes without disturbing the rest, then save atomically.

Only the lines of the keys that change are re-emitted; every other line (unknown keys, comments,
key order, quoting style) and the body are kept byte for byte, so a record read and written back
unchanged gives identical bytes and git diffs show only what changed. The file's newline style and
BOM are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from ..errors import RecordChangedError
from .atomic import atomic_write_text, ensure_writable
from .reader import drop_bom, read_exact
from .records import Record

DELETE = object()
"""Sentinel value in ``updates``: remove that key."""

_PLAIN_RE = re.compile(r"^[A-Za-z0-9_./@+(][A-Za-z0-9_ ./@+()'`,-]*$")


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        spec = "seconds" if value.microsecond == 0 else "microseconds"
        return value.isoformat(timespec=spec)
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    if text and _PLAIN_RE.match(text) and not text.endswith(" ") and _plain_roundtrips(text):
        return text
    return _NON_PRINTABLE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


# Characters YAML refuses to read raw (C0/C1 controls, DEL, surrogates, non-characters), and the
# Unicode line and paragraph separators, which YAML 1.1 reads as line breaks (a raw one inside a
# quoted value would be folded, and move every line after it): escape them.
_NON_PRINTABLE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _plain_roundtrips(text: str) -> bool:
    try:
        return yaml.safe_load(text) == text
    except yaml.YAMLError:
        return False


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, list | dict)


def emit_value(key: str, value: Any, indent: int = 0) -> list[str]:
    """YAML lines for ``key: value`` in the house style (block lists, flow lists of scalars in maps)."""
    pad = " " * indent
    if _is_scalar(value):
        return [f"{pad}{key}: {_scalar(value)}"]
    if isinstance(value, list):
        if not value:
            return [f"{pad}{key}: []"]
        lines = [f"{pad}{key}:"]
        for item in value:
            lines.extend(_emit_item(item, indent + 2))
        return lines
    if not value:
        return [f"{pad}{key}: {{}}"]
    lines = [f"{pad}{key}:"]
    for sub_key, sub_value in value.items():
        lines.extend(emit_value(str(sub_key), sub_value, indent + 2))
    return lines


def _emit_item(item: Any, indent: int) -> list[str]:
    pad = " " * indent
    if _is_scalar(item):
        return [f"{pad}- {_scalar(item)}"]
    if isinstance(item, list):
        if item and all(_is_scalar(v) for v in item):
            return [f"{pad}- [{', '.join(_scalar(v) for v in item)}]"]
        return [f"{pad}- " + _flow_json(item)]
    if not item:
        return [f"{pad}- {{}}"]
    lines: list[str] = []
    for position, (sub_key, sub_value) in enumerate(item.items()):
        if isinstance(sub_value, list) and sub_value and all(_is_scalar(v) for v in sub_value):
            rendered = [f"{' ' * (indent + 2)}{sub_key}: [{', '.join(_scalar(v) for v in sub_value)}]"]
        else:
            rendered = emit_value(str(sub_key), sub_value, indent + 2)
        if position == 0:
            rendered[0] = f"{pad}- " + rendered[0].lstrip()
        lines.extend(rendered)
    return lines


def _flow_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return _NON_PRINTABLE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _key_spans(record: Record) -> dict[str, tuple[int, int]]:
    """Frontmatter line index span [start, end) of each top-level key (trailing blanks/comments excluded)."""
    starts = sorted((line - 2, key) for key, (line, _col) in record.key_lines.items())
    spans: dict[str, tuple[int, int]] = {}
    total = len(record.frontmatter_lines)
    for position, (start, key) in enumerate(starts):
        end = starts[position + 1][0] if position + 1 < len(starts) else total
        while end - 1 > start and (not record.frontmatter_lines[end - 1].strip()
                                   or record.frontmatter_lines[end - 1].lstrip().startswith("#")):
            end -= 1
        spans[key] = (start, end)
    return spans


def render_record(record: Record, updates: Mapping[str, Any] | None = None, body: str | None = None) -> str:
    """The file text of ``record`` with ``updates`` applied (``DELETE`` removes a key).

    Unchanged keys keep their exact lines; with no updates and no new body the original text is
    returned, so a round trip is byte-identical.
    """
    updates = {k: v for k, v in (updates or {}).items() if record.meta.get(k, DELETE) is not v}
    if not updates and (body is None or body == record.body):
        return record.text
    lines = list(record.frontmatter_lines)
    spans = _key_spans(record)
    appended: list[str] = []
    replacements: list[tuple[int, int, list[str]]] = []
    for key, value in updates.items():
        new_lines = [] if value is DELETE else emit_value(key, value)
        if key in spans:
            start, end = spans[key]
            replacements.append((start, end, new_lines))
        elif value is not DELETE:
            appended.extend(new_lines)
    for start, end, new_lines in sorted(replacements, reverse=True):
        lines[start:end] = new_lines
    while appended and lines and not lines[-1].strip():
        lines.pop()
    lines.extend(appended)
    text = "---\n" + "".join(f"{line}\n" for line in lines) + "---\n" + (record.body if body is None else body)
    if record.newline == "\r\n":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def new_record_text(meta: Mapping[str, Any], body: str) -> str:
    """The text of a new record: frontmatter in the given key order, then the body verbatim."""
    lines: list[str] = []
    for key, value in meta.items():
        lines.extend(emit_value(key, value))
    return "---\n" + "".join(f"{line}\n" for line in lines) + "---\n" + body


def encode_record_text(text: str, *, bom: bool = False) -> bytes:
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def save_text(path: Path, text: str, *, expected_before: str | None | object = ..., bom: bool = False) -> None:
    """Atomically write ``text`` to ``path``.

    ``expected_before``: the file's text when the writer read it (None: the file must not exist);
    if the file now differs, ``RecordChangedError`` is raised and nothing is written. The check and
    the write hold the workspace write lock (``write_lock``), shared with a run's apply. A locked
    (read-only) file raises ``RecordLockedError``.
    """
    path = Path(path)
    from .atomic import atomic_write_bytes
    from .write_lock import workspace_root_of, write_lock

    # The check and the write happen under the workspace write lock, so a run applying this file
    # at the same moment either lands before (and the check fails) or waits until after.
    with write_lock(workspace_root_of(path)):
        ensure_writable(path)
        if expected_before is not ...:
            current = _current_text(path)
            if current != expected_before:
                what = "was created" if expected_before is None else ("was deleted" if current is None else "changed")
                raise RecordChangedError(f"file {what} on disk since it was read; not overwritten", path=path)
        atomic_write_bytes(path, encode_record_text(text, bom=bom))


def save_record(record: Record, updates: Mapping[str, Any] | None = None, body: str | None = None) -> str:
    """Apply ``updates``/``body`` to ``record`` on disk, refusing if the file changed since read."""
    text = render_record(record, updates, body)
    save_text(record.path, text, expected_before=record.text, bom=record.bom)
    return text


def _current_text(path: Path) -> str | None:
    """The file's text now, to compare with ``expected_before``: the reader's exact read
    (``reader.read_exact``: every byte kept, an invalid UTF-8 byte as a lone surrogate) without
    its byte-order mark (``drop_bom``, as every record text is held). A valid UTF-8 file gives the
    text every reader gives; a file with bytes that are not UTF-8 equals no strictly decoded text
    and only the exact text it was read as (a ``replace`` decoding once made a file whose U+FFFD
    became an invalid byte look unchanged, and overwrote it). None: no such file."""
    current = read_exact(path)
    return drop_bom(current) if current is not None else None


__all__ = ["DELETE", "atomic_write_text", "emit_value", "new_record_text", "render_record",
           "save_record", "save_text"]
