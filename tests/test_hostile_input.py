"""The hostile-input corpus (``hostile_corpus.py``) against lint, search, phase1, phase2, gc and revert.

For every case and command, a real ``yoi`` process must finish within the timeout (no hang: a FIFO
is never opened, nothing superlinear), print no traceback, and — for the command that consumes the
broken input — exit non-zero with a message naming the file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_corpus import ARGS, CASES, Case, build_case

TIMEOUT = 60


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_gives_no_traceback_no_hang_and_no_success_on_broken_input(case: Case, tmp_path: Path) -> None:
    ws, extra = build_case(case, tmp_path)
    failures: list[str] = []
    for command in case.commands:
        argv = [sys.executable, "-m", "yoi_tui.cli.main", *ARGS[command], "--workspace", str(ws.root), *extra]
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                                    env={**os.environ, "TMPDIR": str(tmp_path)})
        except subprocess.TimeoutExpired:
            failures.append(f"{command}: hung (no exit within {TIMEOUT}s)")
            continue
        output = result.stdout + result.stderr
        if "Traceback" in output:
            failures.append(f"{command}: traceback\n{result.stderr[-2000:]}")
        elif command in case.broken_for and result.returncode == 0:
            failures.append(f"{command}: exit 0 on broken input\n{output[-1500:]}")
    assert not failures, "\n".join(failures)
