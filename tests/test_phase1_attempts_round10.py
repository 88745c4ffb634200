"""Phase 1's tenth round on attempts, each mechanism on a small constructed log (no line copied from a
benchmark session); each test fails without its rule.

A check failing again and again is one fix loop, and what failed between two of its runs close together
was a step of it; but a check that failed, was left, and failed again long after (the agent went on
to other work, other stories fixed in between) holds no story between those two runs: the stories
the agent told and fixed meanwhile are their own.
"""

from __future__ import annotations

from test_phase1_rules import Log


def _busy(log: Log, calls: int) -> None:
    """Other work: reads and edits of other files, no failure."""
    for number in range(calls // 2):
        log.call("Read", {"file_path": f"/w/src/part{number}.ts"}, "export const x = 1;\n")
        log.edit(f"/w/src/part{number}.ts")


# ---------------------------------------------------------------- a loop's gap is close, not the whole span
def test_a_story_fixed_between_two_far_apart_failures_of_another_check_is_told() -> None:
    log = Log()
    log.user("implement the cycle service and keep the unit suite green")
    log.bash("npm run test:unit", "sh: -c: line 0: syntax error near unexpected token `('", exit_code=2)
    _busy(log, 20)
    start = log.bash("npm test -- src/cycle.test.ts", "FAIL src/cycle.test.ts\n  TypeError: cycle is not a function",
                     exit_code=1)
    log.edit("/w/src/cycle.ts")
    log.bash("npm test -- src/cycle.test.ts", "PASS src/cycle.test.ts\nTests: 12 passed")
    _busy(log, 20)
    log.bash("npm run test:unit", "sh: -c: line 0: syntax error near unexpected token `('", exit_code=2)
    attempts = log.extract().attempts
    cycle = [a for a in attempts if a.range is not None and a.range[0] == start]
    assert len(cycle) == 1 and cycle[0].outcome == "success" and "after editing cycle.ts" in cycle[0].result


def test_a_step_that_failed_between_two_close_failing_runs_is_still_part_of_the_loop() -> None:
    log = Log()
    log.user("run the prerequisites check")
    first = log.bash("./scripts/check.sh --json", "/usr/bin/env: 'bash\\r': No such file or directory", exit_code=127)
    log.bash("python - <<'EOF'\nprint(open('scripts/check.sh').read()[:20])\nEOF", "bash: python: command not found",
             exit_code=127)
    log.bash("python3 - <<'EOF'\nimport pathlib\np = pathlib.Path('scripts/check.sh')\n"
             "p.write_text(p.read_text().replace('\\r', ''))\nEOF", "")
    log.bash("./scripts/check.sh --json", "scripts/common.sh: line 3: $'\\r': command not found", exit_code=127)
    log.bash("python3 - <<'EOF'\nimport pathlib\np = pathlib.Path('scripts/common.sh')\n"
             "p.write_text(p.read_text().replace('\\r', ''))\nEOF", "")
    log.bash("./scripts/check.sh --json", '{"FEATURE_DIR": "specs/001"}')
    [attempt] = log.extract().attempts
    assert attempt.range is not None and attempt.range[0] == first and attempt.outcome == "success"
