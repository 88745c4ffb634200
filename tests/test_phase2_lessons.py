"""Phase 2 loses nothing (issue 12): lessons with no home, locked targets, the lines an item came from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from phase2_fixtures import stage
from support import decision_meta, make_ws, request_meta, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Attempt, Decision, Request
from yoi_tui.core.store.workspace import Workspace

TREE = Attempt(trial="`tree lib -L 3`", result="failed: exit 127: command not found: tree; fixed — ran `find lib -type d` "
               "instead; `find lib -type d` then succeeded", outcome="success", range=(16, 20))
BIG_READ = Attempt(trial="`Read app.js`", result="failed: File content (806KB) exceeds maximum allowed size (256KB); "
                   "not fixed in this range", outcome="failure", range=(72, 73))


def _read(ws: Workspace, rel: str) -> Any:
    record = read_record(ws, ws.root / rel).record
    assert record is not None, rel
    return record


def test_lessons_that_belong_to_no_record_become_a_knowledge_record(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    staged = stage(ws, "explore-session", 0, 114, attempts=[TREE, BIG_READ])
    report = run_phase2(ws, flush=True)
    assert report.exit_code == 0
    assert not (ws.staging_dir / f"{staged}.json").exists()  # consumed: its content is in a record
    lessons = _read(ws, "knowledge/lessons-from-agent-sessions.md")
    # One line per lesson, in the canonical (sorted) order every clone writes (store.canonical).
    assert "## Lessons\n- `Read app.js` failed: File content (806KB) exceeds maximum allowed size (256KB); not fixed " \
           "in this range.\n- `tree lib -L 3` failed: exit 127: command not found: tree; fixed — ran `find lib -type d`" \
        in lessons.body
    assert lessons.meta["last_sources"] == [{"session_id": "explore-session", "range": [16, 20]},
                                            {"session_id": "explore-session", "range": [72, 73]}]
    assert not any("unrelated" in n for n in report.rounds[0].changeset.notes)  # type: ignore[union-attr]
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []
    # A second session's lesson joins the same record; the first ones stay.
    stage(ws, "other-session", 0, 9, attempts=[Attempt(trial="`rg --json x`", result="failed: exit 2: unknown flag; "
                                                        "not fixed in this range", outcome="failure", range=(3, 4))])
    run_phase2(ws, flush=True)
    body = _read(ws, "knowledge/lessons-from-agent-sessions.md").body
    assert "command not found: tree" in body and "unknown flag" in body


def test_a_subagent_lesson_goes_to_the_request_of_the_session_that_started_it(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "parent-1", 0, 10, requests=[Request(intent="add", target="Ash resources", summary="add Ash resources",
                                                   title="Add Ash resources", range=(0, 0))])
    run_phase2(ws, flush=True)
    stage(ws, "parent-1.agent-afc096d", 0, 114, attempts=[TREE])
    run_phase2(ws, flush=True)
    request = _read(ws, "memory/requests/add-ash-resources.md")
    assert "## Failure and fix\n- `tree lib -L 3` failed: exit 127" in request.body
    assert {"session_id": "parent-1.agent-afc096d", "range": [16, 20]} in request.meta["sources"]
    assert not (ws.knowledge_dir / "lessons-from-agent-sessions.md").exists()


def test_staging_aimed_at_a_locked_record_stays_and_is_reported_every_run(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(), "\n# Use SQLite\n")
    os.chmod(path, 0o444)
    try:
        before = path.read_bytes()
        held = stage(ws, "s-lock", 0, 9, decisions=[Decision(title="Use SQLite", chosen="yes", rationale="WAL mode",
                                                             range=(3, 4))],
                     requests=[Request(intent="add", target="cache", summary="add a cache", range=(0, 0))])
        for _run in range(2):
            report = run_phase2(ws, flush=True)
            notes = report.rounds[-1].changeset.notes  # type: ignore[union-attr]
            assert any(n.startswith("locked: memory/decisions/use-sqlite.md is read-only") and held in n for n in notes)
            assert (ws.staging_dir / f"{held}.json").exists() and report.exit_code == 1
            assert path.read_bytes() == before
        assert (ws.requests_dir / "add-cache.md").exists()  # the rest was applied
    finally:
        os.chmod(path, 0o644)
    report = run_phase2(ws, flush=True)  # the lock is lifted: the staging is used and consumed
    assert report.exit_code == 0 and not (ws.staging_dir / f"{held}.json").exists()
    decision = _read(ws, "memory/decisions/use-sqlite.md")
    assert "WAL mode" in decision.body
    assert {"session_id": "s-lock", "range": [3, 4]} in decision.meta["sources"]


def test_each_record_cites_the_lines_its_item_came_from(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/requests/older.md", request_meta(), "\n# Older\n")
    stage(ws, "s-lines", 0, 80,
          requests=[Request(intent="add", target="NavUser", summary="add initials", title="Add initials", range=(2, 2))],
          decisions=[Decision(title="Initials from the username", chosen="username", rationale="no name field",
                              range=(38, 38))],
          attempts=[Attempt(trial="`pnpm test NavUser.test.tsx`", result="failed: AssertionError; fixed — after "
                            "editing NavUser.tsx; `pnpm test NavUser.test.tsx` then succeeded", outcome="success",
                            range=(67, 76))])
    report = run_phase2(ws, flush=True)
    assert report.exit_code == 0
    request = _read(ws, "memory/requests/add-initials.md")
    assert request.body.startswith("\n# Add initials\n")
    assert request.meta["sources"] == [{"session_id": "s-lines", "range": [2, 2]},
                                       {"session_id": "s-lines", "range": [67, 76]}]
    decision = _read(ws, "memory/decisions/initials-from-the-username.md")
    assert decision.meta["sources"] == [{"session_id": "s-lines", "range": [38, 38]}]
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []


def test_a_question_the_user_asked_joins_the_work_of_its_session_not_an_open_decision(tmp_path: Path) -> None:
    from yoi_tui.core.store.staging import Discussion

    ws = make_ws(tmp_path)
    stage(ws, "s-q", 0, 40, requests=[Request(intent="add", target="epic", summary="implement the epic",
                                              title="Implement the epic", range=(0, 0))])
    run_phase2(ws, flush=True)
    stage(ws, "s-q", 41, 60, discussions=[Discussion(topic="did you push?", points=["Yes, both commits are on "
                                                                                   "origin and the epic is closed."],
                                                     range=(55, 56))])
    run_phase2(ws, flush=True)
    request = _read(ws, "memory/requests/implement-the-epic.md")
    assert "## Discussion\n- did you push? Yes, both commits are on origin" in request.body
    assert not list(ws.decisions_dir.glob("*.md"))
