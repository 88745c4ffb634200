"""Phase 1 stages what the user typed into a prompt template, not the template's scaffolding.

A spec-kit command or a Codex custom prompt reaches the log expanded ("## User Input", a fenced
block with the arguments, "You **MUST** consider the user input …", "## Outline", the steps). The
request Phase 1 stages is the typed part (``store.prompt_template.user_input``), so any consumer of
staging (the LLM engine, a reader, Phase 2) sees the intent; a run with nothing typed says so.
Logs are built as the adapters emit them (``test_phase1_rules.Log``).
"""

from __future__ import annotations

from pathlib import Path

from phase2_fixtures import stage
from support import make_ws
from test_phase1_rules import Log

from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store import prompt_template
from yoi_tui.core.store.reader import read_record


def _spec_kit(typed: str) -> str:
    return ("\n## User Input\n\n```text\n" + typed + "\n```\n\nYou **MUST** consider the user input before proceeding "
            "(if not empty).\n\n## Outline\n\n1. **Setup**: Run `.specify/scripts/bash/check-prerequisites.sh --json` "
            "from repo root and parse FEATURE_DIR and AVAILABLE_DOCS list. All paths must be absolute.\n\n"
            "2. **Load design documents**: Read plan.md and spec.md.\n\n## Report\n\nInclude the task count in the "
            "Sync Impact Report under deferred items.\n")


def test_the_request_of_a_template_run_is_what_the_user_typed_into_it() -> None:
    log = Log()
    at = log.user(_spec_kit("Add dark mode to the settings page"))
    log.say("Dark mode is added to the settings page.")
    [request] = log.extract().requests
    assert request.summary == "Add dark mode to the settings page."
    assert request.title == "Add dark mode to the settings page" and request.intent == "add"
    assert request.range == (at, at + 1)
    staged = f"{request.summary} {request.title} {request.target}"
    for scaffolding in ("User Input", "MUST", "Outline", "Setup", "check-prerequisites", "Sync Impact Report"):
        assert scaffolding not in staged, scaffolding


def test_a_template_run_with_nothing_typed_says_so_and_phase2_titles_it_by_what_was_written(tmp_path: Path) -> None:
    log = Log()
    log.user(_spec_kit(""))
    log.say("Task plan saved to `specs/005-orchestrator/tasks.md:1`, covering 28 checklist items.")
    [request] = log.extract().requests
    assert (request.intent, request.summary, request.title, request.target) == (
        "run", prompt_template.NO_INPUT_SUMMARY, prompt_template.NO_INPUT_TITLE, "")
    ws = make_ws(tmp_path)
    stage(ws, "sess-template", 0, 1, requests=[request])
    assert run_phase2(ws, flush=True).exit_code == 0
    record = read_record(ws, ws.root / "memory/requests/write-the-task-plan-in-tasks-md.md").record
    assert record is not None and record.body.startswith("\n# Write the task plan in tasks.md\n")
    assert "A prompt template run with no input of its own. Done: Task plan saved to" in record.body


def test_a_users_own_headed_message_is_no_template() -> None:
    text = "## Input\n\nThe CSV export drops the last row.\n\n## Output\n\nFix the export so every row is written."
    assert prompt_template.user_input(text) is None
    log = Log()
    log.user(text)
    [request] = log.extract().requests
    assert "The CSV export drops the last row." in request.summary


def test_user_input_reads_the_typed_block_in_any_of_the_template_forms() -> None:
    assert prompt_template.user_input(_spec_kit("Add a retry to the upload")) == "Add a retry to the upload"
    assert prompt_template.user_input(_spec_kit("")) == ""
    # Unexpanded placeholder, a bold heading, no fence.
    assert prompt_template.user_input("**Arguments**:\n$ARGUMENTS\n\nYou MUST read the arguments first.\n") == ""
    assert prompt_template.user_input("### User Input\nRename the cache module\n\nYou **MUST** consider the user "
                                      "input before proceeding (if not empty).") == "Rename the cache module"
    assert prompt_template.user_input("Rename the cache module, please.") is None


def test_a_slash_command_without_arguments_is_not_titled_by_its_templates_steps() -> None:
    log = Log()
    command = log._add(role="user", text="/speckit.tasks", kind="command")
    prompt = log.user(_spec_kit(""))
    [request] = log.extract().requests
    assert request.title == "Run /speckit.tasks" and request.range == (command, prompt)
    assert "check-prerequisites" not in request.summary and "Setup" not in request.title
