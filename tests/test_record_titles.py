"""Titles and summaries a teammate keeps (issue 26, deliverable 3): each test fails without its rule.

A title is a short imperative sentence of what was asked — labels, ticket ids, headings and polite
openers off the front, punctuation debris and dangling words off the end, never cut inside a word
(checked for any input with hypothesis). A request's summary says what was asked in whole
sentences and what the agent reported it did; harness text and polls make no record.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from phase2_fixtures import stage
from support import make_ws
from test_phase1_rules import Log

from yoi_tui.core.phase1.rules_requests import problem_title
from yoi_tui.core.phase1.text import report_of, short_title, summary_of
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.staging import Attempt, Discussion, Request
from yoi_tui.core.store.titles import MAX_TITLE, clean_title, strip_front

_WORD_RE = re.compile(r"[^\W_]+")  # letters and digits: what "a word" is, whatever punctuation joins it


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD_RE.findall(text)}


# ---------------------------------------------------------------- shapes


@pytest.mark.parametrize(("raw", "title"), [
    ("Fix: confirm agentv eval still works", "Confirm agentv eval still works"),
    ("Fix: the login page", "Fix the login page"),
    ("fix(auth): token refresh", "Fix token refresh"),
    ("Bug fix: retry the upload", "Retry the upload"),
    ("Plan: Propagate verbose logging", "Propagate verbose logging"),
    ("Implement the following plan: # Plan: Propagate verbose logging", "Propagate verbose logging"),
    ("# Bug Fix: \"Evaluate Impact\" evaluates the original files", "Fix \"Evaluate Impact\" evaluates the original files"),
    ("## Add a cache to the client", "Add a cache to the client"),
    ("- [ ] write the changelog", "Write the changelog"),
    ("Please add a retry", "Add a retry"),
    ("Can you add a retry?", "Add a retry"),
    ("ok now please, make it faster!!", "Make it faster"),
    ("Ultrathink and come up with a plan", "Come up with a plan"),
    ("[ABC-123] Add SSO login", "Add SSO login"),
    ("ABC-123: Add SSO login", "Add SSO login"),
    ("#123: Add SSO login", "Add SSO login"),
    ("feat(ui): give the sidebar a lighter caret", "Give the sidebar a lighter caret"),
    ("Add a retry to the (", "Add a retry"),
    ("Rename `foo to bar", "Rename foo to bar"),
    ("Use SQLite for the cache...", "Use SQLite for the cache"),
    ("Update the docs and", "Update the docs"),
    ("**Commit**: the fix", "Commit: the fix"),
    ("git push origin main", "git push origin main"),
    ("make a task agent", "Make a task agent"),
    ("Next.js app router migration", "Next.js app router migration"),
    ("Support C++ builds", "Support C++ builds"),
    ("... please fix the login bug", "Fix the login bug"),  # an ellipsis in front is a mark
    (". fix the login bug", "Fix the login bug"),
    (".env is read twice", ".env is read twice"),  # a dot before a word is part of it
])
def test_a_title_loses_its_labels_openers_and_debris(raw: str, title: str) -> None:
    assert clean_title(raw) == title


@pytest.mark.parametrize(("sentence", "title"), [
    # a reason or an aside after a comma is not what to do
    ("rename native_viewer just codex_log_viewer, it will not clash namespace with python anyway",
     "Rename native_viewer just codex_log_viewer"),
    ("remove the plugin no longer needed, can merge directly", "Remove the plugin no longer needed"),
    ("send the command flags and arguments, in other words, the whole thing executed by the user",
     "Send the command flags and arguments"),
    # pasted code or a log field ends it
    ("release failed after 22m5s error=notarize: macos: notarize dist/cli_darwin_arm64_v8.0/entire",
     "Release failed after 22m5s"),
    # "and" parts clauses only before a verb: "cause and effect" stays, "... and determine" goes
    ("come up with a chain of cause and effect relationships spanning at least 20 steps that links today",
     "Come up with a chain of cause and effect"),
    ("analyse the MD files in this directory and determine if the info we have is clear enough to start",
     "Analyse the MD files in this directory"),
    ("remove the accidental root artifacts root.txt and nested and push directly to main please now",
     "Remove the accidental root artifacts root.txt and nested"),
])
def test_a_title_is_the_instruction_not_its_reason_or_paste(sentence: str, title: str) -> None:
    assert short_title(sentence) == title


@pytest.mark.parametrize(("problem", "title"), [
    ("mix phx.server doesnt seem to start", "Make mix phx.server start"),
    ("the button is not visible", "Make the button visible"),
    ("the sidebar is not working", "Fix the sidebar"),
    ("mise run lint fails", "Fix mise run lint failing"),
    ("release failed after 0s", "Fix release failing after 0s"),
    ("the menu says Guest User", "Fix the menu saying Guest User"),
    ("the export is broken", "Fix the export"),
    ("I got this feedback on this PR branch", "Address the feedback on this PR branch"),
    ("stderr: error: invalid value 'network-only' for '--sandbox'", "Fix invalid value 'network-only' for '--sandbox'"),
    ("there is a file called nul in the work tree", "Fix a file called nul in the work tree"),
])
def test_a_problem_statement_is_titled_as_the_fix_it_asks_for(problem: str, title: str) -> None:
    assert problem_title(problem) == title


def test_request_titles_carry_no_fix_label_and_unknown_verbs_asked_politely_are_instructions() -> None:
    log = Log()
    log.user("also this is a message from another agent, please confirm agentv eval still works. try both graders")
    log.say("Confirmed.")
    log.user("I'd like to word the Gemini Preview section in README.md a bit better")
    log.say("Reworded.")
    log.user("why did i ask about toml? it's not needed, remove that configuration.")
    log.say("Removed.")
    log.user("mise run lint fails")
    titles = [r.title for r in log.extract().requests]
    assert titles == ["Confirm agentv eval still works", "Word the Gemini Preview section in README.md a bit better",
                      "Remove that configuration", "Fix mise run lint failing"]
    assert not any(t.startswith("Fix:") for t in titles)


# ---------------------------------------------------------------- never cut inside a word, for any input

_PIECES = st.sampled_from(["Fix:", "Plan:", "# ", "## ", "- ", "Please", "please,", "can you", "[ABC-12]", "#12:", "(",
                           ")", "`", '"', "…", "...", "!!", "?", ",", "and", "the", "of", "it", "make", "git",
                           "feat(ui):", "**", "—", "it will", "because", "error=x:", "http://x.y/z", "e.g.", "don't",
                           "C++", "Next.js", "root.txt", "“", "”"])
_TEXT = st.lists(st.one_of(_PIECES, st.text(min_size=1, max_size=14)), max_size=40).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_a_title_is_never_cut_inside_a_word_for_any_input(text: str) -> None:
    for title in (clean_title(text), short_title(text)):
        added = {"fix"} if _words(text) else {"untitled"}  # the word a "Fix:" label becomes; a title for nothing
        assert _words(title) <= _words(text) | added, (text, title)
        assert title.strip() == title and "  " not in title and "\n" not in title
        assert len(title) <= MAX_TITLE or " " not in title  # only a single over-long word is longer
        if _words(text):
            assert title


@settings(max_examples=300, deadline=None)
@given(_TEXT)
@example("_ Please")  # an underscore used as a bullet is a mark, like "-" (found by hypothesis)
@example("_ please rename the helper")
@example("... Please")  # an ellipsis in front is a mark too (found by hypothesis)
@example(". please fix it")
@example("` Please `")  # an opener in code marks is still only an opener (found by hypothesis)
def test_a_title_has_no_label_in_front_and_no_debris_at_the_end(text: str) -> None:
    title = clean_title(text)
    if not _words(strip_front(text.replace("`", " "))[0]):
        return  # nothing but labels and openers ("Please", "` Please `"): the title is those words
    assert not re.match(r"^(?:fix|plan|bug fix|feat(?:\([^)]*\))?)\s*:", title, re.IGNORECASE), title
    assert not re.match(r"^(?:please|can you|#+\s|-\s)", title, re.IGNORECASE), title
    assert not title.endswith((".", ",", ";", ":", "!", "?", "…", "-", "—", "(")), title


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(alphabet="abcdefgh ijk.,?!", min_size=1, max_size=12)), min_size=1,
                max_size=30).map(" ".join))
def test_a_request_title_is_never_cut_inside_a_word(message: str) -> None:
    log = Log()
    log.user(message)
    added = {"fix", "make", "address", "the", "feedback", "failing", "crashing", "erroring", "breaking", "throwing",
             "hanging", "panicking", "saying", "showing", "returning", "giving", "printing", "timing", "out",
             "write", "project", "instructions", "init", "run", "untitled"}
    for request in log.extract().requests:
        assert _words(request.title or "") <= _words(message) | added, (message, request.title)
        assert "…" not in (request.title or "") or "…" in message


# ---------------------------------------------------------------- summaries


def test_a_long_message_is_summarised_in_whole_sentences_never_cut_with_an_ellipsis() -> None:
    message = ("also this is a message from another agent, please confirm agentv eval still works. try with both "
               "code grader and live llm grader, maybe run some existing examples in this repo. I also verified "
               "the bun run path docs update is present in the final state (path: bun run ../scripts/or.js) and "
               "the strict-OR example script is documented in the composite README. I also ran the requested dry-run")
    summary = summary_of(message, 300)
    assert summary == ("Also this is a message from another agent, please confirm agentv eval still works. Try with "
                       "both code grader and live llm grader, maybe run some existing examples in this repo.")
    assert "…" not in summary
    one_long = "we need " + " ".join(f"step{i}" for i in range(60)) + ", then ship it, and tell me"
    assert "…" not in summary_of(one_long, 120) and len(summary_of(one_long, 120)) <= 120


def test_a_plan_handed_over_is_summarised_by_its_subject_and_first_sentences() -> None:
    log = Log()
    log.user("Implement the following plan:\n\n# Fix: Show issues alongside diff when expanded\n\n## Context\n\n"
             "In `UnifiedFileRow`, the expanded state hides issues when the diff is shown. Users expect both.\n\n"
             "## Change\n\n**File**: `frontend/src/components/Card.tsx`\n")
    (request,) = log.extract().requests
    assert request.title == "Show issues alongside diff when expanded"
    assert request.summary.startswith("Carry out the plan “Show issues alongside diff when expanded”. In "
                                      "`UnifiedFileRow`, the expanded state hides issues when the diff is shown.")
    assert "#" not in request.summary and "Implement the following plan" not in request.summary


def test_what_the_agent_reported_is_kept_without_its_narration_fillers_or_questions() -> None:
    assert report_of("Done! Removed the `agentv-claude-trace` plugin. I'm running the tests now. Want me to push?",
                     240) == "Removed the `agentv-claude-trace` plugin."
    assert report_of("The branch is pushed. I’m doing a final status check so I can report the exact state.",
                     240) == "The branch is pushed."
    assert report_of("The fix replaces the ternary so that:\n- **Bullets** are always rendered\n- the diff shows "
                     "when expanded\n\nThe untracked file will stay out of the commit.", 240) == \
        "The fix replaces the ternary so that: Bullets are always rendered; the diff shows when expanded."
    assert report_of("Created `/Users/me/projects/app/codex_sessions/dump.json`.\n`/Users/me/x/y/z.json`", 240) == \
        "Created `codex_sessions/dump.json`."
    assert report_of("I'll look into it. Let me check the logs.", 240) == ""
    assert report_of("## Summary\n\nI've updated the NavUser component to show the user's initials.", 240) == \
        "I've updated the NavUser component to show the user's initials."  # the heading is no sentence


def test_a_request_carries_what_the_agent_reported_before_the_next_request() -> None:
    log = Log()
    log.user("remove the stray root.txt")
    log.say("I'll remove it and commit.")
    log.call("Bash", {"command": "git rm root.txt"}, "rm 'root.txt'")
    log.say("Removed `root.txt` and committed it as 1a2b3c. I'm not pushing: the repo forbids pushes to main.")
    log.user("what is in nested?")  # a question: a request of its own, answered by what follows
    log.say("An empty gitlink.")
    log.user("add a retry")
    requests = log.extract().requests
    # the first request's "Done" stops at the next user line: the answer to the question is not in it
    assert [r.done for r in requests] == [
        "Removed `root.txt` and committed it as 1a2b3c.", "An empty gitlink.", None]
    assert requests[0].range == (0, 4)  # the record cites the message the report came from


def test_what_the_agent_said_it_would_not_do_joins_the_report() -> None:
    log = Log()
    log.user("please remove root.txt and push directly to main")
    log.say("This should land on a fresh branch; I will not push directly to `main` because the repo forbids "
            "that. I'm moving the deletion now.")
    log.call("Bash", {"command": "git push -u origin chore/remove-root"}, "pushed")
    log.say("The branch is pushed. I'm doing a final status check.")
    log.user("export the current session to the repository using the naming scheme. use a meaningful name.")
    first, second = log.extract().requests
    assert first.done == "The branch is pushed. I will not push directly to `main` because the repo forbids that."
    assert second.title == "Export the current session to the repository using the naming scheme"  # "export": a verb


def test_the_record_says_what_was_asked_and_what_was_done(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "0197d4-session", 0, 9, requests=[
        Request(intent="remove", target="root.txt", summary="Please remove the stray root.txt.",
                title="Fix: remove the stray root.txt", done="Removed `root.txt` on a PR branch.", range=(1, 1)),
        Request(intent="run", target="push", summary="Please push.", done="Pushed to origin.", range=(5, 5))])
    run_phase2(ws, flush=True)
    body = (ws.root / "memory/requests/remove-the-stray-root-txt.md").read_text(encoding="utf-8")
    assert "\n# Remove the stray root.txt\n" in body  # the stray "Fix:" label is gone from the title
    assert "## Summary\nPlease remove the stray root.txt. Done: Removed `root.txt` on a PR branch.\n" in body
    assert "## Then\n- Please push. Done: Pushed to origin.\n" in body


# ---------------------------------------------------------------- noise makes no record


@pytest.mark.parametrize("text", [
    "[Request interrupted by user for tool use]",
    "Stop hook feedback: Cannot exit with unstaged changes",
    "PreToolUse:Bash hook blocking error from command: ./check.sh",
    "<system-reminder>Remember the todo list</system-reminder>",
    "<local-command-stdout>Set model to opus</local-command-stdout>",
    "Caveat: The messages below were generated by the user while running local commands.",
    "<turn_aborted>interrupted</turn_aborted>",
    "# AGENTS.md instructions for /home/u/project\n\nUse ruff.",
])
def test_harness_text_posing_as_a_user_line_is_no_request(text: str) -> None:
    log = Log()
    log.user(text)
    assert log.extract().requests == []


def test_a_poll_of_a_running_command_makes_no_failure_line(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "0197e5-session", 0, 20,
          requests=[Request(intent="run", target="build", summary="Build the app.", title="Build the app", range=(0, 0))],
          attempts=[Attempt(trial="write_stdin {\"session_id\": 84145}", result="failed: exit 1; not fixed in this range",
                            outcome="failure", range=(4, 6)),
                    Attempt(trial="BashOutput bash_1", result="still running", outcome="failure", range=(7, 8)),
                    Attempt(trial="`bun run build`", result="failed: exit 1: missing export; not fixed in this range",
                            outcome="failure", range=(10, 12))])
    report = run_phase2(ws, flush=True)
    assert report.exit_code == 0
    body = (ws.root / "memory/requests/build-the-app.md").read_text(encoding="utf-8")
    assert "bun run build" in body and "write_stdin" not in body and "BashOutput" not in body
    assert not list(ws.staging_dir.glob("*.json"))  # the polls' staging is consumed, not held
    assert not (ws.root / "knowledge/lessons-from-agent-sessions.md").exists()


def test_a_discussion_is_one_line_the_question_then_what_was_said(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "0197f6-session", 0, 9,
          requests=[Request(intent="add", target="export", summary="Export the session.", title="Export the session",
                            range=(0, 0))],
          discussions=[Discussion(topic="is there a way to keep secrets out?", range=(3, 5),
                                  points=["I set up a redacted export", "Tokens are masked.", "Tool output is dropped"])])
    run_phase2(ws, flush=True)
    body = (ws.root / "memory/requests/export-the-session.md").read_text(encoding="utf-8")
    assert "## Discussion\n- is there a way to keep secrets out? I set up a redacted export. Tokens are masked. " \
           "Tool output is dropped.\n" in body  # not the question repeated before each point
