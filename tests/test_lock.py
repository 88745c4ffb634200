"""The consolidation occupancy lock: exclusive, stale takeover (dead pid / old heartbeat), busy, lost."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from phase2_fixtures import stage_realistic, start_yoi, wait_for
from support import make_ws, run_yoi

from yoi_tui.core.runs.consolidation_lock import (
    ConsolidationLock,
    LockBusy,
    LockLost,
    lock_path,
    pid_alive,
    read_lock,
)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _write_lock(path: Path, *, pid: int, host: str | None = None, age: float = 0.0, consumed: list[str] | None = None,
                run_id: str = "old-run") -> None:
    beat = (datetime.now(UTC) - timedelta(seconds=age)).replace(microsecond=0).isoformat()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pod_id": "pod-x", "pid": pid, "host": host or socket.gethostname(),
                                "started_at": beat, "heartbeat_at": beat, "consumed": consumed or [],
                                "run_id": run_id, "purpose": "phase2"}), encoding="utf-8")


def test_acquire_writes_holder_and_release_removes(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    lock = ConsolidationLock(ws).acquire(consumed=["a", "b"])
    info = read_lock(ws)
    assert info is not None
    assert (info.pid, info.host, info.consumed, info.run_id) == (
        __import__("os").getpid(), socket.gethostname(), ["a", "b"], lock.run_id)
    assert info.pod_id and info.started_at and info.heartbeat_at
    lock.set_consumed(["c"])
    assert read_lock(ws).consumed == ["c"]  # type: ignore[union-attr]
    lock.release()
    assert not lock_path(ws).exists()
    assert lock.takeover is None


def test_live_lock_is_not_taken(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    first = ConsolidationLock(ws).acquire()
    with pytest.raises(LockBusy) as raised:
        ConsolidationLock(ws).acquire()
    assert raised.value.info.run_id == first.run_id
    assert "holds the consolidation lock" in str(raised.value)
    first.release()
    ConsolidationLock(ws).acquire().release()  # free again


def test_dead_pid_lock_is_taken_over(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    dead = _dead_pid()
    assert not pid_alive(dead)
    _write_lock(lock_path(ws), pid=dead, consumed=["s1"])
    lock = ConsolidationLock(ws).acquire()
    assert lock.takeover is not None
    assert f"pid {dead} is gone" in lock.takeover.reason
    assert lock.takeover.previous is not None and lock.takeover.previous.consumed == ["s1"]
    assert read_lock(ws).run_id == lock.run_id  # type: ignore[union-attr]
    lock.release()


def test_old_heartbeat_is_taken_over_even_with_live_pid(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    import os

    _write_lock(lock_path(ws), pid=os.getpid(), age=10_000)
    lock = ConsolidationLock(ws, lease_seconds=600).acquire()
    assert lock.takeover is not None and "heartbeat" in lock.takeover.reason
    lock.release()


def test_other_host_depends_on_heartbeat_only(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _write_lock(lock_path(ws), pid=1, host="another-host.invalid", age=5)
    with pytest.raises(LockBusy):
        ConsolidationLock(ws).acquire()
    _write_lock(lock_path(ws), pid=1, host="another-host.invalid", age=100_000)
    lock = ConsolidationLock(ws).acquire()
    assert lock.takeover is not None
    lock.release()


def test_unreadable_lock_file_is_taken_over(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    lock_path(ws).write_text("{not json", encoding="utf-8")
    lock = ConsolidationLock(ws).acquire()
    assert lock.takeover is not None and lock.takeover.previous is None
    lock.release()


def test_holder_whose_lock_was_taken_over_learns_it_and_leaves_the_new_lock(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    first = ConsolidationLock(ws).acquire()
    # The first holder's heartbeat went stale (e.g. it hung); a second run takes over.
    data = json.loads(lock_path(ws).read_text())
    data["heartbeat_at"] = "2000-01-01T00:00:00+00:00"
    lock_path(ws).write_text(json.dumps(data))
    second = ConsolidationLock(ws).acquire()
    assert second.takeover is not None
    with pytest.raises(LockLost):
        first.verify()
    first.release()
    assert read_lock(ws).run_id == second.run_id  # type: ignore[union-attr]
    second.release()
    assert not lock_path(ws).exists()


def test_keepalive_beats_the_heartbeat(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    lock = ConsolidationLock(ws, lease_seconds=600).acquire()
    data = json.loads(lock_path(ws).read_text())
    data["heartbeat_at"] = "2000-01-01T00:00:00+00:00"
    lock_path(ws).write_text(json.dumps(data))
    lock.start_keepalive(interval=0.01)
    assert wait_for_heartbeat(ws)
    lock.release()


def wait_for_heartbeat(ws: object) -> bool:
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info = read_lock(ws)  # type: ignore[arg-type]
        if info is not None and not info.heartbeat_at.startswith("2000"):
            return True
        time.sleep(0.01)
    return False


# ------------------------------------------------------------------ real processes


def test_two_phase2_processes_started_together_exactly_one_runs(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)
    barrier = tmp_path / "go"
    # Whichever process takes the lock pauses right after taking it, so the other is certain to
    # find it held (no timing assumption); the loser must exit 1 at once, not wait.
    env = {"YOI_PAUSE_AT": "phase2:locked", "YOI_PAUSE_FILE": str(barrier)}
    procs = [start_yoi("phase2", "--workspace", str(ws.root), "--flush", env=env) for _ in range(2)]
    assert wait_for(Path(f"{barrier}.reached"))
    winner_pid = int(Path(f"{barrier}.reached").read_text())
    loser = next(p for p in procs if p.pid != winner_pid)
    winner = next(p for p in procs if p.pid == winner_pid)
    out, err = loser.communicate(timeout=60)
    assert loser.returncode == 1, (out, err)
    assert "holds the consolidation lock" in err and "Traceback" not in err
    barrier.touch()
    out, err = winner.communicate(timeout=60)
    assert winner.returncode == 0, (out, err)
    assert "phase2 run" in out
    assert not lock_path(ws).exists()
    assert not list(ws.staging_dir.glob("*.json"))


def test_cli_takes_over_a_stale_lock_and_reports_it(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)
    _write_lock(lock_path(ws), pid=_dead_pid(), consumed=["whatever"])
    result = run_yoi("phase2", "--workspace", str(ws.root), "--flush")
    assert result.returncode == 0, result.stderr
    assert "took over a stale lock" in result.stderr
    assert not lock_path(ws).exists()


def test_cli_refuses_while_a_live_lock_is_held(tmp_path: Path) -> None:
    import os

    ws = make_ws(tmp_path)
    ids = stage_realistic(ws)
    _write_lock(lock_path(ws), pid=os.getpid(), consumed=ids)  # this test process is alive
    result = run_yoi("phase2", "--workspace", str(ws.root), "--flush")
    assert result.returncode == 1
    assert f"pid {os.getpid()}" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.stem for p in ws.staging_dir.glob("*.json")) == sorted(ids)
    assert not list(ws.decisions_dir.glob("*.md"))
    as_json = run_yoi("phase2", "--workspace", str(ws.root), "--flush", "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["status"] == "busy"
