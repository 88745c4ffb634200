"""A fast reader for the plain frontmatter yoi itself writes, exact or silent.

PyYAML builds every value through several layers of Python objects; reading all the records of a
workspace (cold lint, GC, the app's first parse) spent most of its time there. Records written by
yoi, Phase 2 and most people use a small part of YAML: top-level ``key: value`` lines, block lists
of scalars or of one-level mappings (``sources``), flow lists of integers (``range: [3, 9]``),
quoted or plain strings, integers, booleans, null, and ISO timestamps.

``parse_simple`` reads exactly that subset and returns what PyYAML's safe loader would build — the
same values, the same types (``bool`` is not ``int``), the same key order, the same key lines — or
``None`` for anything else (a comment, a tab, an escape, a float, a multi-line scalar, a duplicate
key, a word YAML 1.1 reads as a boolean, a character YAML refuses…). ``None`` only means "ask
PyYAML": the caller then parses the text as before, diagnostics included. Each accepted form is
recognised by a pattern that leaves no room for another YAML reading; ``tests/test_simple_yaml.py``
checks the two readers agree on generated frontmatter built from the awkward cases.
"""

from __future__ import annotations

import re
import sys
from datetime import date, datetime
from typing import Any

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
_ITEM_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): (.*)")
# Words YAML 1.1 (PyYAML's resolver) reads as booleans or null, in any spelling it accepts.
_SPECIAL_WORDS = frozenset(
    "yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split())
_INT = re.compile(r"-?[1-9][0-9]*|0")
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(Z|[+-][0-9]{2}:[0-9]{2})")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_SINGLE = re.compile(r"'((?:[^']|'')*)'")
# A plain scalar: starts with a letter; no " #" (a comment), no ": " or final ":" (a mapping),
# nothing YAML treats as an indicator at the start. Checked further in _plain.
_PLAIN = re.compile(r"[A-Za-z][^#\t]*")
_FLOW_INTS = re.compile(r"\[((?:-?[1-9][0-9]*|0)(?:, (?:-?[1-9][0-9]*|0))*)?\]")
# Tabs, escapes, and what YAML reads as a line break besides "\n" (or a byte-order mark).
_AWKWARD = re.compile(r"[\t\\\r\x85\u2028\u2029\ufeff]")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# PyYAML's reader refuses these characters anywhere in the stream (the complement of its printable
# set; written this way round, the class compiles in 0.1 ms instead of 6).
_NON_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_MAX_NODES = 10_000


class _NotSimple(Exception):
    """The text uses YAML this reader does not read exactly; PyYAML must."""


def parse_simple(fm_text: str, lines: list[str] | None = None
                 ) -> tuple[dict[str, Any], dict[str, tuple[int, int]]] | None:
    """The mapping and each top-level key's (line, column) — line counted in the file, the
    frontmatter starting on line 2 — or None when the text is not in the simple subset.
    ``lines``: ``fm_text.split("\\n")``, when the caller has it."""
    if not fm_text:
        return None
    if lines is None:
        lines = fm_text.split("\n")
    if fm_text.isascii():
        # The two patterns' ASCII characters are the controls but "\n", and the backslash: a line
        # holding a control is not printable (str.isprintable), which loops in C.
        if "\\" in fm_text or not all(map(str.isprintable, lines)):
            return None
    elif _AWKWARD.search(fm_text) or _NON_PRINTABLE.search(fm_text):
        return None
    try:
        return _parse(lines)
    except (_NotSimple, ValueError, OverflowError):
        return None


def _parse(lines: list[str]) -> tuple[dict[str, Any], dict[str, tuple[int, int]]]:
    data: dict[str, Any] = {}
    key_lines: dict[str, tuple[int, int]] = {}
    nodes = 1
    i, count = 0, len(lines)
    while i < count:
        line = lines[i]
        match = _KEY_LINE.fullmatch(line)
        if match is None or line != line.rstrip():
            raise _NotSimple
        key, raw = sys.intern(match.group(1)), match.group(2)  # interned: one string per key name
        if key in _SPECIAL_WORDS or key in data:
            raise _NotSimple
        key_lines[key] = (i + 2, 1)
        i += 1
        if raw is None:  # "key:" alone: a block list follows, or the value is null
            items: list[Any] = []
            while i < count and lines[i].startswith("  - "):
                i, item = _item(lines, i)
                items.append(item)
                nodes += 1 + (2 * len(item) if isinstance(item, dict) else 0)
            data[key] = items if items else None
            if items:
                nodes += 1
        else:
            data[key] = _scalar(raw, flow_ok=True)
            nodes += 1 + (len(data[key]) if isinstance(data[key], list) else 0)
        nodes += 1
        if nodes > _MAX_NODES:
            raise _NotSimple
    return data, key_lines


def _item(lines: list[str], i: int) -> tuple[int, Any]:
    """One ``  - …`` entry of a block list: a scalar, or a mapping continued by ``    key: value``."""
    first = lines[i][4:]
    if first != first.rstrip():
        raise _NotSimple
    match = _ITEM_KEY.fullmatch(first)
    if match is None:
        if first.endswith(":") or ": " in first:
            raise _NotSimple
        return i + 1, _scalar(first, flow_ok=False)
    mapping: dict[str, Any] = {}
    while True:
        key, raw = sys.intern(match.group(1)), match.group(2)
        if key in _SPECIAL_WORDS or key in mapping:
            raise _NotSimple
        mapping[key] = _scalar(raw, flow_ok=True)
        i += 1
        if i >= len(lines) or not lines[i].startswith("    ") or lines[i][4:5] == " ":
            return i, mapping
        rest = lines[i][4:]
        if rest != rest.rstrip():
            raise _NotSimple
        match = _ITEM_KEY.fullmatch(rest)
        if match is None:
            raise _NotSimple


# Scalars read before (session ids, statuses, kinds, booleans repeat across records) -> their
# value; only immutable values (never a list), so records may share them. Cleared when full.
_SEEN: dict[str, Any] = {}
_SEEN_MAX = 1 << 15
_UNSEEN = object()


def _scalar(raw: str, *, flow_ok: bool) -> Any:
    value = _SEEN.get(raw, _UNSEEN)
    if value is not _UNSEEN:
        return value
    value = _read_scalar(raw, flow_ok=flow_ok)
    if type(value) is not list:  # flow_ok only decides for "[...]", which is never kept
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[raw] = value
    return value


def _read_scalar(raw: str, *, flow_ok: bool) -> Any:
    if not raw or raw != raw.strip():
        raise _NotSimple
    first = raw[0]
    if first == '"':
        match = _DOUBLE.fullmatch(raw)
        if match is None:
            raise _NotSimple
        return match.group(1)
    if first == "'":
        match = _SINGLE.fullmatch(raw)
        if match is None:
            raise _NotSimple
        return match.group(1).replace("''", "'")
    if first == "[":
        match = _FLOW_INTS.fullmatch(raw) if flow_ok else None
        if match is None:
            raise _NotSimple
        inner = match.group(1)
        return [int(part) for part in inner.split(", ")] if inner else []
    if first.isdigit() or first == "-":
        # The four forms exclude one another (an integer is digits alone, a timestamp has its "T"
        # at 10, a session id its first "-" at 8, a date is 10 characters): each is tried only
        # where its shape fits, the timestamps and session ids of every record first.
        size = len(raw)
        if size >= 20 and raw[10] == "T":
            stamp = _TIMESTAMP.fullmatch(raw)
            if stamp is not None:
                return _timestamp(stamp)
        elif size == 36:
            if _UUID.fullmatch(raw):  # 8 characters before the first "-": no number or date reading
                return sys.intern(raw)  # a session id repeats across the records of its session
        elif size == 10:
            day = _DATE.fullmatch(raw)
            if day is not None:
                return date(int(day.group(1)), int(day.group(2)), int(day.group(3)))
        if _INT.fullmatch(raw):
            return int(raw)
        raise _NotSimple
    return _plain(raw)


def _plain(raw: str) -> Any:
    if raw in ("true", "false"):
        return raw == "true"
    if raw == "null":
        return None
    if raw in _SPECIAL_WORDS or _PLAIN.fullmatch(raw) is None:
        raise _NotSimple
    if ": " in raw or raw.endswith(":") or " #" in raw or "  " in raw:
        raise _NotSimple
    # Short words (statuses, kinds, slugs) repeat across records; GC and the app hold every
    # record's frontmatter. Interned strings are freed when no longer used.
    return sys.intern(raw) if len(raw) <= 40 else raw


def _timestamp(match: re.Match[str]) -> datetime:
    # The pattern admitted only the canonical form, which fromisoformat (C) reads as PyYAML does:
    # the same fields, a fixed-offset timezone (UTC for "Z" and +00:00).
    return datetime.fromisoformat(match.group(0))
