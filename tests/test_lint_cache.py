"""The warm lint cache (core.lint.cache) gives exactly the findings of an uncached run, and stays safe.

Every check compares ``lint_workspace(ws, cache=True)`` with ``lint_workspace(ws)`` on real files:
after edits, renames, deletions, new near-duplicate slugs, replacement chains, config changes and
usage changes, including a seeded random sequence of operations on a generated workspace.
``RACY_NS`` is set to 0 where files were written moments ago (otherwise nothing would be cached
yet); the racy rule itself is tested with its real value.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from support import RECORD_EDITS, count_lint_reads, edit_record, write_text

from yoi_tui.core import fork_pool
from yoi_tui.core.lint import cache as lint_cache
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.lint import stored as lint_stored
from yoi_tui.core.store import record_listing
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import frequencies_for_lint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import generate  # noqa: E402  (bench/generate.py)


@pytest.fixture
def no_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint_stored, "RACY_NS", 0)  # the stored result and the per-file cache share it


def _ws_copy(tmp_path: Path, example: str) -> Workspace:
    root = tmp_path / example
    shutil.copytree(REPO / "examples" / example, root, ignore=shutil.ignore_patterns("state"))
    (root / ".yoi").mkdir(exist_ok=True)
    return Workspace(root)


def _same(ws: Workspace, frequencies: dict | None = None) -> list:
    """Cached and uncached findings (and file counts) must agree; returns the findings."""
    plain = lint_workspace(ws, frequencies=frequencies)
    cached = lint_workspace(ws, frequencies=frequencies, cache=True)
    assert cached.diagnostics == plain.diagnostics
    assert cached.files == plain.files
    return plain.diagnostics




def test_cold_and_warm_runs_match_the_uncached_lint(tmp_path: Path, no_racy: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    reads = count_lint_reads(monkeypatch)
    for example in ("broken", "workspace"):
        ws = _ws_copy(tmp_path, example)
        first = _same(ws)
        assert lint_cache.cache_path(ws).is_file()
        reads.clear()
        warm = lint_workspace(ws, cache=True)
        assert warm.diagnostics == first and warm.records == []
        assert reads == []  # nothing changed: no file is read again
        (ws.root / "memory" / "summary.md").write_text("---\nupdated_at: 2026-01-01T00:00:00+00:00\n---\nx\n",
                                                       encoding="utf-8")
        _same(ws)
        assert set(reads) == {"memory/summary.md"}  # only the changed file


def test_edits_that_change_other_files_findings(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")
    _same(ws)
    knowledge = ws.knowledge_dir / "token-clock.md"
    # Renaming a referenced knowledge record makes #token-clock dangle in another file (summary).
    knowledge.rename(ws.knowledge_dir / "usage-token-clock.md")
    diags = _same(ws)
    assert any(d.rule == "dangling-ref" and d.path == "memory/summary.md" for d in diags)
    # A near-duplicate slug appears, then goes away again.
    shutil.copy(ws.knowledge_dir / "usage-token-clock.md", ws.knowledge_dir / "usage-token-clocks.md")
    assert sum(d.rule == "similar-slugs" for d in _same(ws)) == 2
    (ws.knowledge_dir / "usage-token-clocks.md").unlink()
    assert not any(d.rule == "similar-slugs" for d in _same(ws))
    # Replacing the knowledge record: references to it become ref-to-replaced in other files.
    text = (ws.knowledge_dir / "usage-token-clock.md").read_text(encoding="utf-8")
    write_text(ws.knowledge_dir / "usage-token-clock.md",
           text.replace("created_at:", "replaced_by: atomic-writes\ncreated_at:", 1))
    knowledge.write_text(text, encoding="utf-8")  # and the old name back, so the summary resolves
    diags = _same(ws)
    assert not any(d.rule == "dangling-ref" for d in diags)
    # A decision's replacement chain: a -> b where b is replaced too.
    decisions = sorted(ws.decisions_dir.glob("*.md"))
    body = decisions[0].read_text(encoding="utf-8")
    write_text(decisions[0], body.replace("status: resolved", f"status: replaced\nreplaced_by: {decisions[1].stem}"))
    _same(ws)
    # A file that stops parsing, and a file that is deleted.
    write_text(decisions[1], "---\nstatus: [unclosed\n---\nbody\n")
    assert any(d.rule == "frontmatter-invalid" for d in _same(ws))
    decisions[2].unlink()
    _same(ws)


def test_config_change_drops_the_cache(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")
    before = _same(ws)
    (ws.root / ".yoi" / "config.toml").write_text("[records]\ncap_decision = 100\n", encoding="utf-8")
    ws = Workspace(ws.root)  # the config is read once per Workspace
    after = _same(ws)
    assert any(d.rule == "over-cap" for d in after) and not any(d.rule == "over-cap" for d in before)


def test_usage_changes_compressible_without_touching_files(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")
    path = ws.decisions_dir / "rules-engine-is-the-default.md"
    text = path.read_text(encoding="utf-8")
    write_text(path, text + "\n" + "Long rationale sentence, repeated for size. " * 60 + "\n")
    rel = ws.rel(path)
    rarely = _same(ws, frequencies={})
    assert any(d.rule == "compressible" and d.path == rel for d in rarely)
    often = _same(ws, frequencies={("decision", path.stem): 50.0})
    assert not any(d.rule == "compressible" and d.path == rel for d in often)


def test_same_size_rewrite_with_the_same_mtime_is_detected(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")
    path = ws.knowledge_dir / "atomic-writes.md"
    _same(ws)
    st = os.stat(path)
    text = path.read_text(encoding="utf-8")
    write_text(path, text.replace("kind: ", "kinz: ", 1))  # same size, now an unknown field + missing kind
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    diags = _same(ws)
    assert any(d.path == ws.rel(path) and d.rule == "missing-field" for d in diags)


def test_racily_clean_files_are_not_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = count_lint_reads(monkeypatch)
    ws = _ws_copy(tmp_path, "workspace")  # every file was written just now
    lint_workspace(ws, cache=True)
    data = json.loads(lint_cache.cache_path(ws).read_text(encoding="ascii"))
    assert data["files"] == {}
    reads.clear()
    second = lint_workspace(ws, cache=True)
    assert len(reads) == len([p for p in ws.root.rglob("*.md") if p.is_file()])  # all re-read
    assert second.diagnostics == lint_workspace(ws).diagnostics


def test_corrupt_or_foreign_cache_is_ignored(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "broken")
    expected = _same(ws)
    target = lint_cache.cache_path(ws)
    for junk in (b"not json", b"[]", b'{"version": 1, "key": "x", "files": {}}', b"\xff\xfe",
                 json.dumps({"version": 1, "key": lint_cache.fingerprint(ws.config),
                             "files": {"memory/summary.md": "bad"}}).encode()):
        target.write_bytes(junk)
        assert lint_workspace(ws, cache=True).diagnostics == expected
    # A cache that matches the key but lies about a file is only trusted while the stat matches.
    target.unlink()
    lint_cache._result_path(ws).unlink()
    lint_workspace(ws, cache=True)
    lint_cache._result_path(ws).unlink()
    data = json.loads(target.read_text(encoding="ascii"))
    rel = next(iter(data["files"]))
    data["files"][rel][0][0] += 1  # another size: the entry no longer matches the file
    data["files"][rel][1] = []
    target.write_text(json.dumps(data), encoding="ascii")
    assert lint_workspace(ws, cache=True).diagnostics == expected


def test_no_cache_written_without_yoi_folder_or_when_unwritable(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "bare"
    shutil.copytree(REPO / "examples" / "workspace" / "memory", root / "memory")
    ws = Workspace(root)
    _same(ws)
    assert not (root / ".yoi").exists()
    ws = _ws_copy(tmp_path, "broken")
    (ws.root / ".yoi" / "state").write_text("a file where the folder should be", encoding="utf-8")
    assert lint_workspace(ws, cache=True).diagnostics == lint_workspace(ws).diagnostics


def test_random_operations_on_a_generated_workspace(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "gen"
    generate.generate(150, root, seed=11)
    ws = Workspace(root)
    rng = random.Random(5)
    frequencies = frequencies_for_lint(ws)
    _same(ws, frequencies)
    for step in range(25):
        files = sorted(p for p in root.rglob("*.md") if p.is_file())
        edit_record(rng, root, rng.choice(files), rng.choice(RECORD_EDITS), str(step))
        _same(ws, frequencies)


def test_unchanged_workspace_reuses_the_stored_result(tmp_path: Path, no_racy: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _ws_copy(tmp_path, "broken")
    _same(ws)
    loads: list[int] = []
    real_load = lint_cache._load
    monkeypatch.setattr(lint_cache, "_load", lambda *a: loads.append(1) or real_load(*a))
    reads = count_lint_reads(monkeypatch)
    frequencies = lint_cache.UsageFrequencies(ws)
    first = lint_workspace(ws, cache=True, frequencies=frequencies).diagnostics
    assert first == lint_workspace(ws, frequencies=frequencies_for_lint(ws)).diagnostics
    lint_workspace(ws, cache=True, frequencies=lint_cache.UsageFrequencies(ws))  # stores the result
    loads.clear()
    again = lint_workspace(ws, cache=True, frequencies=lint_cache.UsageFrequencies(ws))
    assert again.diagnostics == first and loads == [] and reads == []
    for junk in (b"{", b"[]", b'{"key": "x"}'):
        lint_cache._result_path(ws).write_bytes(junk)
        assert lint_workspace(ws, cache=True, frequencies=lint_cache.UsageFrequencies(ws)).diagnostics == first


def test_usage_log_changes_invalidate_the_stored_result(tmp_path: Path, no_racy: None) -> None:
    from yoi_tui.core.usage.log import record_invokes, record_tokens

    ws = _ws_copy(tmp_path, "workspace")
    path = ws.decisions_dir / "rules-engine-is-the-default.md"
    write_text(path, path.read_text(encoding="utf-8") + "\n" + "Long rationale sentence, repeated. " * 80 + "\n")

    def check() -> list:
        lazy = lint_workspace(ws, cache=True, frequencies=lint_cache.UsageFrequencies(ws)).diagnostics
        assert lazy == lint_workspace(ws, frequencies=frequencies_for_lint(ws)).diagnostics
        return lazy

    assert any(d.rule == "compressible" for d in check())
    assert any(d.rule == "compressible" for d in check())  # from the stored result
    record_tokens(ws, 5_000, session_id="s1")
    record_invokes(ws, [(path.stem, "decision", "search")] * 3, session_id="s1")
    assert not any(d.rule == "compressible" for d in check())
    (ws.usage_dir / "s1.jsonl").unlink()
    assert any(d.rule == "compressible" for d in check())


def test_given_frequencies_are_part_of_the_stored_state(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")
    path = ws.decisions_dir / "rules-engine-is-the-default.md"
    write_text(path, path.read_text(encoding="utf-8") + "\n" + "Long rationale sentence, repeated. " * 80 + "\n")
    for frequencies in ({}, {("decision", path.stem): 9.0}, {}, None, {("decision", path.stem): 9.0}):
        _same(ws, frequencies)
        _same(ws, frequencies)


def test_lazy_frequencies_are_read_only_when_needed(tmp_path: Path, no_racy: None) -> None:
    ws = _ws_copy(tmp_path, "workspace")  # no body is near its cap: no rule asks for a frequency
    lazy = lint_cache.UsageFrequencies(ws)
    lint_workspace(ws, cache=True, frequencies=lazy)
    assert lazy._values is None and bool(lazy)
    assert dict(lazy) == frequencies_for_lint(ws) and lazy._values is not None


def test_usage_frequencies_are_kept_until_the_usage_log_changes(tmp_path: Path, no_racy: None) -> None:
    from yoi_tui.core.usage.log import UsageLog, frequencies_for_lint

    ws = _ws_copy(tmp_path, "workspace")
    log = UsageLog(ws, "s-1")
    log.record_events([{"type": "tokens", "input_tokens": 50_000}, {"type": "invoke", "kind": "knowledge",
                                                                      "slug": "atomic-writes", "via": "slug"}])
    first = dict(lint_stored.UsageFrequencies(ws))
    assert first == frequencies_for_lint(ws)
    cache = ws.state_dir / "cache" / lint_stored.USAGE_CACHE_NAME
    data = json.loads(cache.read_text(encoding="ascii"))
    data["values"] = [["knowledge", "from-the-cache", 42.0]]
    cache.write_text(json.dumps(data), encoding="ascii")
    assert dict(lint_stored.UsageFrequencies(ws)) == {("knowledge", "from-the-cache"): 42.0}  # not re-parsed
    log.record_events([{"type": "invoke", "kind": "knowledge", "slug": "atomic-writes", "via": "slug"}])
    again = dict(lint_stored.UsageFrequencies(ws))  # the log changed: parsed again
    assert again == frequencies_for_lint(ws) and ("knowledge", "from-the-cache") not in again


def test_a_cold_lint_on_every_core_finds_the_same(tmp_path: Path, no_racy: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _ws_copy(tmp_path, "broken")
    serial = lint_workspace(ws).diagnostics
    monkeypatch.setattr(lint_cache, "PARALLEL_MIN", 1)
    monkeypatch.setattr(lint_cache, "IDLE_CORES_ONLY", False)
    monkeypatch.setattr(fork_pool.os, "cpu_count", lambda: 2)
    items = [(rel, path, lint_stored.file_signature(path)) for rel, path in record_listing.record_files(ws)]
    result = lint_cache._facts_in_parallel(ws, items, [(lint_cache._pairs_task, ("decision", ["a-b", "a-bc"], 80, None)),
                                                       (lint_cache._usage_task, (str(ws.root), ws.config.as_dict()))])
    assert result is not None
    fresh, aside, encoded = result
    assert encoded == ""  # not asked to encode the cache's members
    assert set(fresh) == {rel for rel, _path, _sig in items}  # ran in the workers
    # the side tasks ran in the workers too, in the order given
    assert aside == [("decision", (["a-b", "a-bc"], ([["a-b", "a-bc", pytest.approx(85.7, abs=0.1)]], True))),
                     dict(lint_stored.UsageFrequencies(ws))]
    ctx, empty = lint_cache.LintContext(None), lint_cache.WorkspaceIndex()
    for rel, path, sig in items:
        assert fresh[rel].to_json() == lint_cache._facts(ws, Path(path), rel, sig, ws.config, empty, ctx).to_json()
    assert any(d.rule == "similar-slugs" for d in serial)  # pairs computed from the file names meanwhile
    assert lint_workspace(ws, cache=True).diagnostics == serial
    assert lint_cache.cache_path(ws).is_file()
    # The cache the workers encoded is the one a serial lint writes.
    encoded = json.loads(lint_cache.cache_path(ws).read_bytes())
    lint_cache.cache_path(ws).unlink()
    lint_stored._result_path(ws).unlink()
    monkeypatch.setattr(lint_cache, "PARALLEL_MIN", 10 ** 9)
    assert lint_workspace(ws, cache=True).diagnostics == serial
    assert json.loads(lint_cache.cache_path(ws).read_bytes()) == encoded and encoded["files"]
    # Files changed moments ago are not stored, by the workers either.
    monkeypatch.setattr(lint_stored, "RACY_NS", 10 ** 18)
    monkeypatch.setattr(lint_cache, "PARALLEL_MIN", 1)
    lint_cache.cache_path(ws).unlink()
    assert lint_workspace(ws, cache=True).diagnostics == serial
    assert json.loads(lint_cache.cache_path(ws).read_bytes())["files"] == {}


def test_after_a_few_edits_only_the_edited_files_are_checked_again(tmp_path: Path, no_racy: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _ws_copy(tmp_path, "broken")
    _same(ws)  # fills the cache and stores the result
    used: list[bool] = []
    real = lint_cache._previous_result
    monkeypatch.setattr(lint_cache, "_previous_result", lambda *a: used.append((r := real(*a)) is not None) or r)
    decisions = sorted(ws.decisions_dir.glob("*.md"))
    knowledge = sorted(ws.knowledge_dir.glob("*.md"))
    # Body edits that keep every slug, replaced_by and status: the incremental path, same findings.
    for n, path in enumerate([decisions[0], knowledge[0], decisions[-1]]):
        text = path.read_text(encoding="utf-8")
        write_text(path, text + f"\nMore text {n}, now naming #no-such-record-{n} and {'x' * 900 * n}.\n")
        _same(ws)
    assert used and all(used)
    # An edit that changes what other files depend on (replaced_by): still incremental — the edited
    # file and the files naming a record whose chain passes through it are checked again.
    used.clear()
    text = knowledge[0].read_text(encoding="utf-8")
    write_text(knowledge[0], text.replace("\n---\n", f"\nreplaced_by: {knowledge[-1].stem}\n---\n", 1))
    _same(ws)
    assert used == [True]
    # A new file: every file is checked again.
    used.clear()
    shutil.copy(knowledge[0], knowledge[0].with_name("brand-new-record.md"))
    _same(ws)
    assert used == [False]


def test_fact_changing_edits_recheck_the_files_that_follow_them(tmp_path: Path, no_racy: None,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded edits of status / replaced_by (chains, loops, unparsable files and back), each
    followed by a cached lint that takes the incremental path: findings identical to a full lint."""
    root = tmp_path / "gen"
    generate.generate(150, root, seed=23)
    ws = Workspace(root)
    _same(ws)
    used: list[bool] = []
    real = lint_cache._previous_result
    monkeypatch.setattr(lint_cache, "_previous_result", lambda *a: used.append((r := real(*a)) is not None) or r)
    rng = random.Random(7)
    knowledge = sorted((root / "knowledge").glob("*.md"))
    decisions = sorted((root / "memory" / "decisions").glob("*.md"))
    # The records other files name most: edits to them change the most findings elsewhere.
    named = [p for p in knowledge if any(f"#{p.stem}" in q.read_text(encoding="utf-8")
                                         for q in decisions[:40])][:12] or knowledge[:12]
    originals = {p: p.read_text(encoding="utf-8") for p in [*knowledge, *decisions]}
    for _step in range(30):
        pool = rng.choice((named, knowledge, decisions))
        path = rng.choice(pool)
        text = path.read_text(encoding="utf-8")
        head, sep, rest = text.partition("\n---\n")
        head = "\n".join(line for line in head.split("\n") if not line.startswith(("replaced_by:", "status:")))
        op = rng.choice(("replace", "replace", "unreplace", "status", "break", "restore"))
        if op == "replace":
            target = rng.choice(pool).stem  # may be itself, may close a loop, may chain
            head += f"\nreplaced_by: {target}" + ("\nstatus: replaced" if pool is decisions else "")
        elif op == "status" and pool is decisions:
            head += f"\nstatus: {rng.choice(('open', 'resolved', 'replaced'))}"
        elif op == "break":
            head += "\n\tbad: ["
        elif op == "restore":
            write_text(path, originals[path])
            _same(ws)
            continue
        write_text(path, head + sep + rest)
        _same(ws)
    assert used and all(used)


def test_record_signatures_are_record_files_with_their_lstat(tmp_path: Path) -> None:
    ws = _ws_copy(tmp_path, "broken")
    (ws.root / "knowledge" / "a-folder.md").mkdir()
    (ws.root / "knowledge" / "link.md").symlink_to(ws.root / "memory" / "summary.md")
    expected = [(rel, path, lint_stored.file_signature(path)) for rel, path in record_listing.record_files(ws)]
    assert lint_stored.record_signatures(ws) == expected
    assert any(sig is None for _rel, _path, sig in expected)  # the folder and the link are never cached


def test_a_record_made_unparsable_loses_its_similar_slugs_findings(tmp_path: Path, no_racy: None) -> None:
    # The incremental path kept every similar-slugs finding of the previous result, also for an
    # edited record that no longer parses (an unparsable record gets none) — and the reverse.
    root = tmp_path / "gen"
    generate.generate(60, root, seed=3)
    ws = Workspace(root)
    ws.config_path.write_text("[records]\nsimilar_slug_ratio = 40\n", encoding="utf-8")
    ws = Workspace(root)
    path = sorted(ws.knowledge_dir.glob("*.md"))[0]
    # A near-duplicate of it (the generator's slugs are random words, which name different things:
    # store.slug_names).
    shutil.copyfile(path, path.with_name(f"{path.stem}s.md"))
    assert any(d.path == ws.rel(path) and d.rule == "similar-slugs" for d in _same(ws))
    text = path.read_text(encoding="utf-8")
    write_text(path, text.replace("---\n", "---\n\tbad: [\n", 1))
    assert not any(d.path == ws.rel(path) and d.rule == "similar-slugs" for d in _same(ws))
    write_text(path, text)
    assert any(d.path == ws.rel(path) and d.rule == "similar-slugs" for d in _same(ws))


def test_a_cold_lint_on_every_core_reads_the_usage_log_in_a_worker(tmp_path: Path, no_racy: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The workers compute the similar-slug pairs and the usage frequencies beside the files: the
    # findings (compressible included) are the serial lint's, and the frequencies its own.
    root = tmp_path / "gen"
    generate.generate(400, root, seed=5)
    ws = Workspace(root)
    serial = lint_workspace(ws, frequencies=frequencies_for_lint(ws)).diagnostics
    assert any(d.rule == "compressible" for d in serial) and any(d.rule == "similar-slugs" for d in serial)
    monkeypatch.setattr(lint_cache, "PARALLEL_MIN", 1)
    monkeypatch.setattr(lint_cache, "IDLE_CORES_ONLY", False)
    monkeypatch.setattr(fork_pool.os, "cpu_count", lambda: 2)
    ran: list[str] = []
    real = lint_cache._facts_in_parallel

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)
        ran.append("parallel" if result is not None else "serial")
        return result

    monkeypatch.setattr(lint_cache, "_facts_in_parallel", watched)
    frequencies = lint_stored.UsageFrequencies(ws)
    found, _files = lint_cache.lint_workspace_cached(ws, frequencies=frequencies)
    assert ran == ["parallel"] and frequencies.loaded
    assert lint_stored.filter_disabled(found, ws.config) == serial
    assert dict(frequencies) == frequencies_for_lint(ws)
    # Nothing was stored before: the workers signed the files from what they read. The cache holds
    # the signatures a listing gives, and the result is stored: the next lint reads no file.
    encoded = json.loads(lint_cache.cache_path(ws).read_bytes())
    assert {rel: item[0] for rel, item in encoded["files"].items()} == \
        {rel: sig.to_json() for rel, _path, sig in lint_stored.record_signatures(ws) if sig is not None}
    reads = count_lint_reads(monkeypatch)
    assert lint_workspace(ws, frequencies=lint_stored.UsageFrequencies(ws), cache=True).diagnostics == serial
    assert reads == [] and ran == ["parallel"]


@pytest.mark.parametrize(("idle", "parallel"), [(2, True), (1, True), (0, False), (-3, False)])
def test_a_cold_lint_goes_serial_only_when_every_core_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               idle: int, parallel: bool) -> None:
    """One other task running when the lint asks (a process exiting) still leaves two workers on
    two cores; a machine with every core taken gets the serial lint."""
    ws = _ws_copy(tmp_path, "broken")
    monkeypatch.setattr(fork_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(fork_pool, "_idle_cores", lambda: idle)
    items = [(rel, path, lint_stored.file_signature(path)) for rel, path in record_listing.record_files(ws)]
    assert (lint_cache._facts_in_parallel(ws, items) is not None) is parallel


def test_a_new_signature_over_the_same_bytes_reads_nothing_again(tmp_path: Path, no_racy: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A hard link made and removed (GC and Phase 2 link every record into their scratch copy) or
    a touch changes a file's signature, not its bytes: its facts are kept, after a CRC check; an
    edit that keeps the size and puts the old mtime back is still seen (its bytes differ)."""
    ws = _ws_copy(tmp_path, "workspace")
    first = _same(ws)
    links = tmp_path / "links"
    links.mkdir()
    records = sorted(p for p in ws.root.rglob("*.md") if ".yoi" not in p.parts)
    for number, path in enumerate(records):
        os.link(path, links / f"{number}.md")
    reads = count_lint_reads(monkeypatch)
    assert lint_workspace(ws, cache=True).diagnostics == first
    assert reads == []  # every signature changed (ctime), no file was parsed again
    shutil.rmtree(links)
    os.utime(records[0])  # a touch: a new mtime too
    assert lint_workspace(ws, cache=True).diagnostics == first and reads == []
    # Same size, old mtime restored, other bytes: read and linted again.
    target = ws.knowledge_dir / "token-clock.md"
    text = target.read_text(encoding="utf-8")
    before = target.stat()
    edited = text.replace("#", "@", 1) if "#" in text else text[:-2] + "!\n"
    assert len(edited.encode()) == len(text.encode()) and edited != text
    target.write_text(edited, encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    reads.clear()
    assert lint_workspace(ws, cache=True).diagnostics == lint_workspace(ws).diagnostics
    assert reads == ["knowledge/token-clock.md"]


def test_a_gc_dry_run_leaves_the_next_lint_warm(tmp_path: Path, no_racy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from yoi_tui.core.gc import run_gc

    ws = _ws_copy(tmp_path, "workspace")
    first = _same(ws)
    run_gc(ws, dry_run=True)  # hard-links every record into its scratch copy, then removes them
    reads = count_lint_reads(monkeypatch)
    assert lint_workspace(ws, cache=True).diagnostics == first
    assert reads == []
