"""``core.fork_pool``: jobs run by forked children, or None for the caller to run them."""

from __future__ import annotations

import os
import signal
import time

import pytest

from yoi_tui.core import fork_pool
from yoi_tui.core.fork_pool import run_forked


def _square(n: int) -> int:
    return n * n


def _big(n: int) -> list[str]:
    return [f"{n}-{i}" * 20 for i in range(20_000)]  # ~4 MB pickled: many pipe buffers' worth


def _pid(_n: int) -> int:
    time.sleep(0.01)  # long enough for both children to take a job
    return os.getpid()


def _fail(n: int) -> int:
    if n == 3:
        raise ValueError("a job that raises")
    return n


def _die(n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@needs_fork
def test_results_come_back_in_job_order() -> None:
    jobs = [(_square, (n,)) for n in range(50)]
    assert run_forked(jobs, 2) == [n * n for n in range(50)]
    assert run_forked(jobs, 3) == [n * n for n in range(50)]


@needs_fork
def test_results_larger_than_a_pipe_arrive_whole() -> None:
    assert run_forked([(_big, (n,)) for n in range(3)], 2) == [_big(n) for n in range(3)]


@needs_fork
def test_the_jobs_run_in_the_children() -> None:
    pids = run_forked([(_pid, (n,)) for n in range(8)], 2)
    assert pids is not None and os.getpid() not in pids and len(set(pids)) == 2


@needs_fork
def test_a_job_that_raises_or_a_child_killed_gives_none() -> None:
    assert run_forked([(_fail, (n,)) for n in range(6)], 2) is None
    assert run_forked([(_die, (n,)) for n in range(6)], 2) is None


def test_no_fork_one_worker_or_no_jobs_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_forked([(_square, (1,))], 1) is None
    assert run_forked([], 2) is None
    monkeypatch.delattr(fork_pool.os, "fork", raising=False)
    assert run_forked([(_square, (1,))], 2) is None


@needs_fork
def test_children_leave_nothing_behind() -> None:
    """Every child is reaped and every pipe closed, whether the run worked or not."""
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    run_forked([(_square, (n,)) for n in range(10)], 2)
    run_forked([(_fail, (n,)) for n in range(6)], 2)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) == before


class _Point:
    """Not something marshal writes: sent back pickled."""

    def __init__(self, x: int) -> None:
        self.x = x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Point) and other.x == self.x


def _mixed(n: int) -> object:
    return _Point(n) if n % 2 else {"n": n, ("a", "b"): [1.5, None, True, "é\udcff"]}


@needs_fork
def test_plain_data_and_other_objects_both_come_back_as_they_were() -> None:
    assert run_forked([(_mixed, (n,)) for n in range(6)], 2) == [_mixed(n) for n in range(6)]


@pytest.mark.parametrize(("count", "workers"), [(0, 2), (1, 2), (150, 2), (10_006, 2), (50_000, 4)])
def test_jobs_are_cut_in_shrinking_chunks(count: int, workers: int) -> None:
    items = list(range(count))
    parts = fork_pool.shrinking_chunks(items, workers, 100)
    assert [item for part in parts for item in part] == items  # every item once, in order
    sizes = [len(part) for part in parts]
    assert sizes == sorted(sizes, reverse=True) or sizes[:-1] == sorted(sizes[:-1], reverse=True)
    assert all(size >= 100 for size in sizes[:-1])
    if count >= 10_000:  # the last chunks are small: the workers end within a small chunk of each other
        assert sizes[0] > 4 * sizes[-2] and sizes[-2] <= 2 * 100


@pytest.mark.parametrize(("cores", "idle", "expected"), [(2, 2, 2), (2, 1, 2), (2, 0, 1), (8, 3, 3), (8, 8, 4), (1, 1, 1)])
def test_workers_are_the_idle_cores_but_never_serial_for_one_busy_task(monkeypatch: pytest.MonkeyPatch, cores: int,
                                                                       idle: int, expected: int) -> None:
    monkeypatch.setattr(fork_pool.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(fork_pool, "_idle_cores", lambda: idle)
    assert fork_pool.available_workers(4) == expected
    assert fork_pool.available_workers(4, idle_only=False) == min(cores, 4)


@needs_fork
def test_a_fork_that_fails_gives_none_and_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    real_fork = os.fork
    calls: list[int] = []

    def second_fails() -> int:
        calls.append(1)
        if len(calls) == 2:
            raise OSError(11, "Resource temporarily unavailable")
        return real_fork()

    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(fork_pool.os, "fork", second_fails)
    assert run_forked([(_square, (n,)) for n in range(10)], 2) is None
    monkeypatch.setattr(fork_pool.os, "fork", real_fork)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) == before


def test_no_pipe_to_be_had_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pipe() -> tuple[int, int]:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(fork_pool.os, "pipe", no_pipe)
    assert run_forked([(_square, (1,)), (_square, (2,))], 2) is None
