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
