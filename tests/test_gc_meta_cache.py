"""GC's caches — parsed frontmatter (``store/meta_cache.py``) and near-duplicate slug pairs
(``gc/similar_cache.py``): same records, same GC, never stale.

The cache is keyed by the frontmatter's text, so these tests check what matters: a cached parse is
the parse (values, types, key order, key lines), what JSON cannot hold is not cached, a corrupt
cache is ignored, an edit is a miss, and GC reports the same operations with and without it.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from support import decision_meta, knowledge_meta, make_ws, request_meta, write_record

from yoi_tui.core.gc import run_gc
from yoi_tui.core.gc.runner import prepare_gc
from yoi_tui.core.gc.similar_cache import CACHE_NAME as SIMILAR_CACHE
from yoi_tui.core.store.meta_cache import CACHE_NAME, MetaCache
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import record_tokens

NOW = datetime(2027, 1, 5, 12, 0, tzinfo=UTC)

TRICKY = """---
created_at: 2026-11-02T09:00:00+05:30
updated_at: 2026-11-02 09:00:00.250000
day: 2026-11-02
sources:
  - session_id: "s1"
    range: [0, 3]
status: open
ratio: 0.1
big: 123456789012345678901234567890
flag: yes
nothing: ~
nested: {a: [1, 2.5, "x"], "b c": {d: null}}
text: "caf\\u00e9 \\U0001F600 end"
"---": dashes
---

# Tricky
"""

UNCACHEABLE = """---
created_at: 2026-11-02T09:00:00+00:00
blob: !!binary aGVsbG8=
bag: !!set {a, b}
inf: .inf
---

# Odd values
"""


def _parse(ws: Workspace, path: Path, cache: MetaCache | None):
    result = read_record(ws, path, meta_cache=cache)
    assert result.record is not None, result.diagnostics
    return result.record


def _same(a, b) -> None:
    assert a.meta == b.meta and list(a.meta) == list(b.meta)
    assert repr(a.meta) == repr(b.meta)  # types too: date vs datetime, tz offsets, int vs float
    assert a.key_lines == b.key_lines and a.body == b.body and a.text == b.text


def test_a_cached_frontmatter_is_the_parsed_one(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = ws.root / "memory/decisions/tricky.md"
    path.write_text(TRICKY, encoding="utf-8", errors="surrogatepass")
    plain = _parse(ws, path, None)
    first = MetaCache.load(ws)
    _same(_parse(ws, path, first), plain)
    first.save()
    assert (ws.state_dir / "cache" / CACHE_NAME).is_file()
    warm = MetaCache.load(ws)
    hit = _parse(ws, path, warm)
    _same(hit, plain)
    assert hit.meta["created_at"].utcoffset() == timedelta(hours=5, minutes=30)
    assert type(hit.meta["day"]) is date and hit.meta["created_at"].tzinfo == timezone(timedelta(hours=5, minutes=30))
    hit.meta["status"] = "changed"  # a caller changing its record does not change the cache
    assert _parse(ws, path, warm).meta["status"] == "open"


def test_values_json_cannot_hold_are_parsed_every_time(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = ws.root / "memory/decisions/odd.md"
    path.write_text(UNCACHEABLE, encoding="utf-8")
    cache = MetaCache.load(ws)
    record = _parse(ws, path, cache)
    assert record.meta["blob"] == b"hello" and record.meta["bag"] == {"a", "b"}
    cache.save()
    assert MetaCache.load(ws).get("\n".join(record.frontmatter_lines)) is None
    _same(_parse(ws, path, MetaCache.load(ws)), record)


def test_an_edit_is_a_miss_and_a_corrupt_cache_is_empty(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/use-sqlite.md", decision_meta())
    # A comment puts it outside the fast path (store/simple_yaml.py): PyYAML parses it, the cache keeps it.
    path.write_text(path.read_text().replace("---\n", "---\n# edited by hand\n", 1))
    cache = MetaCache.load(ws)
    _parse(ws, path, cache)
    cache.save()
    assert MetaCache.load(ws).get("\n".join(_parse(ws, path, None).frontmatter_lines)) is not None
    path.write_text(path.read_text().replace("status: open", "status: resolved"))
    assert _parse(ws, path, MetaCache.load(ws)).meta["status"] == "resolved"
    (ws.state_dir / "cache" / CACHE_NAME).write_text('{"version": 1, "entries": {"x": 5}}')
    assert _parse(ws, path, MetaCache.load(ws)).meta["status"] == "resolved"
    (ws.state_dir / "cache" / CACHE_NAME).write_bytes(b"\xff not json")
    assert _parse(ws, path, MetaCache.load(ws)).meta["status"] == "resolved"


def _workspace(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/new-way.md", decision_meta(status="resolved"), "\n# New way\n")
    write_record(ws, "memory/decisions/old-way.md", decision_meta(status="replaced", replaced_by="new-way"))
    write_record(ws, "memory/decisions/use-sqlite-store.md", decision_meta(), "\n# Use SQLite\n\nOne.\n")
    write_record(ws, "memory/decisions/use-sqlite-stores.md", decision_meta(), "\n# Use SQLite\n\nTwo.\n")
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(22)]
    write_record(ws, "memory/requests/long-running.md", request_meta(sources=many))
    write_record(ws, "memory/requests/done-thing.md", request_meta(status="resolved"))
    write_record(ws, "knowledge/the-port.md", knowledge_meta(), "\nSee #new-way.\n")
    (ws.root / "memory/decisions/broken.md").write_text("---\nstatus: [open\n---\n\n# Broken\n")
    record_tokens(ws, 30_000_000, session_id="clock")
    return ws


def _report(ws: Workspace) -> dict:
    data = prepare_gc(ws, dry_run=True, now=NOW).report.to_json(diff=True)
    data.pop("run_id")
    return data


def test_gc_reports_the_same_with_a_cold_warm_or_stale_cache(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    cache_file = ws.state_dir / "cache" / CACHE_NAME
    cold = _report(ws)
    assert cold["counts"]["delete"] >= 2 and cold["counts"]["modify"] >= 1  # drops, a merge, a trim
    entries = json.loads(cache_file.read_bytes())["entries"]
    parsed = [p for p in sorted((ws.root / "memory").rglob("*.md")) + sorted((ws.root / "knowledge").rglob("*.md"))
              if p.name != "broken.md" and p.name != "summary.md"]
    fronts = {p.read_text().split("---\n")[1] for p in parsed}
    metas = [key for key in entries if ":" not in key]  # "refs:<hash>": a body's #slug references
    # The frontmatter yoi writes takes the fast path (store/simple_yaml.py): not cached; only what
    # PyYAML had to parse is (the broken one never is).
    assert len(fronts) >= 4 and metas == []
    bodies = {p.read_text().split("---\n", 2)[2] for p in parsed}
    assert len([key for key in entries if key.startswith("refs:")]) == len(bodies)
    # Taken for every body read (its text is then released) and for a merge keeper's new text.
    assert 1 <= len([key for key in entries if key.startswith("paths:")]) <= len(bodies) + 1
    assert _report(Workspace(ws.root)) == cold
    # An edit after the cache was written: the edited record is parsed again, the report follows it.
    path = ws.root / "memory/requests/done-thing.md"
    path.write_text(path.read_text().replace("status: resolved", "status: open"))
    edited = _report(Workspace(ws.root))
    cache_file.unlink()
    assert edited == _report(Workspace(ws.root)) != cold
    assert run_gc(Workspace(ws.root)).status == "applied"


def _fresh(ws: Workspace) -> dict:
    """The report computed with no GC cache at all."""
    for name in (CACHE_NAME, SIMILAR_CACHE):
        (ws.state_dir / "cache" / name).unlink(missing_ok=True)
    return _report(Workspace(ws.root))


def test_near_duplicate_pairs_follow_added_and_removed_slugs(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    first = _report(ws)
    similar = ws.state_dir / "cache" / SIMILAR_CACHE
    kinds = json.loads(similar.read_bytes())["kinds"]
    assert ["use-sqlite-store", "use-sqlite-stores"] in [p[:2] for p in kinds["decision"]["pairs"]]
    # A new near-duplicate (an added slug: compared with every slug) and a deleted one.
    write_record(ws, "memory/decisions/use-sqlite-storez.md", decision_meta(), "\n# Use SQLite\n\nThree.\n")
    (ws.root / "memory/decisions/use-sqlite-stores.md").unlink()
    updated = _report(Workspace(ws.root))
    assert updated != first and updated == _fresh(ws)
    assert "memory/decisions/use-sqlite-storez.md" in {f["path"] for f in updated["files"]}
    # A corrupt file, or one computed at another ratio, is not trusted.
    _report(Workspace(ws.root))
    similar.write_text('{"version": 1, "kinds": {"decision": {"ratio": 90.0, "slugs": 5, "pairs": [1]}}}')
    assert _report(Workspace(ws.root)) == updated
    data = json.loads(similar.read_bytes())
    data["kinds"]["decision"]["pairs"] = []
    data["kinds"]["decision"]["ratio"] = 1.0
    similar.write_text(json.dumps(data))
    assert _report(Workspace(ws.root)) == updated


def test_a_reference_added_after_the_cache_keeps_its_target(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    write_record(ws, "knowledge/old-port.md", knowledge_meta(replaced_by="the-port"))
    first = _report(ws)
    assert "knowledge/old-port.md" in {f["path"] for f in first["files"]}  # dropped: nothing names it
    path = ws.root / "memory/decisions/new-way.md"
    path.write_text(path.read_text() + "\nThe port moved (see #old-port).\n")
    again = _report(Workspace(ws.root))
    assert "knowledge/old-port.md" not in {f["path"] for f in again["files"]}
    assert again == _fresh(ws)


def test_a_path_named_after_the_cache_is_checked(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    (ws.root / "src").mkdir()  # a code repository: named paths are checked
    first = _report(ws)
    path = ws.root / "memory/decisions/new-way.md"
    path.write_text(path.read_text() + "\nThe loader lives in `src/gone/loader.py`.\n")
    again = _report(Workspace(ws.root))
    outdated = [o for o in again["operations"] if "outdated" in o["categories"]]
    assert [o["path"] for o in outdated] == ["memory/decisions/new-way.md"] and again != first
    assert again == _fresh(ws)


def test_memo_entries_are_one_string_and_give_the_same_lists(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    cache = MetaCache.load(ws)
    bodies = {"See #a and #b-c.": ["a", "b-c"], "nothing": [], "`src/x.py` #a": ["a"]}
    for body, want in bodies.items():
        assert cache.memo("refs", body, lambda t: [s for s in ("a", "b-c") if f"#{s}" in t]) == want
    cache.save()
    stored = json.loads((ws.state_dir / "cache" / CACHE_NAME).read_bytes())["entries"]
    assert all(type(v) is str for k, v in stored.items() if k.startswith("refs:"))
    warm = MetaCache.load(ws)
    for body, want in bodies.items():
        assert warm.memo("refs", body, lambda t: ["never called"]) == want
        assert warm.memo_joined("refs", body, lambda t: ["never called"]) == "\n".join(want)


def test_a_record_edited_on_disk_during_the_run_stops_it(tmp_path: Path) -> None:
    """GC lets go of each record's text after reading it and reads a record again before rewriting
    it: if the file changed in between (an editor appending in place: the scratch copy is a hard
    link), the run stops naming the file instead of rewriting it from the stale reading."""
    import pytest

    from yoi_tui.core.errors import YoiError
    from yoi_tui.core.runs.progress import Progress

    ws = _workspace(tmp_path)
    keeper = ws.root / "memory/decisions/use-sqlite-store.md"
    before = keeper.read_bytes()
    edited: list[str] = []

    def edit_during_drops(step: Progress) -> None:
        if step.phase == "write" and not edited:  # the first deletion, before the merge re-reads
            with keeper.open("a", encoding="utf-8") as handle:
                handle.write("Added meanwhile.\n")
            edited.append(step.current or "")

    with pytest.raises(YoiError) as caught:
        prepare_gc(ws, progress=edit_during_drops, now=NOW)
    assert edited and "memory/decisions/use-sqlite-store.md" in str(caught.value)
    assert "changed on disk while GC was running" in str(caught.value)
    assert keeper.read_bytes() == before + b"Added meanwhile.\n"  # nothing written by GC
    assert (ws.root / "memory/decisions/old-way.md").exists()  # the drop was not applied either
    assert run_gc(Workspace(ws.root)).status == "applied"  # the lock was released: GC runs again
