"""Phase 1's ninth round on attempts, each mechanism on a small constructed log (no line copied from a
benchmark session); each test fails without its rule.

A Codex sandbox refusal is the harness at work, not the work failing: run again by the harness with
nothing changed and nothing asked for, it is no story; run again with the escalated permissions the
agent asked for, the story says so instead of "the same call succeeded on retry".
"""

from __future__ import annotations

from typing import Any

from test_phase1_rules import Log

_FETCH = "cd /w/repo && git fetch --all --prune"
_REFUSED = "failed in sandbox: error: cannot open '.git/FETCH_HEAD': Operation not permitted\n"


def _shell(log: Log, command: str, output: str, *, error: bool, **extra: Any) -> int:
    return log.call("shell", {"command": ["bash", "-lc", command], "workdir": "/w/repo", **extra}, output,
                    error=error, exit_code=None if error else 0)


def test_a_sandbox_refusal_the_harness_ran_again_unchanged_is_no_story() -> None:
    log = Log()
    log.user("create the feature branch for the spec")
    _shell(log, _FETCH, _REFUSED, error=True)
    _shell(log, _FETCH, "From https://example.invalid/repo\n", error=False)
    assert log.extract().attempts == []


def test_a_sandbox_refusal_run_again_with_escalated_permissions_is_told_as_such() -> None:
    log = Log()
    log.user("create the feature branch for the spec")
    start = _shell(log, _FETCH, _REFUSED, error=True)
    _shell(log, _FETCH, "From https://example.invalid/repo\n", error=False, with_escalated_permissions=True,
           justification="Need to update the refs")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range is not None and attempt.range[0] == start
    assert "outside the sandbox, with the escalated permissions the agent asked for" in attempt.result
    assert "passed when run again" not in attempt.result


def test_a_sandbox_failure_fixed_by_a_change_is_still_a_story() -> None:
    log = Log()
    log.user("run the unit tests")
    _shell(log, "pytest tests/unit -q", "failed in sandbox: FAILED tests/unit/test_io.py::test_reads - KeyError\n",
           error=True)
    log.edit("/w/repo/src/io.py")
    _shell(log, "pytest tests/unit -q", "3 passed\n", error=False)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and "after editing io.py" in attempt.result


def test_a_newer_codex_sandbox_denial_is_told_by_its_stderr() -> None:
    log = Log()
    log.user("commit the constitution")
    denied = ('exec_command failed: CreateProcess { message: "Codex(Sandbox(Denied { output: ExecToolCallOutput { '
              'exit_code: 128, stdout: StreamOutput { text: \\"\\", truncated_after_lines: None }, stderr: '
              "StreamOutput { text: \\\"fatal: Unable to create '/w/repo/.git/index.lock': Operation not "
              'permitted\\\\n\\", truncated_after_lines: None } } }))" }')
    log.call("exec_command", {"cmd": "git commit -m 'docs: constitution'"}, denied, error=True, exit_code=128)
    log.call("exec_command", {"cmd": "git commit -m 'docs: constitution'", "sandbox_permissions": "require_escalated"},
             "[main 563a869] docs: constitution\nProcess exited with code 0", exit_code=0)
    [attempt] = log.extract().attempts
    assert "sandbox denied: fatal: Unable to create '/w/repo/.git/index.lock': Operation not permitted;" in attempt.result
    assert "CreateProcess" not in attempt.result
    assert "escalated permissions" in attempt.result


# ---------------------------------------------------------------- a search that printed nothing
def test_a_codex_search_that_failed_silently_with_no_exit_code_found_nothing() -> None:
    log = Log()
    log.user("find where the retry limit is set")
    _shell(log, "rg -n 'RETRY_LIMIT' src", "failed in sandbox: ", error=True)
    log.say("No RETRY_LIMIT in src; the limit must come from the config file.")
    log.edit("/w/config.toml")
    assert log.extract().attempts == []


def test_a_codex_command_that_failed_with_output_and_no_exit_code_still_failed() -> None:
    log = Log()
    log.user("run the unit tests")
    _shell(log, "pytest tests -q", "failed in sandbox: FAILED tests/test_io.py::test_reads - KeyError\n", error=True)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


# ---------------------------------------------------------------- a route aimed at the same thing
_COUNT = "python - <<'PY'\nfrom pathlib import Path\nprint(Path('/w/specs/checklist.md').read_text().count('- [x]'))\nPY"


def test_a_missing_program_is_not_fixed_by_an_unrelated_next_command() -> None:
    log = Log()
    log.user("count the checked items of the checklist")
    log.bash(_COUNT, "zsh:1: command not found: python", exit_code=127)
    log.bash("git status --short", " M README.md")
    [attempt] = log.extract().attempts
    assert "git status" not in attempt.result and attempt.outcome == "failure"


def test_a_missing_program_is_fixed_by_the_next_command_aimed_at_the_same_file() -> None:
    log = Log()
    log.user("count the checked items of the checklist")
    log.bash(_COUNT, "zsh:1: command not found: python", exit_code=127)
    log.bash("awk '/^- \\[x\\]/{c++} END{print c}' /w/specs/checklist.md", "7")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and "ran `awk" in attempt.result


def test_a_failed_look_is_fixed_by_another_look_of_the_same_program_only_when_aimed_alike() -> None:
    log = Log()
    log.user("which feature branches exist?")
    log.bash("git ls-remote --heads origin", "fatal: unable to access 'https://example.invalid/r.git/': "
             "Could not resolve host", exit_code=128)
    log.bash("git for-each-ref refs/remotes/origin --format='%(refname:short)'", "origin/001-search")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"
    other = Log()
    other.user("which feature branches exist?")
    other.bash("git ls-remote --heads origin", "fatal: unable to access 'https://example.invalid/r.git/': "
               "Could not resolve host", exit_code=128)
    other.bash("git stash list", "stash@{0}: WIP on main")
    [attempt] = other.extract().attempts
    assert attempt.outcome == "failure" and "backup" not in attempt.result


# ---------------------------------------------------------------- a fetch is a check of one site
def test_a_failed_fetch_is_not_fixed_by_a_fetch_of_another_site() -> None:
    log = Log()
    log.user("look up the flood zone service")
    log.call("WebFetch", {"url": "https://maps.example.invalid/gis/FloodZones/MapServer/28", "prompt": "fields"},
             "Request failed with status code 404", error=True)
    log.call("WebFetch", {"url": "https://docs.other.invalid/changelog", "prompt": "latest release"}, "v2.1 ...")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "other.invalid" not in attempt.result


def test_a_failed_fetch_is_fixed_by_a_later_fetch_of_the_same_site() -> None:
    log = Log()
    log.user("look up the flood zone service")
    log.call("WebFetch", {"url": "https://maps.example.invalid/gis/FloodZones/MapServer/28", "prompt": "fields"},
             "Request failed with status code 404", error=True)
    log.call("WebFetch", {"url": "https://maps.example.invalid/arcgis/FloodZones/MapServer/28", "prompt": "fields"},
             "FLD_ZONE, ZONE_SUBTY")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"


# ---------------------------------------------------------------- a poll of a task the harness no longer knows
def _lost_poll(log: Log) -> int:
    return log.call("TaskOutput", {"task_id": "t42", "block": False},
                    "<tool_use_error>No task found with ID: t42</tool_use_error>", error=True)


def test_a_poll_of_a_task_the_harness_no_longer_knows_is_no_story() -> None:
    log = Log()
    log.user("write the three poems in the background")
    _lost_poll(log)
    log.call("Read", {"file_path": "/tmp/tasks/t42.output"}, "The poem ...")
    assert log.extract().attempts == []


def test_a_lost_poll_got_past_by_launching_the_work_again_is_fixed() -> None:
    log = Log()
    log.user("write the three poems in the background")
    start = _lost_poll(log)
    log.say("The task is gone; I will start the green curry poem again.")
    launch = log.call("Task", {"description": "Poem about green curry", "prompt": "Write a poem",
                               "run_in_background": True}, "Async agent launched successfully.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (start, launch + 1)
    assert "fixed — launched the work again" in attempt.result


# ---------------------------------------------------------------- a look-up's "no"
def test_a_look_up_that_answers_not_found_is_no_failure() -> None:
    log = Log()
    log.user("open a pull request for this branch if there is none")
    log.bash("gh pr view --json url", "no pull requests found for branch \"feat/export\"", exit_code=1)
    log.bash("gh pr create --fill", "https://example.invalid/o/r/pull/7")
    log.bash("git show main:docs/EXPORT.md", "fatal: path 'docs/EXPORT.md' does not exist in 'main'", exit_code=128)
    log.bash("docker inspect export-worker", "Error: No such object: export-worker", exit_code=1)
    log.bash("kubectl logs export-worker-0", 'Error from server (NotFound): pods "export-worker-0" not found',
             exit_code=1)
    assert log.extract().attempts == []


def test_a_look_up_that_crashed_or_a_script_with_a_look_up_word_still_failed() -> None:
    log = Log()
    log.user("check the cli's inspect command")
    log.bash("bun apps/cli/src/cli.ts inspect --help",
             "SyntaxError: Export named 'grade' not found in module 'dist/index.js'", exit_code=1)
    log.bash("go get example.invalid/lib@v1.2.0", "go: example.invalid/lib@v1.2.0: not found", exit_code=1)
    outcomes = [a.outcome for a in log.extract().attempts]
    assert outcomes == ["failure", "failure"]


# ---------------------------------------------------------------- a noun-verb CLI's check is both words
def test_a_noun_verb_cli_command_is_not_re_run_by_another_verb_of_the_same_noun() -> None:
    log = Log()
    log.user("open the pull request")
    log.bash("gh pr create --fill", "pull request create failed: GraphQL: No commits between main and feat",
             exit_code=1)
    log.bash("gh pr view --json url", '{"url": "https://example.invalid/o/r/pull/3"}')
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "gh pr view" not in attempt.result


def test_a_noun_verb_cli_command_run_again_after_a_change_is_fixed() -> None:
    log = Log()
    log.user("open the pull request")
    log.bash("gh pr create --fill", "pull request create failed: GraphQL: No commits between main and feat",
             exit_code=1)
    log.bash("git push -u origin feat", "branch 'feat' set up to track 'origin/feat'.")
    log.bash("gh pr create --fill", "https://example.invalid/o/r/pull/4")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and "after running `git push -u origin feat`" in attempt.result


# ---------------------------------------------------------------- the agent's own time limit
def test_a_server_ended_by_the_agents_own_time_limit_is_no_failure() -> None:
    log = Log()
    log.user("check the dev server starts")
    log.bash("cd web && timeout 15 npm run dev", "VITE v5.0.0  ready in 300 ms\n  Local: http://localhost:5173/",
             exit_code=124)
    log.bash("timeout 10 uvicorn app:app --port 8100", "INFO: Application startup complete.", exit_code=143)
    assert log.extract().attempts == []


def test_a_check_ended_by_a_time_limit_failed_and_its_wrapper_is_no_part_of_the_check() -> None:
    log = Log()
    log.user("run the tests")
    start = log.bash("timeout 60 pytest -q", "", exit_code=124)
    log.edit("/w/tests/conftest.py")
    fixed = log.bash("pytest -q", "12 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (start, fixed + 1)


# ---------------------------------------------------------------- harness mechanics and denials
def test_a_kill_of_an_ended_shell_is_mechanics() -> None:
    # (A Read too large for one call was mechanics here too; since the tenth round it is a story, fixed by
    # the read in parts: tests/test_phase1_attempts_round10.py.)
    log = Log()
    log.user("summarise the server log")
    log.call("KillShell", {"shell_id": "bash_2"}, "Shell bash_2 is not running, so cannot be killed (status: "
             "completed)", error=True)
    assert log.extract().attempts == []


def test_a_permission_the_harness_denied_is_no_failure() -> None:
    log = Log()
    log.user("clean the build folder")
    log.call("Bash", {"command": "rm -rf build"}, "Permission to use Bash with command rm -rf build has been denied.",
             error=True)
    log.call("Bash", {"command": "cd /etc"}, "cd to '/etc' was blocked. For security, Claude Code may only change "
             "directories to child directories of the allowed working directories for this session.", error=True)
    log.bash("npm run clean", "removed build/")
    assert log.extract().attempts == []


def test_a_read_that_failed_on_the_file_itself_is_still_a_failure() -> None:
    log = Log()
    log.user("read the notebook")
    log.call("NotebookEdit", {"notebook_path": "/w/a.ipynb", "new_source": "x"}, "Notebook is not valid JSON: "
             "Expecting value at line 1", error=True)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


# ---------------------------------------------------------------- more ways to read a file
def test_reading_a_missing_file_another_way_is_a_look_around() -> None:
    log = Log()
    log.user("explain the sync service")
    _shell(log, "nl -ba src/services/sync.ts | sed -n '1,200p'", "nl: src/services/sync.ts: No such file or directory",
           error=True)
    _shell(log, "jq '.scripts' web/package.json", "jq: error: Could not open file web/package.json: No such file",
           error=True)
    _shell(log, "ls src/services", "device.ts\nsync-engine.ts\n", error=False)
    assert log.extract().attempts == []


def test_a_failure_that_passed_when_run_again_unchanged_is_told_as_transient() -> None:
    log = Log()
    log.user("push the branch")
    log.bash("git push origin feat", "fatal: unable to access 'https://example.invalid/r.git/': Operation timed out",
             exit_code=128)
    log.bash("git push origin feat", "To https://example.invalid/r.git\n * [new branch] feat -> feat")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"
    assert "nothing changed in between, the same call passed when run again (transient)" in attempt.result


# ---------------------------------------------------------------- removing what is already gone
def test_removing_or_stopping_what_is_already_gone_is_no_failure() -> None:
    log = Log()
    log.user("clean up after the test run")
    log.bash("rm tmp/run.log", "rm: tmp/run.log: No such file or directory", exit_code=1)
    log.bash("kill 4242", "kill: (4242) - No such process", exit_code=1)
    log.bash("pkill -f 'vite --port 5173'", "", exit_code=1)
    log.bash("git stash pop", "No stash entries found.", exit_code=1)
    log.bash("git branch -D feat/old", "error: branch 'feat/old' not found.", exit_code=1)
    log.bash("docker rm -f web", "Error response from daemon: No such container: web", exit_code=1)
    assert log.extract().attempts == []


def test_a_removal_that_was_refused_still_failed() -> None:
    log = Log()
    log.user("clean the build folder")
    log.bash("rm -r build", "rm: build/cache: Permission denied", exit_code=1)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "Permission denied" in attempt.result


def test_a_server_stopped_by_the_shell_tools_own_time_limit_is_no_failure() -> None:
    log = Log()
    log.user("start the dev server and check the page")
    log.bash("npm run dev", "Command timed out after 2m 0.0s\n  VITE v5.0.0  ready in 280 ms", exit_code=143)
    log.bash("npm test", "Command timed out after 2m 0.0s", exit_code=143)  # a check that hung still failed
    [attempt] = log.extract().attempts
    assert attempt.trial == "`npm test`"


def test_a_call_cancelled_because_a_parallel_one_errored_is_mechanics() -> None:
    log = Log()
    log.user("read both configs")
    log.call("Read", {"file_path": "/w/b.toml"}, "Cancelled: parallel tool call Read(/w/a.toml) errored", error=True)
    assert log.extract().attempts == []


# ---------------------------------------------------------------- the user's next report is of another error
def test_a_reported_error_followed_by_a_report_of_another_error_was_got_past() -> None:
    log = Log()
    log.user("build the settings page")
    log.edit("/w/src/Settings.tsx")
    log.say("The settings page is ready.")
    first = log.user("I get a white page:\nUncaught ReferenceError: theme is not defined\n    at Settings.tsx:12")
    log.edit("/w/src/Settings.tsx")
    log.say("theme is now imported.")
    second = log.user("Now the page loads but saving fails:\nTypeError: Cannot read properties of undefined "
                      "(reading 'map')\n    at save.ts:40")
    log.edit("/w/src/save.ts")
    log.say("save now handles an empty list.")
    attempts = log.extract().attempts
    assert [(a.range[0] if a.range else None, a.outcome) for a in attempts] == [(first, "success"), (second, "failure")]
    assert "another error, past this one" in attempts[0].result


def test_the_same_error_pasted_again_is_the_same_story() -> None:
    log = Log()
    log.user("build the settings page")
    log.edit("/w/src/Settings.tsx")
    log.say("The settings page is ready.")
    first = log.user("I get a white page:\nUncaught ReferenceError: theme is not defined\n    at Settings.tsx:12")
    log.edit("/w/src/Settings.tsx")
    log.say("theme is now imported.")
    log.user("Reloaded:\nUncaught ReferenceError: theme is not defined\n    at Settings.tsx:14")
    log.edit("/w/src/theme.ts")
    log.say("theme.ts now exports it.")
    [attempt] = log.extract().attempts
    assert attempt.range is not None and attempt.range[0] == first and "(2 times)" in attempt.result


def test_a_codex_server_run_stopped_by_the_tools_time_limit_is_no_failure() -> None:
    log = Log()
    log.user("check the dev server starts")
    _shell(log, "pnpm dev", "command timed out", error=True, timeout_ms=10000)
    assert log.extract().attempts == []


def test_an_edit_of_a_file_not_made_yet_is_a_slip_of_the_tool() -> None:
    log = Log()
    log.user("add the settings module")
    log.call("Edit", {"file_path": "/w/src/settings.py", "old_string": "", "new_string": "X = 1"},
             "<tool_use_error>File does not exist.</tool_use_error>", error=True)
    log.call("Write", {"file_path": "/w/src/settings.py", "content": "X = 1\n"}, "File created")
    log.call("Edit", {"file_path": "/w/src/other.py", "old_string": "a", "new_string": "b"},
             "<tool_use_error>Permission denied: /w/src/other.py is read-only</tool_use_error>", error=True)
    [attempt] = log.extract().attempts  # an edit refused on the file itself still failed
    assert "other.py" in attempt.trial


def test_a_reported_failure_is_not_fixed_by_a_lint_passing() -> None:
    log = Log()
    log.user("add the export button")
    log.edit("/w/src/Export.tsx")
    log.say("The export button is added.")
    log.user("When I click export nothing happens and the console shows:\nTypeError: blob is undefined")
    log.edit("/w/src/Export.tsx")
    log.bash("npm run lint", "No problems found")
    log.say("The click handler now builds the blob first.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "lint" not in attempt.result
    other = Log()
    other.user("add the export button")
    other.edit("/w/src/Export.tsx")
    other.say("The export button is added.")
    other.user("When I click export nothing happens and the console shows:\nTypeError: blob is undefined")
    other.edit("/w/src/Export.tsx")
    other.bash("npm test", "Tests: 12 passed")
    [attempt] = other.extract().attempts
    assert attempt.outcome == "success" and "`npm test` then passed" in attempt.result


# ---------------------------------------------------------------- a command the agent stopped itself
def test_a_command_stopped_by_the_agents_own_ctrl_c_did_not_fail() -> None:
    log = Log()
    log.user("check the dev server starts")
    log.call("exec_command", {"cmd": "pnpm dev"}, "Process running with session ID 5\nOutput:\n  Local: http://localhost:5173/")
    log.call("write_stdin", {"session_id": 5, "chars": "\x03"}, "Process exited with code 130\nOutput:\n^C",
             error=True, exit_code=130)
    assert log.extract().attempts == []


def test_a_command_that_ended_badly_on_its_own_while_polled_still_failed() -> None:
    log = Log()
    log.user("run the tests")
    log.call("exec_command", {"cmd": "pnpm test"}, "Process running with session ID 6\nOutput:\n")
    log.call("write_stdin", {"session_id": 6, "chars": ""}, "Process exited with code 1\nOutput:\nFAILED 2 tests",
             error=True, exit_code=1)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_two_commands_that_both_write_to_dev_null_are_not_aimed_alike() -> None:
    log = Log()
    log.user("count the checked items of the checklist")
    log.bash(_COUNT + " 2>/dev/null", "zsh:1: command not found: python", exit_code=127)
    log.bash("git log --oneline -3 2>/dev/null", "abc123 first")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_program_missing_for_a_removal_is_still_worth_telling() -> None:
    log = Log()
    log.user("stop the old server")
    log.bash("pkill -f 'node server.js'", "bash: pkill: command not found", exit_code=127)
    [attempt] = log.extract().attempts
    assert "command not found" in attempt.result


def test_another_route_of_the_same_program_is_not_aimed_alike_by_a_redirect() -> None:
    log = Log()
    log.user("update main")
    log.bash("git pull --ff-only origin main 2>/dev/null", "fatal: Not possible to fast-forward, aborting.", exit_code=128)
    log.bash("git checkout -b backup 2>/dev/null", "Switched to a new branch 'backup'")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "backup" not in attempt.result


# ---------------------------------------------------------------- a redirect is no part of the check
def test_a_check_run_again_with_a_redirect_or_a_trailing_slash_is_the_same_check() -> None:
    from yoi_tui.core.phase1.commands import check_key

    assert check_key("npm test 2>/dev/null") == check_key("npm test") == ("npm", "test")
    assert check_key("pytest tests/ > /tmp/out.txt") == check_key("pytest tests") == ("pytest", "tests")
    log = Log()
    log.user("make the tests pass")
    start = log.bash("npm test", "FAIL src/io.test.ts", exit_code=1)
    log.edit("/w/src/io.ts")
    fixed = log.bash("npm test 2>/dev/null", "Tests: 4 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (start, fixed + 1)
