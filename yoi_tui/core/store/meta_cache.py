"""A cache of parsed frontmatter, keyed by the frontmatter's own text (content-addressed).

Building the Python values of a record's YAML frontmatter is most of what reading every record
costs (GC reads all of them on each run: ~4 s of a 10 s ``yoi gc --dry-run`` at 10,000 records).
``MetaCache`` keeps, per distinct frontmatter text, the parsed mapping and its key lines in
``.yoi/state/cache/frontmatter-v1.json``. The key is a hash of the text itself, so no file
signature, clock tick or outside edit can make it answer for a text it did not parse: a changed
frontmatter is simply a miss and is parsed as before.

Only values JSON can hold exactly are cached (``str``, ``int``, ``float``, ``bool``, ``None``,
lists, string-keyed mappings) plus ``datetime`` and ``date``, tagged; anything else (``!!binary``,
``!!set``, non-string keys, non-finite floats) is not cached and is parsed each time. A frontmatter
with a problem is never cached (its diagnostic needs the parse). ``memo`` keeps other pure
functions of a text the same way (GC: the ``#slug`` references of each body). A missing, corrupt or foreign
cache file is an empty cache; failing to write it only costs the next run the parse.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from .json_cache import load_cache, save_cache
from .workspace import Workspace

CACHE_NAME = "frontmatter-v1.json"
_VERSION = 2  # 2: memo entries are one string (their items joined by line breaks)
_TAG = "\x00yoi"  # a mapping {_TAG: ["dt"|"d", iso]} is a tagged value; a real key equal to it is not cached


class _Uncacheable(Exception):
    """A value JSON cannot hold exactly."""


def _encode(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _Uncacheable
        return value
    if kind is datetime:
        return {_TAG: ["dt", value.isoformat()]}
    if kind is date:
        return {_TAG: ["d", value.isoformat()]}
    if kind is list:
        return [_encode(item) for item in value]
    if kind is dict:
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str or key == _TAG:
                raise _Uncacheable
            out[key] = _encode(item)
        return out
    raise _Uncacheable


def _revive(obj: dict[str, Any]) -> Any:
    tagged = obj.get(_TAG) if len(obj) == 1 else None
    if tagged is None:
        return obj
    tag, text = tagged
    return datetime.fromisoformat(text) if tag == "dt" else date.fromisoformat(text)


def _key(fm_text: str) -> str:
    return hashlib.blake2b(fm_text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class MetaCache:
    """Parsed frontmatter by text hash; ``get``/``put`` during a run, ``save`` once at its end."""

    def __init__(self, path: Path | None, entries: dict[str, Any] | None = None) -> None:
        self.path = path
        self._stored: dict[str, Any] = entries or {}
        self._used: dict[str, Any] = {}  # what this run read or parsed: the next file keeps only these
        self._dirty = False
        self._last_text: str | None = None
        self._last_key = ""

    @classmethod
    def load(cls, ws: Workspace) -> MetaCache:
        """The workspace's cache (empty, and never saved, without a ``.yoi/`` folder)."""
        if not ws.yoi_dir.is_dir():
            return cls(None)
        path = ws.state_dir / "cache" / CACHE_NAME
        return cls(path, load_cache(path, _VERSION, "entries"))

    def get(self, fm_text: str) -> tuple[dict[str, Any], dict[str, tuple[int, int]]] | None:
        """``(meta, key_lines)`` parsed from ``fm_text`` earlier, as fresh objects; None when unknown."""
        key = _key(fm_text)
        raw = self._take(key)
        if raw is None:
            return None
        try:
            meta_json, lines = raw
            # Decoded again per call: callers may change the mapping they get.
            meta = json.loads(meta_json, object_hook=_revive)
            key_lines = {name: (int(at[0]), int(at[1])) for name, at in lines.items()}
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        if not isinstance(meta, dict):
            return None
        self._used[key] = raw
        return meta, key_lines

    def _take(self, key: str) -> Any:
        """The entry for ``key``: from this run's, or moved out of the loaded ones (so the decoded
        key string is not held twice; what is left in ``_stored`` at the end was not used)."""
        raw = self._used.get(key)
        return raw if raw is not None else self._stored.pop(key, None)

    def put(self, fm_text: str, meta: dict[str, Any], key_lines: dict[str, tuple[int, int]]) -> None:
        """Remember a frontmatter parsed without problems (silently skipped when not cacheable)."""
        try:
            encoded = json.dumps(_encode(meta), ensure_ascii=True, separators=(",", ":"))
        except (_Uncacheable, ValueError, RecursionError):
            return
        self._used[_key(fm_text)] = [encoded, {name: list(at) for name, at in key_lines.items()}]
        self._dirty = True

    def memo(self, table: str, text: str, compute: Callable[[str], list[str]]) -> list[str]:
        """``compute(text)`` remembered by the text's hash (a list of strings: e.g. the ``#slug``
        references of a body, which GC needs for every record); a fresh list per call."""
        joined = self.memo_joined(table, text, compute)
        return joined.split("\n") if joined else []

    def memo_joined(self, table: str, text: str, compute: Callable[[str], list[str]]) -> str:
        """``memo``'s list with its items joined by line breaks, as stored: one string per entry
        instead of a list of strings (GC keeps two per record; 50,000 records decoded ~300,000
        objects). ``compute`` must give non-empty items without line breaks."""
        if text is not self._last_text:  # GC asks two tables about the same body: hash it once
            self._last_text, self._last_key = text, _key(text)
        key = f"{table}:{self._last_key}"
        raw = self._take(key)
        if type(raw) is str:
            self._used[key] = raw
            return raw
        value = compute(text)
        if any(not item or "\n" in item for item in value):
            raise ValueError(f"memo {table!r}: items must be non-empty and hold no line break")
        joined = self._used[key] = "\n".join(value)
        self._dirty = True
        return joined

    def take_used(self) -> tuple[dict[str, Any], bool]:
        """What this run used or added since the last call, and whether any of it is new —
        forgotten here: a forked worker's share of a run, for the parent to ``adopt``."""
        used, new = self._used, self._dirty
        self._used, self._dirty = {}, False
        return used, new

    def adopt(self, used: dict[str, Any], new: bool) -> None:
        """Take a worker's ``take_used`` answer as if this process had used those entries (so what
        is left unused, and whether the file is written at all, is as a serial run leaves it)."""
        self._used.update(used)
        for key in used:
            self._stored.pop(key, None)
        self._dirty = self._dirty or new

    def save(self) -> None:
        """Write the entries this run used (best effort: temp file + rename; a failure is ignored)."""
        if self.path is None or not (self._dirty or self._stored):  # nothing new, nothing left unused
            return
        save_cache(self.path, _VERSION, "entries", self._used)
