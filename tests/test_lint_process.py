"""The app's lint in a child process gives exactly ``yoi lint``'s findings, or None (lint_process.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.lint.stored import UsageFrequencies
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.lint_process import lint_in_child

REPO = Path(__file__).resolve().parents[1]


def _broken(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "broken", root)
    return Workspace(root)


def test_the_child_finds_what_the_app_found_in_process(tmp_path: Path) -> None:
    ws = _broken(tmp_path)
    in_process = lint_workspace(ws, frequencies=UsageFrequencies(ws), cache=True).diagnostics
    child = lint_in_child(ws)
    assert child is not None and len(child) > 5
    assert child == sorted(set(in_process))


def test_no_child_means_none_and_the_app_lints_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _broken(tmp_path)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    assert lint_in_child(ws) is None
    for program in ("false", "true"):  # runs and prints nothing: not what `yoi lint` prints
        monkeypatch.setattr(sys, "executable", shutil.which(program) or f"/bin/{program}")
        assert lint_in_child(ws) is None
