"""Phase 2's records, round 10 (2026-12-04, judged on the development and second held-out halves):
the agent's way of working is no decision, a document's own name and path (or a template's line)
is no decision, and the titles and folding of requests the judgement found wrong. Small
constructed staging and requests, run through the real Phase 2 code."""

from __future__ import annotations

from pathlib import Path

from phase2_fixtures import stage
from support import make_ws

from yoi_tui.core.phase2.decision_text import is_document_heading, is_working_step
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.staging import Decision

# --- the agent's way of working is no decision ------------------------------------------------------


def _decision(title: str, chosen: str = "", rationale: str = "", options: list[str] | None = None) -> Decision:
    return Decision(title=title, options=options or [], chosen=chosen or title, rationale=rationale)


def test_the_agent_s_conversation_plan_and_permission_steps_are_no_decision() -> None:
    for title in ("Acknowledge the reviewer's reply and wait for their input on the open questions",
                  "Wait for the user to confirm the schema",
                  "Update the plan based on what the search found before proceeding",
                  "Revise my plan now that the parser is read",
                  "Escalate this step",
                  "Request escalation to run the installer",
                  "Finish the required repo preflight: `npm ci`, `npm test`"):
        assert is_working_step(_decision(title)), title
    # how the agent edits files
    assert is_working_step(_decision("Use a Python script for editing", "use a python script for editing the config"))
    assert is_working_step(_decision("Rewrite the settings file", "rewrite the settings file via a delete-and-add "
                                     "apply_patch"))


def test_a_project_choice_is_kept_whatever_words_it_shares_with_a_working_step() -> None:
    for title in ("Wrap the sync handler in try/catch to log warnings",
                  "Update the release plan template to list the migration step",
                  "Use a Python script for the database migration",
                  "Keep the preflight check in CI",
                  "Add a wait-for-port step to the compose file"):
        assert not is_working_step(_decision(title)), title
    # options weighed: a choice, even of a working tool
    assert not is_working_step(_decision("Use a Python script for editing", options=["sed", "a Python script"]))


def test_no_decision_record_is_written_for_a_working_step(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 9, decisions=[
        _decision("Acknowledge the completion and wait for their input on the design questions",
                  rationale="They haven't answered my questions yet"),
        _decision("Store sessions in SQLite", rationale="one file, transactional writes")])
    run_phase2(ws, flush=True)
    assert sorted(p.name for p in ws.decisions_dir.glob("*.md")) == ["store-sessions-in-sqlite.md"]


# --- a document's own name and path, a template's line: no decision ---------------------------------


def test_a_file_named_by_itself_and_its_path_is_no_choice() -> None:
    heading = "ROADMAP.md (/home/me/proj/docs/ROADMAP.md)"
    assert is_document_heading(_decision(heading, rationale="Twelve milestones cover the first release"))
    heading = "constitution.md (.config/memory/constitution.md)"
    assert is_document_heading(_decision(heading.capitalize(), heading, "Clarity first → I."))
    # a line of a template file, whatever it says
    heading = "Run every test of story 1 together (.tools/templates/tasks-template.md)"
    assert is_document_heading(_decision(heading, rationale="Tests are written first"))


def test_a_choice_written_into_a_document_of_another_name_stays() -> None:
    # an ADR titled with its choice names another file than itself: a choice, with its reason
    heading = "Keep the cache in Redis (docs/adr/0003-cache.md)"
    assert not is_document_heading(_decision(heading, rationale="Redis is already deployed"))
    assert not is_document_heading(_decision("ROADMAP.md (docs/ROADMAP.md)", options=["ROADMAP.md", "a wiki page"]))
