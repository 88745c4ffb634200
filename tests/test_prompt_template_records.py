"""Phase 2's request and decision records: a prompt template's scaffolding is no intent, a report
that says nothing makes no "Done:", a stated choice is titled as the instruction (issue 26)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.core.phase2.attempt_text import bypass_flag, bypassed_by, truthful_result
from yoi_tui.core.phase2.decision_text import chosen_text, is_change_summary, option_text
from yoi_tui.core.phase2.record_fields import summary_line
from yoi_tui.core.phase2.request_text import (
    asked_text,
    done_text,
    is_template_title,
    names_a_target,
    request_title,
    resolve_pronoun,
    slug_text,
)
from yoi_tui.core.store import prompt_template
from yoi_tui.core.store.titles import (
    IMPERATIVE_VERBS,
    MAX_TITLE,
    clean_title,
    decision_title,
    embedded_instruction,
)

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


# ---------------------------------------------------------------- hostile inputs: never cut inside a word

_PIECES = st.sampled_from(["I believe we should", "I'll", "Making", "Using", "as it serves", "because", "now", "please",
                           "User Input.", "## Outline", "$ARGUMENTS", "You MUST consider the user input.", "│", "┌─┐",
                           "检查目前项目的设计", "🚀", "**bold**", "`code()`", "https://x.y/issues/12#c", "as per",
                           "add", "the", "with you", "Hey Okarin!", "Done,", "x" * 150, ".", ",", "—"])
_TEXT = st.lists(st.one_of(_PIECES, st.text(min_size=1, max_size=14)), max_size=30).map(" ".join)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[^\W_]+", text)}


@settings(max_examples=300, deadline=None)
@given(_TEXT, _TEXT)
def test_phase2_titles_are_never_cut_inside_a_word(title: str, asked: str) -> None:
    made = request_title(clean_title(title), asked_text(asked), done_text(asked))
    said = _words(title) | _words(asked)
    added = {"write", "the", "in", "follow", "prompt", "template", "fix", "untitled"} | IMPERATIVE_VERBS
    assert _words(made) <= said | added, (title, asked, made)
    assert made.strip() == made and "\n" not in made
    assert len(made) <= MAX_TITLE + 8 or " " not in made  # an over-long single word stays whole
    decided = decision_title(title)
    assert _words(decided) <= _words(title) | added, (title, decided)


@pytest.mark.parametrize(("raw", "title"), [
    ("x" * 300, "X" + "x" * 299),  # one huge word: whole, never cut
    ("🚀 Add rocket emoji support", "Add rocket emoji support"),
    ("检查目前项目的设计", "检查目前项目的设计"),
    ("**Fix** the `parser` crash", "Fix the `parser` crash"),
    ("take Phase 2 to PR   │\n│   with @agent-x", "Take Phase 2 to PR with @agent-x"),
])
def test_hostile_titles(raw: str, title: str) -> None:
    assert clean_title(raw) == title


def test_a_cjk_title_gets_a_file_name_from_the_latin_words_around_it() -> None:
    assert slug_text("检查目前项目的设计", "", "检查目前项目的设计. — refined: 帮我补充 status 的无登录降级体验. — refined: "
                     "这样的话doctor还有必要保留吗") == "status doctor"
    assert slug_text("检查目前项目的设计", "", "") == "检查目前项目的设计"
    assert slug_text("Add a retry", "upload") == "Add a retry"


def test_a_retry_that_skips_the_check_is_no_fix() -> None:
    # Staging written by earlier versions says "fixed — ran `… --no-verify …` instead"; Phase 1 now
    # stages the truth itself (tests/test_phase1_bypass.py), Phase 2 still reads the old text truly.
    result = ("failed (2 times): husky - pre-commit script failed (code 1); fixed — after running `npm run format`; "
              "ran `git commit --no-verify -m \"X\"` instead; `git commit --no-verify -m \"X\"` then succeeded")
    said = truthful_result('`git commit -m "X"`', result)
    assert "not fixed — the check was bypassed (`--no-verify`)" in said and "; fixed —" not in said
    assert truthful_result("`git commit -m x`", "failed: lint; fixed — after editing a.py; `git commit -m x` then "
                           "succeeded").endswith("fixed — after editing a.py; `git commit -m x` then succeeded")
    assert bypass_flag("git commit -n -m x", "git commit -m x") == "-n"
    assert bypass_flag("HUSKY=0 git commit -m x", "git commit -m x") == "HUSKY=0"
    assert bypass_flag("git push --force-with-lease", "git push") == "--force-with-lease"
    assert bypass_flag("git push --force", "git push --force") == ""  # the failed one had it already
    assert bypassed_by("`git commit --no-verify -m x`", ["`git commit -m x`"]) == "--no-verify"


def test_a_commit_subject_with_its_change_list_is_no_decision() -> None:
    change = SimpleNamespace(title="Phase 2 Performance Optimization (#377)", chosen="Phase 2 Performance "
                             "Optimization (#377)", options=[], rationale="Enhanced tracking - Early ID validation - "
                             "404 caching - Budgets with alerts")
    assert is_change_summary(change)
    choice = SimpleNamespace(title="Use SQLite for the cache", chosen="Use SQLite for the cache", options=[],
                             rationale="one file - no server - fast enough")
    assert not is_change_summary(choice)
    assert chosen_text("I believe we should keep the doctor command as it serves as a check") == \
        "Keep the doctor command as it serves as a check"
    assert chosen_text("a local config table") == "a local config table"
    assert option_text("attempting a login when") == "attempting a login"


def test_a_bare_pronoun_names_what_the_request_before_made() -> None:
    made = "I've created `test-file.txt` in your current directory with some simple test content."
    assert resolve_pronoun("Edit it and add some content", made) == "Edit test-file.txt and add some content"
    assert resolve_pronoun("Edit it", "Renamed as requested.") == "Edit it"  # nothing made: unchanged
    assert resolve_pronoun("Push it", made) == "Push it"  # a commit, not the file
    assert resolve_pronoun("Make it faster", made) == "Make it faster"  # "it" is no bare object here


def test_a_short_title_case_instruction_is_no_heading() -> None:
    assert asked_text("Fix Login Bug. The login fails on Safari.") == "Fix Login Bug. The login fails on Safari."
    assert done_text("Tasks Overview. Saved the plan.") == "Saved the plan."
