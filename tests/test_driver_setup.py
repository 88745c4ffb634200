"""No setup step (issue 30): a clone that never ran `yoi init` lacks the record merge driver (git
never clones `.git/config`); every yoi command and hook notices it from the files alone, writers and
hooks register it, read-only commands say what to run once per session."""

from __future__ import annotations

import json
import os
from pathlib import Path

from git_support import clone, commit_all, git, git_env, make_remote, yoi

from yoi_tui.core.store.git_driver import MISSING, NOT_WANTED, REGISTERED, defines_driver, driver_state

NOTICE = "does not know the record merge driver"
REL = "memory/decisions/use-sqlite-for-the-cache.md"
BASE = """---
created_at: 2026-11-02T09:00:00+00:00
updated_at: 2026-11-02T09:00:00+00:00
sources:
  - session_id: s1
    range: [0, 3]
status: open
---

# Use SQLite for the cache

## Options
- SQLite
- Redis
"""


def _with_session(env: dict[str, str], session: str) -> dict[str, str]:
    return {**env, "YOI_SESSION_ID": session, "YOI_SERVER": "off"}


def test_state_is_read_from_the_files(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    fresh = clone(remote, tmp_path / "fresh", env, init=False)
    old = os.environ.get("GIT_CONFIG_GLOBAL")
    os.environ["GIT_CONFIG_GLOBAL"] = env["GIT_CONFIG_GLOBAL"]
    try:
        assert driver_state(str(fresh)) == MISSING
        assert driver_state(str(tmp_path)) == NOT_WANTED  # not in git
        git(fresh, "config", "merge.yoi.driver", "yoi merge-driver %O %A %B %P", env=env)
        assert driver_state(str(fresh)) == REGISTERED
        # A worktree reads the config of the repository it belongs to.
        git(fresh, "worktree", "add", "-q", str(tmp_path / "wt"), env=env)
        assert driver_state(str(tmp_path / "wt")) == REGISTERED
    finally:
        if old is None:
            os.environ.pop("GIT_CONFIG_GLOBAL", None)
        else:
            os.environ["GIT_CONFIG_GLOBAL"] = old
    assert defines_driver('[core]\n\tbare = false\n[merge "yoi"]\n\tname = x\n\tdriver = yoi merge-driver %O\n')
    assert not defines_driver('[merge "yoi"]\n\tname = x\n[merge "other"]\n\tdriver = y\n')
    assert not defines_driver('[merge "yoi"]\n\tdriver =\n')


def test_a_read_only_command_tells_once_per_session_and_writes_no_config(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    fresh = clone(make_remote(tmp_path, env), tmp_path / "fresh", env, init=False)
    first = yoi(fresh, "lint", env=_with_session(env, "s-one"))
    assert first.returncode == 0 and NOTICE in first.stderr and "run once: yoi init" in first.stderr
    again = yoi(fresh, "search", "memory", "cache", env=_with_session(env, "s-one"))
    assert NOTICE not in again.stderr  # once per session
    other = yoi(fresh, "context", env=_with_session(env, "s-two"))
    assert NOTICE in other.stderr  # a new session is told again
    assert git(fresh, "config", "--get", "merge.yoi.driver", env=env, check=False).returncode != 0
    assert git(fresh, "status", "--porcelain", env=env).stdout == ""


def test_a_hook_registers_the_driver_and_the_first_concurrent_edit_merges(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env, init=False)
    b = clone(remote, tmp_path / "b", env, init=False)
    (a / REL).parent.mkdir(parents=True)  # (git tracks no empty folder; `yoi init` made them)
    (a / REL).write_text(BASE, encoding="utf-8")
    commit_all(a, "a decision", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    git(b, "pull", "-q", "--no-rebase", "origin", "main", env=env)
    # b's first agent session starts: the hook registers the driver (nothing else set up).
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "sess-b", "cwd": str(b)})
    hooked = _hook(b, env, payload)
    assert hooked.returncode == 0 and "registered the record merge driver" in hooked.stderr
    assert git(b, "config", "--get", "merge.yoi.driver", env=env).stdout.strip().endswith("merge-driver %O %A %B %P")
    assert git(b, "status", "--porcelain", "--untracked-files=no", env=env).stdout == ""  # no tracked file changed
    # a's writer command registers it too.
    done = yoi(a, "usage", env=env)
    assert done.returncode == 0 and "registered the record merge driver" in done.stderr
    # The first concurrent edit of one record: merged by the driver, no conflict.
    (a / REL).write_text(BASE.replace("status: open", "  - session_id: s2\n    range: [4, 9]\nstatus: resolved")
                         + "\n## Chosen\nSQLite\n", encoding="utf-8")
    commit_all(a, "a: resolve", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    (b / REL).write_text(BASE.replace("status: open", "  - session_id: s3\n    range: [0, 2]\nstatus: open")
                         .replace("- Redis\n", "- Redis\n- a flat JSON file\n"), encoding="utf-8")
    commit_all(b, "b: another option", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert git(b, "diff", "--name-only", "--diff-filter=U", env=env).stdout == ""
    merged = (b / REL).read_text()
    assert "s2" in merged and "s3" in merged and "- a flat JSON file" in merged and "SQLite\n" in merged
    assert "status: resolved" in merged
    assert yoi(b, "lint", env=env).returncode == 0


def _hook(cwd: Path, env: dict[str, str], payload: str):  # noqa: ANN202
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "hook", "claude-code"], cwd=cwd, env=env,
                          input=payload, capture_output=True, text=True, timeout=120)
