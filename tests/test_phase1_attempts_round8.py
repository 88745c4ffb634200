"""Phase 1's eighth round on attempts, each mechanism on a small constructed log (no line copied
from a benchmark session); each test fails without its rule.

A server started in the background (Claude Code's ``run_in_background``) that crashed on start is
only seen in the ``BashOutput`` poll that reads it ("<status>failed</status>"): the poll is the
command's own result, so the crash, the config change and the restart that came up are one story.
"""

from __future__ import annotations

from test_phase1_rules import Log

_CRASH = ("<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<stderr>\nTraceback (most recent call last):\n"
          "  File \"serve.py\", line 3\nValueError: workers must be a positive number, got 0\n</stderr>")


def _background(log: Log, command: str, shell_id: str) -> int:
    return log.call("Bash", {"command": command, "run_in_background": True},
                    f"Command running in background with ID: {shell_id}")


def test_a_background_server_that_crashed_on_start_is_fixed_by_the_restart_after_the_change() -> None:
    log = Log()
    log.user("start the api server and check it answers")
    start = _background(log, "python serve.py --port 8100", "bash_1")
    log.bash("sleep 2 && curl -s http://localhost:8100/health")  # nothing answered yet
    log.call("BashOutput", {"bash_id": "bash_1"}, _CRASH)
    log.say("The server needs at least one worker in its settings file.")
    log.edit("/w/settings.toml")
    _background(log, "python serve.py --port 8100", "bash_2")
    log.bash("sleep 2 && curl -s http://localhost:8100/health", '{"ok": true}')
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range is not None and attempt.range[0] == start
    assert "workers must be a positive number" in attempt.result
    assert "cause: The server needs at least one worker in its settings file." in attempt.result
    assert "after editing settings.toml" in attempt.result
    assert "curl" not in attempt.result.split("fixed —")[1].split(";")[0]  # run before the crash was seen


def test_a_background_command_still_running_or_done_is_no_failure() -> None:
    log = Log()
    log.user("run the build watcher")
    _background(log, "npm run watch", "bash_1")
    log.call("BashOutput", {"bash_id": "bash_1"}, "<status>running</status>\n\n<stdout>\nwatching src/\n</stdout>")
    log.call("BashOutput", {"bash_id": "bash_1"}, "<status>completed</status>\n\n<exit_code>0</exit_code>")
    assert log.extract().attempts == []


def test_a_background_crash_never_restarted_is_not_fixed() -> None:
    log = Log()
    log.user("start the api server")
    _background(log, "python serve.py --port 8100", "bash_1")
    log.call("BashOutput", {"bash_id": "bash_1"}, _CRASH)
    log.say("It crashed; the settings need a worker count, which you will have to choose.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "not fixed" in attempt.result


# ---------------------------------------------------------------- failures the user reports


def test_a_failure_the_user_reports_still_happening_after_the_fix_is_not_fixed() -> None:
    log = Log()
    log.user("the export button writes an empty file, fix it")
    log.edit("/w/export.js")
    log.say("Fixed: the export now waits for the rows to load.")
    report = log.user("I tried it again and it still writes an empty file.")
    log.say("The rows come from a second request; I'll wait for that one too.")
    log.edit("/w/export.js")
    last = log.say("The export waits for both requests now.")
    log.user("now add a CSV option to the same menu")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and attempt.range == (report, last)
    assert "not fixed — after editing export.js; the user did not report back" in attempt.result


def test_a_reported_failure_the_user_then_says_works_is_fixed() -> None:
    log = Log()
    log.user("add a dark theme toggle")
    log.edit("/w/theme.css")
    log.say("Added the toggle.")
    report = log.user("The toggle doesn't work, the page stays light.")
    log.edit("/w/theme.js")
    log.say("The toggle now sets the class on the body.")
    log.user("[image]")
    log.user("Better, but the header is still not dark")  # the same failure, told again
    log.edit("/w/header.css")
    log.say("The header follows the theme now.")
    confirmed = log.user("OK, that works now")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (report, confirmed)
    assert "failed (2 times)" in attempt.result and "after editing theme.js, header.css" in attempt.result
    assert "the user then reported: “OK, that works now”" in attempt.result


def test_a_reported_failure_is_fixed_when_the_agents_check_passes_after_its_change() -> None:
    log = Log()
    log.user("write the importer")
    log.edit("/w/importer.py")
    log.say("Done.")
    log.user("python -m importer fails:\nTraceback (most recent call last):\nImportError: cannot import name 'load'")
    log.edit("/w/importer.py")
    log.bash("git commit -am 'fix the import'")  # recording the work changes nothing the user runs
    log.bash("pytest -q", "3 passed")
    log.bash("git commit -am 'fix the import'")
    log.say("Fixed the import; the tests pass.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and "`pytest -q` then passed" in attempt.result


def test_a_problem_stated_first_or_answered_in_words_is_no_attempt() -> None:
    log = Log()
    log.user("the build fails:\nerror: cannot find module 'left-pad'\nplease fix it")  # nothing tried yet
    log.edit("/w/package.json")
    log.say("Added the dependency.")
    log.user("I still want the old lockfile kept")  # "still" without a failure
    log.say("The old lockfile stays.")
    log.user("it doesn't start on my machine")
    log.say("Which Node version do you have?")  # answered in words: nothing tried for it
    assert log.extract().attempts == []


# ---------------------------------------------------------------- a look run again that found it


def _codex_shell(log: Log, command: str, output: str, exit_code: int, workdir: str) -> int:
    return log.call("shell", {"command": ["bash", "-lc", command], "workdir": workdir}, output,
                    error=exit_code != 0, exit_code=exit_code)


def test_a_look_at_a_missing_file_that_the_same_command_later_reads_is_fixed() -> None:
    log = Log()
    log.user("follow the steps in notes/steps.md")
    first = _codex_shell(log, "cat notes/steps.md", "cat: notes/steps.md: No such file or directory", 1, "notes")
    _codex_shell(log, "ls notes", "steps.md\n", 0, "/w/repo")
    again = _codex_shell(log, "cat notes/steps.md", "1. build\n2. test\n", 0, "/w/repo")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (first, again + 1)
    assert "No such file or directory" in attempt.result and "run from /w/repo" in attempt.result


def test_a_look_retried_with_another_path_is_no_attempt() -> None:
    log = Log()
    log.user("read the design doc")
    _codex_shell(log, "cat docsDesign.md", "cat: docsDesign.md: No such file or directory", 1, "/w/repo")
    _codex_shell(log, "cat docs/Design.md", "# Design\n", 0, "/w/repo")
    assert log.extract().attempts == []


# ---------------------------------------------------------------- a push that got through anyway


def test_a_push_that_timed_out_but_reached_the_remote_is_fixed() -> None:
    log = Log()
    log.user("push the release branch")
    push = log.bash("git push origin release", "", exit_code=124)
    log.bash("git status -sb", "## release...origin/release [ahead 2]")  # before the push landed
    log.bash("git push -v origin release", "Pushing to origin\n = [up to date]      release -> release", exit_code=124)
    seen = log.bash("git status -sb", "## release...origin/release")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (push, seen + 1)
    assert "the commits reached the remote all the same: `git status -sb`" in attempt.result


def test_a_push_still_ahead_of_its_remote_is_not_fixed() -> None:
    log = Log()
    log.user("push the release branch")
    log.bash("git push origin release", "fatal: Authentication failed", exit_code=128)
    log.bash("git status -sb", "## release...origin/release [ahead 2]")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


# ---------------------------------------------------------------- an edit stuck on the same file


def _patch(log: Log, body: str, output: str, *, error: bool) -> int:
    return log.call("apply_patch", f"*** Begin Patch\n{body}\n*** End Patch", output, error=error)  # type: ignore[arg-type]


_MISS = "apply_patch verification failed: Failed to find expected lines in web/form.jsx:\n  <label>Name</label>"


def test_the_same_file_refusing_three_edits_then_rewritten_is_a_story_fixed() -> None:
    log = Log()
    log.user("make the form labels plain ASCII")
    first = _patch(log, "*** Update File: web/form.jsx\n@@\n-  <label>Name</label>\n+  <label>Your name</label>", _MISS,
                   error=True)
    _patch(log, "*** Update File: web/form.jsx\n@@\n-<label>Name</label>\n+<label>Your name</label>", _MISS, error=True)
    log.bash("cat -A web/form.jsx", "<label>Name</label>^M$")
    _patch(log, "*** Update File: web/form.jsx\n@@\n <form>\n-<label>Name</label>", _MISS, error=True)
    _patch(log, "*** Delete File: web/form.jsx", "Success. Updated the following files:\nD web/form.jsx", error=False)
    added = _patch(log, "*** Add File: web/form.jsx\n+<form>\n+<label>Your name</label>\n+</form>",
                   "Success. Updated the following files:\nA web/form.jsx", error=False)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (first, added + 1)
    assert "failed (3 times)" in attempt.result and "form.jsx deleted and written again whole" in attempt.result


def test_one_edit_that_missed_its_lines_is_still_a_slip() -> None:
    log = Log()
    log.user("make the form labels plain ASCII")
    _patch(log, "*** Update File: web/form.jsx\n@@\n-  <label>Name</label>\n+  <label>Your name</label>", _MISS,
           error=True)
    _patch(log, "*** Update File: web/form.jsx\n@@\n-<label>Name</label>\n+<label>Your name</label>",
           "Success. Updated the following files:\nM web/form.jsx", error=False)
    assert log.extract().attempts == []


# ---------------------------------------------------------------- unittest's start folder


def test_unittest_discover_in_another_folder_is_another_check() -> None:
    from yoi_tui.core.phase1.commands import check_key, same_check

    whole = check_key("python3 -m unittest discover -s tests -p 'test_*.py'")
    unit = check_key("python3 -m unittest discover -s tests/unit -p 'test_*.py'")
    assert whole == ("unittest", "discover", "tests") and unit == ("unittest", "discover", "tests/unit")
    assert not same_check(whole, unit) and not same_check(unit, whole)
    assert same_check(unit, check_key("python -m unittest discover"))  # discovering everything covers a folder
    log = Log()
    log.user("write the tests first, then the code")
    first = log.bash("python3 -m unittest discover -s tests", "Ran 0 tests in 0.000s\n\nNO TESTS RAN", exit_code=5)
    red = log.bash("python3 -m unittest discover -s tests/unit", "ERROR: test_parse\nNotImplementedError", exit_code=1)
    log.edit("/w/src/parse.py")
    green = log.bash("python3 -m unittest discover -s tests/unit", "Ran 4 tests in 0.001s\n\nOK")
    log.bash("touch tests/__init__.py tests/unit/__init__.py")
    whole_run = log.bash("python3 -m unittest discover -s tests", "Ran 4 tests in 0.001s\n\nOK")
    attempts = log.extract().attempts
    assert [(a.range, a.outcome) for a in attempts] == [((first, whole_run + 1), "success"),
                                                        ((red, green + 1), "success")]
