"""File-system notifications for the app (issue 15): idle ticks do nothing, a change is noticed.

A real ``watchfiles`` watch on real folders; the waits below wait for the OS to deliver an event
(bounded), they time nothing.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from support import knowledge_meta, make_ws, write_record

from yoi_tui.core import watch
from yoi_tui.core.watch import StoreWatcher


def _wait_for(watcher: StoreWatcher, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if watcher._changed.is_set():
            return watcher.should_poll()
        time.sleep(0.05)
    return False


def test_idle_ticks_do_not_poll_and_a_change_does(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    watcher = StoreWatcher(ws)
    assert watcher.start() and watcher.active
    try:
        assert watcher.should_poll()  # the first tick: nothing known yet
        time.sleep(0.3)  # let the watch settle (events of the set-up above, if any, are consumed next)
        watcher.should_poll()
        idle = [watcher.should_poll() for _ in range(watch.SAFETY_TICKS - 5)]
        assert not any(idle)  # an idle workspace: no poll, no stat of any file
        write_record(ws, "knowledge/new-thing.md", knowledge_meta(), "\nNew.\n")
        assert _wait_for(watcher)
        (ws.knowledge_dir / "new-thing.md").write_text("edited in place\n", encoding="utf-8")
        assert _wait_for(watcher)
    finally:
        watcher.stop()


def test_polling_is_the_fallback(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    shutil.rmtree(ws.knowledge_dir)
    watcher = StoreWatcher(ws)
    assert not watcher.start() and "does not exist" in watcher.reason
    assert all(watcher.should_poll() for _ in range(5))  # no notifications: poll every tick, as before
    stopped = StoreWatcher(make_ws(tmp_path / "b"))
    assert stopped.start()
    stopped.stop()
    assert all(stopped.should_poll() for _ in range(3))


def test_a_safety_poll_comes_even_without_news(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    watcher = StoreWatcher(ws)
    assert watcher.start()
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
