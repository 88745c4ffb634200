"""Warnings the core reports without failing (a usage event not recorded, a lock not taken).

They go through ``logging`` (logger ``yoi.<part>``) so a program using the library sees them the
usual way. ``logging`` costs ~5-10 ms to import and the retrieval commands run on every prompt, so
it is imported only when there is something to say: ``warn`` imports it; the CLI's
``print_warnings_to_stderr`` only notes that the first warning should also set up a stderr handler
printing ``yoi: <message>``.
"""

from __future__ import annotations

import sys
from typing import Any

_HANDLER_FLAG = "_yoi_cli_handler"
_to_stderr = False


def print_warnings_to_stderr() -> None:
    """Show ``yoi.*`` warnings on stderr as ``yoi: ...`` lines (the CLI calls this once)."""
    global _to_stderr
    _to_stderr = True
    if "logging" in sys.modules:  # already loaded: set the handler up now, as before
        _install_handler()


def warn(name: str, message: str, *args: Any) -> None:
    """``logging.getLogger(name).warning(message, *args)``, importing logging only now."""
    import logging

    if _to_stderr:
        _install_handler()
    logging.getLogger(name).warning(message, *args)


def _install_handler() -> None:
    import logging

    logger = logging.getLogger("yoi")
    if any(getattr(h, _HANDLER_FLAG, False) for h in logger.handlers):
        return
    class _CurrentStderr(logging.StreamHandler):
        """Writes to ``sys.stderr`` as it is at each warning: the command server swaps it per request."""

        @property
        def stream(self) -> Any:
            return sys.stderr

        @stream.setter
        def stream(self, _value: Any) -> None:
            pass

    handler = _CurrentStderr()
    handler.setFormatter(logging.Formatter("yoi: %(message)s"))
    setattr(handler, _HANDLER_FLAG, True)
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
