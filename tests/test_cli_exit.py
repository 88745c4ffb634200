"""The ``yoi`` entry point (``cli.main.run``) ends the process without the interpreter's teardown:
its output and exit status must be exactly what ``main()`` gives, whatever reads the output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import make_ws, run_yoi

ENTRY = "import sys; from yoi_tui.cli.main import run; sys.argv = ['yoi', *sys.argv[1:]]; run()"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "YOI_SERVER": "0"})


def test_output_and_status_are_main_s(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    broken = ws.root / "memory" / "decisions" / "broken.md"
    broken.write_text("---\nstatus: [\n---\nbody\n", encoding="utf-8")
    entry = _run("lint", cwd=ws.root)
    module = run_yoi("lint", cwd=ws.root, env={"YOI_SERVER": "0"})
    assert entry.returncode == module.returncode == 1
    assert entry.stdout == module.stdout and "broken.md" in entry.stdout
    assert entry.stderr == module.stderr
    assert _run("--version", cwd=ws.root).returncode == 0
    assert _run("lint", "--format", "nonsense", cwd=ws.root).returncode == 2  # argparse's exit, untouched


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    for number in range(200):
        (ws.root / "memory" / "decisions" / f"d{number}.md").write_text("no frontmatter\n", encoding="utf-8")
    shell = f"{sys.executable} -c \"{ENTRY}\" lint | head -c 10 > /dev/null; echo ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", shell], cwd=ws.root, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "YOI_SERVER": "0"})
    assert done.stdout.strip() in ("0", "1") and "Traceback" not in done.stderr
