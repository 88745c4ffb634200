"""Lint state kept by a long-running process (``core.lint.resident``, the command server's lint):
after any sequence of changes its findings are those of a fresh uncached lint, the kernel's change
feed (not the clock) decides what is read again, and the cache files it defers are right.

Real files in ``tmp_path``; RACY_NS keeps its real value (files here are always "racily clean",
which is exactly the case the memory must get right without the clock's help).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import RECORD_EDITS, count_lint_reads, edit_record, write_text

from yoi_tui.core.freshness import change_feed
from yoi_tui.core.lint import cache as lint_cache
from yoi_tui.core.lint import lint_workspace, resident
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import frequencies_for_lint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import generate  # noqa: E402  (bench/generate.py)

pytestmark = pytest.mark.skipif(change_feed._load_libc() is None, reason="no inotify here")


@pytest.fixture
def kept() -> Iterator[None]:
    resident.enable()
    yield
    resident.enable(False)



def _generated(tmp_path: Path, seed: int, records: int = 50) -> Workspace:
    """A bench-generator workspace (planted findings included) in ``tmp_path/gen``."""
    root = tmp_path / "gen"
    generate.generate(records, root, seed=seed)
    return Workspace(root)


def _same(ws: Workspace, frequencies: object = None) -> list:
    """The kept-state lint and a fresh uncached lint agree (findings and file counts)."""
    kept_run = lint_workspace(ws, frequencies=frequencies, cache=True)  # type: ignore[arg-type]
    plain = lint_workspace(ws, frequencies=frequencies)  # type: ignore[arg-type]  (uncached: no kept state)
    assert kept_run.diagnostics == plain.diagnostics
    assert kept_run.files == plain.files
    return plain.diagnostics



def test_an_unchanged_workspace_is_answered_from_memory(tmp_path: Path, kept: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _generated(tmp_path, 3, 60)
    first = _same(ws)
    reads = count_lint_reads(monkeypatch)
    cache_file = lint_cache.cache_path(ws)
    cache_file.unlink(missing_ok=True)  # nothing is read from disk either
    assert lint_workspace(ws, cache=True).diagnostics == first
    assert reads == []
    # one edit: only that file is read again, though its signature is racy
    path = sorted(ws.decisions_dir.glob("*.md"))[0]
    write_text(path, path.read_text(encoding="utf-8") + "\nSee #no-such-record.\n")
    after = lint_workspace(ws, cache=True).diagnostics
    assert reads == [ws.rel(path)]
    assert any(d.path == ws.rel(path) and d.rule == "dangling-ref" for d in after)
    resident.enable(False)
    assert lint_workspace(ws).diagnostics == after


def test_a_rewrite_keeping_size_and_mtime_is_read_again(tmp_path: Path, kept: None) -> None:
    ws = _generated(tmp_path, 4, 50)
    _same(ws)
    path = sorted(ws.knowledge_dir.glob("*.md"))[0]
    info = path.stat()
    text = path.read_text(encoding="utf-8")
    write_text(path, text.replace("kind: ", "kinz: ", 1))  # same size: an unknown field, kind missing
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    diags = _same(ws)
    assert any(d.path == ws.rel(path) and d.rule == "missing-field" for d in diags)


def test_random_operations_match_an_uncached_lint(tmp_path: Path, kept: None) -> None:
    ws = _generated(tmp_path, 12, 150)
    root = ws.root
    rng = random.Random(8)
    frequencies = frequencies_for_lint(ws)
    _same(ws, frequencies)
    outside = tmp_path / "outside.md"
    outside.write_text("---\nkind: fact\n---\nnot a record of this workspace\n", encoding="utf-8")
    for step in range(40):
        files = sorted(p for p in root.rglob("*.md") if p.is_file() and not p.is_symlink())
        path = rng.choice(files)
        op = rng.choice((*RECORD_EDITS, "same-size", "symlink", "atomic-save", "usage", "config", "drop-cache",
                         "folder"))
        text = path.read_text(encoding="utf-8")
        if op in RECORD_EDITS:
            edit_record(rng, root, path, op, str(step))
        elif op == "same-size":
            info = path.stat()
            write_text(path, text.replace("description:", "descriptiom:", 1))
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
        elif op == "symlink":
            (root / "knowledge" / f"link-{step}.md").symlink_to(outside)
        elif op == "atomic-save":
            temporary = path.with_name(".save.tmp")
            temporary.write_text(text + "\nSaved by an editor.\n", encoding="utf-8")
            os.replace(temporary, path)
        elif op == "usage":  # compressible follows the usage log
            usage = ws.usage_dir / f"session-{step}.jsonl"
            usage.parent.mkdir(parents=True, exist_ok=True)
            slug = rng.choice(sorted((root / "knowledge").glob("*.md"))).stem
            event = {"id": f"e{step}", "type": "invoke", "slug": slug, "record_kind": "knowledge", "via": "search"}
            usage.write_text(json.dumps(event) + "\n", encoding="utf-8")
            frequencies = frequencies_for_lint(ws)
        elif op == "config":
            ws.config_path.parent.mkdir(parents=True, exist_ok=True)
            ratio = rng.choice(("0.8", "0.9"))
            ws.config_path.write_text(f"[records]\nsimilar_slug_ratio = {ratio}\n", encoding="utf-8")
            ws = Workspace(root)
            frequencies = frequencies_for_lint(ws)
        elif op == "drop-cache":
            shutil.rmtree(ws.state_dir / "cache", ignore_errors=True)
        elif op == "folder":  # a record folder replaced wholesale (a checkout of another branch)
            folder = root / "memory" / "requests"
            moved = root / "memory" / "requests-old"
            folder.rename(moved)
            shutil.copytree(moved, folder)
            shutil.rmtree(moved)
        else:
            os.utime(path)
        _same(ws, frequencies)


def test_deferred_cache_files_serve_a_later_one_shot_lint(tmp_path: Path, kept: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from yoi_tui.core.lint import stored

    monkeypatch.setattr(stored, "RACY_NS", 0)  # files written just now may be stored
    ws = _generated(tmp_path, 5, 50)
    expected = _same(ws)
    path = sorted(ws.requests_dir.glob("*.md"))[0]
    write_text(path, path.read_text(encoding="utf-8") + "\nMore.\n")
    cache_file = lint_cache.cache_path(ws)
    before = cache_file.stat().st_mtime_ns if cache_file.exists() else None
    expected = _same(ws)
    assert resident.has_pending()
    assert (cache_file.stat().st_mtime_ns if cache_file.exists() else None) == before  # not written per lint
    # the file changes again after that lint: the flush must not store its old facts
    write_text(path, path.read_text(encoding="utf-8") + "\nSee #no-such-thing.\n")
    assert resident.flush() and not resident.has_pending()
    resident.enable(False)
    reads = count_lint_reads(monkeypatch)
    one_shot = lint_workspace(ws, cache=True)
    assert ws.rel(path) in reads  # its facts were out of date at the flush: not stored
    assert len(reads) < 10  # the rest came from the flushed cache
    assert one_shot.diagnostics == lint_workspace(ws).diagnostics != expected


def test_a_file_with_an_event_is_read_again_whatever_its_signature(tmp_path: Path, kept: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Two writes in one timestamp tick keep size, mtime and ctime: only the kernel's event tells.
    # Opening for writing and closing sends that event (IN_CLOSE_WRITE) with the signature unchanged.
    ws = _generated(tmp_path, 6, 50)
    _same(ws)
    path = sorted(ws.knowledge_dir.glob("*.md"))[0]
    before = path.stat()
    with path.open("r+b"):
        pass
    after = path.stat()
    assert (before.st_size, before.st_mtime_ns, before.st_ctime_ns) == (after.st_size, after.st_mtime_ns,
                                                                       after.st_ctime_ns)
    reads = count_lint_reads(monkeypatch)
    _same(ws)
    assert reads == [ws.rel(path)]


def test_a_result_stored_by_a_one_shot_lint_is_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yoi_tui.core.lint import stored

    monkeypatch.setattr(stored, "RACY_NS", 0)
    ws = _generated(tmp_path, 7, 50)
    expected = lint_workspace(ws, cache=True).diagnostics  # one-shot: stores its result
    digests: list[int] = []
    real = stored._state_digest

    def counted(*args: object) -> object:
        digests.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(stored, "_state_digest", counted)
    resident.enable()
    try:
        assert lint_workspace(ws, cache=True).diagnostics == expected  # the stored result, read once
        assert len(digests) == 1
        for _ in range(3):
            assert lint_workspace(ws, cache=True).diagnostics == expected
        assert len(digests) == 1  # then answered from memory: no digest of every signature
        path = sorted(ws.knowledge_dir.glob("*.md"))[0]
        write_text(path, path.read_text(encoding="utf-8") + "\nSee #no-such-one.\n")
        assert lint_workspace(ws, cache=True).diagnostics == lint_workspace(ws).diagnostics
    finally:
        resident.enable(False)


def test_the_kept_listing_is_the_full_listing_after_any_change(tmp_path: Path, kept: None) -> None:
    from yoi_tui.core.lint.stored import record_signatures

    ws = _generated(tmp_path, 9, 50)
    state = resident.state_for(ws)
    assert state is not None
    assert state.signatures(ws)[0] == record_signatures(ws)
    rng = random.Random(21)
    for step in range(60):
        folder = rng.choice((ws.decisions_dir, ws.requests_dir, ws.knowledge_dir, ws.memory_dir))
        present = sorted(p for p in folder.glob("*.md") if p.is_file() and not p.is_symlink())
        op = rng.choice(("create", "delete", "rename", "modify", "folder-named-md", "symlink", "other-name"))
        if op == "create" or not present:
            (folder / f"new-{step}.md").write_text(f"---\nx: {step}\n---\n", encoding="utf-8")
        elif op == "delete":
            rng.choice(present).unlink()
        elif op == "rename":
            rng.choice(present).rename(folder / f"moved-{step}.md")
        elif op == "modify":
            with rng.choice(present).open("a", encoding="utf-8") as handle:
                handle.write("more\n")
        elif op == "folder-named-md":
            (folder / f"dir-{step}.md").mkdir()
        elif op == "symlink":
            (folder / f"link-{step}.md").symlink_to(rng.choice(present))
        else:
            (folder / f"notes-{step}.txt").write_text("not a record", encoding="utf-8")
        assert state.signatures(ws)[0] == record_signatures(ws), (step, op)
