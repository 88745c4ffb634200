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
