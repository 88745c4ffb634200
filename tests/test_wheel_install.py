"""The package as a user installs it: a wheel built with ``python -m build``, installed into a fresh venv,
gives working ``yoi`` / ``yoi-tui`` commands (slow: builds and installs; ``.ci/run`` runs it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO

pytestmark = pytest.mark.slow


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{args}: {result.stdout}\n{result.stderr}"
    return result


def test_built_wheel_installs_and_runs_in_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    source = tmp_path / "source"  # a clean copy: no stale build/ of this checkout ends up in the wheel
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache"))
    _run(sys.executable, "-m", "build", "--wheel", "--outdir", dist, source)
    wheels = list(dist.glob("yoi_tui-*.whl"))
    assert len(wheels) == 1
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheels[0])
    yoi = venv / "bin" / "yoi"
    assert _run(yoi, "--version").stdout.startswith("yoi 0.")
    assert "usage: yoi-tui" in _run(venv / "bin" / "yoi-tui", "--help").stdout
    project = tmp_path / "project"
    project.mkdir()
    _run(yoi, "init", cwd=project)
    _run(yoi, "lint", cwd=project)
    # the wheel carries the app's stylesheets (package data), not only code
    styles = _run(venv / "bin" / "python", "-c",
                  "import importlib.resources as r; print(sorted(p.name for p in r.files('yoi_tui.styles').iterdir()))")
    assert ".tcss" in styles.stdout
    # installing into an agent writes this venv's own yoi, which runs without PATH changes
    _run(yoi, "install", "claude-code", "--yes", cwd=project)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command.startswith(str(yoi))
    ran = subprocess.run(command, shell=True, input=json.dumps({"hook_event_name": "SessionStart", "cwd": str(project)}),
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=120)
    assert ran.returncode == 0, ran.stderr
    # The default install is offline: no model-provider SDKs, only the grammars the editor uses
    # (Markdown, and YAML for the frontmatter)...
    installed = _run(venv / "bin" / "python", "-m", "pip", "list", "--format=freeze").stdout.lower()
    for absent in ("pydantic-ai-slim", "openai", "anthropic", "tiktoken", "tree-sitter-python", "tree-sitter-bash"):
        assert f"\n{absent}==" not in f"\n{installed}", absent
    grammar = _run(venv / "bin" / "python", "-c",
                   "from textual._tree_sitter import get_language; "
                   "print(get_language('markdown') is not None, get_language('yaml') is not None)")
    assert grammar.stdout.strip() == "True True"
    # ...and the llm engine says exactly what to install (exit 2, SPEC 14), no traceback.
    log = project / "session.jsonl"
    log.write_text('{"yoi_session": 1, "session_id": "s1"}\n{"role": "user", "text": "hello"}\n', encoding="utf-8")
    llm = subprocess.run([yoi, "phase1", "--engine", "llm", "--force", log], cwd=project, capture_output=True,
                         text=True, timeout=120)
    assert llm.returncode == 2 and "pip install 'yoi-tui[llm]'" in llm.stderr and "Traceback" not in llm.stderr
