"""Shared test helpers: build real workspaces in tmp_path and run the real ``yoi`` CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from yoi_tui.core.store.workspace import Workspace, init_workspace
from yoi_tui.core.store.writer import new_record_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
SRC = [{"session_id": "s1", "range": [0, 3]}]


def make_ws(tmp_path: Path) -> Workspace:
    ws, _ = init_workspace(tmp_path / "proj")
    return ws


def decision_meta(**extra: Any) -> dict[str, Any]:
    return {"created_at": T0, "updated_at": T0, "sources": SRC, "status": "open", **extra}


def request_meta(**extra: Any) -> dict[str, Any]:
    return {"created_at": T0, "updated_at": T0, "sources": SRC, **extra}


def knowledge_meta(**extra: Any) -> dict[str, Any]:
    return {"kind": "fact", "description": "What it is and when to read it.", "model_invokation": False,
            "user_invocable": True, "last_sources": SRC, "created_at": T0, "updated_at": T0, **extra}


def write_record(ws: Workspace, rel: str, meta: dict[str, Any], body: str = "\nBody.\n") -> Path:
    path = ws.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_record_text(meta, body), encoding="utf-8")
    return path


def run_yoi(*args: str, cwd: Path | None = None, input: str | None = None,
            env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (as a user would), returning its output."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, env=full_env, timeout=timeout)
