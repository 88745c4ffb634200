"""Finding this project's session logs on this machine, for the app's Phase 1 picker.

* Claude Code keeps ``~/.claude/projects/<encoded-cwd>/*.jsonl`` (``$CLAUDE_CONFIG_DIR/projects``
  when set), where ``<encoded-cwd>`` is the launch folder with ``/``, ``.``, ``\\`` and ``:``
  replaced by ``-``. A session started in a subfolder of the workspace counts too.
* Codex keeps ``~/.codex/sessions/**/rollout-*.jsonl`` (``$CODEX_HOME/sessions``); the first line
  (``session_meta``) names the session's ``cwd``, which must be inside the workspace.

Everything is found relative to ``home`` (default: ``$HOME``), so tests point it at ``tmp_path``.
Reading is bounded (only a Codex rollout's first line, at most ``FIRST_LINE_MAX`` bytes) and
never raises: an unreadable file is skipped. No Textual here.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

FIRST_LINE_MAX = 64 * 1024
_ENCODE = re.compile(r"[/\\.:]")


@dataclass(frozen=True)
class FoundLog:
    """One session log: its path, the agent that wrote it, its size and modification time."""

    path: Path
    agent: str  # claude-code | codex | native
    size: int
    mtime: float


def encode_claude_dir(folder: Path) -> str:
    """``/home/me/proj.x`` → ``-home-me-proj-x`` (Claude Code's project folder name)."""
    return _ENCODE.sub("-", str(folder))


def _found(path: Path, agent: str) -> FoundLog | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        stat = path.stat()
    except OSError:
        return None
    return FoundLog(path, agent, stat.st_size, stat.st_mtime)


def _inside(folder: str, root: Path) -> bool:
    try:
        Path(folder).resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def claude_code_logs(root: Path, home: Path, env: Mapping[str, str]) -> list[FoundLog]:
    base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    projects = base / "projects"
    prefix = encode_claude_dir(root)
    found: list[FoundLog] = []
    try:
        folders = [p for p in projects.iterdir() if p.is_dir()]
    except OSError:
        return found
    for folder in folders:
        # The workspace itself, or a subfolder of it (its encoded name continues with "-").
        if folder.name != prefix and not folder.name.startswith(prefix + "-"):
            continue
        try:
            logs = sorted(folder.glob("*.jsonl"))
        except OSError:
            continue
        found.extend(f for f in (_found(p, "claude-code") for p in logs) if f is not None)
    return found


def _codex_cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(FIRST_LINE_MAX)
        data = json.loads(first.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    payload = data.get("payload") if isinstance(data.get("payload"), dict) else data
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def codex_logs(root: Path, home: Path, env: Mapping[str, str]) -> list[FoundLog]:
    base = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    found: list[FoundLog] = []
    try:
        logs = sorted((base / "sessions").rglob("rollout-*.jsonl"))
    except OSError:
        return found
    for path in logs:
        cwd = _codex_cwd(path)
        if cwd is None or not _inside(cwd, root):
            continue
        item = _found(path, "codex")
        if item is not None:
            found.append(item)
    return found


def folder_logs(folders: Iterable[Path]) -> list[FoundLog]:
    """``*.jsonl`` in the given folders (the demo's own ``sessions/``), as native logs."""
    found: list[FoundLog] = []
    for folder in folders:
        try:
            logs = sorted(Path(folder).glob("*.jsonl"))
        except OSError:
            continue
        found.extend(f for f in (_found(p, "native") for p in logs) if f is not None)
    return found


def discover_logs(root: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None,
                  extra_folders: Iterable[Path] = ()) -> list[FoundLog]:
    """This project's session logs, newest first: Claude Code's, Codex's and those in ``extra_folders``."""
    env = os.environ if env is None else env
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    try:
        root = Path(root).resolve()
    except OSError:
        root = Path(root)
    logs = [*claude_code_logs(root, home, env), *codex_logs(root, home, env), *folder_logs(extra_folders)]
    return sorted(logs, key=lambda f: (-f.mtime, str(f.path)))


__all__ = ["FoundLog", "claude_code_logs", "codex_logs", "discover_logs", "encode_claude_dir", "folder_logs"]
