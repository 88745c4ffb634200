"""The Phase 1 rules engine on issue 26's second round of causes, mechanism by mechanism, each on a
small constructed log (none copied from a benchmark session); each test fails without its rule:
change summaries told as lists are not decisions, choices the agent reasons about or states with
their reason are, and so on (see docs/phase1.md)."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- decisions


def test_a_list_of_changes_made_is_no_decision_and_a_bullet_takes_no_reason_from_another() -> None:
    log = Log()
    log.user("upgrade next")
    log.edit("/w/package.json")
    log.say("The upgrade is in place. Changes:\n\n- Using 15.5.2 instead of 14 because the app router needs it\n"
            "- Bumped react to 19\n- Removed the legacy babel config since SWC handles it")
    log.say("Here is what moved:\n\n- Upgraded the eslint config to the flat format\n- Using pnpm instead of npm")
    assert log.extract().decisions == []
    # A plan's list is not a list of changes made: its choice stands, with its own reason or none.
    log = Log()
    log.user("plan the migration")
    log.say("Plan:\n\n- Keep the old endpoint alive for one release\n- Use SQLite instead of JSON files")
    [decision] = log.extract().decisions
    assert decision.options == ["SQLite", "JSON files"]
    assert "old endpoint" not in decision.rationale


def test_a_choice_the_agent_states_with_its_reason_is_a_decision_but_a_look_around_is_not() -> None:
    log = Log()
    log.user("finish the docs follow-ups")
    log.say("I'll treat this as implementation work: first isolate it in a fresh worktree because the primary "
            "checkout is dirty and behind origin/main.")
    log.bash("git worktree add ../w -b docs origin/main", "Preparing worktree")
    [decision] = log.extract().decisions
    assert decision.chosen == "isolate it in a fresh worktree"
    assert decision.rationale.startswith("the primary checkout is dirty")
    log = Log()
    log.user("why is the build slow?")
    log.say("I'll check the cache settings first because the build log mentions a cold cache.")
    log.say("I'll enter plan mode since this is a substantial change.")
    assert log.extract().decisions == []


def test_a_design_or_a_value_the_agent_settles_on_is_a_decision() -> None:
    log = Log()
    log.user("make the compaction strategies configurable")
    log.say("I'll use a generic approach with an enum for the strategies, so new ones plug in without touching "
            "the caller.")
    log.edit("/w/compact.rs")
    log.user("add auto compaction")
    log.say("I'll set the compaction threshold to 0.9 of the context window.")
    log.edit("/w/compact.rs")
    decisions = log.extract().decisions
    assert [d.title for d in decisions] == ["Use a generic approach with an enum for the strategies",
                                            "Set the compaction threshold to 0.9 of the context window"]


def test_reasoning_counts_only_for_choices_the_agent_owns_and_is_one_decision_with_the_message() -> None:
    log = Log()
    log.user("commit the config and merge it")
    _thinking(log, "The user wants the config committed. It hardcodes the path instead of reading the env.")
    log.bash("git status", "clean")
    assert log.extract().decisions == []
    log = Log()
    log.user("commit the config and merge it")
    thought = _thinking(log, "Following the guidelines in CLAUDE.md to always use branches and PRs rather than "
                             "pushing directly to main.")
    said = log.say("I'll use feature branches and PRs rather than a push to main.")
    log.bash("git checkout -b chore/config", "Switched to a new branch")
    [decision] = log.extract().decisions
    assert decision.range == (thought, said) and decision.chosen == "feature branches and PRs"
    # Codex's reasoning summary alone, with no message after it, is evidence too.
    log = Log()
    log.user("speed up the sync")
    _thinking(log, "**Choosing the transport**\n\nI'll use websockets instead of polling because the server "
                   "already pushes events.")
    log.edit("/w/sync.ts")
    [decision] = log.extract().decisions
    assert decision.options == ["websockets", "polling"]


def test_a_commit_subject_or_a_pull_request_that_says_why_is_a_decision_told_once() -> None:
    log = Log()
    log.user("add retries to the webhook sender")
    log.edit("/w/send.py")
    log.bash('git commit -m "Retry webhooks with exponential backoff to avoid hammering slow receivers"', "[main 1]")
    log.call("exec_command", {"cmd": 'gh pr create --title "Store sessions in SQLite" --body "## Summary\\n- Store '
                                     'sessions in SQLite\\n\\n## Why\\nJSON files were rewritten on every change, '
                                     'which lost data on crashes."'},
             "Process exited with code 0\nOutput:\nhttps://github.com/o/r/pull/3", exit_code=0)
    log.bash('git commit -m "Bump the version"', "[main 2]")
    log.bash("gh pr create --title 'Bump the version' --body 'Bumps the version.'", "https://github.com/o/r/pull/4")
    decisions = log.extract().decisions
    assert [(d.chosen, d.rationale) for d in decisions] == [
        ("Retry webhooks with exponential backoff", "to avoid hammering slow receivers"),
        ("Store sessions in SQLite", "JSON files were rewritten on every change, which lost data on crashes.")]


def test_after_a_refused_step_a_new_subject_is_no_decision() -> None:
    log = Log()
    log.user("show the tools you have")
    log.call("Bash", {"command": "ls ~/.tools"}, "User rejected tool use", rejected=True)
    log.interrupt()
    log.user("explore more of the current repo")
    activity = log.extract()
    assert activity.decisions == [] and len(activity.requests) == 2


def test_a_correction_without_a_verb_of_its_own_refines_the_request_and_is_its_decision() -> None:
    log = Log()
    log.user("add a timeout to the client")
    log.edit("/w/client.py")
    log.say("Added a 30s timeout inline.")
    fix = log.user("it should be included into constant")
    log.edit("/w/client.py")
    activity = log.extract()
    [request] = activity.requests
    assert request.range == (0, fix) and request.title == "Add a timeout to the client"
    [decision] = activity.decisions
    assert decision.chosen == "it should be included into constant"


def test_a_commit_message_with_escaped_quotes_and_newlines_is_read_whole() -> None:
    log = Log()
    log.user("fix the client")
    log.bash('git commit -m "Pin \\"httpx\\" below 0.28\\n\\nbecause 0.28 drops the proxies argument"', "[main 1]")
    [decision] = log.extract().decisions
    assert decision.chosen == 'Pin "httpx" below 0.28'
    assert decision.rationale == "because 0.28 drops the proxies argument"



def test_a_codex_reasoning_summary_weighing_a_choice_is_a_decision_and_its_progress_is_not() -> None:
    log = Log()
    log.user("remove the accidental root artifacts")
    _thinking(log, "**Choosing the branch**\n\nI'm thinking about creating a fresh branch from origin/main rather "
                   "than pushing to main, since the repo forbids direct pushes.")
    log.bash("git checkout -b fix/artifacts origin/main", "Switched to a new branch")
    [decision] = log.extract().decisions
    assert decision.title == "Creating a fresh branch from origin/main rather than pushing to main"
    assert decision.rationale == "the repo forbids direct pushes."
    log = Log()
    log.user("fix the parser")
    _thinking(log, "**Inspecting the parser**\n\nI'm thinking about how the parser reads quotes rather than guessing.")
    log.bash("ls src", "parser.py")
    assert log.extract().decisions == []


def test_a_comment_the_change_adds_naming_the_alternative_is_a_decision_unless_the_turn_told_it() -> None:
    log = Log()
    log.user("make the sync robust")
    edit = log.call("Edit", {"file_path": "/w/sync.ts", "old_string": "subscribe()",
                             "new_string": "// Poll every 30 s rather than subscribe: the API drops idle sockets.\n"
                                           "poll(30)"}, "updated")
    log.call("Edit", {"file_path": "/w/sync.ts", "old_string": "a", "new_string": "x = a_instead_of_b  # instead of b\n"},
             "updated")
    [decision] = log.extract().decisions
    assert decision.options == ["Poll every 30 s", "subscribe"] and decision.rationale == "the API drops idle sockets."
    assert decision.range == (edit, edit + 1)
    log = Log()
    log.user("make the sync robust")
    log.say("I'll poll every 30 s instead of subscribing because the API drops idle sockets.")
    log.call("Write", {"file_path": "/w/sync.ts", "content": "// Poll rather than subscribe: idle sockets drop.\npoll()"},
             "created")
    assert len(log.extract().decisions) == 1


# ---------------------------------------------------------------- attempts


def test_a_script_that_failed_inline_is_fixed_by_the_same_script_written_to_a_file_and_run() -> None:
    log = Log()
    log.user("convert the csv to json")
    log.bash("python3 - <<'EOF'\nimport csv, json\nrows = list(csv.reader(open('a.csv')))\nprint(json.dumps(rows))\n"
             "EOF", "Traceback (most recent call last):\nFileNotFoundError: a.csv", exit_code=1)
    log.call("Write", {"file_path": "/w/convert.py", "content": "import csv, json\nrows = list(csv.reader("
                       "open('data/a.csv')))\nprint(json.dumps(rows))\n"}, "File created")
    log.bash("python3 /w/convert.py", "[[1, 2]]")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (1, 6)
    assert "after editing convert.py" in attempt.result and "`python3 /w/convert.py` then succeeded" in attempt.result
    # An unrelated script run later is not the same check.
    log = Log()
    log.user("convert the csv to json")
    log.bash("python3 - <<'EOF'\nimport csv, json\nprint(json.dumps(list(csv.reader(open('a.csv')))))\nEOF",
             "FileNotFoundError: a.csv", exit_code=1)
    log.call("Write", {"file_path": "/w/serve.py", "content": "from http.server import test\ntest(port=8000)\n"}, "ok")
    log.bash("python3 /w/serve.py", "Serving")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_file_written_with_the_shell_is_a_change_that_fixes() -> None:
    log = Log()
    log.user("make the check pass")
    log.bash("python3 check.py", "error: config.txt is missing mode = fixed", exit_code=1)
    log.bash("cat > config.txt <<'EOF'\nmode = fixed\nEOF", "")
    log.bash("python3 check.py", "check passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and "after editing config.txt" in attempt.result


def test_a_stop_hook_story_names_its_cause_and_fix_or_is_not_told() -> None:
    log = Log()
    log.user("fix the typo in README")
    log.edit("/w/README.md")
    log.say("Fixed.")
    hook = log._add(role="system", text="Stop hook feedback:\nCannot exit with unstaged changes. Commit them first.",
                    kind="hook_feedback")
    commit = log.bash('git add README.md && git commit -m "Fix typo"', "[main 1] Fix typo")
    log.say("Committed.")
    [attempt] = log.extract().attempts
    assert attempt.trial == "the Stop hook" and attempt.outcome == "success"
    assert attempt.result.startswith("blocked: Cannot exit with unstaged changes")
    assert 'after running `git add README.md && git commit -m "Fix typo"`' in attempt.result
    assert attempt.range == (hook, commit + 1)
    # Answered with words only: nothing failed, nothing was fixed, no story.
    log = Log()
    log.user("summarise the changes")
    log.say("Here they are.")
    log._add(role="system", text="Stop hook feedback:\nDid you update the changelog?", kind="hook_feedback")
    log.say("No changelog entry is needed for a summary.")
    assert log.extract().attempts == []


def test_a_poll_whose_command_is_not_in_sight_is_no_call_and_a_process_id_names_the_session() -> None:
    log = Log()
    log.user("run the suite")
    log.call("write_stdin", {"session_id": 5, "chars": ""}, "Process exited with code 1\nOutput:\nFAILED x",
             exit_code=1, error=True)
    assert log.extract().attempts == []
    log = Log()
    log.user("run the suite")
    log.call("exec_command", {"cmd": "cargo test"}, "Process running with process ID 41\nOutput:\n")
    log.call("write_stdin", {"process_id": 41, "chars": ""}, "Process exited with code 101\nOutput:\n"
             "error[E0425]: cannot find value `x`", exit_code=101, error=True)
    [attempt] = log.extract().attempts
    assert attempt.trial == "`cargo test`" and "E0425" in attempt.result


def test_older_codex_apply_patch_through_the_shell_is_an_edit() -> None:
    patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-let x = 1;\n+let x = 2;\n*** End Patch"
    log = Log()
    log.user("make the test pass")
    log.call("shell", {"command": ["cargo", "test"]}, "Exit code: 101\nerror: test failed", exit_code=101, error=True)
    log.call("shell", {"command": ["apply_patch", patch]}, "Exit code: 1\nFailed to find expected lines", exit_code=1,
             error=True)
    log.call("shell", {"command": ["apply_patch", patch]}, "Exit code: 0\nDone!", exit_code=0)
    log.call("shell", {"command": ["cargo", "test"]}, "Exit code: 0\ntest result: ok", exit_code=0)
    [attempt] = log.extract().attempts
    assert attempt.trial == "`cargo test`" and "after editing lib.rs" in attempt.result


# ---------------------------------------------------------------- requests


def test_a_slash_command_and_the_prompt_it_expands_to_are_one_request() -> None:
    log = Log()
    log._add(role="user", text="/review-pr", kind="command")
    prompt = log.user("Review the open pull request for security issues and report each finding with its file.")
    log.say("Reviewing.")
    log._add(role="user", text="/init", kind="command")
    init_prompt = log.user("Please analyze this codebase and create a CLAUDE.md file.")
    log.say("Done.")
    requests = log.extract().requests
    assert len(requests) == 2  # the expanded prompt is no request of its own
    assert [r.range[0] for r in requests if r.range] == [0, 3]
    assert all(r.range and r.range[1] >= p for r, p in zip(requests, (prompt, init_prompt), strict=True))
    assert requests[0].title.startswith("Review the open pull request") and requests[0].title.endswith("(/review-pr)")
    assert requests[1].title == "Write the project instructions (/init)"


def test_a_command_the_agent_showed_typed_back_is_a_request_to_run_it() -> None:
    log = Log()
    log.user("create a conda environment for the project")
    log.say("Created `aie311`. To use it:\n\n```bash\nconda activate aie311\npip install -r requirements.txt\n```")
    typed = log.user("conda activate aie311")
    requests = log.extract().requests
    assert [(r.range, r.intent, r.title) for r in requests][1] == ((typed, typed), "run", "Run `conda activate aie311`")
    # A word the agent did not show is still a bare follow-up of the request before it.
    log = Log()
    log.user("create a conda environment for the project")
    log.say("Created `aie311`.")
    log.user("origin/main")
    assert len(log.extract().requests) == 1


def test_the_user_reporting_back_refines_the_request_but_a_new_problem_is_its_own() -> None:
    log = Log()
    log.user("fix the gui startup")
    log.say("Run it with OPK_DEBUG=1.")
    log.user("This is what I got: python -m opk.ui.main_window OPK_DEBUG=1")
    log.say("Try the X11 platform.")
    log.user("I'm on Ubuntu 22.04, in a desktop session.")
    log.user("OK, this worked: QT_QPA_PLATFORM=xcb opk-gui")
    assert [r.range for r in log.extract().requests] == [(0, 5)]
    log.user("I tried to run the cli and got nothing. It exited immediately.")
    assert len(log.extract().requests) == 2


def test_harness_refusals_sandbox_kills_and_sed_reads_are_no_attempts() -> None:
    log = Log()
    log.user("push it")
    log.call("Bash", {"command": "git push origin main"}, "The user doesn't want to take this action right now. STOP "
             "what you are doing and wait for the user to tell you how to proceed.", error=True)
    log.call("shell", {"command": ["pytest", "-q"]}, "failed in sandbox: sandbox error: command was killed by a signal",
             error=True, exit_code=-1)
    log.bash("sed -n '1,200p' docs/missing.md", "sed: can't read docs/missing.md: No such file or directory",
             exit_code=2)
    assert log.extract().attempts == []


def test_a_documents_headings_are_not_comments_and_that_is_no_choice() -> None:
    log = Log()
    log.user("write up the issues")
    log.call("Edit", {"file_path": "/tmp/issues.md", "old_string": "x", "new_string": "## Issue 3: Shows 'Unnamed' "
                      "instead of the name\n**Severity**: Medium rather than high"}, "updated")
    log.say("If it still fails, paste the output. I'll use that to pinpoint and fix the exact startup condition.")
    assert log.extract().decisions == []


# ---------------------------------------------------------------- requests (issue 26, third round)


def test_a_follow_up_in_a_script_the_rules_cannot_read_is_a_new_request() -> None:
    log = Log()
    log.user("检查目前项目的设计")
    log.say("结论如下。要我开始实施吗？")
    start = log.user("可以，开始实施")  # one whitespace "word", no English verb: was folded as a bare follow-up
    log.edit("/w/cli.py")
    fallback = log.user("帮我补充 status 的无登录降级体验")
    log.user("帮我补充 status 的无登录降级体验")  # sent again word for word: the same request
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [0, start, fallback]
    assert all(" — refined: " not in r.summary for r in requests)


def test_continue_after_the_work_stopped_is_a_request_but_a_plain_continue_is_not() -> None:
    log = Log()
    log.user("commit and push the changes")
    log.call("Bash", {"command": "git push"}, "The user doesn't want to proceed with this tool use.", error=True)
    log.interrupt()
    resumed = log.user("continue")
    requests = log.extract().requests
    assert [(r.range[0] if r.range else None, r.intent) for r in requests] == [(0, "run"), (resumed, "continue")]
    assert requests[1].title.startswith("Continue: Commit and push")
    log = Log()
    log.user("commit and push the changes")
    log.say("Committed. Shall I push?")
    log.user("continue")
    assert len(log.extract().requests) == 1


def test_naming_an_offered_option_answers_the_question_and_a_way_to_avoid_a_problem_is_a_fix() -> None:
    log = Log()
    log.user("can you use the code-simplifier plugin")
    log.say("Would you like me to:\n\n1. **Simplify recently modified code** - the default\n"
            "2. **Simplify specific files** - point me at them\n\nWhat would you like me to focus on?")
    log.user("Simplify the code added in this branch")
    [request] = log.extract().requests
    assert request.range == (0, 2)
    log = Log()
    log.user("export the session")
    log.say("Exported.")
    log.user("there is sensitive information in that jsonl file, is there a way to avoid that?")
    log.user("link the PR")
    requests = log.extract().requests
    assert [(r.intent, r.title) for r in requests][1:] == [("fix", "Fix sensitive information in that jsonl file"),
                                                           ("change", "Link the PR")]


# ---------------------------------------------------------------- attempts (issue 26, third round)


def test_an_mcp_tool_error_is_an_attempt_only_when_the_work_changed_to_get_past_it() -> None:
    log = Log()
    log.user("QA the CRM tools")
    log.call("mcp__crm__get-record", {"record_id": "invalid-id"}, "Error executing tool: invalid record id",
             error=True)
    log.call("mcp__crm__get-record", {"record_id": "abc"}, "{}")  # the probe answered, nothing was fixed
    log.call("mcp__crm__create-record", {"data": {"name": "Q", "note": "x"}}, "Error: cannot find attribute note",
             error=True)
    log.edit("/w/qa-issues.md")  # the bug documented, not fixed
    log.call("mcp__crm__create-record", {"data": {"name": "Q"}}, "{}")
    [noted] = log.extract().attempts
    assert noted.outcome == "failure" and "not fixed — noted in qa-issues.md" in noted.result
    log = Log()
    log.user("fix the CRM server's create")
    log.call("mcp__crm__create-record", {"data": {"name": "Q"}}, "Error: cannot find attribute note", error=True)
    log.edit("/w/server/create.ts")
    log.call("mcp__crm__create-record", {"data": {"name": "Q"}}, "{}")
    [fixed] = log.extract().attempts
    assert fixed.outcome == "success" and "after editing create.ts" in fixed.result


def test_a_failure_fixed_by_another_command_aimed_at_the_same_ref_is_fixed() -> None:
    log = Log()
    log.user("sync main")
    log.bash("git switch main && git pull --ff-only origin main", "fatal: Not possible to fast-forward, aborting.",
             exit_code=128)
    log.say("Local main has diverged from origin/main; I'll keep the local commit on a branch and reset.")
    log.bash("git status --short --branch", "## main...origin/main [ahead 1, behind 2]")
    log.bash("git branch backup/main main && git reset --hard origin/main", "HEAD is now at 354de72")
    log.edit("/w/later.py")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"
    assert "ran `git branch backup/main main && git reset --hard origin/main` instead" in attempt.result
    assert "later.py" not in attempt.result
