"""A fast path for the simple YAML frontmatter yoi writes; anything else is left to PyYAML.

Building YAML values through PyYAML (even with libyaml's C parser, nodes, marks and the
constructor run in Python) was most of what reading every record costs: ~45 % of a
``yoi gc --dry-run`` and a third of a cold ``yoi lint``. The frontmatter our writers produce is a
small subset of YAML, line by line::

    key: plain or 'single' or "double" scalar, or [flow, list]
    key:                       # followed by block items, or nothing (null)
      - scalar
      - key: scalar            # a mapping item; its other keys indented under the first
        key: [23, 27]

``parse_simple`` parses exactly that subset and returns ``None`` for anything it does not handle
with certainty (comments, blank lines, tabs, non-printable characters, anchors, tags, block
scalars, nested blocks, flow mappings, escapes, duplicate keys, non-decimal numbers, …); the
caller then runs PyYAML as before, which also words every error. Plain scalars are typed by
PyYAML's own implicit resolver and built by its own ``SafeConstructor`` methods, so an ``int``,
``bool``, ``null`` or timestamp comes out as PyYAML makes it. ``tests/test_simple_yaml.py``
checks, with hypothesis, that every answer equals PyYAML's (values, types, key order, key lines).
"""

from __future__ import annotations

import re
import sys
from datetime import datetime
from typing import Any

import yaml

_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?$")
_MAX_LINES = 2000  # far below PyYAML's node limit that read_record enforces; longer goes to PyYAML
# Characters that start something other than a plain scalar (indicators), as the first character.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Characters a flow-sequence item may not hold here (flow indicators, quotes, anchors, tags, comments).
_FLOW_BAD = frozenset(",[]{}#&*!|>'\"%@`?:")

_resolver = yaml.resolver.Resolver()
_constructor = yaml.constructor.SafeConstructor()
_STR_TAG = "tag:yaml.org,2002:str"
_BUILT = {
    "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:float",
}
# First characters for which no implicit resolver exists: such a plain scalar is always a string.
_RESOLVED_FIRST = frozenset(k for k in _resolver.yaml_implicit_resolvers if k)
_HAS_WILDCARD = None in _resolver.yaml_implicit_resolvers


class _Fallback(Exception):
    """Not in the subset: let PyYAML parse it."""


_DECIMAL_RE = re.compile(r"(?:0|[1-9][0-9]*)\Z")
# The stamp yoi writes (``datetime.isoformat`` of a whole second with an offset): ``fromisoformat``
# builds the value PyYAML's timestamp constructor builds (tests compare them) at a fraction of the cost.
_STAMP_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}\Z")


def _intern(value: str) -> str:
    """Short strings shared: a session id or a status repeats across thousands of records, and GC
    and the app hold every record's frontmatter (interned strings are freed when unused)."""
    return sys.intern(value) if len(value) <= 40 else value


def _plain(value: str) -> Any:
    """A plain (unquoted) scalar, typed as PyYAML types it; ``_Fallback`` when unsure."""
    first = value[:1]
    if not first or first in _INDICATORS or value[-1] == ":" or ": " in value or " #" in value:
        raise _Fallback
    if first not in _RESOLVED_FIRST and not _HAS_WILDCARD:
        return _intern(value)
    if _DECIMAL_RE.match(value):
        return int(value)
    if _STAMP_RE.match(value):
        return datetime.fromisoformat(value)
    tag = _resolver.resolve(yaml.ScalarNode, value, (True, False))
    if tag == _STR_TAG:
        return _intern(value)
    if tag not in _BUILT:
        raise _Fallback
    build = _constructor.yaml_constructors[tag]
    return build(_constructor, yaml.ScalarNode(tag, value))


def _scalar(text: str) -> Any:
    """A scalar or flow sequence written on one line (already stripped of the key)."""
    text = text.rstrip(" ")
    if not text:
        return None
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise _Fallback
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Fallback
        return inner
    if first == "[":
        if text[-1] != "]":
            raise _Fallback
        inner = text[1:-1].strip(" ")
        if not inner:
            return []
        items = []
        for part in inner.split(","):
            part = part.strip(" ")
            if not part or _FLOW_BAD.intersection(part):
                raise _Fallback
            items.append(_plain(part))
        return items
    return _plain(text)


def _key(name: str, seen: dict[str, Any] | dict[str, tuple[int, int]]) -> str:
    if name in seen or (name[0] in _RESOLVED_FIRST or _HAS_WILDCARD) and \
            _resolver.resolve(yaml.ScalarNode, name, (True, False)) != _STR_TAG:
        raise _Fallback  # a duplicate (PyYAML's diagnostic) or a key that is not a string (yes, null, 1)
    return sys.intern(name)


def _items(lines: list[str], start: int) -> tuple[list[Any], int]:
    """The block sequence starting at ``lines[start]`` (items ``- `` at indent 0 or 2)."""
    first = lines[start]
    indent = len(first) - len(first.lstrip(" "))
    if indent not in (0, 2):
        raise _Fallback
    lead = " " * indent + "- "
    inner = " " * (indent + 2)
    items: list[Any] = []
    i = start
    while i < len(lines) and lines[i].startswith(lead):
        rest = lines[i][len(lead):]
        match = _KEY_RE.match(rest)
        i += 1
        if match is None:
            if rest[:1] == " ":
                raise _Fallback
            items.append(_scalar(rest))
            continue
        mapping: dict[str, Any] = {}
        name, value = match.group(1), match.group(2)
        if value is None:
            raise _Fallback  # a nested block under a mapping item
        mapping[_key(name, mapping)] = _scalar(value)
        while i < len(lines) and lines[i].startswith(inner) and lines[i][len(inner):len(inner) + 1] not in (" ", ""):
            match = _KEY_RE.match(lines[i], len(inner))
            if match is None or match.group(2) is None:
                raise _Fallback
            name = _key(match.group(1), mapping)
            mapping[name] = _scalar(match.group(2))
            i += 1
        items.append(mapping)
    return items, i


def parse_simple(fm_text: str) -> tuple[dict[str, Any], dict[str, tuple[int, int]]] | None:
    """``(meta, key_lines)`` as ``records._parse_yaml_mapping`` gives them, for the simple subset;
    None for anything else (the caller parses it with PyYAML). ``key_lines`` are 1-based file lines
    (the frontmatter starts on line 2) and columns of the top-level keys."""
    lines = fm_text.split("\n")
    if len(lines) > _MAX_LINES:
        return None
    meta: dict[str, Any] = {}
    key_lines: dict[str, tuple[int, int]] = {}
    try:
        if not fm_text.replace("\n", "").isprintable():  # tabs, CR, NEL, BOM, controls: PyYAML's
            return None
        i = 0
        while i < len(lines):
            match = _KEY_RE.match(lines[i])
            if match is None:
                return None
            name = _key(match.group(1), key_lines)
            key_lines[name] = (i + 2, 1)
            value = match.group(2)
            i += 1
            if value is not None and value.strip(" "):
                meta[name] = _scalar(value)
            elif i < len(lines) and lines[i].lstrip(" ").startswith("- "):
                meta[name], i = _items(lines, i)
            else:
                meta[name] = None
    except (_Fallback, yaml.YAMLError, ValueError, TypeError, OverflowError):
        return None
    return meta, key_lines


__all__ = ["parse_simple"]
