"""The type checker over the core (issue 24): mypy, pinned in the test extra and configured in
pyproject.toml (``[tool.mypy]``: which files, which warnings). Field types, protocols and the
``# type: ignore`` comments left (each with its reason) are checked on every run of the suite."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed: pip install -e '.[test]' (CI installs it)")
def test_the_core_type_checks() -> None:
    # The cache beside the sources, as a bare `mypy` run uses it: a warm run takes seconds.
    proc = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
