"""The suite's end-of-session sweep (conftest.py) finds the command servers its tests left behind,
whichever ``yoi`` started them, and nobody else's: ``support.servers_of_this_session``.

A server is named after the installation that runs it, so a test that runs ``yoi`` from a venv of
its own (tests/test_wheel_install.py) with an environment of its own (no ``YOI_SERVER=0``) leaves a
server under a socket name the suite's own interpreter would not look for.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from support import (
    REPO,
    SESSION_MARK,
    process_running,
    server_pid,
    servers_of_this_session,
    stop_command_server,
)


def _runtime() -> Path:
    """A private ``XDG_RUNTIME_DIR``: short, as a socket path must be (tmp_path may be too long)."""
    return Path(tempfile.mkdtemp(prefix="yoi-sweep-", dir="/tmp"))


def _wait_for_lock(folder: Path) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for lock in folder.glob("*.lock"):
            pid = server_pid(lock)
            if pid is not None and process_running(pid) and Path(str(lock)[: -len(".lock")]).exists():
                return lock
        time.sleep(0.05)
    raise AssertionError(f"no command server started in {folder}")


def test_the_sweep_finds_a_server_of_a_tests_own_venv_and_leaves_others(tmp_path: Path) -> None:
    since = time.time() - 1
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    python_path = os.pathsep.join([str(REPO), *site.getsitepackages()])
    project = tmp_path / "project"
    project.mkdir()
    (project / ".yoi").mkdir()
    theirs_runtime, ours_runtime = _runtime(), _runtime()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": python_path}  # no YOI_SERVER=0, no session mark
    assert SESSION_MARK not in env
    locks: list[Path] = []
    try:
        # A test's own venv runs `yoi lint` in a workspace under the temp root: its server starts.
        subprocess.run([venv / "bin" / "python", "-m", "yoi_tui.cli.main", "lint"], cwd=project, timeout=120,
                       env={**env, "XDG_RUNTIME_DIR": str(ours_runtime)}, capture_output=True, check=False)
        ours = _wait_for_lock(ours_runtime / "yoi")
        locks.append(ours)
        # Someone else's server (the suite's interpreter, nothing under the temp root, no mark).
        subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "lint"], cwd=project, timeout=120,
                       env={**env, "XDG_RUNTIME_DIR": str(theirs_runtime)}, capture_output=True, check=False)
        theirs = _wait_for_lock(theirs_runtime / "yoi")
        locks.append(theirs)
        theirs_pid = server_pid(theirs)
        os.utime(theirs)  # and written after the session began

        found = servers_of_this_session([theirs_runtime / "yoi", ours_runtime / "yoi"], venv, since)
        assert found == [ours]
        # A server this session's processes started carries the session's mark: found wherever it runs from.
        assert servers_of_this_session([theirs_runtime / "yoi"], None, since) == []
        assert servers_of_this_session([ours_runtime / "yoi"], tmp_path / "elsewhere", since) == []
        # ...and one started before the session began is left alone.
        assert servers_of_this_session([ours_runtime / "yoi"], venv, time.time() + 60) == []
        assert theirs_pid is not None and process_running(theirs_pid)
    finally:
        for lock in locks:
            stop_command_server(lock)
        shutil.rmtree(theirs_runtime)
        shutil.rmtree(ours_runtime)
    assert not any(process_running(pid) for pid in map(server_pid, locks) if pid is not None)


def test_the_sweep_finds_a_server_by_the_session_mark(tmp_path: Path) -> None:
    runtime = _runtime()
    project = tmp_path / "project"
    project.mkdir()
    (project / ".yoi").mkdir()
    since = time.time() - 1
    env = {k: v for k, v in os.environ.items() if k != "YOI_SERVER"}
    assert env.get(SESSION_MARK)
    subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "lint"], cwd=project, timeout=120,
                   env={**env, "XDG_RUNTIME_DIR": str(runtime)}, capture_output=True, check=False)
    try:
        lock = _wait_for_lock(runtime / "yoi")
        try:
            assert servers_of_this_session([runtime / "yoi"], None, since) == [lock]
        finally:
            stop_command_server(lock)
    finally:
        shutil.rmtree(runtime)
