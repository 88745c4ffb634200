"""Crash safety: Phase 2 killed with SIGKILL at random points never loses data and converges on rerun.

Each trial copies the same workspace, runs ``yoi phase2 --flush`` in a subprocess and kills it with
SIGKILL — at a randomly chosen step boundary (``YOI_CRASH_AT``: the process sends itself SIGKILL,
no cleanup runs) or, in a few trials, from outside after a random delay. After the kill:

* every record file is complete (parses, lints clean): no half-written record;
* every staging file is still there unless the run's journal shows its files were all applied:
  no lost staging;
* a rerun succeeds and leaves exactly the records of an uninterrupted run (timestamps aside), no
  staging, no lock, no pending journal.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from phase2_fixtures import normalised_records, stage, stage_realistic
from support import decision_meta, make_ws, request_meta, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.store.staging import Attempt, Decision, Request
from yoi_tui.core.store.workspace import Workspace

TRIALS = 24
EXTERNAL_KILL_TRIALS = 4
SEED = 20261130


def _template(root: Path) -> Workspace:
    ws = make_ws(root)
    write_record(ws, "memory/decisions/use-sqlite-for-the-response-cache.md", decision_meta(),
                 "\n# Use SQLite for the response cache\n\nA person wrote this.\n")
    write_record(ws, "memory/requests/add-a-no-cache-flag-cli-py.md", request_meta(), "\n# Add a --no-cache flag\n")
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"},
                 "\n# Project memory summary\n\nIntro by a person.\n")
    stage_realistic(ws)
    stage(ws, "0197c3-session-three", 0, 20,
          decisions=[Decision(title="Ship a wheel per platform", options=["sdist only", "wheels"], chosen="wheels",
                              rationale="users lack compilers")],
          attempts=[Attempt(trial="cibuildwheel on macOS", result="codesign failed", outcome="failure"),
                    Attempt(trial="set CIBW_ARCHS=native", result="wheel built", outcome="success")],
          requests=[Request(intent="Publish to PyPI", target="release.yml", summary="on every tag")])
    return ws


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    scratch_tmp = tmp / "tmp"
    scratch_tmp.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(scratch_tmp), **extra}


def _phase2(ws_root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "phase2", "--workspace", str(ws_root), "--flush"],
                          capture_output=True, text=True, env=env, timeout=120)


def _staging_ids(ws_root: Path) -> set[str]:
    return {p.stem for p in (ws_root / "memory" / "_staging").glob("*.json")}


def _check_after_crash(ws_root: Path, template_staging: set[str]) -> None:
    ws = Workspace(ws_root)
    errors = [d for d in lint_workspace(ws).diagnostics if d.is_error]
    assert errors == [], errors  # every record is whole
    missing = template_staging - _staging_ids(ws_root)
    if missing:
        journals = [json.loads(p.read_text()) for p in (ws.state_dir / "runs").glob("*.json")]
        covered = {i["id"] for j in journals if j["status"] != "applying" for i in j["inputs"]}
        assert missing <= covered, "a staging file was deleted before its run's files were applied"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], int]:
    base = tmp_path_factory.mktemp("crash")
    template = _template(base / "template")
    run_dir = base / "reference"
    shutil.copytree(template.root, run_dir)
    log = base / "points.log"
    result = _phase2(run_dir, _env(base, YOI_CRASHPOINT_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    points = len(log.read_text().splitlines())
    assert points >= 10  # locked, computed, journal, each file, each staging file, final journal, ...
    return template.root, normalised_records(run_dir), points


def _trial(number: int, point: int | None, delay: float, template: Path, expected: dict[str, bytes],
           base: Path) -> str:
    work = base / f"trial-{number}"
    shutil.copytree(template, work / "ws")
    staging = _staging_ids(work / "ws")
    if point is not None:
        killed = _phase2(work / "ws", _env(work, YOI_CRASH_AT=str(point)))
        assert killed.returncode == -signal.SIGKILL, (point, killed.stdout, killed.stderr)
    else:
        proc = subprocess.Popen([sys.executable, "-m", "yoi_tui.cli.main", "phase2", "--workspace",
                                 str(work / "ws"), "--flush"], env=_env(work), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    _check_after_crash(work / "ws", staging)
    rerun = _phase2(work / "ws", _env(work))
    assert rerun.returncode == 0, (point, rerun.stdout, rerun.stderr)
    assert normalised_records(work / "ws") == expected, f"trial {number} (crash point {point}) did not converge"
    assert not _staging_ids(work / "ws")
    assert not (work / "ws" / "memory" / "_staging" / "consolidation.lock").exists()
    assert not list((work / "ws" / ".yoi" / "state" / "runs").glob("*.pending.json"))
    return f"point {point}" if point is not None else f"external kill after {delay:.2f}s"


def test_sigkill_at_random_points_never_loses_data_and_converges(
        reference: tuple[Path, dict[str, bytes], int], tmp_path: Path) -> None:
    template, expected, points = reference
    rng = random.Random(SEED)
    # Every step boundary at least once when there are few, the rest drawn at random.
    chosen = list(range(1, points + 1)) if points <= TRIALS - EXTERNAL_KILL_TRIALS else []
    while len(chosen) < TRIALS - EXTERNAL_KILL_TRIALS:
        chosen.append(rng.randint(1, points))
    plan: list[tuple[int | None, float]] = [(p, 0.0) for p in chosen]
    plan += [(None, rng.uniform(0.05, 0.8)) for _ in range(EXTERNAL_KILL_TRIALS)]
    assert len(plan) >= 20
    with ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2))) as pool:
        outcomes = list(pool.map(lambda item: _trial(item[0], item[1][0], item[1][1], template, expected, tmp_path),
                                 enumerate(plan)))
    assert len(outcomes) == len(plan)
