"""The Phase 1 rules engine's eighth round on decisions, mechanism by mechanism, each on a small
constructed log (no line copied from a benchmark session); each test fails without its rule."""

from __future__ import annotations

from pathlib import Path

from phase2_fixtures import stage
from support import make_ws
from test_phase1_rules import Log

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.reader import read_record


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


def test_a_planning_section_that_lays_a_change_down_is_a_decision() -> None:
    log = Log()
    log.user("make the export resumable")
    thought = _thinking(log, "**Planning resumable export**\n\nI'll write a checkpoint row after every batch so a "
                             "restarted export skips the batches already sent.")
    step = log.bash("sed -n '1,80p' src/export.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("write a checkpoint row after every batch")
    assert decision.range == (thought, step)


def test_a_design_section_that_only_describes_gives_way_to_the_next_and_a_stopgap_is_none() -> None:
    log = Log()
    log.user("make the export resumable")
    _thinking(log, "**Designing the export work**\n\nThe exporter has no notion of progress yet.\n\n"
                   "**Deciding checkpoint storage**\n\nI'll keep the checkpoint in the jobs table next to the "
                   "cursor.")
    log.bash("sed -n '1,80p' src/export.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("keep the checkpoint in the jobs table")
    log = Log()
    log.user("make the export resumable")
    _thinking(log, "**Planning helper functions**\n\nI'll add the retry helpers but leave them unused for now, "
                   "focusing on the exporter.")
    log.bash("sed -n '1,80p' src/export.ts")
    assert log.extract().decisions == []


def test_different_choices_in_reasoning_while_the_agent_only_looks_around_stay_apart() -> None:
    log = Log()
    log.user("implement the sync tasks")
    first = _thinking(log, "**Designing the cleared event**\n\nI'll emit a drained event when the outgoing queue "
                           "becomes empty, with the item count.")
    log.bash("sed -n '1,80p' src/queue.ts")
    second = _thinking(log, "**Designing remote settings**\n\nI'll store all synced settings as one JSON value "
                            "under a reserved key, merged field by field.")
    log.bash("sed -n '1,80p' src/settings.ts")
    decisions = log.extract().decisions
    assert [d.range[0] for d in decisions if d.range] == [first, second]
    # The same choice come back to while looking around is still one decision.
    log = Log()
    log.user("implement the sync tasks")
    first = _thinking(log, "**Designing the cleared event**\n\nI'll emit a drained event when the outgoing queue "
                           "becomes empty, with the item count.")
    log.bash("sed -n '1,80p' src/queue.ts")
    _thinking(log, "**Designing the drained event**\n\nI'll emit the drained event when the outgoing queue becomes "
                   "empty.")
    log.bash("sed -n '80,160p' src/queue.ts")
    [decision] = log.extract().decisions
    assert decision.range is not None and decision.range[0] == first


def _ask(log: Log, question: str, labels: list[str], answer: str) -> int:
    return log.call("AskUserQuestion", {"questions": [{"question": question, "header": "Setup",
                                                      "options": [{"label": lab} for lab in labels]}]},
                    f'User has answered your questions: "{question}"="{answer}". You can now continue.')


def test_an_answer_that_hands_data_over_is_no_decision_but_a_pick_still_is() -> None:
    log = Log()
    log.user("wire the weather lookup")
    _ask(log, "What's your weather service token? I need it in the config file.", ["I'll add it myself",
         "Paste it here"], "Paste it here")
    assert log.extract().decisions == []
    log = Log()
    log.user("wire the weather lookup")
    _ask(log, "Which forecast source should the first version use?", ["Hourly feed", "Daily summary"],
         "Daily summary")
    [decision] = log.extract().decisions
    assert decision.chosen == "Daily summary"


def test_a_refusal_followed_by_a_fact_is_no_redirection_but_an_instruction_is() -> None:
    log = Log()
    log.user("open the pull request upstream")
    log.call("Bash", {"command": "gh repo view acme/tool --json owner"}, "rejected", rejected=True)
    log.interrupt()
    log.user("acme/tool is a mirror of the upstream tool repository")
    assert log.extract().decisions == []
    log = Log()
    log.user("open the pull request upstream")
    log.call("Bash", {"command": "gh repo view acme/tool --json owner"}, "rejected", rejected=True)
    log.interrupt()
    log.user("push the branch to the upstream tool repository instead")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("push the branch")


def test_a_recommendation_agreed_to_is_what_follows_the_recommending_verb_not_its_lead_in() -> None:
    log = Log()
    log.user("how should we start the prototype?")
    log.say("For a first prototype of the idea, I'd focus on **the two riskiest integrations**: the map tiles "
            "and the geocoder.")
    log.user("ok")
    log.bash("mkdir proto")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("The two riskiest integrations")


def test_a_comment_tag_is_no_choice_and_a_tagged_line_is_a_comment_of_its_own() -> None:
    log = Log()
    log.user("add the tile decoder")
    log.call("Write", {"file_path": "/w/Tiles.swift", "content": "// SUMMARY: Decodes the tile server answer\n"
                       "// SUMMARY: Reads the vector endpoint rather than the raster export\nimport Foundation\n"},
             "File created")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Reads the vector endpoint") and "SUMMARY" not in decision.chosen


def test_a_constraint_the_user_sets_reaches_the_edit_that_carries_it_out() -> None:
    log = Log()
    asked = log.user("the type checker complains about the callbacks. However, i want the unused callbacks kept. "
                     "Silence them with inline ignore comments.")
    log.bash("make typecheck", "3 errors")
    edit = log.call("Edit", {"file_path": "/w/hooks.py", "old_string": "def on_a(x):",
                             "new_string": "def on_a(x):  # type: ignore[unused]  # kept because plugins call it"},
                    "updated")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Silence them") and decision.range == (asked, edit + 1)


def test_a_decision_with_no_stated_reason_carries_no_invented_rationale(tmp_path: Path) -> None:
    log = Log()
    log.user("make the export resumable")
    _thinking(log, "**Designing the checkpoint**\n\nI'll keep the checkpoint in the jobs table next to the cursor.")
    log.bash("sed -n '1,80p' src/export.ts")
    [decision] = log.extract().decisions
    assert decision.rationale == ""
    log = Log()
    log.user("make the export resumable")
    log.say("We should use the jobs table instead of a side file.")
    log.edit("/w/export.ts")
    [decision] = log.extract().decisions
    assert decision.rationale == ""
    # Phase 2 writes such a decision as a record with no Rationale section, and the linter accepts it.
    ws = make_ws(tmp_path)
    stage(ws, "0197c3-session", 0, 3, decisions=[decision])
    run_phase2(ws, flush=True)
    [path] = (ws.root / "memory" / "decisions").glob("*.md")
    record = read_record(ws, path).record
    assert record is not None and "## Chosen" in record.body and "## Rationale" not in record.body
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []


def _edit(log: Log, path: str, new: str) -> int:
    return log.call("Edit", {"file_path": path, "old_string": "x: 1", "new_string": new}, "updated")


def test_a_comment_naming_what_a_format_does_not_support_and_the_workaround_says_why() -> None:
    log = Log()
    log.user("add the thumbnail export")
    step = _edit(log, "/w/export.py", "    # WebP doesn't keep the colour profile here, so convert to sRGB first\n"
                                      "    img = img.convert('RGB')")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("WebP doesn't keep the colour profile") and decision.range == (step, step + 1)
    log = Log()
    log.user("add the thumbnail export")
    _edit(log, "/w/export.py", "    # The encoder doesn't support progressive mode in this build\n    x = 1")
    assert log.extract().decisions == []


def test_each_step_the_agent_announces_may_tell_its_own_comment_once() -> None:
    log = Log()
    log.user("make the scanner reliable")
    log.say("First I'll trim the scanner list:")
    first = _edit(log, "/w/scan.yml", "scanners: []  # Empty - we only need the injection check here")
    log.bash("make check", "ok")
    log.say("Now let me raise the timeouts:")
    second = _edit(log, "/w/scan.yml", "timeout: 90  # Raised for the first model download")
    third = _edit(log, "/w/scan.yml", "retry: 3  # Raised for the first model download")
    decisions = log.extract().decisions
    assert [d.range for d in decisions] == [(first, first + 1), (second, second + 1)]
    assert decisions[1].chosen == "timeout: 90" and decisions[1].rationale == "Raised for the first model download"
    assert third not in {d.range[0] for d in decisions if d.range}
    # The same comment written again later in the turn is the same choice.
    log = Log()
    log.user("make the scanner reliable")
    log.say("First I'll trim the scanner list:")
    _edit(log, "/w/scan.yml", "scanners: []  # Empty - we only need the injection check here")
    log.say("Now the second config file:")
    _edit(log, "/w/scan-prod.yml", "scanners: []  # Empty - we only need the injection check here")
    assert len(log.extract().decisions) == 1


def test_a_plan_stated_with_what_it_keeps_safe_or_ensures_is_a_decision_but_a_look_up_is_not() -> None:
    log = Log()
    log.user("the installer fails on this machine")
    _thinking(log, "I plan to build the bundle in a scratch directory and install from there, so the checkout stays "
                   "clean for the next run.")
    log.bash("mkdir -p /tmp/b")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("build the bundle in a scratch directory")
    assert decision.rationale == "the checkout stays clean for the next run"
    log = Log()
    log.user("the patch tool keeps failing on this file")
    _thinking(log, "The matcher trips on the tabs, so I'll replace the whole file with a fresh copy to ensure the "
                   "indentation is consistent.")
    log.bash("ls src")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("replace the whole file with a fresh copy")
    assert decision.rationale == "the indentation is consistent"
    log = Log()
    log.user("the installer fails on this machine")
    _thinking(log, "I plan to check the installer log, so the cause is clear before any change.")
    log.bash("cat install.log")
    assert log.extract().decisions == []
