"""Progress on long CLI work: shown on a terminal (a real pty), silent when piped or with --json."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

from support import make_ws, run_yoi

SAMPLES = Path(__file__).resolve().parent / "data" / "samples"
LOGS = [SAMPLES / "claude-code_v2.1.38_spotter_short.jsonl", SAMPLES / "codex_0.66.0_agtrace_codex_session.jsonl"]


def _stderr_on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd, stdout=subprocess.PIPE,
                                stderr=secondary, stdin=subprocess.DEVNULL,
                                env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"})
        os.close(secondary)
        chunks = []
        while True:
            try:
                data = os.read(primary, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=120)
        assert proc.stdout is not None
        proc.stdout.read()
        return proc.returncode, b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(primary)


def test_phase1_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    logs = []
    for log in LOGS:
        logs.append(str(tmp_path / log.name))
        shutil.copy(log, logs[-1])
    code, terminal = _stderr_on_a_terminal(["phase1", *logs, "--force"], ws.root)
    assert code == 0
    assert "Phase 1" in terminal and "\x1b[" in terminal  # drawn with terminal control codes
    ws2 = make_ws(tmp_path / "again")
    piped = run_yoi("phase1", *logs, "--force", cwd=ws2.root)
    assert piped.returncode == 0 and "Phase 1" not in piped.stderr and "\x1b[" not in piped.stderr
    assert "…" not in piped.stderr
    ws3 = make_ws(tmp_path / "json")
    code, terminal = _stderr_on_a_terminal(["phase1", *logs, "--force", "--json"], ws3.root)
    assert code == 0 and "Phase 1" not in terminal


def test_phase2_and_gc_spinners_only_on_a_terminal(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    for command in ("phase2", "gc"):
        code, terminal = _stderr_on_a_terminal([command, "--dry-run"], ws.root)
        assert code == 0, terminal
        piped = run_yoi(command, "--dry-run", cwd=ws.root)
        assert piped.returncode == 0 and "\x1b[" not in piped.stderr
