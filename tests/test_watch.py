"""File-system notifications for the app (issue 15): idle ticks do nothing, a change is noticed.

Real watches on real folders, with each backend behind ``StoreWatcher``: the record feed's
inotify watches (Linux) and ``watchfiles``; the waits below wait for the OS to deliver an event
(bounded), they time nothing.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from support import knowledge_meta, make_ws, write_record

from yoi_tui.core.freshness import change_feed
from yoi_tui.core.freshness import store_watch as watch
from yoi_tui.core.freshness.store_watch import StoreWatcher

BACKENDS = ["watchfiles", *(["inotify"] if change_feed._load_libc() is not None else [])]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(watch, "SAFETY_TICKS", 10**9)  # a True below is news, never the safety poll
    return str(request.param)


def _wait_for(watcher: StoreWatcher, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if watcher.should_poll():
            return True
        time.sleep(0.05)
    return False


def _started(watcher: StoreWatcher) -> StoreWatcher:
    assert watcher.start()
    deadline = time.monotonic() + 10
    while not watcher.active and time.monotonic() < deadline:  # the inotify feed opens on a thread
        time.sleep(0.02)
    assert watcher.active, watcher.reason
    return watcher


def test_idle_ticks_do_not_poll_and_a_change_does(tmp_path: Path, backend: str) -> None:
    ws = make_ws(tmp_path)
    watcher = _started(StoreWatcher(ws, backend))
    try:
        assert watcher.should_poll()  # the first tick: nothing known yet
        time.sleep(0.3)  # let the watch settle (events of the set-up above, if any, are consumed next)
        watcher.should_poll()
        idle = [watcher.should_poll() for _ in range(25)]
        assert not any(idle)  # an idle workspace: no poll, no stat of any file
        write_record(ws, "knowledge/new-thing.md", knowledge_meta(), "\nNew.\n")
        assert _wait_for(watcher)
        (ws.knowledge_dir / "new-thing.md").write_text("edited in place\n", encoding="utf-8")
        assert _wait_for(watcher)
    finally:
        watcher.stop()


@pytest.mark.skipif("inotify" not in BACKENDS, reason="no inotify here")
def test_the_inotify_backend_sees_a_write_through_a_hard_link(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """No folder event reports it; the record feed's watch on the file's inode does."""
    monkeypatch.setattr(watch, "SAFETY_TICKS", 10**9)
    ws = make_ws(tmp_path / "ws")
    path = write_record(ws, "knowledge/linked.md", knowledge_meta(), "\nLinked.\n")
    other = tmp_path / "elsewhere.md"
    os.link(path, other)
    watcher = _started(StoreWatcher(ws, "inotify"))
    try:
        watcher.should_poll()
        assert not any(watcher.should_poll() for _ in range(5))
        with other.open("a", encoding="utf-8") as handle:
            handle.write("written through the other name\n")
        assert watcher.should_poll()  # inotify queues the event inside the write: no wait
        assert not watcher.should_poll()
    finally:
        watcher.stop()


def test_polling_is_the_fallback(tmp_path: Path, backend: str) -> None:
    ws = make_ws(tmp_path)
    shutil.rmtree(ws.knowledge_dir)
    watcher = StoreWatcher(ws, backend)
    assert not watcher.start() and "does not exist" in watcher.reason
    assert all(watcher.should_poll() for _ in range(5))  # no notifications: poll every tick, as before
    stopped = _started(StoreWatcher(make_ws(tmp_path / "b"), backend))
    stopped.stop()
    assert all(stopped.should_poll() for _ in range(3))


def test_a_safety_poll_comes_even_without_news(tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "SAFETY_TICKS", 30)
    ws = make_ws(tmp_path)
    watcher = _started(StoreWatcher(ws, backend))
    try:
        watcher.should_poll()
        time.sleep(0.3)
        results = [watcher.should_poll() for _ in range(2 * watch.SAFETY_TICKS)]
        assert results.count(True) >= 1  # at least one full poll per SAFETY_TICKS ticks
    finally:
        watcher.stop()


async def test_the_app_polls_only_when_told(demo_root: Path, make_test_app, wait_until) -> None:  # type: ignore[no-untyped-def]
    app = make_test_app(demo_root, poll_seconds=0.05)
    polls: list[int] = []
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_until(pilot, lambda: app.linted_once and not app.linting, what="first lint")
        assert app.watcher is not None and app.watcher.active
        real = app._poll_worker
        app._poll_worker = lambda known: (polls.append(1), real(known))  # count the polls that start
        await pilot.pause(0.5)  # ~10 idle ticks
        assert len(polls) <= 1  # at most a safety poll, never one per tick
        (demo_root / "knowledge" / "howto-watch.md").write_text(
            (demo_root / "knowledge").joinpath(sorted(p.name for p in (demo_root / "knowledge").iterdir())[0])
            .read_text(encoding="utf-8"), encoding="utf-8")
        await wait_until(pilot, lambda: app.store.get("knowledge/howto-watch.md") is not None, what="new file")
    assert app.watcher is not None and not app.watcher.active  # stopped with the app
