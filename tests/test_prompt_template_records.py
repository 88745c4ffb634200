"""Phase 2's request and decision records: a prompt template's scaffolding is no intent, a report
that says nothing makes no "Done:", a stated choice is titled as the instruction (issue 26)."""

from __future__ import annotations

from types import SimpleNamespace

from yoi_tui.core.phase2.record_fields import summary_line
from yoi_tui.core.phase2.request_text import (
    asked_text,
    done_text,
    is_template_title,
    names_a_target,
    request_title,
)
from yoi_tui.core.store import prompt_template
from yoi_tui.core.store.titles import decision_title, embedded_instruction

SPEC_KIT = ("User Input. You MUST consider the user input before proceeding (if not empty). Outline. Setup: Run "
            "`.specify/scripts/bash/check-prerequisites.sh --json` from repo root and parse FEATURE_DIR and "
            "AVAILABLE_DOCS list. All paths must be absolute.")


def test_template_headings_and_boilerplate_are_scaffolding() -> None:
    for sentence in ("User Input.", "## Outline", "Arguments:", "$ARGUMENTS", "`$ARGUMENTS`",
                     "You **MUST** consider the user input before proceeding (if not empty).",
                     "You MUST NOT skip the checklist step when a checklist exists.",
                     "All paths must be absolute."):
        assert prompt_template.is_scaffolding(sentence), sentence
    for sentence in ("Remove the stray files and push.", "You should see the build pass now?",
                     "Add a retry to the upload.", "Setup the CI with coverage."):
        assert not prompt_template.is_scaffolding(sentence), sentence


def test_spec_kit_expansion_is_neither_title_nor_summary() -> None:
    request = SimpleNamespace(summary=SPEC_KIT, done="Tasks Overview. Task plan saved to "
                              "`specs/005-orchestrator-architecture/tasks.md:1`, covering 28 checklist items.")
    line = summary_line(request)
    assert "MUST" not in line and "User Input" not in line and "Setup:" not in line
    assert "Tasks Overview" not in line and "Done: Task plan saved to" in line
    assert is_template_title("User Input")
    title = request_title("User Input", asked_text(SPEC_KIT), done_text(request.done))
    assert title == "Write the task plan in tasks.md"
    assert request_title("User Input", asked_text(SPEC_KIT), "") == "Follow the prompt template"


def test_template_with_arguments_is_titled_by_them() -> None:
    asked = asked_text("User Input. Add dark mode to the settings page. You MUST consider the user input "
                       "before proceeding (if not empty).")
    assert asked == "Add dark mode to the settings page."
    assert request_title("User Input", asked, "") == "Add dark mode to the settings page"


def test_a_request_without_template_keeps_its_words() -> None:
    assert asked_text("Ok ultrathink and come up with a chain. — refined: Ok try again.") == \
        "Come up with a chain. — refined: Try again."
    assert request_title("Rename the module", "Rename the module.", "") == "Rename the module"


def test_a_report_that_says_nothing_is_no_done() -> None:
    assert done_text("Hey Okarin!") == ""
    assert done_text("Done, Okarin! I've added a list to the file.") == "I've added a list to the file."
    assert summary_line(SimpleNamespace(summary="Look at it.", done="Hey Okarin!")) == "Look at it."
    assert done_text("Renamed as requested.") == "Renamed as requested."


def test_target_that_is_an_opener_or_a_heading_names_nothing() -> None:
    assert not names_a_target("Hello I want", "Hello I want to have some test conversation with you")
    assert not names_a_target("ultrathink", "Ok ultrathink and come up with a chain")
    assert not names_a_target("## User Input", SPEC_KIT)
    assert names_a_target("the TOML configuration", "Remove that configuration")


def test_title_takes_the_instruction_inside_a_sentence() -> None:
    first = ("I came from the future where you added and i reverted via checkpoint now add another section "
             "where I will only revert the conversation so you will lose knowledge of it only.")
    assert embedded_instruction(first).startswith("add another section")
    assert request_title("I came from the future", first, "").startswith("Add another section")
    assert embedded_instruction("I know the plan now.") == ""


def test_decision_title_is_the_choice_as_an_instruction() -> None:
    assert decision_title("I believe we should keep the Doctor command as it serves as a more comprehensive "
                          "health check") == "Keep the Doctor command"
    assert decision_title("I should modify the command to show a local config table instead") == \
        "Modify the command to show a local config table instead"
    assert decision_title("Making it a single source of truth") == "Make it a single source of truth"
    assert decision_title("Running the tests in CI only") == "Run the tests in CI only"
    assert decision_title("I'll use a generic approach with an enum") == "Use a generic approach with an enum"
    assert decision_title("Use SQLite for the cache") == "Use SQLite for the cache"
    assert decision_title("Keep the cache as it is now") == "Keep the cache as it is now"
    assert decision_title("Pending review") == "Pending review"
