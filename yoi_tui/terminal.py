"""The terminal size when stdout is captured: ``X="$(yoi-tui compose)"``.

Textual draws on stderr but asks ``shutil.get_terminal_size()`` for the size, which looks at
stdout; with stdout captured by ``$(...)`` that falls back to 80×24, so the composer drew a small box
in a large terminal. ``stderr_sized_driver()`` is Textual's Linux driver measuring the terminal on
stderr instead (and on each resize); ``main`` uses it only when stdout is not a terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def size_of(fd: int) -> tuple[int, int] | None:
    """(columns, lines) of the terminal on ``fd``, or None if it is not a terminal."""
    try:
        size = os.get_terminal_size(fd)
    except (OSError, ValueError):
        return None
    return (size.columns, size.lines) if size.columns and size.lines else None


def stderr_sized_driver() -> Any:
    """A driver class sized from stderr (None where Textual's Linux driver does not apply)."""
    if sys.platform == "win32":  # pragma: no cover - the Windows driver asks the console itself
        return None
    from textual.drivers.linux_driver import LinuxDriver

    class StderrSizedDriver(LinuxDriver):
        def _get_terminal_size(self) -> tuple[int, int]:
            stream = sys.__stderr__
            found = size_of(stream.fileno()) if stream is not None else None
            return found or super()._get_terminal_size()

    return StderrSizedDriver


def driver_for_captured_stdout() -> Any:
    """The stderr-sized driver when stdout is not a terminal but stderr is; else None (Textual's own)."""
    stdout, stderr = sys.__stdout__, sys.__stderr__
    if stdout is None or stderr is None:
        return None
    try:
        if stdout.isatty() or not stderr.isatty():
            return None
    except (OSError, ValueError):
        return None
    return stderr_sized_driver()
