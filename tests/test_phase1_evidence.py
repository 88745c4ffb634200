"""The Phase 1 rules engine on issue 26's causes, behaviour by behaviour: each test fails without its
rule (requests that continue the one before, instruction questions, harness and pasted output;
merge conflicts; decisions read from refusals, accepted proposals, conflict resolutions, user
constraints and "in favour of"; summaries of done work are not decisions)."""

from __future__ import annotations

from test_phase1_rules import Log


def test_a_reply_accepting_a_proposal_a_bare_follow_up_and_a_resent_prompt_continue_the_request() -> None:
    log = Log()
    log.user("we need to fix some merge conflicts")
    log.say("No active merge conflicts right now. Were you about to start a merge?")
    log.user("yeah merge from main")
    log.bash("git merge main", "Already up to date.")
    log.say("Already up to date.")
    log.user("origin/main")
    log.user("we need to fix some merge conflicts")
    [request] = log.extract().requests
    assert request.range == (0, 7) and request.intent == "fix"


def test_an_instruction_with_a_question_mark_is_a_request_and_a_real_question_asks_to_explain() -> None:
    log = Log()
    log.user("can you add it in the github actions level?")
    log.say("Done.")
    log.user("move the message up just before the file list?")
    log.say("Done.")
    log.user("can you explain why the build is slow?")
    log.say("It compiles twice.")
    log.user("does it read the config from the environment?")
    requests = log.extract().requests
    # A real question asks the agent to answer it (eighth round): a request to explain.
    assert [r.range[0] for r in requests if r.range] == [0, 2, 4, 6]
    assert [r.intent for r in requests] == ["add", "change", "explain", "explain"]


def test_hook_block_notes_chat_openers_and_a_pasted_terminal_are_not_requests() -> None:
    log = Log()
    log.user("Operation stopped by hook: Another session is active\n\nYou can continue here.")
    log.user("Let's talk about secrets. Here's a secret: REDACTED haha")
    log.say("Sure.")
    log.user("brew tap local/test ~/homebrew-tap-test\nError: Tap local/test remote mismatch.\n != /Users/USER/tap")
    assert log.extract().requests == []
    log.user("git push keeps failing, can you fix it")
    assert [r.intent for r in log.extract().requests] == ["fix"]


def test_after_a_refused_step_a_new_subject_is_a_new_request_and_the_same_subject_corrects() -> None:
    log = Log()
    log.user("show the tools you have")
    log.call("Bash", {"command": "ls ~/.tools"}, "User rejected tool use", rejected=True)
    log.interrupt()
    log.user("explore more of the current repo")
    assert [r.range for r in log.extract().requests] == [(0, 0), (4, 4)]
    log = Log()
    log.user("fix tests")
    log.call("Edit", {"file_path": "/w/reset.go", "old_string": "a", "new_string": "b"}, "rejected", rejected=True)
    log.interrupt()
    log.user("fix the test, the code is right")
    [request] = log.extract().requests
    assert request.range == (0, 4)


def test_a_merge_stopped_on_conflicts_is_no_failed_attempt_and_its_resolution_is_a_decision() -> None:
    log = Log()
    log.user("merge origin/main into this branch")
    log.bash("git merge origin/main", "Auto-merging a.go\nCONFLICT (content): Merge conflict in pkg/a.go\n"
             "Automatic merge failed; fix conflicts and then commit the result.", exit_code=1)
    log.say("Clear picture now. Keep both: the branch's helper and main's extra parameter.")
    log.edit("/w/pkg/a.go")
    activity = log.extract()
    assert activity.attempts == []
    [decision] = activity.decisions
    assert decision.title == "Merge conflict in a.go" and "Keep both" in decision.chosen
    assert decision.range == (1, 5)


def test_a_refused_step_then_the_users_redirection_is_a_decision() -> None:
    log = Log()
    log.user("fix tests")
    log.bash("go test ./...", "FAIL TestReset", exit_code=1)
    log.call("Edit", {"file_path": "/w/cmd/reset.go", "old_string": "a", "new_string": "b"}, "no", rejected=True)
    log.interrupt()
    log.user("fix the test, the code is right")
    log.edit("/w/cmd/reset_test.go")
    [decision] = log.extract().decisions
    assert decision.chosen == "fix the test, the code is right"
    assert decision.options[1].startswith("Edit") and "reset.go" in decision.title
    assert decision.range == (3, 8)


def test_a_recommendation_the_user_accepts_is_a_decision_and_one_left_unanswered_is_not() -> None:
    log = Log()
    log.user("add the test secret to the README")
    log.say("I'd recommend against putting test secrets in the README - it is user-facing documentation.")
    log.user("Sure, put it in test-secrets.")
    log.call("Write", {"file_path": "/w/test-secrets.txt", "content": "x"}, "created")
    [decision] = log.extract().decisions
    assert decision.chosen == "put it in test-secrets." and decision.options[1] == "putting test secrets in the README"
    assert decision.range == (1, 4) and "user-facing documentation" in decision.rationale
    log = Log()
    log.user("add the test secret to the README")
    log.say("I'd recommend a dedicated file.")
    log.user("what does gitleaks scan?")
    assert log.extract().decisions == []


def test_a_constraint_the_user_sets_on_the_request_is_a_decision() -> None:
    log = Log()
    log.user("mise run lint throws issues. However, i want the parameters that are being complained about "
             "retained. Mark them ignored with inline linter directive comments.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Mark them ignored") and "retained" in decision.rationale


def test_in_favour_of_names_the_choice_and_the_option_it_replaces() -> None:
    log = Log()
    log.user("brews is being phased out in favor of homebrew_casks, check the deprecation notice")
    [decision] = log.extract().decisions
    assert decision.chosen == "homebrew_casks" and decision.options == ["homebrew_casks", "brews"]


def test_a_plan_stated_with_the_means_is_a_decision_but_a_summary_of_done_work_is_not() -> None:
    log = Log()
    log.user("add retry at the github actions level")
    log.say("I'll add retry logic using the `nick-fields/retry` action, which is the standard approach.")
    log.edit("/w/.github/workflows/release.yml")
    log.say("Fixed. Removed the retry line, so the Casks directory will be used instead of Formula.")
    log.say("Updated the config to use homebrew_casks instead of brews.")
    [decision] = log.extract().decisions
    assert decision.range == (1, 1) and "nick-fields/retry" in decision.chosen


def _poll_log() -> Log:
    log = Log()
    log.user("find where the retry is configured and fix the flaky test")
    log.call("exec_command", {"cmd": "rg -n retry_policy src"}, "Chunk ID: a1\nWall time: 1.0 seconds\n"
             "Process running with session ID 7\nOutput:\n")
    log.call("write_stdin", {"session_id": 7, "chars": ""}, "Chunk ID: a2\nWall time: 5.0 seconds\n"
             "Process exited with code 1\nOutput:\n", exit_code=1, error=True)
    log.call("exec_command", {"cmd": "pytest tests/test_retry.py"}, "Process running with session ID 8\nOutput:\n")
    log.call("write_stdin", {"session_id": 8, "chars": ""}, "Process running with session ID 8\nOutput:\n.F")
    log.call("write_stdin", {"session_id": 8, "chars": ""}, "Process exited with code 1\nOutput:\n"
             "FAILED tests/test_retry.py::test_backoff - AssertionError", exit_code=1, error=True)
    log.edit("/w/src/retry.py")
    log.call("exec_command", {"cmd": "pytest tests/test_retry.py"}, "Process running with session ID 9\nOutput:\n")
    log.call("write_stdin", {"session_id": 9, "chars": ""}, "Process exited with code 0\nOutput:\n1 passed",
             exit_code=0)
    return log


def test_codex_polls_belong_to_the_command_they_read_and_rg_no_match_is_no_failure() -> None:
    [attempt] = _poll_log().extract().attempts
    assert attempt.trial == "`pytest tests/test_retry.py`" and attempt.outcome == "success"
    assert "write_stdin" not in attempt.result and "AssertionError" in attempt.result
    assert attempt.range == (5, 16)


def test_ok_after_a_report_of_done_work_starts_a_new_request() -> None:
    log = Log()
    log.user("create a test file for me")
    log.say("Done! I've created test-file.txt.")
    log.user("ok edit it and add some content")
    # (the first request's range reaches the agent's report of it, which its record cites)
    assert [r.range for r in log.extract().requests] == [(0, 1), (2, 2)]


def test_request_titles_skip_a_leading_condition_and_bullets_and_keep_a_clause_that_says_something() -> None:
    log = Log()
    log.user('if my api key is "REDACTED" give me the build command to have a binary ready')
    log.say("Here it is.")
    log.user("⨯ release failed after 0s")
    log.say("Let me look.")
    log.user("add a test that checks we are sending the full command")
    log.say("Done.")
    log.user("i do also want to send the command flags and arguments")
    titles = [r.title for r in log.extract().requests]
    assert titles == ["Give me the build command to have a binary ready", "Fix release failing after 0s",
                      "Add a test that checks we are sending the full command", "Send the command flags and arguments"]


def test_a_failure_is_told_by_its_diagnostic_not_the_task_runners_verdict() -> None:
    log = Log()
    log.user("mise run lint fails")
    log.bash("mise run lint", "[lint] $ golangci-lint run ./...\ncmd/cli/telemetry.go:40:1: GetClient returns "
             "interface (ireturn)\n[lint] ERROR task failed", exit_code=1)
    log.edit("/w/cmd/cli/telemetry.go")
    log.bash("mise run lint", "0 issues.")
    [attempt] = log.extract().attempts
    assert "GetClient returns interface (ireturn)" in attempt.result and "ERROR task failed" not in attempt.result


def test_a_target_does_not_end_on_a_particle() -> None:
    log = Log()
    log.user("move the message up just before the file list")
    [request] = log.extract().requests
    assert request.target == "the message"


def test_slash_commands_are_requests_unless_they_work_the_harness() -> None:
    log = Log()
    for text in ("/clear", "/init", "/orchestrator add a login page with OAuth", "/model", "/ide",
                 "/orchestrator 회원가입 페이지를 만들어 주세요", "/review-pr"):
        log._add(role="user", text=text, kind="command")
        log.say("Working on it.")
    requests = log.extract().requests
    assert [r.range[0] for r in requests] == [2, 4, 10, 12]
    assert [r.title for r in requests] == ["Write the project instructions (/init)", "Add a login page with OAuth",
                                           "/orchestrator: 회원가입 페이지를 만들어 주세요", "Run /review-pr"]
    assert [r.intent for r in requests] == ["add", "add", "run", "run"]


def test_a_commit_whose_body_says_why_is_a_decision_and_one_that_lists_changes_is_not() -> None:
    log = Log()
    log.user("make the pre-push hook pass")
    log.edit("/w/lint.json")
    log.bash("git add lint.json && git commit -m \"$(cat <<'EOF'\nchore: skip generated folders in the linter\n\n"
             "Adds out/ and tmp/ to the ignore list.\nThese are generated folders, not project code.\n\n"
             "Co-Authored-By: Someone <someone@example.com>\nEOF\n)\"", "[main 1a2b3c] chore: skip generated folders")
    log.bash("git commit -m 'docs: update the changelog' -m 'Adds the 1.2 entry and fixes two typos.'", "[main 4d5e6f]")
    log.bash("git commit -m 'fix: retry' -m 'because the API drops requests'", "pre-commit hook failed", exit_code=1)
    [decision] = log.extract().decisions
    assert decision.chosen == "skip generated folders in the linter"
    assert decision.rationale == "These are generated folders, not project code."
    assert decision.range == (3, 4)


def test_a_user_correcting_what_the_agent_did_is_a_decision_a_plain_follow_up_is_not() -> None:
    log = Log()
    log.user("render the log in the browser, reading a config file")
    log.edit("/w/viewer.js")
    log.say("Done: the viewer reads viewer.conf.")
    log.user("why did i ask for a config file? it's not needed, remove it and load the log directly.")
    log.edit("/w/viewer.js")
    log.user("now extract the css into its own file")
    log.edit("/w/viewer.css")
    [decision] = log.extract().decisions
    assert decision.chosen == "it's not needed, remove it and load the log directly."
    assert decision.range == (4, 6) and "corrected" in decision.rationale


def test_a_correction_word_in_the_first_message_is_no_correction() -> None:
    log = Log()
    log.user("don't touch the tests; only change the parser so empty lines are skipped")
    log.edit("/w/parser.py")
    assert all("corrected" not in d.rationale for d in log.extract().decisions)


def test_an_option_the_agent_weighs_and_sets_aside_is_a_decision() -> None:
    log = Log()
    log.user("the deploy script fails on the staging host")
    log.say("Port 8080 is taken there, so the service needs another one. Since the proxy already maps 80, "
            "we could drop the port from the config entirely, but an explicit port is easier to debug.")
    log.edit("/w/deploy.toml")
    [decision] = log.extract().decisions
    assert decision.chosen == "an explicit port is easier to debug"
    assert decision.options[1] == "drop the port from the config entirely (Since the proxy already maps 80)"
    assert decision.rationale.startswith("Port 8080 is taken")
    log = Log()
    log.user("what could we do about the flaky test?")
    log.say("We could retry it, but could we also mock the clock?")
    assert log.extract().decisions == []


def test_progress_narration_is_no_decision_but_a_plan_with_a_curly_apostrophe_is() -> None:
    log = Log()
    log.user("is the release ready?")
    log.say("I’m pulling the issue body and the linked PRs rather than relying on title matching.")
    log.say("The search API is noisy, so I’m switching to commit lookup instead of the search.")
    log.say("I’ll use the GitHub workflow because this depends on the current PR state.")
    assert log.extract().decisions == []
    log = Log()
    log.user("add retries to the upload")
    log.say("I’ll add retry logic using the `tenacity` library, which the project already depends on.")
    [decision] = log.extract().decisions
    assert "tenacity" in decision.chosen


def test_a_plan_handed_over_is_titled_by_its_heading() -> None:
    log = Log()
    log.user("Implement the following plan:\n\n# Plan: Propagate verbose logging through the summariser\n\n## Context\n"
             "The summariser's provider calls are silent.")
    log.edit("/w/docs-finder.ts")
    [request] = log.extract().requests
    assert request.title == "Propagate verbose logging through the summariser"


def test_a_discussion_keeps_the_answer_not_the_agents_progress_narration() -> None:
    log = Log()
    log.user("there is sensitive information in that file, how should we keep it out?")
    log.say("Yes. The safest approach is to never persist the raw session in this repo. I’m going to add a "
            "scrubber script now. I’m implementing a redaction path next.")
    [discussion] = log.extract().discussions
    assert discussion.points == ["The safest approach is to never persist the raw session in this repo."]


def test_a_request_after_a_lowercase_sentence_of_context_is_titled_by_the_instruction() -> None:
    log = Log()
    log.user("i've enabled entire. please push to pr and merge this.")
    log.bash("git push -u origin chore/enable-entire", "done")
    [request] = log.extract().requests
    assert request.title == "Push to pr and merge"  # short_title drops the dangling "this"


def test_a_questions_answer_is_the_agents_last_message_before_the_user_speaks_again() -> None:
    log = Log()
    log.user("should we close issue 1263 as resolved by the prepare PRs?")
    log.say("I'll use the GitHub workflow because this depends on the current issue state.")
    log.bash("gh issue view 1263", "OPEN")
    log.say("No. I'd keep 1263 open for now: the docs and trace follow-ups are still missing.")
    [discussion] = log.extract().discussions
    assert discussion.points == ["I'd keep 1263 open for now: the docs and trace follow-ups are still missing."]


def test_a_rhetorical_question_before_the_instruction_is_not_the_title() -> None:
    log = Log()
    log.user("render the log from a config file")
    log.edit("/w/viewer.js")
    log.user("why did i ask about toml? it's not needed, remove that configuration.")
    log.edit("/w/viewer.js")
    titles = [r.title for r in log.extract().requests]
    assert titles[-1].lower().startswith("it's not needed, remove") or titles[-1].lower().startswith("remove")
