"""The per-workspace record feed (``freshness.record_feed``): what it reports, and when it cannot vouch.

A write through a hard link from outside the workspace raises no event in the record's folder
(issue 27); the feed watches each record's inode too, so such a write is reported like any other.
Out of its inotify budget it stops vouching for contents (the consumers then lstat every record).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from yoi_tui.core.freshness import change_feed, record_feed

pytestmark = pytest.mark.skipif(change_feed._load_libc() is None, reason="no inotify here")


@pytest.fixture(autouse=True)
def fresh_feeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("YOI_FILE_WATCHES", raising=False)
    monkeypatch.setattr(record_feed, "_budget", None)
    record_feed.close_all()
    yield
    record_feed.close_all()
    assert record_feed._watched_files == 0  # every watch given back


def _workspace(root: Path, records: int = 3) -> Path:
    for folder in ("memory/decisions", "memory/requests", "knowledge", ".yoi"):
        (root / folder).mkdir(parents=True)
    (root / ".yoi" / "config.toml").write_text("", encoding="utf-8")
    for number in range(records):
        (root / "knowledge" / f"k{number}.md").write_text(f"k{number}\n", encoding="utf-8")
    return root


def _names(changes: dict[str, set[str]] | None, root: Path) -> set[str] | None:
    if changes is None:
        return None
    return {os.path.relpath(os.path.join(folder, name), root) for folder, names in changes.items() for name in names}


def test_writes_through_another_name_are_reported(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside.mkdir()
    sub = record_feed.subscribe(ws)
    assert sub.changes() is None  # the first call: the caller checks everything
    assert sub.vouches_for_contents
    assert sub.changes() == {}
    os.link(ws / "knowledge" / "k0.md", outside / "x.md")
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}  # a link made: the inode's link count
    with (outside / "x.md").open("a", encoding="utf-8") as handle:
        handle.write("password = 'hunter2'\n")
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}
    os.truncate(outside / "x.md", 0)
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}
    os.chmod(outside / "x.md", 0o600)
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}
    assert sub.changes() == {}
    # summary.md and config.toml are sources too
    (ws / "memory" / "summary.md").write_text("summary\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"memory/summary.md"}
    os.link(ws / "memory" / "summary.md", outside / "s.md")
    os.link(ws / ".yoi" / "config.toml", outside / "c.toml")
    sub.changes()
    (outside / "s.md").write_text("edited elsewhere\n", encoding="utf-8")
    (outside / "c.toml").write_text("[context]\nmax_tokens = 10\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"memory/summary.md", ".yoi/config.toml"}


def test_a_new_or_replaced_record_is_watched_by_its_new_inode(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside.mkdir()
    sub = record_feed.subscribe(ws)
    sub.changes()
    (ws / "knowledge" / "new.md").write_text("new\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/new.md"}
    os.link(ws / "knowledge" / "new.md", outside / "n.md")
    sub.changes()
    (outside / "n.md").write_text("changed\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/new.md"}
    # Replaced by a rename (as every atomic writer does): the old inode's name now names another.
    old_link = outside / "old.md"
    os.link(ws / "knowledge" / "k1.md", old_link)
    sub.changes()
    (ws / "knowledge" / ".tmp").write_text("replacement\n", encoding="utf-8")
    os.replace(ws / "knowledge" / ".tmp", ws / "knowledge" / "k1.md")
    assert "knowledge/k1.md" in (_names(sub.changes(), ws) or set())
    old_link.write_text("the old inode, no longer a record\n", encoding="utf-8")
    assert sub.changes() == {}  # its watch went with the name
    os.link(ws / "knowledge" / "k1.md", outside / "k1-now.md")
    sub.changes()
    (outside / "k1-now.md").write_text("the new inode\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/k1.md"}


def test_a_symlink_in_a_record_folder_is_reported_on_every_call(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    target = tmp_path / "target.md"
    target.write_text("target\n", encoding="utf-8")
    sub = record_feed.subscribe(ws)
    sub.changes()
    (ws / "knowledge" / "link.md").symlink_to(target)
    assert _names(sub.changes(), ws) == {"knowledge/link.md"}
    assert _names(sub.changes(), ws) == {"knowledge/link.md"}  # its target may change unseen
    (ws / "knowledge" / "link.md").unlink()
    sub.changes()
    assert sub.changes() == {}


def test_subscriptions_each_see_every_change(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    first, second = record_feed.subscribe(ws), record_feed.subscribe(ws)
    assert first.changes() is None and second.changes() is None
    (ws / "knowledge" / "k2.md").write_text("edited\n", encoding="utf-8")
    assert _names(first.changes(), ws) == {"knowledge/k2.md"}
    assert first.changes() == {}
    assert _names(second.changes(), ws) == {"knowledge/k2.md"}  # drained by the first, kept for the second
    assert len(record_feed._feeds) == 1  # one feed, one watch per inode, for both


def test_lost_track_answers_none_once_then_is_exact_again(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside.mkdir()
    sub = record_feed.subscribe(ws)
    sub.changes()
    os.rename(ws / "knowledge", tmp_path / "moved")  # a record folder goes (and comes back as a copy)
    (tmp_path / "moved").rename(ws / "knowledge")
    assert sub.changes() is None
    assert sub.changes() == {}
    os.link(ws / "knowledge" / "k0.md", outside / "x.md")
    sub.changes()
    (outside / "x.md").write_text("after the reopen\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}
    (ws / "memory" / "decisions").rmdir()
    assert sub.changes() is None  # a record folder removed
    (ws / "memory" / "decisions").mkdir()
    assert sub.changes() is None  # and created
    assert sub.changes() == {}


def test_out_of_the_budget_the_feed_does_not_vouch_for_contents(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(tmp_path / "ws", records=5)
    monkeypatch.setattr(record_feed, "_budget", 0)
    sub = record_feed.subscribe(ws)
    assert sub.changes() is None
    assert not sub.vouches_for_contents  # folder events only: the caller lstat-s every record
    (ws / "knowledge" / "k0.md").write_text("edited\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/k0.md"}
    record_feed.close_all()
    # Enough for what is there (5 records and the config) but not for one more file.
    monkeypatch.setattr(record_feed, "_budget", 6)
    sub = record_feed.subscribe(ws)
    sub.changes()
    assert sub.vouches_for_contents and record_feed._watched_files == 6
    (ws / "knowledge" / "k9.md").write_text("one more\n", encoding="utf-8")
    assert _names(sub.changes(), ws) == {"knowledge/k9.md"}
    assert not sub.vouches_for_contents
    assert record_feed._watched_files == 0  # half a set vouches for nothing: given back to others


def test_the_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YOI_FILE_WATCHES", "123")
    assert record_feed.file_watch_budget() == 123
    monkeypatch.setattr(record_feed, "_budget", None)
    monkeypatch.setenv("YOI_FILE_WATCHES", "lots")
    assert record_feed.file_watch_budget() == 0  # unreadable: never watch files (always exact)
    monkeypatch.setattr(record_feed, "_budget", None)
    monkeypatch.delenv("YOI_FILE_WATCHES")
    limit = int(Path("/proc/sys/fs/inotify/max_user_watches").read_text().strip())
    assert record_feed.file_watch_budget() == max(0, limit - max(8192, limit // 8))


def test_deleted_records_give_their_watches_back(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws", records=4)
    sub = record_feed.subscribe(ws)
    sub.changes()
    assert record_feed._watched_files == 5
    for number in range(4):
        (ws / "knowledge" / f"k{number}.md").unlink()
    assert _names(sub.changes(), ws) == {f"knowledge/k{number}.md" for number in range(4)}
    assert record_feed._watched_files == 1  # config.toml


def test_a_symlinked_record_folder_is_not_watched(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    (ws / "knowledge").rename(tmp_path / "elsewhere")
    (ws / "knowledge").symlink_to(tmp_path / "elsewhere")
    sub = record_feed.subscribe(ws)
    assert sub.changes() is None and sub.changes() is None  # never vouched for: always checked in full
    assert not sub.vouches_for_contents


def test_which_mount_points_can_change_a_folder() -> None:
    touches = change_feed._touches
    assert touches("/w/ws/knowledge", "/w/ws/knowledge")  # over it
    assert touches("/w/ws/knowledge/k0.md", "/w/ws/knowledge")  # one of its files mounted over
    assert touches("/w", "/w/ws/knowledge") and touches("/", "/w/ws/knowledge")  # above it
    assert not touches("/w/ws/knowledgebase", "/w/ws/knowledge")  # a sibling sharing a prefix
    assert not touches("/var/lib/docker/overlay2/abc/merged", "/w/ws/knowledge")
    assert change_feed._unescape_mount_point(b"/mnt/my\\040disk\\134x") == "/mnt/my disk\\x"


ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(not ROOT, reason="mounting needs root")
def test_a_mount_elsewhere_keeps_the_feed_a_mount_over_a_record_does_not(tmp_path: Path) -> None:
    """Docker hosts mount all the time: a mount outside the workspace must not make every feed
    reopen (0.8 s at 100,000 records); a file mounted over a record changes what it reads."""
    import subprocess

    ws = _workspace(tmp_path / "ws")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sub = record_feed.subscribe(ws)
    assert sub.changes() is None
    assert sub.changes() == {}
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(elsewhere)], check=True)
    try:
        assert sub.changes() == {}  # still vouched for: nothing in the workspace moved
    finally:
        subprocess.run(["umount", str(elsewhere)], check=True)
    assert sub.changes() == {}
    replacement = tmp_path / "replacement.md"
    replacement.write_text("password = 'hunter2-correct-horse'\n", encoding="utf-8")
    subprocess.run(["mount", "--bind", str(replacement), str(ws / "knowledge" / "k1.md")], check=True)
    try:
        assert sub.changes() is None  # the caller checks everything again
        assert sub.changes() == {}  # the reopened feed watches what the name reads now
        assert (ws / "knowledge" / "k1.md").read_text(encoding="utf-8").startswith("password")
    finally:
        subprocess.run(["umount", str(ws / "knowledge" / "k1.md")], check=True)
    assert sub.changes() is None  # and the unmount again
