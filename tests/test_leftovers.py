"""Nothing left behind: a writer killed mid-write leaves temp files and a scratch copy, the next run sweeps them.

Real ``yoi`` processes killed with SIGKILL at the crash point inside an atomic write
(``write:renaming``, between the fsynced temp file and its rename) and at random step boundaries.
After the rerun (Phase 2, GC) or the repeated ``yoi revert``: no ``.yoi-tmp-*`` file anywhere in the
workspace, no scratch copy under ``.yoi/state/scratch/``, nothing in the temp folder, and no staging
lost. The default suite kills a handful of times per writer; the 100-kill campaign per writer is

    .venv/bin/python -m pytest -q -m slow tests/test_leftovers.py
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from phase2_fixtures import stage_realistic
from support import decision_meta, knowledge_meta, make_ws, request_meta, write_record

from yoi_tui.core.store.atomic import TEMP_PREFIX
from yoi_tui.core.store.workspace import Workspace, init_workspace

Runner = Callable[[Path, dict[str, str]], subprocess.CompletedProcess[str]]


def _yoi(ws_root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", args[0], "--workspace", str(ws_root),
                           *args[1:]], capture_output=True, text=True, env=env, timeout=120)


def _phase2(ws_root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _yoi(ws_root, env, "phase2", "--flush")


def _gc(ws_root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _yoi(ws_root, env, "gc")


def _revert(ws_root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _yoi(ws_root, env, "revert", "last")


def _phase2_ws(root: Path) -> Path:
    ws = make_ws(root)
    write_record(ws, "memory/decisions/use-sqlite-for-the-response-cache.md", decision_meta(),
                 "\n# Use SQLite for the response cache\n\nA person wrote this.\n")
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"},
                 "\n# Project memory summary\n\nIntro by a person.\n")
    stage_realistic(ws)
    return ws.root


def _gc_ws(root: Path) -> Path:
    ws = make_ws(root)
    write_record(ws, "memory/decisions/use-sqlite-for-the-cache.md", decision_meta(status="resolved"),
                 "\n# Use SQLite for the cache\n\n## Chosen\nSQLite.\n")
    for name in ("use-json-files", "use-shelve", "use-pickle"):
        write_record(ws, f"memory/decisions/{name}.md",
                     decision_meta(status="replaced", replaced_by="use-sqlite-for-the-cache"), f"\n# {name}\n")
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(24)]
    write_record(ws, "knowledge/retry-policy.md", knowledge_meta(last_sources=many), "\nRetry three times.\n")
    write_record(ws, "memory/requests/add-a-progress-bar.md", request_meta(status="resolved"), "\n# Progress bar\n")
    return ws.root


def _revert_ws(root: Path) -> Path:
    ws_root = _phase2_ws(root)
    applied = _phase2(ws_root, _env(root))
    assert applied.returncode == 0, applied.stderr
    return ws_root


def _env(work: Path, **extra: str) -> dict[str, str]:
    tmp = work / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp), **extra}


def _leftovers(work: Path, ws_root: Path) -> list[str]:
    found = [str(p.relative_to(ws_root)) for p in ws_root.rglob("*")
             if p.name.startswith(TEMP_PREFIX) or (p.name.startswith(".") and p.name.endswith(".tmp"))]
    scratch = ws_root / ".yoi" / "state" / "scratch"
    if scratch.is_dir():
        found += [f"scratch copy {p.name}" for p in scratch.iterdir()]
    found += [f"temp folder {p.name}" for p in (work / "tmp").iterdir()] if (work / "tmp").is_dir() else []
    return found


def _staging(ws_root: Path) -> set[str]:
    return {p.stem for p in (ws_root / "memory" / "_staging").glob("*.json")}


def _no_staging_lost(ws_root: Path, before: set[str]) -> None:
    missing = before - _staging(ws_root)
    if missing:
        journals = [json.loads(p.read_text()) for p in (ws_root / ".yoi/state/runs").glob("*.json")]
        covered = {i["id"] for j in journals if j["status"] != "applying" for i in j["inputs"]}
        assert missing <= covered, "a staging file was deleted before its run's files were applied"


def _points(make: Callable[[Path], Path], run: Runner, base: Path) -> list[str]:
    work = base / "reference"
    ws_root = make(work / "ws")
    log = work / "points.log"
    result = run(ws_root, _env(work, YOI_CRASHPOINT_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    return [line.split(" ", 1)[1] for line in log.read_text().splitlines()]


def _kill_and_recover(make: Callable[[Path], Path], run: Runner, work: Path, point: int,
                      expect_leftover: bool) -> None:
    ws_root = make(work / "ws")
    staging = _staging(ws_root)
    killed = run(ws_root, _env(work, YOI_CRASH_AT=str(point)))
    assert killed.returncode == -signal.SIGKILL, (point, killed.stdout, killed.stderr)
    if expect_leftover:
        assert _leftovers(work, ws_root), f"crash point {point} left nothing: the test does not reach a rename"
    _no_staging_lost(ws_root, staging)
    rerun = run(ws_root, _env(work))
    assert rerun.returncode in (0, 1), (point, rerun.stdout, rerun.stderr)
    assert "Traceback" not in rerun.stderr
    assert _leftovers(work, ws_root) == [], f"crash point {point}"
    _no_staging_lost(ws_root, staging)
    assert not list((ws_root / ".yoi/state/runs").glob("*.pending.json"))


WRITERS = {"phase2": (_phase2_ws, _phase2), "gc": (_gc_ws, _gc), "revert": (_revert_ws, _revert)}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_kill_inside_an_atomic_write_leaves_nothing_after_recovery(writer: str, tmp_path: Path) -> None:
    make, run = WRITERS[writer]
    names = _points(make, run, tmp_path)
    renames = [n for n, name in enumerate(names, 1) if name == "write:renaming"]
    assert renames, names
    # The first rename (in the scratch copy for Phase 2 and GC: a scratch copy is left too) and one
    # in the middle (applying); every other step is killed at by the slow campaign below.
    for point in sorted({renames[0], renames[len(renames) // 2]}):
        _kill_and_recover(make, run, tmp_path / f"kill-{point}", point, expect_leftover=True)


def test_sweep_removes_only_leftovers_of_gone_processes(tmp_path: Path) -> None:
    import time

    from yoi_tui.core.runs.leftovers import sweep

    ws = make_ws(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    folder = ws.decisions_dir
    dead = folder / f"{TEMP_PREFIX}{dead_pid}-a.md.abcd1234.tmp"
    live = folder / f"{TEMP_PREFIX}{os.getpid()}-b.md.abcd1234.tmp"  # this process: in flight
    old_legacy = folder / ".c.md.k3j4h5g6.tmp"
    new_legacy = folder / ".d.md.k3j4h5g6.tmp"
    users = folder / ".my-notes.tmp"  # not a name yoi ever made
    for path in (dead, live, old_legacy, new_legacy, users):
        path.write_text("x")
    hour_ago = time.time() - 2 * 3600
    for path in (old_legacy, users):
        os.utime(path, (hour_ago, hour_ago))
    scratch = ws.state_dir / "scratch" / f"{dead_pid}-xyz"
    (scratch / "memory").mkdir(parents=True)
    mine = ws.state_dir / "scratch" / f"{os.getpid()}-abc"
    mine.mkdir()
    swept = sweep(ws)
    assert sorted(p.name for p in swept.temp_files) == sorted([dead.name, old_legacy.name])
    assert swept.scratch_dirs == [scratch] and mine.exists()
    assert live.exists() and new_legacy.exists() and users.exists()


def test_init_gitignore_ignores_the_temp_files(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "p"
    init_workspace(root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "memory" / "decisions" / f"{TEMP_PREFIX}123-x.md.abc.tmp").write_text("half")
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert TEMP_PREFIX not in status
    assert ".yoi/state" not in status


def test_scratch_copy_lives_under_state_and_is_hard_linked(tmp_path: Path) -> None:
    from yoi_tui.core.runs.changeset import Scratch

    ws = Workspace(_gc_ws(tmp_path))
    record = ws.root / "knowledge" / "retry-policy.md"
    with Scratch(ws) as scratch:
        assert scratch.root.parent == ws.state_dir / "scratch"
        copy = scratch.path("knowledge/retry-policy.md")
        assert copy.stat().st_ino == record.stat().st_ino  # linked, not copied
        scratch.write("knowledge/retry-policy.md", "changed in the scratch copy\n")
        assert copy.stat().st_ino != record.stat().st_ino
        assert "Retry three times." in record.read_text()  # the real record is untouched
        root = scratch.root
    assert not root.exists()


@pytest.mark.slow
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_hundred_kills_per_writer_leave_nothing(writer: str, tmp_path: Path) -> None:
    make, run = WRITERS[writer]
    total = len(_points(make, run, tmp_path))
    rng = random.Random(f"leftovers-{writer}")
    for trial in range(100):
        _kill_and_recover(make, run, tmp_path / f"trial-{trial}", rng.randint(1, total), expect_leftover=False)
