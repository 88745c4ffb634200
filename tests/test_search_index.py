"""The search index (issue 15): answers identical to a plain scan, fresh after any outside change.

The index under ``.yoi/state/search-v1.sqlite`` only names candidate files; these tests compare
``knowledge_search``/``memory_search`` with the index against ``use_index=False`` (every file
read) after randomized edits made behind the index's back, and check that it heals itself.
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REPO, decision_meta, knowledge_meta, make_ws, request_meta, write_record

from yoi_tui.core.retrieval import search_index
from yoi_tui.core.retrieval.search import knowledge_search, memory_search
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.store.writer import new_record_text

WORDS = ["alpha", "Beta", "gamma", "delta", "quokka", "pytest", "Ünïcode", "İstanbul", "KELVIN", "ab", "x",
         "cache-line", '"quoted"', "naïve"]
_STAMP = itertools.count(1_600_000_000_000_000_000, 1_000_000_007)


@pytest.fixture
def no_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust files written moments ago (each edit below also gets its own mtime, so none is missed)."""
    monkeypatch.setattr(search_index, "RACY_NS", 0)


@pytest.fixture(params=[False, True], ids=["lstat-every-file", "kernel-change-feed"])
def watching(request: pytest.FixtureRequest) -> object:
    """Both ways of noticing outside changes: lstat per search, and the long-running process's
    inotify feed (search_index.watch_for_changes)."""
    search_index.watch_for_changes(request.param)
    yield request.param
    search_index.watch_for_changes(False)


def _touch(path: Path) -> None:
    stamp = next(_STAMP)
    os.utime(path, ns=(stamp, stamp), follow_symlinks=False)


def _same(ws: Workspace, query: str, **kwargs: object) -> None:
    for search in (knowledge_search, memory_search):
        problems_a: list[str] = []
        problems_b: list[str] = []
        with_index = search(ws, query, record=False, limit=1000, problems=problems_a, **kwargs)  # type: ignore[operator]
        plain = search(ws, query, record=False, limit=1000, problems=problems_b, use_index=False,  # type: ignore[operator]
                       **kwargs)
        assert [h.to_json() for h in with_index] == [h.to_json() for h in plain], (search.__name__, query)
        assert [(h.path, h.line) for h in with_index] == [(h.path, h.line) for h in plain]
        assert problems_a == problems_b


def _body(words: list[str]) -> str:
    return "\n" + " ".join(words) + "\n\nMore text.\n"


_op = st.tuples(st.sampled_from(["write", "append", "delete", "rename", "garbage", "same-size"]),
                st.sampled_from(["knowledge/k", "memory/decisions/d", "memory/requests/r"]),
                st.integers(0, 4), st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(_op, min_size=1, max_size=12),
       queries=st.lists(st.lists(st.sampled_from([*WORDS, "a", "zz", "ALPHA", "more text"]), max_size=3),
                        min_size=1, max_size=4))
def test_index_answers_match_a_plain_scan_after_random_outside_edits(
        tmp_path_factory: pytest.TempPathFactory, no_racy: None, watching: object,
        ops: list[tuple[str, str, int, list[str]]], queries: list[list[str]]) -> None:
    ws = make_ws(tmp_path_factory.mktemp("idx"))
    metas = {"knowledge/k": knowledge_meta, "memory/decisions/d": decision_meta, "memory/requests/r": request_meta}
    for stem, meta in metas.items():
        for n in range(3):
            path = write_record(ws, f"{stem}{n}.md", meta(), _body(WORDS[n::3]))
            _touch(path)
    _same(ws, "alpha")  # builds the index
    for action, stem, n, words in ops:
        path = ws.root / f"{stem}{n}.md"
        if action == "write":
            path.write_text(new_record_text(metas[stem](), _body(words)), encoding="utf-8")
        elif action == "append" and path.exists():
            with path.open("a", encoding="utf-8") as handle:
                handle.write(" ".join(words) + "\n")
        elif action == "delete":
            path.unlink(missing_ok=True)
        elif action == "rename" and path.exists():
            path = path.with_name(f"{path.stem}x.md")
            (ws.root / f"{stem}{n}.md").rename(path)
        elif action == "garbage":
            path.write_bytes(b"\xff\xfe not utf-8 " + " ".join(words).encode())
        elif action == "same-size" and path.exists():  # an in-place edit that keeps the size
            data = path.read_bytes()
            word = words[0].encode()[:8]
            at = max(0, len(data) - len(word) - 2)
            path.write_bytes(data[:at] + word + data[at + len(word):])
        if path.exists():
            _touch(path)
        for query in queries:
            _same(ws, " ".join(query))


def test_the_bench_example_workspace_answers_as_a_plain_scan(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "workspace", root, ignore=shutil.ignore_patterns("state"))
    (root / ".yoi").mkdir(exist_ok=True)
    ws = Workspace(root)
    for query in ("", "the", "test", "run tests", "a", "decision status", "zzzz-nothing"):
        _same(ws, query)
        _same(ws, query, include_replaced=True)
    assert (ws.state_dir / search_index.INDEX_NAME).is_file()


def test_an_outside_edit_is_seen_before_the_next_answer(tmp_path: Path, no_racy: None, watching: object) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "knowledge/notes.md", knowledge_meta(), _body(["alpha"]))
    _touch(path)
    assert knowledge_search(ws, "wombat", record=False) == []
    text = path.read_text(encoding="utf-8").replace("alpha", "wombt")  # same length, in place
    with path.open("r+", encoding="utf-8") as handle:
        handle.write(text)
    _touch(path)
    assert knowledge_search(ws, "wombt", record=False)[0].slug == "notes"
    write_record(ws, "knowledge/new-one.md", knowledge_meta(), _body(["wombt"]))  # racy: never trusted
    assert [h.slug for h in knowledge_search(ws, "wombt", record=False)] == ["new-one", "notes"]


def test_a_corrupt_index_is_rebuilt_and_a_missing_one_created(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/notes.md", knowledge_meta(), _body(["alpha"]))
    db = ws.state_dir / search_index.INDEX_NAME
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    assert db.is_file()
    db.write_bytes(b"this is not an SQLite database" * 100)
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    with search_index.open_index(ws) as index:  # type: ignore[union-attr]
        assert index.conn.execute("SELECT count(*) FROM files").fetchone()[0] == 1
    db.unlink()
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    assert db.is_file()


def test_no_index_is_created_without_a_yoi_folder(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/notes.md", knowledge_meta(), _body(["alpha"]))
    shutil.rmtree(ws.yoi_dir)
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    assert not ws.yoi_dir.exists()


def test_replaced_rows_are_compacted(tmp_path: Path, no_racy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_index, "_GARBAGE_FACTOR", 0.0)
    ws = make_ws(tmp_path)
    path = write_record(ws, "knowledge/notes.md", knowledge_meta(), _body(["alpha"]))
    for word in ("beta", "gamma", "delta"):
        path.write_text(new_record_text(knowledge_meta(), _body([word])), encoding="utf-8")
        _touch(path)
        assert [h.slug for h in knowledge_search(ws, word, record=False)] == ["notes"]
        assert knowledge_search(ws, "alpha", record=False) == []


@pytest.fixture
def feed_on() -> object:
    search_index.watch_for_changes(True)
    yield
    search_index.watch_for_changes(False)


@pytest.mark.parametrize("file_watches", [True, False], ids=["inode-watches", "out-of-watches"])
def test_a_long_running_process_sees_what_no_folder_event_reports(tmp_path: Path, no_racy: None,
                                                                  feed_on: None, file_watches: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: a write through a hard link from outside the workspace raises no event in the
    record's folder, yet a long-running process finds it, as a one-shot search does. With every
    record's inode watched (freshness.record_feed) a quiet workspace is not even listed; out of
    inotify watches (budget 0) every search lists and lstat-s the folders instead."""
    import subprocess
    import sys

    from yoi_tui.core.freshness import record_feed

    monkeypatch.setattr(record_feed, "_budget", None if file_watches else 0)
    monkeypatch.delenv("YOI_FILE_WATCHES", raising=False)
    record_feed.close_all()
    ws = make_ws(tmp_path)
    path = write_record(ws, "knowledge/notes.md", knowledge_meta(), _body(["alpha"]))
    _touch(path)
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    listed = search_index.LISTINGS
    assert [h.slug for h in knowledge_search(ws, "alpha", record=False)] == ["notes"]
    assert search_index.LISTINGS == listed + (0 if file_watches else 1)
    other = tmp_path / "other-name.md"
    os.link(path, other)
    with other.open("a", encoding="utf-8") as handle:
        handle.write("\nquokka through the other name\n")
    assert [h.slug for h in knowledge_search(ws, "quokka", record=False)] == ["notes"]
    # Another program edits in place, keeping size and mtime: the ctime still tells.
    stat = path.stat()
    subprocess.run([sys.executable, "-c", "import sys; p = sys.argv[1]; t = open(p).read(); "
                    "open(p, 'r+').write(t.replace('alpha', 'wombt'))", str(path)], check=True)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert [h.slug for h in knowledge_search(ws, "wombt", record=False)] == ["notes"]
    # The database removed behind our back: rebuilt, same answers.
    for suffix in ("", "-wal", "-shm"):
        Path(f"{search_index.index_path(ws)}{suffix}").unlink(missing_ok=True)
    assert [h.slug for h in knowledge_search(ws, "wombt", record=False)] == ["notes"]
    # A new file and a deleted one.
    other = write_record(ws, "knowledge/other.md", knowledge_meta(), _body(["wombt"]))
    _touch(other)
    assert [h.slug for h in knowledge_search(ws, "wombt", record=False)] == ["notes", "other"]
    path.unlink()
    assert [h.slug for h in knowledge_search(ws, "wombt", record=False)] == ["other"]


def test_the_feed_is_not_trusted_on_file_systems_changed_from_elsewhere(tmp_path: Path) -> None:
    from yoi_tui.core.freshness import change_feed

    if change_feed._load_libc() is None:
        pytest.skip("no inotify here")
    assert change_feed.file_system_type("/proc") == 0x9FA0  # statfs's f_type is read, not a stray field
    local = change_feed.file_system_type(str(tmp_path))
    assert local is not None and local not in change_feed.REMOTE_FILE_SYSTEMS
    assert change_feed.ChangeFeed.open([(str(tmp_path), None)]) is not None
    # an NFS, SMB, 9p or FUSE folder: no feed, so searches check every file themselves
    real = change_feed.file_system_type
    try:
        change_feed.file_system_type = lambda folder: 0x6969 if folder == str(tmp_path) else real(folder)  # type: ignore[assignment]
        assert change_feed.ChangeFeed.open([(str(tmp_path), None)]) is None
    finally:
        change_feed.file_system_type = real  # type: ignore[assignment]


def _indexed_rows(ws: Workspace) -> int:
    import sqlite3

    with sqlite3.connect(ws.state_dir / "search-v1.sqlite") as conn:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'next_id'").fetchone()[0])


def test_a_new_signature_over_the_same_bytes_is_not_indexed_again(tmp_path: Path, no_racy: None) -> None:
    """GC and Phase 2 hard-link every record into their scratch copy (a new ctime for each), a touch
    gives a new mtime: the bytes are checked (CRC-32), not indexed again. An edit that keeps the
    size and puts the old mtime back is still indexed."""
    ws = make_ws(tmp_path)
    paths = [write_record(ws, f"knowledge/k{n}.md", knowledge_meta(), _body(["alpha", f"word{n}"])) for n in range(4)]
    paths.append(write_record(ws, "memory/decisions/d.md", decision_meta(), _body(["gamma"])))
    _same(ws, "alpha")
    rows = _indexed_rows(ws)
    links = tmp_path / "links"
    links.mkdir()
    for number, path in enumerate(paths):
        os.link(path, links / f"{number}.md")
    _touch(paths[0])
    _same(ws, "alpha")
    _same(ws, "gamma")
    assert _indexed_rows(ws) == rows  # nothing indexed again
    before = paths[1].stat()
    paths[1].write_text(paths[1].read_text(encoding="utf-8").replace("alpha", "omega"), encoding="utf-8")
    os.utime(paths[1], ns=(before.st_atime_ns, before.st_mtime_ns))
    assert [h.slug for h in knowledge_search(ws, "omega", record=False)] == ["k1"]
    _same(ws, "alpha")
    assert _indexed_rows(ws) == rows + 1
