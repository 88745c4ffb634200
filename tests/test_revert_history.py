"""`yoi revert` after git rewrote history (issue 30): it reverts what it can, puts back only the
staging of what it really undid, and says `nothing-to-revert` when git already undid the run; the
staging of a run `git revert` undid stays consumed, so the next Phase 2 does not make it again."""

from __future__ import annotations

from pathlib import Path

from git_support import commit_all, git, git_env
from phase2_fixtures import stage
from support import make_ws

from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.runs.changeset import list_runs, revert
from yoi_tui.core.store.staging import Request
from yoi_tui.core.store.workspace import Workspace


def _records(ws: Workspace) -> list[str]:
    return sorted(p.name for p in ws.requests_dir.glob("*.md"))


def test_git_revert_then_yoi_revert_puts_no_staging_back(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    ws = make_ws(tmp_path)
    git(ws.root, "init", "-q", "-b", "main", env=env)
    commit_all(ws.root, "workspace", env)
    stage(ws, "s1", 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py", summary="dark theme")])
    run_phase2(ws, flush=True)
    made = _records(ws)
    assert made
    commit_all(ws.root, "phase 2", env)
    git(ws.root, "revert", "--no-edit", "HEAD", env=env)  # a person undoes the run with git
    assert _records(ws) == []
    result = revert(Workspace(ws.root), "last")
    assert result.status == "nothing-to-revert" and not result.restored and not result.inputs_restored
    assert result.inputs_kept and not list(ws.staging_dir.glob("*.json"))
    assert list_runs(ws)[-1].status == "nothing-to-revert"
    # The next Phase 2 does not make the reverted records again.
    run_phase2(Workspace(ws.root), flush=True)
    assert _records(ws) == []


def test_a_real_revert_puts_its_staging_back_and_says_reverted(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py", summary="dark theme")])
    run_phase2(ws, flush=True)
    assert _records(ws)
    result = revert(Workspace(ws.root), "last")
    assert result.status == "reverted" and result.inputs_restored and not result.inputs_kept
    assert _records(ws) == [] and list(ws.staging_dir.glob("*.json"))
    # Put back, it is consumed again by the next run (the journal says which inputs went back).
    run_phase2(Workspace(ws.root), flush=True)
    assert _records(ws)


def test_a_record_edited_since_the_run_has_only_the_runs_change_taken_out(tmp_path: Path) -> None:
    """After a rebase or a later commit merged the run's record with other work, `yoi revert` takes
    the run's change out of it (three-way, the run's text as the base) instead of refusing it."""
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py", summary="dark theme")])
    run_phase2(ws, flush=True)
    (rel,) = _records(ws)
    path = ws.requests_dir / rel
    first = path.read_text()
    stage(ws, "s2", 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py",
                                            summary="also for the terminal")])
    run_phase2(Workspace(ws.root), flush=True)
    second = path.read_text()
    assert second != first and "s2" in second
    # Someone else's later edit of the same record (as a rebase onto their commit would leave it).
    path.write_text(second.rstrip("\n") + "\n\nA note a person added later.\n")
    result = revert(Workspace(ws.root), "last")
    assert result.status == "reverted" and result.merged == [f"memory/requests/{rel}"]
    text = path.read_text()
    assert "A note a person added later." in text and "session_id: s2" not in text
    assert "also for the terminal" not in text
    assert result.inputs_restored  # its staging goes back: the change was really undone
    again = revert(Workspace(ws.root), "last")
    assert not again.restored and again.already and path.read_text() == text


# --------------------------------------------------------------------------- real history operations


def _dark(ws: Workspace, session: str, summary: str) -> str:
    return stage(ws, session, 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py",
                                                      summary=summary)])


def _sessions(path: Path) -> list[str]:
    from yoi_tui.core.store.reader import read_record

    record = read_record(Workspace(path.parents[2]), path).record
    assert record is not None
    return sorted(s["session_id"] for s in record.meta["sources"])


def _staged(ws: Workspace) -> list[str]:
    import json

    return sorted(json.loads(p.read_text())["source"]["session_id"] for p in ws.staging_dir.glob("*.json"))


def test_yoi_revert_after_a_pull_with_rebase(tmp_path: Path) -> None:
    """a's Phase 2 commit is replayed onto b's by `git pull --rebase` (the driver merges the record):
    `yoi revert` takes out a's run only, keeps b's, and puts back a's staging only."""
    from git_support import clone, make_remote, yoi

    env = {**git_env(tmp_path / "home"), "GIT_EDITOR": "true"}
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    _dark(Workspace(a), "s1", "dark theme")
    run_phase2(Workspace(a), flush=True)
    commit_all(a, "phase 2: s1", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    b = clone(remote, tmp_path / "b", env)
    _dark(Workspace(b), "s3", "in the settings too")
    run_phase2(Workspace(b), flush=True)
    commit_all(b, "phase 2: s3", env)
    git(b, "push", "-q", "origin", "HEAD:main", env=env)
    _dark(Workspace(a), "s2", "also for the terminal")
    run_phase2(Workspace(a), flush=True)
    commit_all(a, "phase 2: s2", env)
    git(a, "pull", "-q", "--rebase", "origin", "main", env=env)
    (record,) = Workspace(a).requests_dir.glob("*.md")
    assert _sessions(record) == ["s1", "s2", "s3"]
    done = yoi(a, "revert", "last", "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"status": "reverted"' in done.stdout
    assert _sessions(record) == ["s1", "s3"] and "also for the terminal" not in record.read_text()
    assert "in the settings too" in record.read_text()
    assert _staged(Workspace(a)) == ["s2"]


def test_yoi_revert_after_a_cherry_pick(tmp_path: Path) -> None:
    env = {**git_env(tmp_path / "home"), "GIT_EDITOR": "true"}
    ws = make_ws(tmp_path)
    git(ws.root, "init", "-q", "-b", "main", env=env)
    from yoi_tui.core.store.team import register_merge_driver

    register_merge_driver(ws)
    _dark(ws, "s1", "dark theme")
    run_phase2(ws, flush=True)
    commit_all(ws.root, "phase 2: s1", env)
    git(ws.root, "checkout", "-q", "-b", "feature", env=env)
    _dark(Workspace(ws.root), "s2", "also for the terminal")
    run_phase2(Workspace(ws.root), flush=True)
    commit_all(ws.root, "phase 2: s2", env)
    git(ws.root, "checkout", "-q", "main", env=env)
    (record,) = ws.requests_dir.glob("*.md")
    record.write_text(record.read_text().rstrip("\n") + "\n\nA note a person added on main.\n")
    commit_all(ws.root, "a note", env)
    git(ws.root, "cherry-pick", "feature", env=env)
    assert _sessions(record) == ["s1", "s2"]
    result = revert(Workspace(ws.root), "last")
    assert result.status == "reverted" and not result.refused
    text = record.read_text()
    assert _sessions(record) == ["s1"] and "A note a person added on main." in text
    assert "also for the terminal" not in text and _staged(ws) == ["s2"]


def test_yoi_revert_after_a_squash_of_two_runs_and_a_note(tmp_path: Path) -> None:
    """After squashing, `yoi revert` of the *older* run (whose record the later run and a person
    changed) takes out only that run's source and lines; its staging alone goes back."""
    env = git_env(tmp_path / "home")
    ws = make_ws(tmp_path)
    git(ws.root, "init", "-q", "-b", "main", env=env)
    commit_all(ws.root, "workspace", env)
    _dark(ws, "s1", "dark theme")
    run_phase2(ws, flush=True)
    older = list_runs(ws)[-1].run_id
    commit_all(ws.root, "phase 2: s1", env)
    _dark(Workspace(ws.root), "s2", "also for the terminal")
    run_phase2(Workspace(ws.root), flush=True)
    commit_all(ws.root, "phase 2: s2", env)
    (record,) = ws.requests_dir.glob("*.md")
    record.write_text(record.read_text().rstrip("\n") + "\n\nA note a person added.\n")
    commit_all(ws.root, "a note", env)
    git(ws.root, "reset", "-q", "--soft", "HEAD~3", env=env)
    commit_all(ws.root, "squashed", env)
    result = revert(Workspace(ws.root), older)
    assert result.status == "reverted" and not result.refused, result.refused
    text = record.read_text()
    assert _sessions(record) == ["s2"] and "A note a person added." in text and "also for the terminal" in text
    assert "dark theme" not in text and _staged(ws) == ["s1"]


def test_only_the_staging_of_what_was_undone_goes_back(tmp_path: Path) -> None:
    """One run, two records from two staging files; the person changed one of them beyond a clean
    merge (here: removed it). The revert undoes the other, puts back only its staging, and says so."""
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py", summary="dark")])
    stage(ws, "s2", 0, 5, requests=[Request(intent="Ship a Docker image", target="Dockerfile", summary="image")])
    run_phase2(ws, flush=True)
    records = sorted(ws.requests_dir.glob("*.md"))
    assert len(records) == 2
    docker = next(p for p in records if "docker" in p.name)
    docker.unlink()  # a person deleted it: nothing of the run is left in it to take out
    result = revert(Workspace(ws.root), "last")
    assert [p for p in ws.requests_dir.glob("*.md")] == []
    assert result.already == [f"memory/requests/{docker.name}"] and not result.refused
    assert _staged(ws) == ["s1"] and len(result.inputs_kept) == 1
    assert result.status == "partially-reverted"
