"""GC reads every record on the idle cores (forked workers, ``core.fork_pool``) from 2,000 records on:
the same report, change set, notes and frontmatter cache as reading them in one process."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from yoi_tui.core.gc import rules_engine
from yoi_tui.core.gc.runner import prepare_gc
from yoi_tui.core.store.meta_cache import CACHE_NAME
from yoi_tui.core.store.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import generate  # noqa: E402  (bench/generate.py)

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _dry_run(root: Path) -> tuple[dict, dict]:
    ws = Workspace(root)
    report = prepare_gc(ws, dry_run=True, now=NOW).report  # one clock: merged records' updated_at agree
    data = report.to_json(diff=True)
    data.pop("run_id")
    cache = json.loads((ws.state_dir / "cache" / CACHE_NAME).read_text(encoding="utf-8"))
    return data, cache


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_reading_in_workers_gives_what_reading_here_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "gen"
    generate.generate(600, source, seed=11)  # planted problems: unparsable files, replaced chains, duplicates
    serial_root, parallel_root = tmp_path / "serial", tmp_path / "parallel"
    shutil.copytree(source, serial_root)
    shutil.copytree(source, parallel_root)
    monkeypatch.setattr(rules_engine, "PARALLEL_MIN", 10**9)
    serial, serial_cache = _dry_run(serial_root)
    used: list[int] = []
    real = rules_engine.run_forked

    def watched(jobs, workers):  # type: ignore[no-untyped-def]
        used.append(len(jobs))
        return real(jobs, workers)

    monkeypatch.setattr(rules_engine, "PARALLEL_MIN", 1)
    monkeypatch.setattr(rules_engine, "available_workers", lambda most: 2)
    monkeypatch.setattr(rules_engine, "run_forked", watched)
    parallel, parallel_cache = _dry_run(parallel_root)
    assert used and used[0] > 1  # the records were read in several jobs by the workers
    assert parallel["notes"] and any("not evaluated" in note for note in parallel["notes"])
    assert parallel == serial
    assert parallel_cache == serial_cache  # the workers' cache entries were adopted
    # and a second run, from the cache the parallel run saved, gives the same again
    again, _ = _dry_run(parallel_root)
    assert again == serial


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_reading_in_workers_from_a_worker_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app runs GC in a worker thread while its main thread goes on: the forked workers still
    answer (the children only read files and write to their pipe)."""
    import threading

    root = tmp_path / "gen"
    generate.generate(300, root, seed=7)
    monkeypatch.setattr(rules_engine, "PARALLEL_MIN", 1)
    monkeypatch.setattr(rules_engine, "available_workers", lambda most: 2)
    answers: list[dict] = []
    busy = threading.Event()

    def main_thread_work() -> None:
        while not busy.is_set():  # a thread that keeps allocating and logging meanwhile
            __import__("logging").getLogger("yoi.test").debug("tick %s", [0] * 100)

    other = threading.Thread(target=main_thread_work, daemon=True)
    other.start()
    worker = threading.Thread(target=lambda: answers.append(_dry_run(root)[0]), daemon=True)
    worker.start()
    worker.join(timeout=120)
    busy.set()
    other.join(timeout=10)
    assert not worker.is_alive() and answers and answers[0]["operations"]
