"""The Phase 1 rules engine's fifth round on decisions (issue 26), mechanism by mechanism, each on a
small constructed log (no line copied from a benchmark session); each test fails without its rule."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


def test_the_way_the_agent_names_as_the_fix_is_a_decision_but_a_report_of_it_is_not() -> None:
    log = Log()
    log.user("the upload job times out")
    log.say("The worker pool is capped at two. The simplest fix is to raise the cap to eight, since the host has "
            "eight cores.")
    log.edit("/w/worker.toml")
    [decision] = log.extract().decisions
    assert decision.chosen == "raise the cap to eight"
    assert decision.rationale == "the host has eight cores"
    log = Log()
    log.user("the upload job times out")
    log.edit("/w/worker.toml")
    log.say("All tests pass. The fix is a one-line change to the worker cap in worker.toml.")
    assert log.extract().decisions == []


def test_the_fix_named_in_reasoning_counts_and_reaches_the_step_that_carries_it_out() -> None:
    log = Log()
    log.user("the linter flags the factory")
    thought = _thinking(log, "The factory returns two kinds of store on purpose. The cleanest solution is to add "
                             "a lint directive on the factory.")
    log.say("Adding the directive now.")
    step = log.edit("/w/store.go")
    [decision] = log.extract().decisions
    assert decision.chosen == "add a lint directive on the factory"
    assert decision.range == (thought, step)


def test_a_choice_in_reasoning_stated_nowhere_else_reaches_its_first_step_not_past_the_user() -> None:
    log = Log()
    log.user("show something useful when the login fails")
    thought = _thinking(log, "I should show the cached settings table instead of exiting with an error.")
    log.say("Voy a actualizar el comando.")  # a message the rules cannot read
    step = log.edit("/w/cli.py")
    [decision] = log.extract().decisions
    assert decision.range == (thought, step)
    log = Log()
    log.user("show something useful when the login fails")
    thought = _thinking(log, "I should show the cached settings table instead of exiting with an error.")
    log.user("actually, leave it")
    log.edit("/w/cli.py")
    [decision] = log.extract().decisions
    assert decision.range == (thought, thought)


def test_an_alternative_named_in_a_description_or_a_diagnosis_is_no_choice() -> None:
    log = Log()
    log.user("Implement the plan:\n\n# Bug: Export Reads Cached Rows Instead of Fresh Rows\n\nDetails follow.")
    log.edit("/w/export.py")
    log.say("Tests pass. Now the exporter reads the fresh rows instead of the cached snapshot.")
    log.user("review the roadmap")
    log.say("The proposed items are mostly for new use cases rather than fixing current gaps.")
    log.user("it still sounds flat")
    log.say("Looking at the output, I can see the problem: we're still getting small shifts rather than real "
            "contrast.")
    log.user("write the section like this:\n\n- can run instead of the old hook but also next to it")
    assert log.extract().decisions == []
    # Someone making the choice still counts, with or without a first person.
    log = Log()
    log.user("plan the storage")
    log.say("Following the team's conventions, always use SQLite rather than JSON files.")
    [decision] = log.extract().decisions
    assert decision.options[1] == "JSON files"


def test_a_way_the_agent_names_and_commits_to_with_do_that_is_a_decision() -> None:
    log = Log()
    log.user("remove the file I cannot delete")
    log.say("The name is reserved by the OS. Removing it needs the long-path prefix, which skips the name check "
            "- let me do that.")
    log.call("PowerShell", {"command": "Remove-Item -LiteralPath '\\\\?\\C:\\w\\con'"}, "")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Removing it needs the long-path prefix")
    assert decision.rationale == "The name is reserved by the OS."


def test_a_stated_intention_may_name_a_file_and_give_its_reason_with_as_these() -> None:
    log = Log()
    log.user("drop the stray files")
    log.say("`vendor` is a submodule entry, so I'll remove it through git along with `notes.txt` to keep the "
            "index consistent.")
    log.bash("git rm vendor notes.txt", "rm 'vendor'")
    log.user("commit it")
    log.say("Let's unstage the cache folder as these files are generated:")
    log.bash("git restore --staged cache/", "")
    decisions = log.extract().decisions
    assert [d.chosen for d in decisions] == ["remove it through git along with `notes.txt`",
                                             "unstage the cache folder"]


def test_the_users_steer_the_agent_agrees_to_is_a_decision_a_bug_report_it_agrees_with_is_not() -> None:
    log = Log()
    log.user("how are the rows ordered?")
    log.say("By the updated_at column, newest first.")
    steer = log.user("I think we should order them by their position in the file")
    log.say("Good idea - the file order is more stable than the timestamp. Let me check the loader.")
    log.call("Read", {"file_path": "/w/loader.py"}, "def load(): ...")
    change = log.edit("/w/loader.py")
    [decision] = log.extract().decisions
    assert decision.chosen == "order them by their position in the file"
    assert "more stable than the timestamp" in decision.rationale
    assert decision.range is not None and decision.range[0] == steer and decision.range[1] >= change
    log = Log()
    log.user("add the export button")
    log.edit("/w/toolbar.tsx")
    log.user("the button does nothing when I click it")
    log.say("You're right, the handler is not wired. Let me fix it.")
    log.edit("/w/toolbar.tsx")
    assert log.extract().decisions == []


def test_what_the_agent_makes_in_place_of_a_failed_step_is_a_decision_a_retry_is_not() -> None:
    log = Log()
    log.user("file the findings as issues")
    log.bash("gh issue create --title 'Cache the index' --body 'Slow start'", "HTTP 401: authentication required",
             exit_code=1)
    log.say("The CLI is not logged in. Let me write the findings to a FINDINGS.md document instead, ordered by "
            "priority.")
    log.call("Write", {"file_path": "/w/FINDINGS.md", "content": "# Findings"}, "File created")
    [decision] = log.extract().decisions
    assert decision.chosen == "write the findings to a FINDINGS.md document"
    assert decision.rationale.startswith("gh issue create") and "HTTP 401" in decision.rationale
    log = Log()
    log.user("find the config loader")
    log.bash("rg loadConfig src", "", exit_code=1)
    log.say("No match. Let me search with a broader pattern instead.")
    log.bash("rg -i config src", "src/config.ts")
    assert log.extract().decisions == []


def test_a_name_the_user_gives_is_a_decision() -> None:
    log = Log()
    log.user("add a viewer page")
    log.edit("/w/page_view.html")
    log.user("rename page_view to log_page, it reads better next to the other files")
    step = log.bash("git mv page_view.html log_page.html", "")
    [decision] = log.extract().decisions
    assert decision.chosen == "log_page" and decision.options == ["log_page", "page_view"]
    assert decision.rationale == "the user named it: it reads better next to the other files"
    assert decision.range is not None and decision.range[1] >= step


def test_narration_that_carries_a_change_with_its_reason_is_a_decision_a_look_up_is_not() -> None:
    log = Log()
    log.user("publish the export")
    log.say("The export is a single JSON array, so I'm writing a dedicated page for it instead of routing it "
            "through the line-based viewer.")
    log.edit("/w/export.html")
    log.user("push it")
    log.say("The branch is behind its remote, so I'm making one focused commit first, then I'll rebase and push.")
    log.bash("git commit -m 'Export page'", "[main 1a2b3c] Export page")
    decisions = log.extract().decisions
    assert [d.options for d in decisions] == [["writing a dedicated page for it",
                                               "routing it through the line-based viewer"], []]
    assert decisions[1].chosen == "making one focused commit, then I'll rebase and push"
    assert decisions[1].rationale == "The branch is behind its remote"
    log = Log()
    log.user("why is the build red?")
    log.say("The log is truncated, so I'm checking the full output instead of guessing.")
    log.bash("cat build.log", "error: x")
    assert log.extract().decisions == []


def test_leaving_something_as_it_is_for_a_reason_is_a_decision() -> None:
    log = Log()
    log.user("the comment says shallow clone but the code does a full clone")
    log.say("The comment is stale. Since this test only reads the remote's tags (not its history), a full clone "
            "is fine - the comment just needs fixing.")
    log.edit("/w/clone_test.go")
    [decision] = log.extract().decisions
    assert decision.chosen == "keep a full clone"
    assert decision.rationale.startswith("this test only reads the remote's tags")


def test_a_rename_that_asks_for_a_name_without_giving_one_is_no_decision() -> None:
    log = Log()
    log.user("add a viewer page")
    log.edit("/w/page_view.html")
    log.user("rename page_view to something clearer")
    log.bash("git mv page_view.html viewer.html", "")
    assert log.extract().decisions == []


def test_an_acknowledgement_or_a_look_up_before_let_me_do_that_is_no_decision() -> None:
    log = Log()
    log.user("the cache looks stale")
    log.say("That makes sense to me as a plan, let me do that.")
    log.say("I need to check the logs of the last deploy first - let me do that.")
    log.bash("tail deploy.log", "ok")
    assert log.extract().decisions == []


def test_an_option_put_off_for_a_stopgap_is_no_decision() -> None:
    log = Log()
    log.user("unify the version numbers")
    _thinking(log, "I'm considering reading the version from the package metadata rather than a constant, but for "
                   "now, I'll just update the constant.")
    log.edit("/w/__init__.py")
    assert log.extract().decisions == []
