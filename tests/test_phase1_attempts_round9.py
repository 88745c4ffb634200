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
    assert "succeeded on retry" not in attempt.result


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
