"""Reading and writing one derived-data cache file under ``.yoi/state/cache/``.

Every cache (parsed frontmatter, GC's near-duplicate pairs, the resident context's listings) is a
JSON object ``{"version": N, <field>: {...}}``: a missing, unreadable, corrupt or foreign file is
simply no cache, and writing one is best effort (temp file in the same folder + rename; a failure
costs the next run its work, never a half-written file). ASCII JSON: a value may hold a lone
surrogate (from a YAML escape) that UTF-8 cannot encode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_cache(path: Path | None, version: int, field: str) -> dict[str, Any] | None:
    """The ``field`` mapping of the cache at ``path`` when it has this ``version``, else None."""
    from .safe_read import load_cache_json

    data = load_cache_json(path)
    if isinstance(data, dict) and data.get("version") == version and isinstance(data.get(field), dict):
        return data[field]
    return None


def save_cache(path: Path, version: int, field: str, value: dict[str, Any]) -> None:
    """Write ``{"version": version, field: value}`` to ``path`` atomically; ignore any failure."""
    from .atomic import temp_prefix

    temp = path.with_name(f"{temp_prefix(path.name)}tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(json.dumps({"version": version, field: value}, ensure_ascii=True,
                                    separators=(",", ":")).encode("ascii"))
        temp.replace(path)
    except (OSError, ValueError):
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            pass
