"""Staging stays local: a staging file that comes back (through git) is applied at most once per
workspace, checked against the run journals; a git workspace that does not ignore staging is told
once, with the one-line fix. Real subprocesses for the CLI, real git for the ignore check."""

from __future__ import annotations

import json
from pathlib import Path

from git_support import git, git_env
from phase2_fixtures import stage_realistic, tree_bytes
from support import make_ws, run_yoi


def _phase2(root: Path, *args: str) -> dict:
    done = run_yoi("phase2", "--workspace", str(root), "--flush", "--json", *args)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_staging_that_comes_back_is_not_applied_twice(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ids = stage_realistic(ws)
    copies = {i: (ws.staging_dir / f"{i}.json").read_bytes() for i in ids}
    first = _phase2(ws.root)
    assert first["rounds"][0]["status"] == "applied"
    after_first = tree_bytes(ws.root, "memory", "knowledge")
    # The same staging arrives again (a clone that committed it; `git pull`).
    for staging_id, data in copies.items():
        (ws.staging_dir / f"{staging_id}.json").write_bytes(data)
    dry = _phase2(ws.root, "--dry-run")
    assert "nothing to do" in dry["rounds"][0]["message"] and "already consumed here" in dry["rounds"][0]["message"]
    assert all((ws.staging_dir / f"{i}.json").exists() for i in ids)  # a dry run removes nothing
    second = _phase2(ws.root)
    assert second["rounds"][0]["status"] == "nothing-to-do"
    assert tree_bytes(ws.root, "memory", "knowledge") == after_first  # nothing applied twice
    assert not any((ws.staging_dir / f"{i}.json").exists() for i in ids)  # the stale copies are gone


def test_reverted_staging_may_be_consumed_again(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ids = stage_realistic(ws)
    _phase2(ws.root)
    assert run_yoi("revert", "last", "--workspace", str(ws.root)).returncode == 0
    assert all((ws.staging_dir / f"{i}.json").exists() for i in ids)
    again = _phase2(ws.root)
    assert again["rounds"][0]["status"] == "applied"
    assert sorted(again["rounds"][0]["consumed"]) == sorted(ids)


def test_a_git_workspace_not_ignoring_staging_is_told_once(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", env=env)
    assert run_yoi("init", str(root), env=env).returncode == 0
    # A workspace set up before staging was ignored: its .gitignore has only .yoi/state/.
    (root / ".gitignore").write_text(".yoi/state/\n")
    first = run_yoi("phase2", "--workspace", str(root), env=env)
    assert "memory/_staging/ is not git-ignored" in first.stderr
    assert "echo 'memory/_staging/' >> .gitignore" in first.stderr
    second = run_yoi("phase2", "--workspace", str(root), env=env)
    assert "not git-ignored" not in second.stderr
    # With the fix applied (or in a fresh workspace) nothing is said.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", env=env)
    assert run_yoi("init", str(fresh), env=env).returncode == 0
    assert "not git-ignored" not in run_yoi("phase1", "--workspace", str(fresh), "none.jsonl", env=env).stderr
