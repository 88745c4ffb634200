"""Real git repositories for the team tests: a bare remote and clones, isolated from the user's config."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def git_env(home: Path) -> dict[str, str]:
    """An environment where git reads no system or user config (only the repositories' own)."""
    home.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_TERMINAL_PROMPT": "0"}


def git(cwd: Path, *args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def yoi(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def make_remote(root: Path, env: dict[str, str]) -> Path:
    """A bare remote holding one commit: a workspace set up by ``yoi init``."""
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote), env=env)
    seed = root / "seed"
    git(root, "clone", "-q", str(remote), str(seed), env=env)
    done = yoi(seed, "init", env=env)
    assert done.returncode == 0, done.stderr
    git(seed, "add", "-A", env=env)
    git(seed, "commit", "-q", "-m", "yoi init", env=env)
    git(seed, "push", "-q", "origin", "HEAD:main", env=env)
    return remote


def clone(remote: Path, target: Path, env: dict[str, str], *, init: bool = True) -> Path:
    git(target.parent, "clone", "-q", str(remote), str(target), env=env)
    if init:
        done = yoi(target, "init", env=env)
        assert done.returncode == 0, done.stderr
    return target


def commit_all(repo: Path, message: str, env: dict[str, str]) -> None:
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "-m", message, env=env, check=False)
