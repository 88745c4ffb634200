"""Phase 2's records on the development sessions (round 8, 2026-12-04): an effort modifier is no
intent, a rationale is a reason (never the agent's next step), a verdict on the last change is no
title. Small constructed inputs only."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from phase2_fixtures import stage
from support import make_ws

from yoi_tui.core.phase2.request_text import asked_text, is_effort_modifier, request_title
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.staging import Decision
from yoi_tui.core.store.titles import embedded_instruction

# --- an effort modifier ("think hard", "ultrathink") is a modifier, not the intent ---------------


def test_effort_modifiers_are_recognised_and_instructions_are_not() -> None:
    for text in ("Think hard", "think harder.", "Ultrathink", "ultrathink!", "Ok think hard about it",
                 "Think deeply", "think step by step", "Please think carefully.", "megathink"):
        assert is_effort_modifier(text), text
    for text in ("Think about how we can build a prototype first", "Think hard about the cache layout and "
                 "write it down", "Add a retry", "Hard reset the branch", "Think"):
        assert not is_effort_modifier(text), text


def test_a_request_titled_by_an_effort_modifier_takes_the_instruction_asked() -> None:
    asked = asked_text("So this is what runs on the staging box. It has one variable set. Tell me which "
                       "variables I need to set for the service to start the same way. Think hard.")
    assert request_title("Think hard", asked, "") == "Tell me which variables I need to set for the service"
    assert "Think hard" not in asked
    # nothing asked in words: the modifier stays rather than an invented title
    assert request_title("Ultrathink", "Ultrathink.", "") == "Ultrathink"


def test_an_effort_modifier_sentence_is_no_part_of_what_was_asked() -> None:
    assert asked_text("Investigate the flaky upload and propose a fix. Ultrathink.") == \
        "Investigate the flaky upload and propose a fix."
    assert asked_text("Think hard.") == "Think hard."  # all of it: kept, never an empty summary


def test_a_title_that_is_no_instruction_takes_one_said_in_a_later_sentence() -> None:
    asked = asked_text("Both scripts exit at once when I start them. I think you need to check the entry "
                       "points. Then run the app and read the errors.")
    assert request_title("Both scripts exit at once when I start them", asked, "") == "Check the entry points"
    assert embedded_instruction("Maybe you should rename the flag") == "rename the flag"
    # a title that is an instruction is kept as it is
    assert request_title("Rename the flag", "Rename the flag. Then run the tests.", "") == "Rename the flag"


_WORD = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=1, max_size=12)
_SENTENCE = st.lists(st.one_of(_WORD, st.sampled_from(["think", "hard", "ultrathink", "you", "need", "to", "now",
                                                         "please", "add", "fix", "the", "check"])),
                     min_size=1, max_size=14).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=5), st.sampled_from(["Think hard", "Ultrathink", "I saw it fail"]))
def test_a_title_read_from_what_was_asked_is_whole_words_of_it(sentences: list[str], title: str) -> None:
    asked = ". ".join(sentences) + "."
    made = request_title(title, asked, "")
    source_words = {w.lower() for w in (asked + " " + title).replace(".", " ").split()}
    assert made.strip()
    for word in made.split():
        assert word.lower().strip(".,;:!?") in source_words, (made, asked)


# --- a rationale is a reason, not the agent's next step -------------------------------------------


def test_a_rationale_that_narrates_the_next_step_is_no_reason() -> None:
    from yoi_tui.core.phase2.decision_text import is_next_step, rationale_text

    for said in ("Next, I'll open the schema file for the table names.", "Let me check the config first.",
                 "Now I'm going to rerun the suite.", "Also adding an error state to the form.",
                 "Then updating the handler."):
        assert is_next_step(said), said
        assert rationale_text(said) == "", said
    for said in ("the upstream API is slow", "Keeping the clock inside the payload avoids a schema change.",
                 "the user's answer to \"Which store? I'll use whichever you pick.\"",
                 "stated by the agent in the session"):
        assert not is_next_step(said) or said.startswith("the user")
        assert rationale_text(said) == said, said
    # the reason is kept, the next step after it goes
    assert rationale_text("Keep it small. Let me check the tests.") == "Keep it small."
    assert rationale_text("instead of overwriting origin, then push the branch to the new URL") == \
        "instead of overwriting origin"
    assert rationale_text("it's a slow API) and also add it to the client") == "it's a slow API"
    assert rationale_text("Good - mostly a blank slate.") == "mostly a blank slate."


def test_a_decision_record_has_no_rationale_section_for_narration(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 4, decisions=[
        Decision(title="Update the sync time on every push", options=[], chosen="update the sync time on every push",
                 rationale="Next, I'll locate the table definitions in the schema for context."),
        Decision(title="Add a second remote", options=[], chosen="add a second remote",
                 rationale="instead of overwriting origin, then push the branch to the new URL")])
    run_phase2(ws, flush=True)
    narrated = (ws.decisions_dir / "update-the-sync-time-on-every-push.md").read_text()
    assert "## Chosen" in narrated and "## Rationale" not in narrated and "I'll locate" not in narrated
    reason = (ws.decisions_dir / "add-a-second-remote.md").read_text()
    assert "## Rationale\ninstead of overwriting origin\n" in reason and "push the branch" not in reason


_REASONS = st.lists(st.sampled_from(["Next,", "I'll", "let", "me", "the", "cache", "is", "slow", "then", "push",
                                     "(", ")", "\"", "Also", "adding", "Good", "-", "because", "it", "fails", "."]),
                    min_size=1, max_size=20).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(_REASONS)
def test_a_rationale_keeps_only_words_it_was_given(rationale: str) -> None:
    from yoi_tui.core.phase2.decision_text import rationale_text

    said = rationale_text(rationale)
    assert said in " ".join(rationale.split()) or all(word in rationale for word in said.split())
    assert rationale_text(said) == said or not said  # idempotent: a reason read again stays the reason


# --- a verdict on the last change ("Better, we got X, but …") is no title ---------------------------


def test_a_title_that_is_a_verdict_takes_the_problem_reported_after_but() -> None:
    asked = asked_text("Better, we got the map and the legend this time, but looks like a timezone bug still "
                       "[Image #1] and logs: offset exceeded.")
    assert request_title("Fix better, we got the map and the legend", asked, "") == "Fix a timezone bug"
    assert request_title("Closer! The menu opens", asked_text("Closer! The menu opens, but please move it left."),
                         "") == "Move it left"
    # no "but": nothing better to say, the title stays; a title that merely has the word stays too
    assert request_title("Fix good catch", "Good catch, thanks.", "") == "Fix good catch"
    assert request_title("Fix better caching", asked_text("Fix better caching, but only for reads."), "") == \
        "Fix better caching"


# --- "Done:" is what was done: no thanks, headings, emoji or a list opening it was cut before -----


def test_a_report_loses_its_furniture_and_keeps_what_was_done() -> None:
    from yoi_tui.core.phase2.request_text import done_text

    assert done_text("Thanks for the report — sorry for the noise. The parser fix is in, tests are green.") == \
        "The parser fix is in, tests are green."
    assert done_text("Good catch — thanks for the trace. You're right: the flag must be read first. I fixed "
                     "that. What I fixed.") == "The flag must be read first. I fixed that."
    assert done_text("✅ Uploader Configured For Retries.") == "Uploader Configured For Retries."
    assert done_text("I added the `retries` setting to the uploader. Here's what was done: Changes Made; 1.") == \
        "I added the `retries` setting to the uploader."
    assert done_text("Fixed. Removed the stale `lock` line.") == "Removed the stale `lock` line."
    # a report that is only headings says nothing done; a one-word outcome at the end stays
    assert done_text("🔍 Deep Dive: Cache Layer. Options Available.") == ""
    assert done_text("Wrote the plan to `plan.md`; the deploy key still needs a person. Blocked.").endswith("Blocked.")
    assert done_text("Compiles clean.") == "Compiles clean."


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["Thanks", "for", "that", "—", "Fixes", "Applied", "Here's", "what", "was", "done:",
                                 "Changes", "Made;", "1.", "✅", "🔍", "I", "fixed", "the", "`parser`", "bug.",
                                 "Deep", "Dive:", "Cache."]), min_size=1, max_size=18).map(" ".join))
def test_a_report_says_only_words_the_agent_wrote(report: str) -> None:
    from yoi_tui.core.phase2.request_text import done_text

    said = done_text(report)
    given_words = {w.strip(".,;:!").lower() for w in report.split()}
    assert all(w.strip(".,;:!").lower() in given_words for w in said.split()), (report, said)


def test_an_unclosed_bracket_in_front_of_an_opener_is_debris() -> None:
    from yoi_tui.core.store.titles import clean_title, strip_front

    assert strip_front("( Please")[0] == ""  # found by hypothesis in test_record_titles
    assert clean_title("( please rename the helper") == "Rename the helper"
    assert clean_title("(draft) add the retry").startswith("(draft)")  # a closed bracket is the user's own


def test_an_error_said_as_make_is_a_fix() -> None:
    asked = "The app stops at start. ImportError: cannot import name 'Widget' from 'ui.core'."
    assert request_title("Make ImportError: import name 'Widget' from 'ui.core'", asked, "") == \
        "Fix ImportError: import name 'Widget' from 'ui.core'"
    assert request_title("Make error pages friendlier", "Make error pages friendlier.", "") == \
        "Make error pages friendlier"  # "error" as an adjective of what to make stays
    assert request_title("Make the build faster", "Make the build faster.", "") == "Make the build faster"
