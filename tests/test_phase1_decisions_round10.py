"""The Phase 1 rules engine's tenth round on decisions, mechanism by mechanism, each on a small
constructed log of ``Entry`` items (no line copied from a benchmark session); each test fails
without its rule. The round makes over-eager rules stricter: a turn of the conversation, a finding
quoted with its location, a check run for its result, a template or a plan's progress written down
are not decisions."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- a turn of the conversation


def test_a_reason_then_a_turn_of_the_conversation_is_no_decision() -> None:
    for text in ("The reviewer has not replied to the open points yet, so I should acknowledge the report and wait "
                 "for their answer on the naming.",
                 "The user asked what else could be covered, so I'll suggest areas like parsing, retries, "
                 "logging and the config loader.",
                 "The install needs the network and a path outside the sandbox, so I'll escalate this step.",
                 "The user is new to the codebase, so I'll answer with a short overview of the modules first."):
        log = Log()
        log.user("review the exporter and tell me what's left")
        log.bash("ls src", "exporter.py")
        log.say(text)
        assert log.extract().decisions == [], text


def test_a_reason_then_a_change_to_the_project_is_still_a_decision() -> None:
    log = Log()
    log.user("review the exporter and tell me what's left")
    log.bash("ls src", "exporter.py")
    log.say("The exporter reads the whole file into memory, so I'll stream the rows to the writer one by one.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("stream the rows to the writer")


# ---------------------------------------------------------------- a finding listed with its location


def test_a_finding_listed_with_its_file_and_line_is_no_decision() -> None:
    for text in ("Two lint findings are left:\n\n- `store_test.go:88` - should use a tagged switch instead of "
                 "the if/else chain",
                 "src/render.ts:41:7: prefer an early return instead of the nested else block"):
        log = Log()
        log.user("fix the lint errors")
        log.bash("golangci-lint run ./...", "store_test.go:88: QF1003", exit_code=1)
        log.say(text)
        assert log.extract().decisions == [], text


def test_a_way_set_aside_told_without_a_location_is_still_a_decision() -> None:
    log = Log()
    log.user("fix the lint errors")
    log.bash("ls", "store.go")
    log.say("I'll use a lookup table instead of the long if/else chain, since every case maps one key to one value.")
    [decision] = log.extract().decisions
    assert decision.chosen == "a lookup table"


# ---------------------------------------------------------------- a step run for its result


def test_a_step_run_to_make_sure_it_all_still_works_is_a_check() -> None:
    for text in ("Now let's build the project to ensure everything compiles:",
                 "I'll regenerate the client to make sure the tests still pass.",
                 "Let's rebuild the bundle to verify that the app works."):
        log = Log()
        log.user("add the export button")
        log.edit("src/export.tsx")
        log.say(text)
        log.bash("npm run build", "done")
        assert log.extract().decisions == [], text


def test_a_step_with_a_purpose_of_its_own_is_still_a_decision() -> None:
    log = Log()
    log.user("add the export button")
    log.edit("src/export.tsx")
    log.say("I'll keep the export in a web worker to ensure the page stays responsive on large tables.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("keep the export in a web worker")


# ---------------------------------------------------------------- a template, a plan's progress


_PLAN_SECTION = ("# Tasks: Report export\n\n" + "\n".join(
    f"- [ ] T00{n} Implement the export step {n} in src/export/step{n}.ts with its own unit tests and docs"
    for n in range(1, 10)) + "\n")


def _written(path: str, text: str) -> list[str]:
    log = Log()
    log.user("update the plan for the export feature")
    log.call("Write", {"file_path": path, "content": text}, "written")
    return [d.chosen for d in log.extract().decisions]


def test_a_template_written_lays_no_design_down() -> None:
    assert _written(".specify/templates/tasks-template.md", _PLAN_SECTION) == []
    assert _written("docs/plan-template.md", _PLAN_SECTION) == []
    assert _written("specs/002-export/tasks.md", _PLAN_SECTION) == ["Tasks: Report export (specs/002-export/tasks.md)"]


def test_a_plan_with_its_work_ticked_off_is_bookkeeping_not_a_design() -> None:
    ticked = _PLAN_SECTION.replace("- [ ] T001", "- [x] T001").replace("- [ ] T002", "- [x] T002")
    assert _written("docs/PROJECT_PLAN.md", ticked) != []  # two of nine done: still the plan laid down
    done = _PLAN_SECTION.replace("- [ ] ", "- [x] ")
    assert _written("docs/PROJECT_PLAN.md", done) == []
    report = _PLAN_SECTION + "\nTemplates updated:\n- plan-template.md ✅ updated\n- tasks-template.md ✅ updated\n"
    assert _written("docs/PROJECT_PLAN.md", report) != []  # a report's ticks are no boxes ticked off


# ---------------------------------------------------------------- the order of work under "Plan:"


def _planned(text: str) -> list[str]:
    log = Log()
    log.user("finish the export feature")
    log.bash("ls", "src")
    log.say(text)
    return [d.chosen for d in log.extract().decisions]


def test_a_plan_listing_the_order_of_work_is_no_decision() -> None:
    assert _planned("I know enough to start.\n\nPlan:\n1. Finish the setup: `npm ci`, `npm run build`.\n"
                    "2. Read the export specs and the helpers they use.\n3. Run the export suite and record "
                    "the result.\n4. Move on to the next slice.") == []


def test_a_plan_that_lays_a_design_down_is_still_a_decision() -> None:
    assert _planned("Plan:\n1. Store the export jobs in the jobs table with a status column.\n"
                    "2. Stream each job's rows to the CSV writer.\n3. Run the export suite.") == [
        "Store the export jobs in the jobs table with a status column."]


# ---------------------------------------------------------------- a step that names nothing


def test_a_reason_then_a_step_on_a_mere_pointer_is_no_decision() -> None:
    for text in ("There is one unrelated untracked file in the tree, so I'll leave that alone.",
                 "The second fixture is generated by the build, so I'll skip this one for now."):
        log = Log()
        log.user("clean up the fixtures")
        log.bash("git status --short", "?? notes.txt")
        log.say(text)
        assert log.extract().decisions == [], text


# ---------------------------------------------------------------- how the agent's own runs go


def test_where_the_agents_runs_write_and_which_flags_they_take_is_no_decision() -> None:
    for text in ("I'll write the run artifacts under `/tmp` to keep the checkout clean.",
                 "The first run also uploaded its report by default, so I'll add `--no-upload` for the remaining "
                 "runs."):
        log = Log()
        log.user("run the benchmark on the three datasets")
        log.bash("bench run a.csv", "done")
        log.say(text)
        assert log.extract().decisions == [], text


def test_a_project_choice_about_a_temporary_folder_is_still_a_decision() -> None:
    log = Log()
    log.user("make the uploads survive a crash")
    log.bash("ls src", "upload.py")
    log.say("I'll write the partial uploads under `/var/spool/app` to keep them across restarts.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("write the partial uploads under")


# ---------------------------------------------------------------- a design heading, then "I'm removing …"


def test_a_change_told_in_the_present_under_a_design_heading_reads_more_verbs() -> None:
    for verb, rest in (("removing", "the static retry list from the config file to keep it purely static, and "
                                    "computing the list from the registered handlers at startup"),
                       ("designing", "the import step to write each batch in one transaction, so a failed batch "
                                     "leaves nothing half-written")):
        log = Log()
        log.user("make the retry list follow the handlers")
        thought = _thinking(log, f"**Planning the retry list**\n\nI'm {verb} {rest}. Next, I'll check the "
                                 "loader.")
        step = log.edit("src/retry.py")
        [decision] = log.extract().decisions
        assert decision.chosen.startswith(f"{verb} {rest.split()[0]}"), verb
        assert decision.range == (thought, step)


def test_a_look_told_in_the_present_under_a_design_heading_is_still_none() -> None:
    log = Log()
    log.user("make the retry list follow the handlers")
    _thinking(log, "**Planning the retry list**\n\nI'm reviewing how the loader reads the retry list and where "
                   "the handlers are registered.")
    log.bash("sed -n '1,80p' src/retry.py")
    assert log.extract().decisions == []


# ---------------------------------------------------------------- the fix named after a colon


def _fix_told(text: str) -> list[tuple[str, str]]:
    log = Log()
    log.user("the checkout tests are flaky, fix them")
    log.bash("npm test", "2 flaky")
    log.say(text)
    log.edit("tests/checkout.spec.ts")
    return [(d.chosen, d.rationale) for d in log.extract().decisions]


def test_the_fix_named_after_a_colon_is_a_decision_with_its_reason() -> None:
    assert _fix_told("I'm editing the two specs now. The fix is small: give each test its own cart id so one "
                     "test's order can't leak into the next.") == [
        ("give each test its own cart id", "one test's order can't leak into the next")]


def test_a_fix_reported_or_a_look_after_the_colon_is_none() -> None:
    assert _fix_told("All tests pass. The fix is simple: changed `retry: 0` to `retry: 2` in the config.") == []
    assert _fix_told("The fix is straightforward: check which fixture leaks the cart id first.") == []


def test_updating_the_agents_own_working_plan_is_no_decision() -> None:
    log = Log()
    log.user("move the settings file into the package")
    log.bash("ls", "settings.json")
    _thinking(log, "**Confirming the inspection is done**\n\nThe loader and its tests have been read, so I'll update "
                   "the plan based on the findings before going on.")
    log.call("update_plan", {"plan": [{"status": "completed", "step": "Read the loader"}]}, "Plan updated")
    assert log.extract().decisions == []
    log = Log()
    log.user("move the settings file into the package")
    log.bash("ls", "settings.json")
    log.say("The roadmap still lists the old layout, so I'll update the plan document with the package layout.")
    assert [d.chosen for d in log.extract().decisions] == ["update the plan document with the package layout"]


# ---------------------------------------------------------------- facts, linters, dropped options, routine steps


def _said(text: str) -> list[str]:
    log = Log()
    log.user("add CSV import to the app")
    log.bash("ls src", "app.py")
    log.say(text)
    log.edit("src/app.py")
    return [d.chosen for d in log.extract().decisions]


def test_what_the_code_does_told_with_a_way_set_aside_is_a_fact() -> None:
    assert _said("The tests use an in-memory SQLite database instead of Postgres.") == []
    assert _said("This service stores sessions in Redis rather than in memory.") == []
    assert _said("We should use an in-memory SQLite database instead of Postgres for the tests.") != []


def test_a_linter_named_before_a_colon_is_its_message() -> None:
    assert _said("eslint: prefer const over let for variables that are never reassigned.") == []
    assert _said("I prefer const over let here, since nothing reassigns these values.") != []


def test_an_option_dropped_with_an_objection_chooses_nothing() -> None:
    assert _said("We could use a queue here, but it adds a dependency the project doesn't have.") == []
    assert _said("I could also add a CLI flag for this, but the request only asks for the config option.") == []
    assert _said("We could even drop the flag, but keeping the explicit flag is clearer.") == [
        "keeping the explicit flag is clearer"]


def test_recording_the_work_and_carrying_on_are_routine_steps() -> None:
    assert _said("I'll commit these changes with a descriptive message since the tests pass.") == []
    assert _said("I'll keep going with the remaining files.") == []
    assert _said("I'll add type hints to the new helpers to keep mypy happy.") == []
    assert _said("I'll go with a streaming parser, since the files can be large.") != []


# ---------------------------------------------------------------- plan steps told in reasoning, a test's comments


def _reasoned(text: str) -> list[str]:
    log = Log()
    log.user("add CSV import to the app")
    log.bash("ls src", "app.py")
    _thinking(log, text)
    log.edit("src/app.py")
    return [d.chosen for d in log.extract().decisions]


def test_a_heading_that_names_the_agents_work_or_a_step_of_it_lays_no_design_down() -> None:
    for text in ("**Planning next steps**\n\nI'll add the missing import, then rerun the failing test to confirm it.",
                 "**Planning final summary**\n\nI'll summarize the changes, list the files touched and mention the "
                 "tests run.",
                 "**Designing the response**\n\nI'll explain the root cause and suggest two follow-ups to the user.",
                 "**Deciding on the importer**\n\nI'll commit the work and push the branch since everything passes.",
                 "**Deciding to run tests**\n\nDeciding to run the full test suite before committing to catch "
                 "regressions.",
                 "Decided to check the logs first since the error message is vague."):
        assert _reasoned(text) == [], text


def test_a_design_under_a_heading_that_names_it_is_still_a_decision() -> None:
    assert _reasoned("**Planning the CSV importer**\n\nI'll parse the file with the csv module and stream the rows "
                     "into the store in batches of 500.") == [
        "parse the file with the csv module and stream the rows into the store in batches of 500."]


def _commented(path: str, comment: str) -> list[str]:
    log = Log()
    log.user("add CSV import to the app")
    log.bash("ls src", "app.py")
    log.call("Edit", {"file_path": path, "old_string": "a", "new_string": f"x = 1\n{comment}\ny = 2"}, "updated")
    return [d.chosen for d in log.extract().decisions]


def test_a_tests_own_comment_tells_what_it_does_or_expects() -> None:
    for comment in ("# Test that the importer rejects empty files since they would crash the parser",
                    "// Should return 404 because the import does not exist",
                    "# Mock the store call, so it should return nothing since no rows were sent",
                    "// Wait for the server to start since the test depends on it"):
        assert _commented("tests/test_import.py", comment) == [], comment
    assert _commented("src/importer.py", "# Read in batches of 500 because whole files can exceed memory") != []


# ---------------------------------------------------------------- headings with nothing chosen, offers, ways to run checks


def test_a_decision_heading_with_nothing_chosen_or_a_look_under_it_is_none() -> None:
    assert _said("**Decision:** none needed yet - waiting on your input.") == []
    assert _said("Key decisions:\n- None so far; the design is still open.") == []
    assert _said("## Approach\n\nI'll read the existing importer first, then decide where the parsing goes.") == []
    assert _said("## Recommendation\n\nI recommend reviewing the failing tests before merging.") == []
    assert _said("## Recommendation\n\nStream the rows into the store in batches of 500.") == [
        "Stream the rows into the store in batches of 500."]


def test_an_offer_or_advice_to_the_user_chooses_nothing() -> None:
    assert _said("If you prefer, I can use pandas instead of the csv module.") == []
    assert _said("You could use pandas instead of the csv module if you need speed.") == []
    assert _said("I'll use pandas instead of the csv module, since the files need type inference.") != []


def test_a_way_to_run_the_checks_is_how_the_agent_works() -> None:
    assert _said("I'll use `pytest -k import` to run only the import tests.") == []


# ---------------------------------------------------------------- what no user correction is


def _after_the_agent_acted(reply: str) -> list[str]:
    log = Log()
    log.user("please add CSV import to the app")
    log.edit("src/app.py")
    log.say("I've added the importer.")
    log.user(reply)
    log.say("Understood.")
    log.edit("src/app.py")
    return [d.chosen for d in log.extract().decisions]


def test_a_reminder_a_bare_stop_a_question_or_a_fact_set_right_is_no_correction() -> None:
    for reply in ("don't forget to run the linter", "stop", "it should be faster now, right?",
                  "no, the tests are in tests/unit"):
        assert _after_the_agent_acted(reply) == [], reply


def test_a_user_turning_the_approach_down_is_still_a_correction() -> None:
    assert _after_the_agent_acted("no, don't write a new parser, only change the csv reader") == [
        "no, don't write a new parser, only change the csv reader"]
    assert _after_the_agent_acted("why did you change the config?") == ["why did you change the config?"]


# ---------------------------------------------------------------- a comment on when code runs, a bug's cause in a commit


def test_a_comment_on_when_the_code_runs_or_a_steps_number_is_a_description() -> None:
    assert _commented("src/form.js", "/* Called when the user clicks save, otherwise nothing happens */") == []
    assert _commented("src/importer.py", "# Step 2: validate the rows because bad rows break the import") == []


def _committed(message: str) -> list[str]:
    log = Log()
    log.user("please add CSV import to the app")
    log.edit("src/app.py")
    log.bash(f"git commit -m \"$(cat <<'EOF'\n{message}\nEOF\n)\"", "[main abc123] x")
    return [d.chosen for d in log.extract().decisions]


def test_a_commit_body_telling_how_the_bug_came_about_is_no_reason_for_a_choice() -> None:
    assert _committed("fix: handle empty rows\n\nEmpty rows caused a crash because the parser expected a header.") == []
    assert _committed("feat: stream the import\n\nRows are streamed so that large files do not exhaust memory.") == [
        "stream the import"]


# ---------------------------------------------------------------- Codex-style commentary: steps, answers, bookkeeping


def test_commentary_on_the_order_of_work_the_answer_and_bookkeeping_is_no_decision() -> None:
    for text in ("I found the failing path in the importer, so I'll patch the row handler next and rerun the unit "
                 "tests.",
                 "The sandbox blocks network access, so I'll request escalation for the install.",
                 "The user wants a summary, so I'll write a short report with the results.",
                 "I'll mark T003 as done in tasks.md since the tests pass.",
                 "I'll keep the output concise since the user asked for a quick answer.",
                 "I'll proceed with implementation, since the plan is approved."):
        assert _said(text) == [], text
        assert _reasoned(text) == [], text


def test_a_reason_then_a_change_with_no_check_chained_is_still_a_decision() -> None:
    assert _said("The change is small, so I'll keep the importer and the parser in one module.") == [
        "keep the importer and the parser in one module"]


# ---------------------------------------------------------------- what a recommendation heading holds


def test_follow_ups_suggestions_and_results_under_a_recommendation_heading_choose_nothing() -> None:
    for text in ("## Summary\n\nAdded the importer.\n\n## Recommendations\n\n- Add more tests for edge cases\n"
                 "- Consider caching the parsed header",
                 "## Recommendations for next steps\n\n1. Run the full suite in CI\n2. Review the error messages",
                 "### Recommendation\n\nConsider adding pagination later if the lists grow.",
                 "Recommended: restart the dev server to pick up the change.",
                 "My recommendation: let me know which option you prefer.",
                 "## Verdict\n\nThe importer works as expected with the sample files.",
                 "## My take\n\nThis looks like a flaky test rather than a real bug."):
        assert _said(text) == [], text


def test_a_recommendation_that_chooses_and_a_chosen_approach_are_still_decisions() -> None:
    assert _said("**Recommendation**: Stick with the csv module for now. It's simpler and needs no new "
                 "dependency.") == ["Stick with the csv module for now."]
    assert _said("## Chosen approach\n\nStream rows with the csv module and write them in batches of 500.") == [
        "Stream rows with the csv module and write them in batches of 500."]


# ---------------------------------------------------------------- a look recommended and accepted


def _accepted(proposal: str, reply: str) -> list[str]:
    log = Log()
    log.user("please add CSV import to the app")
    log.bash("ls src", "app.py")
    log.say(proposal)
    log.user(reply)
    log.say("Done.")
    log.edit("src/app.py")
    return [d.chosen for d in log.extract().decisions]


def test_a_look_or_a_run_recommended_and_accepted_is_a_step() -> None:
    for proposal in ("I'd recommend running the tests before pushing.", "I suggest we check the logs first.",
                     "I recommend reviewing the diff before merging."):
        assert _accepted(proposal, "ok") == [], proposal
    assert _accepted("I'd recommend a dedicated test file rather than the README.", "Sure, put it in test-secrets.") \
        == ["put it in test-secrets."]


# ---------------------------------------------------------------- a Chinese description with a way set aside


def test_what_the_code_does_told_in_chinese_with_a_way_set_aside_is_a_fact() -> None:
    def said(text: str) -> list[str]:
        log = Log()
        log.user("帮我添加 CSV 导入功能")
        log.bash("ls src", "app.py")
        log.say(text)
        log.edit("src/app.py")
        return [d.chosen for d in log.extract().decisions]
    assert said("这个函数使用 Redis 而不是内存缓存。") == []
    assert said("导入会放在独立的模块里，而不是混进现有的解析器。") == ["导入会放在独立的模块里"]
