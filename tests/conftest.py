"""Shared test setup: snapshot baselines in the top-level ``snapshots/`` folder, app fixtures.

pytest-textual-snapshot stores SVGs under ``tests/__snapshots__/`` by default; the design card asks
for a top-level ``snapshots/<test_module>/<test>.svg``. ``snap_compare`` looks ``SVGImageExtension``
up in the plugin module when it is called, so rebinding that name redirects every snapshot (the
plugin is pinned to 1.1.0 for this). Other fixtures may be added here by other test modules.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

# Every ``yoi`` the tests run works in its own process; tests/test_server.py turns the command
# server on for itself (a server shared across tests would outlive them).
os.environ["YOI_SERVER"] = "0"

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"

try:
    import pytest_textual_snapshot

    class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc, name-defined]
        @classmethod
        def dirname(cls, *, test_location) -> str:  # type: ignore[no-untyped-def]
            return str(SNAPSHOT_ROOT / test_location.basename)

    pytest_textual_snapshot.SVGImageExtension = TopLevelSVGExtension  # type: ignore[misc]
except ImportError:  # pragma: no cover - the snapshot plugin is a test extra
    pass


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    """A fresh demo workspace (model.demo) in a temporary folder."""
    from yoi_tui.model.demo import create_demo_workspace

    root = tmp_path / "ws"
    create_demo_workspace(root)
    return root


@pytest.fixture
def make_test_app() -> Callable[..., object]:
    """``make_test_app(root, **kw)``: the real app factory with test settings (no poll, no blink)."""
    from yoi_tui.app import make_app

    def factory(root: Path, **kwargs: object) -> object:
        kwargs.setdefault("label", "demo workspace")
        kwargs.setdefault("poll_seconds", None)
        kwargs.setdefault("cursor_blink", False)
        return make_app(root, **kwargs)  # type: ignore[arg-type]

    return factory


async def _wait_until(pilot: object, predicate: Callable[[], bool], *, timeout: float = 10.0,
                     what: str = "condition") -> None:
    """Poll ``predicate`` between event-loop turns; fail with ``what`` after ``timeout`` seconds.

    Waiting on a state beats ``workers.wait_for_complete``: that hangs on long-lived workers and
    raises on cancelled ones.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)  # type: ignore[attr-defined]


@pytest.fixture
def wait_until() -> Callable[..., object]:
    """The ``wait_until(pilot, predicate, timeout=, what=)`` coroutine function."""
    return _wait_until


_SESSION_STARTED = time.time()
os.environ["PYTEST_YOI_SESSION"] = f"{os.getpid()}-{_SESSION_STARTED}"  # support.SESSION_MARK


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop any command server this test session left behind (one started by a test whose
    environment lost ``YOI_SERVER=0``, from any interpreter: the suite's or a test's own venv):
    see ``support.servers_of_this_session``. A server the developer or another test session
    started is left alone."""
    from support import servers_of_this_session, stop_command_server

    from yoi_tui.cli import server_client

    saved = os.environ.pop("XDG_RUNTIME_DIR", None)
    try:
        folders = {server_client.runtime_dir(), os.path.join("/tmp", f"yoi-{os.getuid()}")}
    finally:
        if saved is not None:
            os.environ["XDG_RUNTIME_DIR"] = saved
    if saved:
        folders.add(os.path.join(saved, "yoi"))
    factory = getattr(session.config, "_tmp_path_factory", None)
    try:
        temp_root = factory.getbasetemp() if factory is not None else None
    except OSError:
        temp_root = None
    for lock in servers_of_this_session(sorted(Path(f) for f in folders), temp_root, _SESSION_STARTED):
        stop_command_server(lock)
