"""Jobs run by forked child processes, each result sent back serialized: the pool of a cold lint
and of GC's reading of every record.

``concurrent.futures.ProcessPoolExecutor`` cost a one-shot lint ~20 ms of imports before any file
was read (multiprocessing, sockets, queues, threads), two threads in the parent, and a pickled call
per task. Here the children are forked with the jobs already in their memory. Every job number is
written to one pipe before the fork; a child claims the next job by reading four bytes from it (a
read that size from a pipe holding only whole numbers takes one whole number, so no job runs
twice and an idle child takes the next one), and writes each result, framed, to a pipe of its own,
which the parent reads — and decodes — while the children work. A result made only of lists,
tuples, dicts, strings, numbers, booleans and None (a lint's facts) goes as ``marshal`` (four times
faster to write than ``pickle``; safe here: the parent reads only its own children), anything
else as ``pickle``.

Any failure gives None and the caller does the work itself: no ``fork`` (Windows), a child that
raises, dies or is killed, a result that does not arrive whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Job = tuple[Callable[..., Any], tuple[Any, ...]]

_NUMBER = 4  # bytes of a job number in the token pipe
_LENGTH = 8  # bytes of a result's length in a child's pipe
_MAX_JOBS = 16_000  # the token pipe is filled before any child reads: it must fit a pipe's buffer (64 KB)


def run_forked(jobs: Sequence[Job], workers: int) -> list[Any] | None:
    """``[function(*args) for function, args in jobs]``, computed by ``workers`` forked children,
    the jobs started in order; None when that failed (see the module docstring)."""
    if not hasattr(os, "fork") or workers < 2 or not jobs or len(jobs) > _MAX_JOBS:
        return None
    import marshal
    import pickle
    import select

    try:
        tokens_read, tokens_write = os.pipe()
    except OSError:  # no descriptors to be had
        return None
    try:
        os.write(tokens_write, b"".join(n.to_bytes(_NUMBER, "little") for n in range(len(jobs))))
    finally:
        os.close(tokens_write)  # the children see the end of the jobs once the pipe is empty
    children: dict[int, int] = {}  # the read end of each child's result pipe -> its pid
    results: dict[int, Any] = {}
    failed = False
    try:
        for _ in range(workers):
            result_read, result_write = os.pipe()
            try:
                pid = os.fork()
            except OSError:
                os.close(result_read)
                os.close(result_write)
                raise
            if pid == 0:  # the child: never returns
                _serve(jobs, tokens_read, result_write, [result_read, *children])
            os.close(result_write)
            children[result_read] = pid
        pending = {fd: bytearray() for fd in children}
        while pending:
            ready, _, _ = select.select(list(pending), [], [])
            for fd in ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:  # the child is done; bytes left over are a result cut short
                    failed = bool(pending.pop(fd)) or failed
                    continue
                buffer = pending[fd]
                buffer += chunk
                while len(buffer) >= _LENGTH:
                    end = _LENGTH + int.from_bytes(buffer[:_LENGTH], "little")
                    if len(buffer) < end:
                        break
                    frame = memoryview(bytes(buffer[_LENGTH:end]))
                    number, value = (marshal.loads if frame[:1] == b"M" else pickle.loads)(frame[1:])
                    results[number] = value
                    del buffer[:end]
    except Exception:  # noqa: BLE001 - no pipe or process to be had, a result that does not unpickle
        failed = True
        _kill(children.values())
    except BaseException:  # an interrupt: the children go with it
        _kill(children.values())
        raise
    finally:
        os.close(tokens_read)
        for fd, pid in children.items():
            _close(fd)
            failed = _reaped_badly(pid) or failed
    if failed or len(results) != len(jobs):
        return None
    return [results[number] for number in range(len(jobs))]


def _serve(jobs: Sequence[Job], tokens: int, out: int, inherited: list[int]) -> None:
    """A child's life: run the jobs it claims, write each result, exit (0 only when all went well)."""
    code = 1
    try:
        import marshal
        import pickle

        for fd in inherited:  # the other children's result pipes, and its own read end
            os.close(fd)
        while len(token := os.read(tokens, _NUMBER)) == _NUMBER:  # b"": every job taken
            number = int.from_bytes(token, "little")
            function, args = jobs[number]
            result = (number, function(*args))
            try:
                payload = b"M" + marshal.dumps(result)
            except ValueError:  # an object marshal does not write
                payload = b"P" + pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(len(payload).to_bytes(_LENGTH, "little") + payload)
            while view:
                view = view[os.write(out, view):]
        code = 0
    finally:
        os._exit(code)  # nothing of the parent's (buffered output, exit handlers) runs twice


def _kill(pids: Iterable[int]) -> None:
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _reaped_badly(pid: int) -> bool:
    """Wait for the child; True unless it exited with status 0."""
    try:
        _pid, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return True
    return not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0


def available_workers(most: int, *, idle_only: bool = True) -> int:
    """How many processes to run jobs in: the cores, at most ``most``; with ``idle_only``, only the
    cores nobody else is using (on a busy machine — measured: load 6 on 2 cores — workers only add
    forking to work that gets no more CPU time). One other task running at the instant of asking
    (a process exiting, a kernel thread) is no reason to work serially at half speed: only a
    machine with every core taken gets 1."""
    workers = min(os.cpu_count() or 1, most)
    if idle_only:
        idle = _idle_cores()
        workers = min(workers, max(idle, 2)) if idle >= 1 else 1
    return workers


def _idle_cores() -> int:
    """Cores no other process is running on now (this one's included in the count).

    The runnable-task count of ``/proc/loadavg`` is an instant figure; the one-minute load average
    (the fallback elsewhere) still counts whatever ran in the last minute — a test suite just
    finished, or this lint's own previous run — and kept a lint on an idle machine serial.
    """
    cores = os.cpu_count() or 1
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            running = int(handle.read().split()[3].split("/")[0])
        return cores - max(0, running - 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(cores - os.getloadavg()[0] + 0.5)
    except OSError:
        return cores


def shrinking_chunks(items: Sequence[Any], workers: int, least: int) -> list[list[Any]]:
    """``items`` cut in order into chunks that shrink as the work left does (each a share of it,
    ``least`` at the least), so the workers finish together: equal chunks left one idle for up to
    a whole chunk at the end (~80 ms of a 10,000-file lint)."""
    parts: list[list[Any]] = []
    start = 0
    while start < len(items):
        size = max(least, -(-(len(items) - start) // (workers * 2)))
        parts.append(list(items[start:start + size]))
        start += size
    return parts


__all__ = ["Job", "available_workers", "run_forked", "shrinking_chunks"]
