"""Records deleted on one side and changed on the other (issue 30, items 5 and 6): git stops at
modify/delete without asking the merge driver, and yoi settles it by the driver's rule — what the
changing side added survives, the rest of the deletion stands — so no person must decide, no
source is lost and no stub points at nothing. Real repositories, real `yoi` processes."""

from __future__ import annotations

import json
from pathlib import Path

from git_support import clone, commit_all, git, git_env, make_remote, yoi
from phase2_fixtures import stage
from support import decision_meta, request_meta, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.runs.changeset import list_runs, revert
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Request
from yoi_tui.core.store.workspace import Workspace

KEEP = "memory/requests/add-a-dark-mode.md"
DUP = "memory/requests/add-a-dark-modes.md"


def _unmerged(repo: Path, env: dict[str, str]) -> list[str]:
    return git(repo, "diff", "--name-only", "--diff-filter=U", env=env).stdout.split()


def _sources(repo: Path, rel: str) -> list[dict]:
    record = read_record(Workspace(repo), repo / rel).record
    assert record is not None, rel
    return record.meta["sources"]


def _errors(repo: Path) -> list[str]:
    return [f"{d.path} {d.rule}" for d in lint_workspace(Workspace(repo)).diagnostics if d.is_error]


def _two_clones_with_a_pair(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    ws = Workspace(a)
    write_record(ws, KEEP, request_meta(sources=[{"session_id": "s1", "range": [0, 3]},
                                                 {"session_id": "s3", "range": [2, 6]}]),
                 "\n# Add a dark mode\n\n## Summary\nA dark theme.\n")
    write_record(ws, DUP, request_meta(sources=[{"session_id": "s2", "range": [1, 4]}]),
                 "\n# Add a dark mode\n\n## Summary\nA dark theme for the editor.\n")
    commit_all(a, "two near-duplicate requests", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    return a, clone(remote, tmp_path / "b", env), env


def test_a_person_deletes_the_record_another_clones_gc_merged_into(tmp_path: Path) -> None:
    """Item 5: a's GC merges the duplicate into the keeper; in b a person deletes the keeper. Git
    stops at modify/delete; `yoi resolve` keeps what the GC added (the duplicate's source and text),
    so the stub points at a record and no source is lost."""
    a, b, env = _two_clones_with_a_pair(tmp_path)
    assert yoi(a, "gc", env=env).returncode == 0
    assert read_record(Workspace(a), a / DUP).record.replaced_by == "add-a-dark-mode"
    commit_all(a, "gc: merge the duplicate", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    git(b, "rm", "-q", KEEP, env=env)
    commit_all(b, "this request is done with", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode != 0 and "modify/delete" in pulled.stdout + pulled.stderr  # git's own limit
    assert _unmerged(b, env) == [KEEP]
    done = yoi(b, "resolve", "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == {"kept": [KEEP], "deleted": [], "left": {}, "next_step": "git commit"}
    assert _unmerged(b, env) == []
    git(b, "commit", "-q", "--no-edit", env=env)
    # What the person saw is gone (the keeper's own sources and text); what the GC added is kept.
    assert _sources(b, KEEP) == [{"session_id": "s2", "range": [1, 4]}]
    text = (b / KEEP).read_text()
    assert "A dark theme for the editor." in text and "A dark theme.\n" not in text
    assert _errors(b) == []  # no dangling-replaced-by, no conflict markers


def test_a_writing_command_settles_it_while_git_is_stopped(tmp_path: Path) -> None:
    """The other way round (a pulls b's deletion over its GC), settled by the next hook on its own."""
    a, b, env = _two_clones_with_a_pair(tmp_path)
    git(b, "rm", "-q", KEEP, env=env)
    commit_all(b, "this request is done with", env)
    git(b, "push", "-q", "origin", "HEAD:main", env=env)
    assert yoi(a, "gc", env=env).returncode == 0
    commit_all(a, "gc: merge the duplicate", env)
    pulled = git(a, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode != 0 and _unmerged(a, env) == [KEEP]
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s-next", "cwd": str(a)})
    import subprocess
    import sys

    hook = subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", "hook", "claude-code"], cwd=a, env=env,
                          input=payload, capture_output=True, text=True, timeout=120)
    assert hook.returncode == 0, hook.stderr
    assert f"{KEEP}: deleted on one side; kept what the other side added" in hook.stderr
    assert "finish with: git commit" in hook.stderr
    assert _unmerged(a, env) == []
    git(a, "commit", "-q", "--no-edit", env=env)
    assert _sources(a, KEEP) == [{"session_id": "s2", "range": [1, 4]}] and _errors(a) == []


def test_a_deletion_against_a_change_that_added_nothing_stands(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    rel = "memory/decisions/use-sqlite.md"
    write_record(Workspace(a), rel, decision_meta(), "\n# Use SQLite\n\nChosen: SQLite.\n")
    commit_all(a, "a decision", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    b = clone(remote, tmp_path / "b", env)
    git(b, "rm", "-q", rel, env=env)
    commit_all(b, "not needed", env)
    git(b, "push", "-q", "origin", "HEAD:main", env=env)
    write_record(Workspace(a), rel, decision_meta(status="resolved"), "\n# Use SQLite\n\nChosen: SQLite.\n")
    commit_all(a, "resolved", env)
    assert git(a, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False).returncode != 0
    done = yoi(a, "resolve", env=env)
    assert done.returncode == 0 and "stays deleted" in done.stdout
    assert not (a / rel).exists() and _unmerged(a, env) == []


def _request(ws: Workspace, session: str, summary: str) -> None:
    stage(ws, session, 0, 5, requests=[Request(intent="Add a dark mode", target="app/theme.py", summary=summary)])


def test_git_revert_of_a_phase2_commit_a_later_run_built_on(tmp_path: Path) -> None:
    """Item 6: `git revert` of the run that created a record a later run updated stops at
    modify/delete; settled, the record keeps the later run's source and text only, the revert
    finishes, and the next Phase 2 does not make the reverted record again."""
    env = {**git_env(tmp_path / "home"), "GIT_EDITOR": "true"}
    remote = make_remote(tmp_path, env)
    repo = clone(remote, tmp_path / "a", env)
    ws = Workspace(repo)
    _request(ws, "s1", "a dark theme")
    run_phase2(ws, flush=True)
    commit_all(repo, "phase 2: s1", env)
    first = git(repo, "rev-parse", "HEAD", env=env).stdout.strip()
    (rel,) = [f"memory/requests/{p.name}" for p in ws.requests_dir.glob("*.md")]
    _request(Workspace(repo), "s2", "also for the terminal")
    run_phase2(Workspace(repo), flush=True)
    commit_all(repo, "phase 2: s2", env)
    reverted = git(repo, "revert", "--no-edit", first, env=env, check=False)
    assert reverted.returncode != 0 and _unmerged(repo, env) == [rel]
    done = yoi(repo, "resolve", env=env)
    assert done.returncode == 0 and "finish with: git revert --continue" in done.stdout, done.stdout + done.stderr
    git(repo, "revert", "--continue", env=env)
    assert [s["session_id"] for s in _sources(repo, rel)] == ["s2"]
    text = (repo / rel).read_text()
    assert "also for the terminal" in text and "a dark theme" not in text
    assert _errors(repo) == []
    run_phase2(Workspace(repo), flush=True)  # the consumed staging stays consumed
    assert [s["session_id"] for s in _sources(repo, rel)] == ["s2"]
    assert "a dark theme" not in (repo / rel).read_text()


def test_git_revert_of_a_phase2_commit_then_phase2_does_not_make_its_records_again(tmp_path: Path) -> None:
    env = {**git_env(tmp_path / "home"), "GIT_EDITOR": "true"}
    remote = make_remote(tmp_path, env)
    repo = clone(remote, tmp_path / "a", env)
    _request(Workspace(repo), "s1", "a dark theme")
    run_phase2(Workspace(repo), flush=True)
    commit_all(repo, "phase 2", env)
    git(repo, "revert", "--no-edit", "HEAD", env=env)
    assert not list(Workspace(repo).requests_dir.glob("*.md"))
    run_phase2(Workspace(repo), flush=True)
    assert not list(Workspace(repo).requests_dir.glob("*.md"))
    assert not list(Workspace(repo).staging_dir.glob("*.json"))


def test_yoi_revert_of_a_run_whose_new_record_a_later_run_updated(tmp_path: Path) -> None:
    """`yoi revert` of the older run: its record is taken out around the later run's update (was
    refused: 'changed since the run applied it'); only that run's staging goes back."""
    from support import make_ws

    ws = make_ws(tmp_path)
    _request(ws, "s1", "a dark theme")
    run_phase2(ws, flush=True)
    older = list_runs(ws)[-1].run_id
    (path,) = ws.requests_dir.glob("*.md")
    _request(Workspace(ws.root), "s2", "also for the terminal")
    run_phase2(Workspace(ws.root), flush=True)
    result = revert(Workspace(ws.root), older)
    assert result.status == "reverted" and not result.refused, result.refused
    rel = f"memory/requests/{path.name}"
    assert result.merged == [rel]
    assert [s["session_id"] for s in _sources(ws.root, rel)] == ["s2"]
    assert "a dark theme" not in path.read_text() and "also for the terminal" in path.read_text()
    staged = [json.loads(p.read_text()) for p in ws.staging_dir.glob("*.json")]
    assert [s["source"]["session_id"] for s in staged] == ["s1"]
    again = revert(Workspace(ws.root), older)
    assert again.status == "nothing-to-revert" and again.already == [rel]


def test_a_persons_rewrite_is_not_lost_to_a_deletion(tmp_path: Path) -> None:
    """A person retitles a record and rewrites its description while another clone deletes it: no
    new source, but a new heading and an edited key are a person's content, so the record stays."""
    from support import knowledge_meta

    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    rel = "knowledge/run-tests.md"
    write_record(Workspace(a), rel, knowledge_meta(), "\n# Run the tests\n\nUse pytest -q.\n")
    commit_all(a, "knowledge", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    b = clone(remote, tmp_path / "b", env)
    git(b, "rm", "-q", rel, env=env)
    commit_all(b, "gone", env)
    git(b, "push", "-q", "origin", "HEAD:main", env=env)
    write_record(Workspace(a), rel, knowledge_meta(description="How to run the suite, and its slow part."),
                 "\n# Run the test suite\n\nUse pytest -q.\n")
    commit_all(a, "rewritten", env)
    assert git(a, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False).returncode != 0
    done = yoi(a, "resolve", env=env)
    assert done.returncode == 0 and f"{rel}: deleted on one side; kept" in done.stdout, done.stdout + done.stderr
    text = (a / rel).read_text()
    assert "# Run the test suite" in text and "How to run the suite, and its slow part." in text
