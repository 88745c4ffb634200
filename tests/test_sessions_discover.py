"""Finding this project's Claude Code and Codex logs under a HOME that the test owns."""

from __future__ import annotations

import json
import os
from pathlib import Path

from yoi_tui.core.sessions.discover import discover_logs, encode_claude_dir


def _touch(path: Path, text: str = "{}\n", mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def _rollout(cwd: str) -> str:
    return json.dumps({"timestamp": "2026-01-05T09:00:00Z", "type": "session_meta",
                       "payload": {"id": "x", "cwd": cwd}}) + "\n"


def test_claude_and_codex_logs_of_this_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = tmp_path / "work" / "my.proj"
    (root / "sub").mkdir(parents=True)
    projects = home / ".claude" / "projects"
    mine = _touch(projects / encode_claude_dir(root.resolve()) / "a.jsonl", mtime=1000)
    in_sub = _touch(projects / (encode_claude_dir(root.resolve()) + "-sub") / "b.jsonl", mtime=3000)
    _touch(projects / encode_claude_dir((tmp_path / "work" / "other").resolve()) / "c.jsonl")
    _touch(projects / (encode_claude_dir(root.resolve()) + "x") / "d.jsonl")  # my.projx: another project
    sessions = home / ".codex" / "sessions" / "2026" / "01" / "05"
    codex_mine = _touch(sessions / "rollout-2026-01-05T09-00-00-a.jsonl", _rollout(str(root / "sub")), mtime=2000)
    _touch(sessions / "rollout-2026-01-05T10-00-00-b.jsonl", _rollout(str(tmp_path / "elsewhere")))
    _touch(sessions / "rollout-2026-01-05T11-00-00-c.jsonl", "not json\n")
    _touch(sessions / "notes.jsonl", _rollout(str(root)))  # not a rollout file name
    found = discover_logs(root, home=home, env={})
    assert [(f.path, f.agent) for f in found] == [(in_sub, "claude-code"), (codex_mine, "codex"),
                                                  (mine, "claude-code")]  # newest first


def test_encoded_name_replaces_slash_dot_and_colon() -> None:
    assert encode_claude_dir(Path("/home/marco/projects/spot.ter")) == "-home-marco-projects-spot-ter"


def test_config_dirs_from_the_environment_and_extra_folders(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    claude = tmp_path / "cc"
    codex = tmp_path / "cx"
    a = _touch(claude / "projects" / encode_claude_dir(root.resolve()) / "a.jsonl", mtime=10)
    b = _touch(codex / "sessions" / "rollout-1.jsonl", _rollout(str(root)), mtime=20)
    c = _touch(root / "sessions" / "native.jsonl", mtime=30)
    found = discover_logs(root, home=tmp_path / "nohome", env={"CLAUDE_CONFIG_DIR": str(claude),
                                                               "CODEX_HOME": str(codex)},
                          extra_folders=[root / "sessions"])
    assert [(f.path, f.agent) for f in found] == [(c, "native"), (b, "codex"), (a, "claude-code")]


def test_nothing_found_is_an_empty_list(tmp_path: Path) -> None:
    assert discover_logs(tmp_path, home=tmp_path / "missing", env={}) == []
