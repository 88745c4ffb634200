"""Reading and writing one derived-data cache file under ``.yoi/state/`` — the one helper every cache uses.

Every cache (parsed frontmatter, GC's near-duplicate pairs, the resident context's listings, the
lint's per-file facts, its stored result and usage frequencies, the llm capability probe) is a JSON
object with a ``"version"`` (the format: bumped when the meaning of a field changes) and, where the
cache depends on more than its format, a ``"key"`` (what it was computed from: a fingerprint of
the config, linter sources, library versions…). A missing, unreadable, corrupt, foreign, older or
otherwise-keyed file is simply no cache (``read_cache``; ``safe_read.load_cache_json`` opens it
regular-file-only, non-blocking, with a depth limit), and writing one is best effort
(``write_cache``: temp file in the same folder + rename; a failure costs the next run its work,
never a half-written file). ASCII JSON: a value may hold a lone surrogate (from a YAML escape) that
UTF-8 cannot encode.

Deciding whether an *entry* of a cache still describes its file is the freshness rules' job
(``core/freshness/signature.py``); this module only keeps the file itself honest.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_UNSET: Any = object()


def read_cache(path: Path | None, version: int, key: Any = _UNSET) -> dict[str, Any] | None:
    """The cache object at ``path`` when it has this ``version`` (and this ``key``, when given), else None."""
    from .safe_read import load_cache_json

    try:
        data = load_cache_json(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    if key is not _UNSET and data.get("key") != key:
        return None
    return data


def write_cache(path: Path, data: dict[str, Any] | None, *, encoded: str | None = None) -> None:
    """Write ``data`` (which carries its ``"version"``, and ``"key"`` if any) to ``path`` atomically;
    ignore any failure. ``encoded``: the object already encoded as compact ASCII JSON (written as is)."""
    from .atomic import temp_prefix

    temp = path.with_name(f"{temp_prefix(path.name)}tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":")) if encoded is None else encoded
        temp.write_bytes(text.encode("ascii"))
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            pass


def load_cache(path: Path | None, version: int, field: str) -> dict[str, Any] | None:
    """The ``field`` mapping of the cache at ``path`` when it has this ``version``, else None."""
    data = read_cache(path, version)
    if data is not None and isinstance(data.get(field), dict):
        return data[field]
    return None


def save_cache(path: Path, version: int, field: str, value: dict[str, Any]) -> None:
    """Write ``{"version": version, field: value}`` to ``path`` atomically; ignore any failure."""
    write_cache(path, {"version": version, field: value})
