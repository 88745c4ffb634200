"""The app's whole-workspace lint, run as ``yoi lint --format json`` in a child process.

At 50,000 records the lint holds its per-file cache and every finding while it runs (~200 MB at its
peak) on top of the records the app keeps: in the app's own process that took it past 400 MB. In a
child the memory goes back to the system when the lint ends, and the lint's Python work does not
compete with the interface for the interpreter lock. Same findings: the child is ``yoi lint``
with the app's workspace (real usage frequencies, the per-file cache). When the child cannot run
or its output is not what ``yoi lint`` prints, the caller lints in-process as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .core.diagnostics import Diagnostic
from .core.store.workspace import Workspace

TIMEOUT_SECONDS = 1800.0


def lint_in_child(ws: Workspace) -> list[Diagnostic] | None:
    """The findings of ``yoi lint`` on ``ws`` (sorted), or None when the child did not give them.

    Like any ``yoi lint`` it is answered by the command server after the first call
    (``cli/server.py``): the kept lint state makes a refresh after an edit cheap."""
    command = [sys.executable, "-m", "yoi_tui.cli.main", "lint", "--format", "json", "--workspace", str(ws.root)]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    try:
        proc = subprocess.run(command, capture_output=True, timeout=TIMEOUT_SECONDS, env=env,
                              stdin=subprocess.DEVNULL, cwd=str(ws.root))
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode not in (0, 1):  # 0 clean, 1 findings; anything else is not a lint result
        return None
    try:  # `yoi lint --format json` always prints a JSON list, "[]" when clean
        items = json.loads(proc.stdout.decode("utf-8"))
        return [Diagnostic(**item) for item in items] if isinstance(items, list) else None
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
