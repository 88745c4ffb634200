"""The Phase 1 rules engine's sixth round on decisions (issue 26: decisions told without a cue word on
unseen sessions), mechanism by mechanism, each on a small constructed log (no line copied from a
benchmark session); each test fails without its rule, and each has its near miss that stays no decision."""

from __future__ import annotations

from test_phase1_rules import Log


def test_a_recommendation_under_its_own_heading_is_a_decision() -> None:
    log = Log()
    log.user("compare the REST client and a GraphQL layer for the dashboard")
    said = log.say("Both work. The REST client already covers every call the dashboard makes.\n\n"
                   "## Recommendation\n\nKeep the REST client with the generated SDK, no GraphQL layer.\n"
                   "A schema server would add a deployment for no query we need.")
    [decision] = log.extract().decisions
    assert decision.chosen == "Keep the REST client with the generated SDK, no GraphQL layer."
    assert decision.rationale == "A schema server would add a deployment for no query we need."
    assert decision.range == (said, said)
    log = Log()
    log.user("compare the REST client and a GraphQL layer for the dashboard")
    log.say("**Recommendation:** move the dashboard to the typed SDK, since the hand-written client drifts.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("move the dashboard to the typed SDK")


def test_a_reviews_verdict_or_a_word_under_the_heading_is_no_decision() -> None:
    log = Log()
    log.user("review the pull request")
    log.say("## Recommendation\n\nAPPROVE ✓")
    log.say("## Recommendation\n\nDon't close #41 yet: the docs part is still open.")
    log.say("Decisions are made by the maintainers on Fridays.")
    assert log.extract().decisions == []


def _write(log: Log, path: str, content: str) -> int:
    return log.call("Write", {"file_path": path, "content": content}, "File created successfully")


def test_a_design_written_into_a_document_is_a_decision() -> None:
    log = Log()
    log.user("write up how the cache should work")
    step = _write(log, "/w/docs/design/cache.md",
                  "# Cache design\n\n## Context\n\nReads dominate.\n\n## Decision\n\n"
                  "Store entries in SQLite with a TTL column instead of a Redis sidecar.\n"
                  "One process is easier to ship to the edge boxes.\n")
    [decision] = log.extract().decisions
    assert decision.chosen == "Store entries in SQLite with a TTL column instead of a Redis sidecar."
    assert decision.rationale == "One process is easier to ship to the edge boxes."
    assert decision.range == (step, step + 1)
    log = Log()
    log.user("write up the plan")
    _write(log, "/w/PLAN.md", "# Plan\n\n- **Approach:** migrate the jobs table in place, one batch per night.\n")
    [decision] = log.extract().decisions
    assert decision.chosen == "migrate the jobs table in place, one batch per night."


def test_a_document_without_a_decision_heading_or_code_with_one_is_no_decision() -> None:
    log = Log()
    log.user("document the cache")
    _write(log, "/w/docs/cache.md", "# Cache\n\n## Usage\n\nCall `get` with a key.\n")
    _write(log, "/w/cache.py", "# Decision: this module is generated\nx = 1\n")  # code: not a document
    # Plan mode's own file is the plan its ExitPlanMode tells.
    _write(log, "/home/u/.claude/plans/quiet-river.md", "# Plan\n\n## Approach\n\nSplit the cache into two tiers now.\n")
    assert log.extract().decisions == []


def test_a_choice_with_its_reason_in_the_agents_account_is_a_decision() -> None:
    log = Log()
    log.user("add the --json flag and release it")
    log.edit("/w/cli.py")
    said = log.say("Done. I bumped the version MINOR because the flag is a new, backwards-compatible feature.")
    [decision] = log.extract().decisions
    assert decision.chosen == "bumped the version MINOR"
    assert decision.rationale == "the flag is a new, backwards-compatible feature"
    assert decision.range == (said, said)
    log = Log()
    log.user("write the defaults into the settings file")
    log.say("I'll deep-merge the settings file so that keys the user set by hand survive.")
    log.edit("/w/settings.json")
    [decision] = log.extract().decisions
    assert decision.chosen == "deep-merge the settings file"


def test_a_change_listed_without_a_reason_or_a_tactic_with_one_is_no_decision() -> None:
    log = Log()
    log.user("upgrade the framework")
    log.edit("/w/package.json")
    log.say("Done. Using 15.5.2 instead of 14, and updated the lockfile.")
    log.user("rename the field everywhere")
    log.say("I'll use a Perl one-liner because sed on macOS lacks -i without a suffix.")
    log.say("I'll check the remaining call sites because some are generated.")
    log.say("I'll use Context7 since the library's docs changed recently.")
    assert log.extract().decisions == []


def test_the_agent_taking_up_the_users_correction_is_a_decision() -> None:
    log = Log()
    log.user("make the port configurable")
    log.edit("/w/server.py")
    fix = log.user("that reads an env var nobody sets; the port belongs in config.toml")
    log.say("You're right! I'll read the port from config.toml instead and drop the env var.")
    step = log.edit("/w/server.py")
    [decision] = log.extract().decisions
    assert decision.chosen == "read the port from config.toml instead and drop the env var"
    assert "config.toml" in decision.rationale
    assert decision.range == (fix, step + 1)


def test_agreeing_with_a_bug_report_and_looking_into_it_is_no_decision() -> None:
    log = Log()
    log.user("make the port configurable")
    log.edit("/w/server.py")
    log.user("the server still starts on 8080")
    log.say("You're right. I'll check where the port is read.")
    log.bash("grep -rn port /w")
    assert log.extract().decisions == []


_TASKS = ("# Tasks: Billing export\n\n**Input**: design documents from specs/002-billing/\n\n"
          "Tests come before implementation, so every story starts with its failing contract test.\n\n"
          + "".join(f"- [ ] T{n:03d} Step {n} of the export\n" for n in range(1, 30)))


def test_a_planning_document_written_from_its_title_is_a_decision_wherever_it_is_written() -> None:
    log = Log()
    log.user("/tasks")
    step = log.bash(f"cat <<'EOF' > specs/002-billing/tasks.md\n{_TASKS}EOF")
    [decision] = log.extract().decisions
    assert decision.chosen == "Tasks: Billing export (specs/002-billing/tasks.md)"
    assert decision.rationale == "Tests come before implementation, so every story starts with its failing contract test."
    assert decision.range == (step, step + 1)
    log = Log()
    log.user("/plan")
    log.call("apply_patch", {"input": ""}, "Success")  # placeholder: a call that writes nothing
    log.entries[-2] = log.entries[-2].model_copy(update={"tool_input": "*** Begin Patch\n*** Add File: docs/design/export.md\n"
                                                          + "".join(f"+{line}\n" for line in _TASKS.splitlines())
                                                          + "*** End Patch"})
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Tasks: Billing export")


def test_a_line_changed_in_a_plan_or_a_readme_written_is_no_decision() -> None:
    log = Log()
    log.user("fix the typo in the spec")
    log.call("Edit", {"file_path": "/w/specs/002-billing/spec.md", "old_string": "teh", "new_string": "the export"}, "ok")
    log.bash(f"cat > README.md <<'EOF'\n{_TASKS}EOF")  # not a planning document
    log.bash(f"cat <<'EOF' > specs/002-billing/tasks.md\n{_TASKS}EOF", "no space left", exit_code=1)  # failed
    assert log.extract().decisions == []


def _edit(log: Log, path: str, new: str) -> int:
    return log.call("Edit", {"file_path": path, "old_string": "x: 1", "new_string": new}, "updated")


def test_a_comment_in_the_change_that_says_why_is_a_decision() -> None:
    log = Log()
    log.user("the first scan times out")
    step = _edit(log, "/w/config/app.yml", "scan_timeout: 120  # Increased for the first model load")
    [decision] = log.extract().decisions
    assert decision.chosen == "scan_timeout: 120"  # an inline comment: the line is the choice (round 8)
    assert decision.rationale == "Increased for the first model load"
    assert decision.range == (step, step + 1)
    log = Log()
    log.user("add the strict mode")
    _edit(log, "/w/launch.ts", "// Skip the trust prompt in strict mode (it already skips every prompt)\nif (!strict) {")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Skip the trust prompt in strict mode")


def test_a_comment_that_describes_the_code_or_a_turn_that_told_its_choice_gives_none() -> None:
    log = Log()
    log.user("add validation")
    _edit(log, "/w/ids.ts", "// It parses the id and returns early so that callers skip the lookup\n"
                            "// Early validation to prevent useless API calls\n// TODO: because of the cache, revisit\nx()")
    _edit(log, "/w/README.md", "Raised the limit because uploads grew")  # a document, not a code comment
    assert log.extract().decisions == []
    log = Log()
    log.user("the first scan times out")
    log.say("The simplest fix is to raise the timeout, since the model loads on the first call.")
    _edit(log, "/w/config/app.yml", "scan_timeout: 120  # Increased for the first model load")
    [decision] = log.extract().decisions  # the turn's choice, told once
    assert decision.chosen == "raise the timeout"


def _reasoning(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


def test_a_choice_a_reasoning_summary_records_without_i_is_a_decision() -> None:
    log = Log()
    log.user("sync the saved filters")
    thought = _reasoning(log, "**Defining the event logic**\n\nDeciding to emit REMOVED events for deleted rows "
                              "and CHANGED otherwise, to keep the renderer's refresh simple.")
    step = log.call("apply_patch", {}, "Success")
    [decision] = log.extract().decisions
    assert decision.chosen == "emit REMOVED events for deleted rows and CHANGED otherwise"
    assert decision.rationale == "to keep the renderer's refresh simple"
    assert decision.range == (thought, step)


def test_a_topic_a_tactic_or_a_restated_choice_in_reasoning_is_no_new_decision() -> None:
    log = Log()
    log.user("sync the settings")
    _reasoning(log, "**Deciding on the sync ID and storage approach**\n\nThere are two ways to go.")
    _reasoning(log, "Deciding to use awk to count the task list items.")
    assert log.extract().decisions == []
    log = Log()
    log.user("sync the settings")
    first = _reasoning(log, "**Deciding to keep the field clocks inside the encrypted payload**")
    log.bash("rg -n clocks src")  # only a look around in between: the same weighing
    second = _reasoning(log, "Decided to keep the field clocks inside the encrypted payload so the server stores none.")
    log.call("apply_patch", {}, "Success")
    _reasoning(log, "I'm deciding to keep the field clocks inside the encrypted settings payload rather than metadata.")
    [decision] = log.extract().decisions
    assert decision.chosen == "keep the field clocks inside the encrypted payload"
    assert decision.range is not None and decision.range[0] == first and decision.range[1] >= second


def test_a_planned_change_with_its_reason_in_reasoning_is_a_decision_a_planned_look_is_not() -> None:
    log = Log()
    log.user("handle a closed database in the listener")
    thought = _reasoning(log, "**Adding error handling**\n\nPlanning to wrap the listener in try/catch to log a "
                              "warning instead of crashing when the database is closed.")
    step = log.call("apply_patch", {}, "Success")
    [decision] = log.extract().decisions
    assert decision.chosen == "wrap the listener in try/catch to log a warning"
    assert decision.range == (thought, step)
    log = Log()
    log.user("handle a closed database in the listener")
    _reasoning(log, "Planning to inspect the listener code first to avoid guessing.")
    _reasoning(log, "Planning to add the handler next.")  # no reason, no way set aside
    assert log.extract().decisions == []


def test_let_me_with_a_reason_in_parentheses_is_a_decision() -> None:
    log = Log()
    log.user("the air quality lookup times out")
    said = log.say("Now let me raise the request timeout to 30 seconds (it's a slow API):")
    log.edit("/w/Client.swift")
    [decision] = log.extract().decisions
    assert decision.chosen == "raise the request timeout to 30 seconds"
    assert decision.rationale == "it's a slow API"
    assert decision.range == (said, said)


def test_what_the_agent_would_focus_on_accepted_by_the_user_is_a_decision() -> None:
    log = Log()
    log.user("how should we build a proof of concept first?")
    proposal = log.say("For a proof of concept I'd focus on the data pipeline first, since flaky public APIs "
                       "are what could sink the project.")
    log.user("Yes, do that.")
    log.edit("/w/pipeline.py")
    [decision] = log.extract().decisions
    assert decision.range is not None and decision.range[0] == proposal


def test_a_reasoning_section_that_designs_is_a_decision_one_that_picks_a_way_to_work_is_not() -> None:
    log = Log()
    log.user("make the contact form reach the mail service")
    thought = _reasoning(log, "**Designing the asynchronous form submission**\n\nPlanning to post the fields with "
                              "fetch as URL-encoded data and keep a honeypot field in state. Success and error "
                              "messages follow the post.")
    step = log.call("apply_patch", {}, "Success")
    [decision] = log.extract().decisions
    assert decision.chosen == "post the fields with fetch as URL-encoded data and keep a honeypot field in state."
    assert decision.title == "Asynchronous form submission"
    assert decision.range == (thought, step)
    log = Log()
    log.user("count the open tasks")
    _reasoning(log, "**Designing a shell-based counting script**\n\nPlanning to write a small awk pass over tasks.md.")
    _reasoning(log, "**Choosing the file creation method**\n\nI'll create the file with a heredoc.")
    _reasoning(log, "**Deciding on the next step**\n\nPlanning to inspect the task list before editing anything.")
    assert log.extract().decisions == []


def test_what_a_change_should_now_do_instead_is_an_outcome_not_a_choice() -> None:
    log = Log()
    log.user("the pager skips pages")
    log.edit("/w/pager.js")
    log.say("The pager should now go from page 1 to 2 to 3 instead of skipping, and the images load with a fallback.")
    assert log.extract().decisions == []


def test_a_way_set_aside_by_the_agent_about_to_act_is_a_decision_told_as_done_it_is_not() -> None:
    log = Log()
    log.user("the calendar tests collide")
    said = log.say("I'm going to give each fixture a unique week number instead of changing the product code.")
    log.edit("/w/tests/fixtures.py")
    [decision] = log.extract().decisions
    assert decision.chosen == "give each fixture a unique week number"
    assert decision.rationale == "instead of changing the product code"
    assert decision.range == (said, said)
    log = Log()
    log.user("the calendar tests collide")
    log.edit("/w/tests/fixtures.py")
    log.say("Gave each fixture a unique week number instead of changing the product code.")
    assert log.extract().decisions == []


def _commit(log: Log, command: str, *, status: bool | None) -> int:
    start = log.call("shell_command", {"command": command}, "[main 1a2b3c] done")
    log.entries[-1] = log.entries[-1].model_copy(update={"is_error": None if status is None else not status})
    return start


def test_a_commit_that_says_why_counts_with_folded_flags_and_without_an_exit_status() -> None:
    log = Log()
    log.user("fix the flaky upload")
    step = _commit(log, "git commit -am 'Retry uploads with backoff' -m 'One retry is enough because the storage "
                        "API drops one request in fifty.'", status=None)
    [decision] = log.extract().decisions
    assert decision.chosen == "Retry uploads with backoff"
    assert decision.rationale == "One retry is enough because the storage API drops one request in fifty."
    assert decision.range == (step, step + 1)
    log = Log()
    log.user("fix the flaky upload")
    _commit(log, "git commit -am 'Retry uploads with backoff' -m 'One retry is enough because the storage "
                 "API drops one request in fifty.'", status=False)  # the commit failed: nothing recorded
    assert log.extract().decisions == []


def test_a_long_turn_tells_each_of_its_choices_once() -> None:
    log = Log()
    log.user("build the image converter")
    first = log.say("I'll lay the project out as a uv library because it will be published to the package index.")
    for name in ("a", "b", "c"):
        log.edit(f"/w/src/{name}.py")
    second = log.say("Now let me save JPEG at quality 95 and convert grayscale images to RGB first (since JPEG output "
                     "has mode problems with them).")
    log.edit("/w/src/io.py")
    log.edit("/w/src/cli.py")
    log.say("I'll convert grayscale images to RGB first because JPEG output has mode problems with them.")  # again
    decisions = log.extract().decisions
    assert [d.range for d in decisions] == [(first, first), (second, second)]


def test_a_linters_finding_the_agent_reports_is_no_decision() -> None:
    log = Log()
    log.user("make the lint pass")
    log.bash("golangci-lint run", "main.go:12:2: QF1003: could use tagged switch on kind (staticcheck)", exit_code=1)
    log.say("staticcheck says we should use a tagged switch on kind here.")
    log.say("QF1003: we should use a tagged switch on kind.")
    assert log.extract().decisions == []


def test_a_bottom_line_or_a_recommended_label_is_a_recommendation() -> None:
    log = Log()
    log.user("should we move the API to GraphQL?")
    log.say("Both have a cost.\n\n**Bottom line:** stick with TypeScript and the SDK, no GraphQL layer.")
    [decision] = log.extract().decisions
    assert decision.chosen == "stick with TypeScript and the SDK, no GraphQL layer."
    log = Log()
    log.user("which queue should the jobs use?")
    log.say("### Recommended: keep the Postgres-backed queue until the job rate passes a hundred a second")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("keep the Postgres-backed queue")


def test_the_agent_taking_the_request_on_is_no_decision() -> None:
    log = Log()
    log.user("set up the API with only the injection scanner")
    log.say("I'll help you set up the API with just the injection scanner and its dependencies.")
    log.edit("/w/config/scanners.yml")
    assert log.extract().decisions == []


def test_a_project_constitution_written_is_a_planning_document() -> None:
    log = Log()
    log.user("/constitution a component library monorepo")
    body = ("# UI Library Constitution\n\n## Core Principles\n\nEvery component ships as its own package, so apps "
            "never import from one another.\n")
    step = log.call("Write", {"file_path": "/w/.specify/memory/constitution.md", "content": body}, "written")
    [decision] = log.extract().decisions
    assert decision.chosen == "UI Library Constitution (/w/.specify/memory/constitution.md)"
    assert decision.range == (step, step + 1)
