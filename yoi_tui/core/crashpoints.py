"""Named crash points for the crash-safety and concurrency tests of the writers (Phase 2, GC, revert).

``crashpoint(name)`` does nothing unless the test environment asks for it:

* ``YOI_CRASHPOINT_LOG=<file>`` appends each crash point's number and name to that file (so a test
  can count the points an uninterrupted run passes);
* ``YOI_CRASH_AT=<n>`` kills the process with SIGKILL when it reaches its n-th crash point (1-based):
  no cleanup, no ``finally``, exactly like ``kill -9`` from outside, but at a chosen step instead of
  a timing guess;
* ``YOI_PAUSE_AT=<name>`` with ``YOI_PAUSE_FILE=<path>``: at the crash point called ``name`` the
  process creates ``<path>.reached`` and waits (up to 60 s) until ``<path>`` exists — a barrier that
  lets a test act at an exact step (start a second run, edit a record) without timing assumptions;
* ``YOI_FAIL_AT=<name>=<ERRNO>[,...]`` (e.g. ``write:renaming=ENOSPC``): at the crash point called
  ``name`` the process raises ``OSError(ERRNO)`` as the system call there would — a full disk, a
  read-only file system or a quota simulated where the tests cannot mount a small file system.

Only environment lookups happen when none is set.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_count = 0
PAUSE_LIMIT_SECONDS = 60.0


def crashpoint(name: str) -> None:
    """Mark a step boundary; see the module docstring."""
    global _count
    log = os.environ.get("YOI_CRASHPOINT_LOG")
    crash_at = os.environ.get("YOI_CRASH_AT")
    pause_at = os.environ.get("YOI_PAUSE_AT")
    fail_at = os.environ.get("YOI_FAIL_AT")
    if not log and not crash_at and not pause_at and not fail_at:
        return
    if fail_at:
        _fail(name, fail_at)
    _count += 1
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{_count} {name}\n")
    if crash_at and crash_at.isdigit() and _count == int(crash_at):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    if pause_at == name and os.environ.get("YOI_PAUSE_FILE"):
        barrier = Path(os.environ["YOI_PAUSE_FILE"])
        Path(f"{barrier}.reached").write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + PAUSE_LIMIT_SECONDS
        while not barrier.exists() and time.monotonic() < deadline:
            time.sleep(0.01)


def faultpoint(name: str) -> None:
    """Only the ``YOI_FAIL_AT`` part of ``crashpoint`` (not counted, never a kill or a pause): for
    steps that run many times a run (the lock's heartbeat), where a counted point would renumber
    every ``YOI_CRASH_AT`` the tests use."""
    spec = os.environ.get("YOI_FAIL_AT")
    if spec:
        _fail(name, spec)


def _fail(name: str, spec: str) -> None:
    """Raise the ``OSError`` that ``YOI_FAIL_AT`` asks for at ``name`` (see the module docstring)."""
    import errno

    for item in spec.split(","):
        point, _, code = item.partition("=")
        if point.strip() == name:
            number = getattr(errno, code.strip() or "ENOSPC", None)
            if isinstance(number, int):
                raise OSError(number, os.strerror(number))
