"""Shared helpers of the Phase 2 / change set / lock tests: realistic staging and tree snapshots."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from yoi_tui.core.store.models import Source
from yoi_tui.core.store.staging import (
    Activity,
    Attempt,
    Decision,
    Discussion,
    Extractor,
    Request,
    write_staging,
)
from yoi_tui.core.store.workspace import Workspace

RULES = Extractor(engine="rules")


def stage(ws: Workspace, session: str, start: int, end: int, **activity: Any) -> str:
    """Write one staging file; returns its id."""
    return write_staging(ws, Source(session_id=session, range=(start, end)), RULES, Activity(**activity)).id


def stage_realistic(ws: Workspace) -> list[str]:
    """Staging as Phase 1 writes it for two sessions of work on a small app (SPEC 8 shapes)."""
    ids = [
        stage(ws, "0197a1-session-one", 0, 14,
              requests=[Request(intent="Cache API responses locally", target="client/api.py",
                                summary="The user wants repeated API calls answered from a local cache "
                                        "so the CLI works offline.")],
              decisions=[Decision(title="Use SQLite for the response cache", options=["SQLite", "JSON files", "shelve"],
                                  chosen="SQLite", rationale="Transactional writes and one file; in the stdlib.")],
              attempts=[Attempt(trial="pytest tests/test_cache.py", result="sqlite3.OperationalError: database is locked",
                                outcome="failure"),
                        Attempt(trial="open the connection with timeout=5 and WAL mode",
                                result="tests pass", outcome="success")]),
        stage(ws, "0197a1-session-one", 15, 30,
              discussions=[Discussion(topic="Cache expiry policy",
                                      points=["time-based expiry is simple", "ETag revalidation saves bandwidth"])],
              attempts=[Attempt(trial="ruff check client/", result="F401 unused import", outcome="failure")]),
        stage(ws, "0197b2-session-two", 0, 9,
              decisions=[Decision(title="Use SQLite for the response cache", options=["SQLite"],
                                  chosen="SQLite with WAL journal mode",
                                  rationale="WAL lets readers and the writer work at the same time.")],
              requests=[Request(intent="Add a --no-cache flag", target="cli.py",
                                summary="Bypass the cache for one invocation.")]),
    ]
    return ids


def tree_bytes(root: Path, *folders: str) -> dict[str, bytes]:
    """Every file under the given folders (default memory/ and knowledge/) → bytes."""
    found: dict[str, bytes] = {}
    for folder in folders or ("memory", "knowledge"):
        base = root / folder
        for path in sorted(base.rglob("*")) if base.exists() else []:
            if path.is_file() and not path.is_symlink():
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


_STAMP_RE = re.compile(rb"^(created_at|updated_at): .*$", re.MULTILINE)


def normalised_records(root: Path) -> dict[str, bytes]:
    """Record files with their timestamps masked (runs at different times differ only there)."""
    return {rel: _STAMP_RE.sub(rb"\1: <t>", data) for rel, data in tree_bytes(root, "memory", "knowledge").items()
            if rel.endswith(".md")}


def start_yoi(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd,
                            env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for(path: Path, timeout: float = 60.0) -> bool:
    """Wait until ``path`` exists (a barrier a paused subprocess creates); not a timing assertion."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.01)
    return False
