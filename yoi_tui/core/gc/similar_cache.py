"""GC's near-duplicate slug pairs, kept between runs in ``.yoi/state/cache/gc-similar-v1.json``.

Finding the pairs among every live slug of a kind was ~0.8 s of a 5 s ``yoi gc --dry-run`` at
10,000 records, and the slugs rarely change between runs. Per kind the file keeps the slugs the
pairs were computed from, the ratio and the pairs; the next run reuses them when the slugs are the
same, and otherwise updates them as the lint cache does (``lint.cache.updated_similar_pairs``: pairs
of removed slugs dropped, added slugs compared with every slug; a large change is recomputed).
The pairs are a pure function of the slugs and the ratio, so a stale file can only cost time. A
missing, corrupt or foreign file is empty; failing to write it only costs the next run the work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..lint.cache import updated_similar_pairs
from ..store.json_cache import load_cache, save_cache
from ..store.workspace import Workspace

CACHE_NAME = "gc-similar-v1.json"
_VERSION = 1


class SimilarPairs:
    """``pairs(kind, slugs, ratio)`` during a run, ``save()`` once after it."""

    def __init__(self, ws: Workspace) -> None:
        self.path = ws.state_dir / "cache" / CACHE_NAME if ws.yoi_dir.is_dir() else None
        self._kinds: dict[str, Any] = load_cache(self.path, _VERSION, "kinds") or {}
        self._dirty = False

    def pairs(self, kind: str, slugs: Iterable[str], ratio: float) -> list[tuple[str, str, float]]:
        """The near-duplicate pairs ``(a, b, score)``, a < b, among the distinct ``slugs``."""
        ordered = sorted(set(slugs))
        cached = self._kinds.get(kind)
        if not isinstance(cached, dict) or cached.get("ratio") != ratio:
            cached = None
        try:
            pairs, changed = updated_similar_pairs(ordered, ratio, cached)
        except (TypeError, ValueError):  # a malformed entry: compute from scratch
            pairs, changed = updated_similar_pairs(ordered, ratio, None)
        if changed:
            self._kinds[kind] = {"ratio": ratio, "slugs": ordered, "pairs": pairs}
            self._dirty = True
        return [(str(a), str(b), float(score)) for a, b, score in pairs]

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        save_cache(self.path, _VERSION, "kinds", self._kinds)
