"""Phase 2's records on development sessions (round 9, 2026-12-04): a problem the user reports is
titled as its fix (never a verb pasted in front of the report), a "same error" follow-up and a
"continue" belong to the request before, a title never ends on a dangling word nor loses a
question's last words, a report opens with what was done (no greeting), a choice has no Markdown
debris. Small constructed staging and requests, run through the real Phase 2 code."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from phase2_fixtures import stage
from support import make_ws

from yoi_tui.core.phase2.decision_text import chosen_text, option_text
from yoi_tui.core.phase2.request_text import (
    asked_text,
    done_text,
    is_same_again,
    names_a_target,
    request_title,
)
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.staging import Decision, Request
from yoi_tui.core.store.titles import clean_title, decision_title

# --- a problem the user reports is titled as its fix ----------------------------------------------


def test_a_report_with_a_verb_pasted_in_front_is_titled_as_fixing_the_problem() -> None:
    asked = asked_text("They're cute, but the drag handle also doesn't work. I can't move the nodes at all.")
    assert request_title("Fix they're cute, but the drag handle also doesn't work", asked, "") == \
        "Fix the drag handle not working"
    asked = asked_text("getting a blank screen: Uncaught ReferenceError: global is not defined")
    assert request_title("Make getting a blank screen uncaught ReferenceError global", asked, "") == \
        "Fix a blank screen: Uncaught ReferenceError: global is not defined"
    asked = asked_text("I'm getting a 500 on the login page, the logs say nothing.")
    assert request_title("Fix i'm getting a 500 on the login page", asked, "") == "Fix a 500 on the login page"
    # a fix of a thing, and a thing to make, are no reports: kept as they are
    assert request_title("Fix the login page", asked_text("The login page is broken."), "") == "Fix the login page"
    assert request_title("Make error pages friendlier", "Make error pages friendlier.", "") == \
        "Make error pages friendlier"


def test_a_thought_with_a_verb_in_front_takes_the_instruction_said_or_stays() -> None:
    asked = asked_text("i'm thinking of other neurodivergent users. Can you add a calm mode toggle?")
    assert request_title("Fix i'm thinking of other neurodivergent users", asked, "") == "Add a calm mode toggle"
    # nothing asked and no problem named: the title is not made into an invented one
    asked = asked_text("i'm thinking of other neurodivergent users who may want a calmer layout.")
    assert request_title("Fix i'm thinking of other neurodivergent users", asked, "") == \
        "Fix i'm thinking of other neurodivergent users"


def test_a_wish_before_make_it_so_is_the_instruction() -> None:
    asked = asked_text("Python3 should point to python 3.11. Please make it so.")
    assert request_title("make", asked, "") == "Make python3 point to python 3.11"
    assert request_title("Do it", asked_text("The cache must be cleared on logout. Do it."), "") == \
        "Make the cache cleared on logout"
    assert request_title("make", "make", "") == "make"  # no wish said: nothing invented


def test_a_thing_reported_then_asked_about_with_pronouns_is_named_in_the_title() -> None:
    asked = asked_text("There is a file called nul in the work tree here that I'm unable to remove. It has zero "
                       "bytes. Can you find it and remove that for me?")
    assert request_title("Fix a file called nul in the work tree", asked, "") == \
        "Find and remove a file called nul in the work tree"


def test_a_question_keeps_its_last_words() -> None:
    assert request_title("Which conda environment am", "Which conda environment am i in?", "") == \
        "Which conda environment am i in"
    assert clean_title("Which conda environment am i in?") == "Which conda environment am i in"
    assert clean_title("Can you add a retry?") == "Add a retry"  # an instruction asked politely: no question


# --- a follow-up that only repeats the problem, and a "continue", belong to the request before -----


def test_same_error_follow_ups_are_recognised() -> None:
    for said in ("same error", "Same error.", "still the same error", "I still get the same error: Traceback …",
                 "Nope, same issue again", "same problem"):
        assert is_same_again(said), said
    for said in ("Same error handling should apply to the upload route", "Fix the error", "same as before, but "
                 "add a retry"):
        assert not is_same_again(said), said


def test_a_same_error_follow_up_joins_the_request_before(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 20, requests=[
        Request(intent="fix", target="", summary="The dashboard shows a blank page after login.",
                title="Fix the blank dashboard after login", done="Reset the store on login.", range=(0, 8)),
        Request(intent="fix", target="", summary="same error", title="Fix same error",
                done="The store was reset twice; now it is reset once and the dashboard renders.", range=(9, 20))])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.requests_dir.glob("*.md"))
    assert names == ["fix-the-blank-dashboard-after-login.md"], names
    text = (ws.requests_dir / names[0]).read_text()
    assert "refined: same error" in text and "the dashboard renders" in text
    assert "range: [0, 20]" in text


def test_a_continue_after_a_stop_is_the_same_request(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    asked = "Validate this code from several perspectives and open issues for what you find."
    stage(ws, "s1", 0, 40, requests=[
        Request(intent="other", target="", summary=asked, title="Validate this code from several perspectives",
                range=(0, 0)),
        Request(intent="continue", target="", summary=f"Continue: {asked}",
                title="Continue: Validate this code from several perspectives",
                done="Opened five issues: two security, three tests.", range=(1, 40))])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.requests_dir.glob("*.md"))
    assert names == ["validate-this-code-from-several-perspectives.md"], names
    text = (ws.requests_dir / names[0]).read_text()
    assert "Done: Opened five issues" in text and "range: [0, 40]" in text and "Continue:" not in text


# --- titles end on a whole thought ------------------------------------------------------------------


def test_a_title_keeps_the_object_of_its_verb_and_loses_a_dangling_preposition() -> None:
    assert clean_title("Create a conda environment to run this") == "Create a conda environment to run this"
    assert clean_title("Fix it") == "Fix it"
    assert clean_title("Follow the guidelines to always use branches and PRs rather") == \
        "Follow the guidelines to always use branches and PRs"
    # shortened: the preposition lost its object with the cut
    long = "Use the existing voice announcement system through the speaker module on every platform we support"
    assert clean_title(long, limit=60) == "Use the existing voice announcement system"
    assert clean_title("Walk me through") == "Walk me through"  # said whole: nothing lost


_WORDS = st.lists(st.sampled_from(["use", "the", "system", "through", "fix", "it", "run", "this", "rather", "than",
                                   "which", "am", "i", "in", "?", "over", "voice", "a", "branch"]),
                  min_size=1, max_size=30).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(_WORDS, st.integers(min_value=10, max_value=100))
def test_a_title_holds_whole_words_of_its_text_and_never_ends_on_a_function_word(text: str, limit: int) -> None:
    title = clean_title(text, limit=limit)
    assert set(title.lower().split()) <= set(text.lower().split()) | {"untitled"}
    words = title.split()
    if len(words) > 1 and not text.rstrip().endswith("?"):
        assert words[-1].lower() not in {"the", "a", "rather", "than", "which", "in"}, (text, title)


# --- a report opens with what was done; fields hold no debris ---------------------------------------


def test_a_report_loses_a_greeting_with_the_users_name() -> None:
    assert done_text("Alright La Boeuf, here is the PoC plan: a SwiftUI app with three screens.") == \
        "Here is the PoC plan: a SwiftUI app with three screens."
    assert done_text("Hey Okarin, I added the section to test-file.txt.") == "I added the section to test-file.txt."
    assert done_text("So the cache was stale; I cleared it.") == "So the cache was stale; I cleared it."


def test_a_target_that_labels_pasted_output_is_no_target() -> None:
    assert not names_a_target("stderr", "I got this issue. Stderr: error: invalid value")
    assert names_a_target("the stderr parser", "Fix it.")


def test_a_choice_has_no_bold_marks_and_a_gerund_verdict_is_no_title() -> None:
    assert chosen_text("**Option B** — keep the **cache** warm") == "Option B — keep the cache warm"
    assert chosen_text("I will use __init__.py for the version") == "Use __init__.py for the version"
    assert option_text("**SQLite** with WAL") == "SQLite with WAL"
    assert decision_title("Keeping the explicit flag is clearer") == "Keep the explicit flag"
    assert decision_title("Making it a single source of truth") == "Make it a single source of truth"


def test_a_decision_record_written_from_bold_staging_reads_plainly(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 4, decisions=[
        Decision(title="Keeping the explicit flag is clearer", options=["**keep the flag**", "drop it"],
                 chosen="**keep the flag**", rationale="`--full-auto` already implies it, but the flag says so.")])
    run_phase2(ws, flush=True)
    text = (ws.decisions_dir / "keep-the-explicit-flag.md").read_text()
    assert "# Keep the explicit flag\n" in text and "**" not in text


# --- second change: a summary holds what was asked; one request sent twice is one record ------------


def test_a_summary_cut_before_its_instruction_ends_with_it(tmp_path: Path) -> None:
    from yoi_tui.core.phase2.request_text import with_instruction

    context = ("In the `themes-svg` branch, commit 5cf09a5f accidentally committed two stray scratch files that "
               "don't belong in the repo: `website/_scratch_schema.json` and `website/_scratch_templates.txt`.")
    assert with_instruction(context, "Remove them with a small cleanup commit") == \
        context + " Remove them with a small cleanup commit."
    # the instruction said in the summary, a short summary, a slash command: as they are
    assert with_instruction("Add a retry to the upload client and log each attempt with its delay in "
                            "seconds, so we can see the backoff.", "Add a retry to the upload client").endswith("backoff.")
    assert with_instruction("conda activate aie311", "Run `conda activate aie311`") == "conda activate aie311"
    assert with_instruction("/init", "Write the project instructions (/init)") == "/init"
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 3, requests=[Request(intent="remove", target="them", summary=context,
                                            title="Remove them with a small cleanup commit", range=(0, 3))])
    run_phase2(ws, flush=True)
    text = (ws.requests_dir / "remove-them-with-a-small-cleanup-commit.md").read_text()
    assert "`website/_scratch_templates.txt`. Remove them with a small cleanup commit.\n" in text


def test_a_request_sent_again_word_for_word_is_one_record_with_the_later_outcome(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 20, requests=[
        Request(intent="run", target="", summary="conda activate aie311", title="Run `conda activate aie311`",
                done="Environment activated.", range=(0, 4)),
        Request(intent="explain", target="", summary="Which conda environment am i in?",
                title="Which conda environment am i in", done="You're in `base`.", range=(5, 8)),
        Request(intent="run", target="", summary="conda activate aie311", title="Run `conda activate aie311`",
                done="The activation didn't persist in the bash session; run it in your own terminal.",
                range=(9, 12)),
        Request(intent="commit", target="", summary="commit", title="Commit", range=(13, 14)),
        Request(intent="commit", target="", summary="commit", title="Commit", range=(15, 20))])
    run_phase2(ws, flush=True)
    text = (ws.requests_dir / "run-conda-activate-aie311.md").read_text()
    assert "Environment activated." not in text and "didn't persist" in text
    assert text.count("conda activate aie311 Done:") == 1 and "range: [0, 12]" in text


# --- second change: a title cut before an object, a question's header, an aside ---------------------


def test_a_title_cut_before_a_prepositions_object_loses_the_preposition(tmp_path: Path) -> None:
    from yoi_tui.core.store.titles import trim_cut

    said = "Yes, we'll use the existing voice announcement system through the speaker module."
    assert trim_cut("Use the existing voice announcement system through", said) == \
        "Use the existing voice announcement system"
    assert trim_cut("Walk me through", "Walk me through") == "Walk me through"  # said whole
    assert trim_cut("Create a conda environment to run this", "Create a conda environment to run this. Name it.") == \
        "Create a conda environment to run this"
    assert decision_title("Voice system - Yes, we'll use the existing voice announcement system") == \
        "Use the existing voice announcement system"
    assert decision_title("API key - I have a key") == "API key - I have a key"  # no answer word: as it is
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 3, decisions=[Decision(
        title="Voice system - Yes, we'll use the existing voice announcement system through", options=[],
        chosen=said, rationale="it already speaks on every platform")])
    run_phase2(ws, flush=True)
    assert (ws.decisions_dir / "use-the-existing-voice-announcement-system.md").exists()


def test_a_fix_named_as_a_noun_and_an_aside_after_the_instruction() -> None:
    assert request_title("Fix for the C1 issuem i don't want", "fix for the C1 issuem i don't want a modal", "") == \
        "Fix the C1 issuem"
    assert request_title("Make the page load faster I think it is the images", "Make the page load faster I "
                         "think it is the images.", "") == "Make the page load faster"
    assert request_title("Remove the files i don't use", "Remove the files i don't use.", "") == \
        "Remove the files i don't use"


# --- third change: a document's heading staged as a choice makes no decision record ------------------


def test_a_documents_heading_makes_no_decision_record(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    heading = "Feature Specification: Extension Injection Platform (specs/001-extension-system/spec.md)"
    stage(ws, "s1", 0, 9, decisions=[
        Decision(title=heading, options=[], chosen=heading, rationale=""),
        Decision(title="Implementation Plan: Editable Task Viewer Inputs", options=[],
                 chosen="Implementation Plan: Editable Task Viewer Inputs", rationale=""),
        # a choice about a document is one: it has a reason
        Decision(title="Keep the plan in docs/plan.md", options=[], chosen="Keep the plan in docs/plan.md",
                 rationale="one place the team already reads")])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.decisions_dir.glob("*.md"))
    assert names == ["keep-the-plan-in-docs-plan-md.md"], names


# --- fourth change (a second set of development sessions): names, ids, questions, debris --------------


def test_a_choice_named_as_a_noun_phrase_is_said_as_an_instruction() -> None:
    assert decision_title("Homebrew_casks instead of brews") == "Use homebrew_casks instead of brews"
    assert decision_title("Vitest over Jest") == "Use Vitest over Jest"
    assert decision_title("Merge conflict in manual_commit_git.go") == \
        "Resolve the merge conflict in manual_commit_git.go"
    assert decision_title("Uses identify endpoint for raster layer instead of feature query") == \
        "Use identify endpoint for raster layer instead of feature query"
    # a choice said with its verb, a subject and its verb: as they are
    assert decision_title("Use X instead of Y") == "Use X instead of Y"
    assert decision_title("Tests pass in CI") == "Tests pass in CI"


def test_a_title_that_is_a_command_an_id_or_a_path_says_what_was_asked() -> None:
    asked = asked_text("Mise run lint throws issues. However, i want the parameters retained.")
    assert request_title("mise run lint throws issues", asked, "") == "Fix the issues `mise run lint` reports"
    assert request_title("FND-001", "FND-001.", done_text("Implemented `FND-001` end-to-end with TDD.")) == \
        "Implement FND-001"
    assert request_title("FND-001", "FND-001.", "") == "FND-001"  # nothing reported: nothing invented
    assert request_title(".codex/prompts/implement.md", ".codex/prompts/implement.md.", "") == \
        "Follow the instructions in `.codex/prompts/implement.md`"
    assert request_title("How can I install the casks so i can test", asked_text(
        "How can I install the casks so i can test it."), "") == "How can I install the casks so i can test it"


def test_a_part_asked_again_is_said_once_and_targets_that_repeat_the_opening_go() -> None:
    assert asked_text("Fix tests. — refined: Fix tests. — refined: Fix the test, the code is right.") == \
        "Fix tests. — refined: Fix the test, the code is right."
    assert not names_a_target("brews is being phased (goreleaser.com, homebrew_casks)",
                              "Brews is being phased out in favor of homebrew_casks, check the docs")
    assert not names_a_target("that file", "Delete that file.")
    assert names_a_target("a spec (docsOrchestratorArchitecture.md)", "Create a spec which will implement it")


def test_records_name_the_file_meant_and_hold_no_bold_debris(tmp_path: Path) -> None:
    from yoi_tui.core.store.staging import Discussion

    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 12, requests=[
        Request(intent="add", target="a file about geese", summary="Write a file about geese in docs.",
                title="Write a file about geese in docs", done="Created `docs/geese.md` with an overview.",
                range=(0, 5)),
        Request(intent="remove", target="that file", summary="Delete that file.", title="Delete that file",
                done="`docs/geese.md` has been deleted.", range=(6, 12))],
        discussions=[Discussion(topic="how can I install the casks?", range=(6, 12),
                                points=["Generate the cask without publishing:**", "**Install** from the file:**"])])
    run_phase2(ws, flush=True)
    text = (ws.requests_dir / "delete-geese-md.md").read_text()
    assert "# Delete geese.md\n" in text and "Target:" not in text
    written = "".join(p.read_text() for p in ws.requests_dir.glob("*.md"))
    assert "Generate the cask without publishing. Install from the file." in written and "**" not in written


def test_a_documents_heading_titled_without_its_kind_makes_no_decision_record(tmp_path: Path) -> None:
    # Phase 1 reads "Implementation Plan:" as a label and titles the heading by the rest: still the
    # heading of the plan.md the agent wrote, no choice.
    ws = make_ws(tmp_path)
    heading = "Implementation Plan: Editable Task Viewer Inputs (specs/001-task-viewer-edit/plan.md)"
    stage(ws, "s1", 0, 9, decisions=[
        Decision(title="Editable Task Viewer Inputs (specs/001-task-viewer-edit/plan.md)", options=[],
                 chosen=heading, rationale=""),
        # a choice told with a label and no document's path is a choice still
        Decision(title="Keep the inline editor in the design system", options=[],
                 chosen="Plan: keep the inline editor in the design system", rationale="")])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.decisions_dir.glob("*.md"))
    assert names == ["keep-the-inline-editor-in-the-design-system.md"], names


def test_a_document_with_its_path_makes_no_decision_whatever_its_rationale(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    heading = "Tasks: IdeaVault MVP (specs/001-build-a-lightweight/tasks.md)"
    stage(ws, "s1", 0, 3, decisions=[Decision(title=heading, options=[], chosen=heading,
                                              rationale="Tests precede implementation per TDD.")])
    run_phase2(ws, flush=True)
    assert not list(ws.decisions_dir.glob("*.md"))


def test_a_deprecation_reported_is_titled_as_the_replacement() -> None:
    asked = asked_text("Brews is being phased out in favor of homebrew_casks, check the deprecations page.")
    assert request_title("Brews is being phased out in favor of homebrew_casks", asked, "") == \
        "Replace brews with homebrew_casks"
    assert request_title("Replace brews with casks", "Replace brews with casks.", "") == "Replace brews with casks"


# --- fifth change (a third set): a "continue" whatever was said before it; a reason inside a choice --


def test_a_continue_folds_even_when_the_stopped_work_said_something(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 19, requests=[
        Request(intent="run", target="", summary="Push to github.", title="Push to github",
                done="I can see you have modified files that need to be committed before pushing.", range=(0, 6)),
        Request(intent="continue", target="", summary="Continue: Push to github.", title="Continue: Push to github",
                done="Successfully pushed to GitHub: 14 files committed and pushed.", range=(7, 19))])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.requests_dir.glob("*.md"))
    assert names == ["push-to-github.md"], names
    text = (ws.requests_dir / names[0]).read_text()
    assert "Done: Successfully pushed" in text and "need to be committed" not in text


def test_a_reason_said_inside_the_choice_is_its_rationale(tmp_path: Path) -> None:
    from yoi_tui.core.phase2.decision_text import split_reason

    assert split_reason("add retry logic using the `nick-fields/retry` action, which is the standard approach "
                        "for GitHub Actions:", "") == ("add retry logic using the `nick-fields/retry` action",
                                                       "it is the standard approach for GitHub Actions")
    assert split_reason("use SQLite, which is in the stdlib", "one file") == \
        ("use SQLite, which is in the stdlib", "one file")  # a rationale of its own: the choice as said
    ws = make_ws(tmp_path)
    stage(ws, "s1", 0, 3, decisions=[Decision(
        title="Add retry logic using the retry action", options=[],
        chosen="add retry logic using the retry action, which is the standard approach for GitHub Actions:",
        rationale="")])
    run_phase2(ws, flush=True)
    text = (ws.decisions_dir / "add-retry-logic-using-the-retry-action.md").read_text()
    assert "## Chosen\nadd retry logic using the retry action\n" in text
    assert "## Rationale\nit is the standard approach for GitHub Actions\n" in text


def test_an_unpaired_code_mark_in_front_of_an_opener_is_debris() -> None:
    from yoi_tui.core.store.titles import strip_front

    assert strip_front("` Please")[0] == ""  # found by hypothesis in tests/test_record_titles.py
    assert clean_title('" Please fix it') == "Fix it"
    assert clean_title("`git push` now") == "`git push` now"  # a paired mark is the title's own


# --- sixth change: the garbled titles of the third held-out half's judgement, said plainly -----------


def test_a_reminder_label_and_a_lone_quote_are_debris() -> None:
    assert clean_title("Remember: we dont need this ' recovery-help.md.template") == \
        "We dont need this recovery-help.md.template"
    assert clean_title("Remember the user's choice") == "Remember the user's choice"  # the verb stays
    assert clean_title("Use 'x' here") == "Use 'x' here"  # a quoted word is no lone quote


def test_an_answered_question_as_a_request_title_is_the_answer(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    said = "Voice system - Yes, we'll use the existing voice announcement system through the speaker module."
    stage(ws, "s1", 0, 3, requests=[Request(
        intent="other", target="", summary=said, range=(0, 3),
        title="Voice system - Yes, we'll use the existing voice announcement system through")])
    run_phase2(ws, flush=True)
    names = sorted(p.name for p in ws.requests_dir.glob("*.md"))
    assert names == ["use-the-existing-voice-announcement-system.md"], names


def test_a_config_line_left_in_front_of_a_report_is_no_outcome() -> None:
    assert done_text("Timeout_minutes: 60 - 60 minute timeout per attempt. I switched to the official install "
                     "script since the retry action wraps a command.") == \
        "I switched to the official install script since the retry action wraps a command."
    assert done_text("Max_attempts: 3.") == "Max_attempts: 3."  # all there is: kept


def test_a_fix_of_a_thing_named_with_a_pronoun_or_hyphen_is_no_report() -> None:
    # "this do-nothing button" is a thing ("do" of "do-nothing" no verb), its sentence no other instruction
    assert request_title("Fix this do-nothing button", asked_text("Fix this do-nothing button, it never fires."),
                         "") == "Fix this do-nothing button"
    # "they are not loading" names nothing to fix: the title is not made worse
    assert request_title("Fix they are not loading", asked_text("they are not loading"), "") == \
        "Fix they are not loading"


def test_a_phrasal_verbs_particle_is_no_dangling_word() -> None:
    assert clean_title("Wrap up") == "Wrap up"
    assert decision_title("wrapping up") == "Wrap up"
    assert clean_title("Set it up") == "Set it up"
    assert clean_title("Add the flag to the") == "Add the flag"  # a preposition with no object still goes
