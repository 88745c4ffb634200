"""The Phase 1 rules engine's third round on attempts (issue 26), mechanism by mechanism, each on a
small constructed log (no line copied from a benchmark session); each test fails without its rule.

A fix is any later change or route after which the same goal succeeds: the same check passing,
however it is started, or the same need met another way. A probe whose non-zero exit is its answer
is no failure, and one failing check with its eventual fix is one attempt.
"""

from __future__ import annotations

from test_phase1_rules import Log

from yoi_tui.core.phase1.commands import check_key, same_check


def test_a_script_run_by_a_wrong_path_is_fixed_by_running_it_with_its_interpreter() -> None:
    log = Log()
    log.user("regenerate the fixtures")
    failed = log.bash("scripts/gen_fixtures.py --all", "bash: scripts/gen_fixtures.py: No such file or directory",
                      exit_code=127)
    log.say("The script lives under tools/, not scripts/.")
    fixed = log.bash("python3 tools/scripts/gen_fixtures.py --all", "wrote 12 fixtures")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "`python3 tools/scripts/gen_fixtures.py --all` then succeeded" in attempt.result


def test_a_script_started_another_way_is_the_same_check_and_one_story() -> None:
    log = Log()
    log.user("create the feature branch with the helper script")
    first = log.bash("./bin/new-feature.sh --json", "/usr/bin/env: 'bash\\r': No such file or directory",
                     exit_code=127)
    log.bash("bash bin/new-feature.sh --json", "bin/new-feature.sh: line 3: syntax error near unexpected token",
             exit_code=2)
    log.bash("sed -i 's/\\r$//' bin/new-feature.sh", "")
    fixed = log.bash("bash bin/new-feature.sh --json", '{"BRANCH": "005-feature"}')
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (first, fixed + 1)
    assert "failed (2 times)" in attempt.result


def test_python_dash_m_and_a_test_node_id_are_the_runs_they_name() -> None:
    assert check_key("python3 -m pytest tests/test_io.py::test_reads -q") == check_key("pytest tests/test_io.py")
    assert same_check(check_key("python -m pytest tests/test_io.py::test_reads"), check_key("pytest"))
    assert check_key("python -m http.server 8000") != check_key("pytest")
    log = Log()
    log.user("fix the reader")
    failed = log.bash("python -m pytest tests/test_io.py::test_reads", "FAILED tests/test_io.py::test_reads - "
                      "AssertionError: expected 3 rows", exit_code=1)
    log.edit("/w/io.py")
    fixed = log.bash("pytest -q", "12 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
