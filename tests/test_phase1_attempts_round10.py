"""Phase 1's tenth round on attempts, each mechanism on a small constructed log (no line copied from a
benchmark session); each test fails without its rule.

A check failing again and again is one fix loop, and what failed between two of its runs close together
was a step of it; but a check that failed, was left, and failed again long after (the agent went on
to other work, other stories fixed in between) holds no story between those two runs: the stories
the agent told and fixed meanwhile are their own. And a loop that never got fixed takes in nothing:
a missing program got past inside it is a story of its own. ``pixi run X`` runs X (as ``uv run X``).
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


def test_a_step_got_past_inside_a_loop_that_never_got_fixed_is_its_own_story() -> None:
    log = Log()
    log.user("show the CLI's help")
    first = log.bash("./tool --help", "/bin/bash: line 1: ./tool: No such file or directory", exit_code=127)
    missing = log.bash("rg --files -g 'tool*'", "/bin/bash: line 1: rg: command not found", exit_code=127)
    log.bash("find . -maxdepth 3 -name 'tool*'", "./src/tool_cli\n")
    log.bash("cat pixi.toml", "[tasks]\ntool = 'python -m tool_cli'\n")
    log.bash("pixi run tool --help", "/bin/bash: line 1: pixi: command not found", exit_code=127)
    attempts = {a.range[0]: a for a in log.extract().attempts if a.range is not None}
    assert attempts[first].outcome == "failure" and "(2 times)" in attempts[first].result
    assert attempts[missing].outcome == "success" and "find . -maxdepth 3" in attempts[missing].result


# ---------------------------------------------------------------- pixi runs the command it is given
def test_pixi_run_reruns_the_check_it_runs() -> None:
    log = Log()
    log.user("make the conversion tests pass")
    start = log.bash("pytest tests/test_convert.py", "FAILED tests/test_convert.py::test_units - KeyError: 'rate'",
                     exit_code=1)
    log.edit("/w/src/convert.py")
    log.bash("pixi run pytest tests/test_convert.py", "4 passed in 0.31s")
    [attempt] = log.extract().attempts
    assert attempt.range is not None and attempt.range[0] == start and attempt.outcome == "success"
    assert "after editing convert.py" in attempt.result


# ---------------------------------------------------------------- what failed is never a test that passed
def test_a_passing_test_line_is_never_told_as_what_failed() -> None:
    log = Log()
    log.user("add the cycle service")
    log.bash("npm test -- src/cycle.test.ts",
             "FAIL src/cycle.test.ts\n  CycleService\n    ✓ should throw ValidationError when creation fails (11 ms)\n"
             "    ✕ should create a new cycle with valid data (7 ms)\nTests: 1 failed, 1 passed, 2 total", exit_code=1)
    log.edit("/w/src/cycle.ts")
    log.bash("npm test -- src/cycle.test.ts", "PASS src/cycle.test.ts\nTests: 2 passed, 2 total")
    [attempt] = log.extract().attempts
    assert "failed: exit 1: ✕ should create a new cycle with valid data" in attempt.result
    assert "ValidationError" not in attempt.result


def test_a_failed_run_that_shows_only_passing_tests_is_no_story() -> None:
    log = Log()
    log.user("check the coverage")
    log.bash("npm run test:coverage", "PASS src/label.test.ts\n  ✓ should throw ValidationError when creation fails\n"
             "------------|---------|----------|\nFile        | % Stmts | % Branch |\n"
             "------------|---------|----------|", exit_code=1)
    log.say("Coverage is above the requirement.")
    assert log.extract().attempts == []


def test_a_coverage_threshold_not_met_is_still_what_failed() -> None:
    log = Log()
    log.user("check the coverage")
    log.bash("npm run test:coverage", "PASS src/label.test.ts\n  ✓ should create a label\n"
             'Jest: "global" coverage threshold for lines (80%) not met: 74.2%', exit_code=1)
    [attempt] = log.extract().attempts
    assert 'coverage threshold for lines (80%) not met' in attempt.result


# ---------------------------------------------------------------- a run that checked nothing passed on nothing
def test_a_rerun_that_found_nothing_to_check_fixes_nothing() -> None:
    log = Log()
    log.user("generate the API docs")
    start = log.bash("docgen metadata docgen.json", "TimeoutException: The operation has timed out.", exit_code=255)
    log.bash("cat > /tmp/min.json <<'EOF'\n{\"files\": [\"src/Core.csproj\"]}\nEOF\ndocgen metadata /tmp/min.json",
             "No files are found with glob pattern src/Core.csproj\nBuild succeeded with warning.")
    log.bash("cat > /tmp/min.json <<'EOF'\n{\"src\": \"/w\", \"files\": [\"src/Core.csproj\"]}\nEOF\n"
             "docgen metadata /tmp/min.json", "TimeoutException: The operation has timed out.", exit_code=255)
    [attempt] = log.extract().attempts
    assert attempt.range is not None and attempt.range[0] == start
    assert attempt.outcome == "failure" and "(2 times)" in attempt.result


# ---------------------------------------------------------------- a look that found the work blocked
def test_a_look_that_found_a_prerequisite_missing_and_the_agent_stopped_blocked_is_a_story_not_fixed() -> None:
    log = Log()
    log.user("implement the tasks in tasks.md")
    log.bash("ls specs", "001-dashboard\n")
    look = log.bash("ls package.json", "ls: package.json: No such file or directory", exit_code=1)
    stop = log.say("**Blocked**\n- T002 cannot proceed: there is no package.json, so no dependency can be installed.")
    log.user("ok, scaffold the app first")
    [attempt] = log.extract().attempts
    assert attempt.range == (look, stop) and attempt.outcome == "failure"
    assert "not fixed — the agent stopped, blocked: Blocked: T002 cannot proceed" in attempt.result


def test_a_missing_file_the_agent_then_created_is_no_blocked_story() -> None:
    log = Log()
    log.user("set up the test runner")
    log.bash("ls package.json", "ls: package.json: No such file or directory", exit_code=1)
    log.call("Write", {"file_path": "/w/package.json", "content": "{}"}, "File created")
    log.say("The project was blocked on a missing package.json; I created one.")
    assert log.extract().attempts == []


def test_a_look_that_found_nothing_is_no_story_when_the_agent_does_not_say_it_is_blocked() -> None:
    log = Log()
    log.user("where is the retry limit set?")
    log.bash("rg -n RETRY_LIMIT src", "", exit_code=1)
    log.say("There is no RETRY_LIMIT in src; the limit comes from the config file's default.")
    assert log.extract().attempts == []


# ---------------------------------------------------------------- a read too large, read in parts
def test_a_read_too_large_for_one_call_then_read_in_parts_is_a_story_fixed() -> None:
    log = Log()
    log.user("resolve the conflict in the stylesheet")
    start = log.call("Read", {"file_path": "/w/src/style.css"}, "File content (26253 tokens) exceeds maximum allowed "
                     "tokens (25000). Please use offset and limit parameters to read specific portions of the file.",
                     error=True)
    log.call("Read", {"file_path": "/w/src/style.css", "limit": 400}, "1\t/* styles */")
    [attempt] = log.extract().attempts
    assert attempt.range is not None and attempt.range[0] == start and attempt.outcome == "success"
    assert "retried with limit" in attempt.result


# ---------------------------------------------------------------- a footer every run prints is no error still shown
def test_a_clean_rerun_that_prints_the_same_footer_is_the_fix() -> None:
    log = Log()
    log.user("make credo pass")
    start = log.bash("mix credo --strict lib/registry.ex 2>&1",
                     "Checking 1 source file ...\n  Software Design\n  ┃ [D] ↘ Nested modules could be aliased at the top.\n"
                     "Use `mix credo explain` to explain issues, `mix credo --help` for options.", exit_code=6)
    log.edit("/w/lib/registry.ex")
    fixed = log.bash("mix credo --strict lib/registry.ex 2>&1",
                     "Checking 1 source file ...\nfound no issues.\n"
                     "Use `mix credo explain` to explain issues, `mix credo --help` for options.")
    [attempt] = log.extract().attempts
    assert attempt.range == (start, fixed + 1) and attempt.outcome == "success"


def test_a_status_table_is_told_by_its_failing_row() -> None:
    log = Log()
    log.user("get the pull request green")
    log.bash("gh pr checks 18", "Lint\tfail\t26s\thttps://ci.example.org/job/1\n"
             "Test (ubuntu-latest)\tpass\t41s\thttps://ci.example.org/job/2", exit_code=1)
    log.edit("/w/src/export_test.go")
    log.bash("gh pr checks 18", "Lint\tpass\t25s\thttps://ci.example.org/job/3")
    [attempt] = log.extract().attempts
    assert "failed: exit 1: Lint fail 26s" in attempt.result


# ---------------------------------------------------------------- a problem the agent's own look found still there
def test_a_problem_the_agents_look_finds_still_there_then_worked_on_is_a_story_fixed() -> None:
    log = Log()
    log.user("make CI build the module again")
    look = log.bash("head -5 src/go.mod", "module example.org/tool\n\ngo 1.24.0\n")
    log.say("The go.mod still shows 1.24.0 after the merge, which CI cannot build.")
    log.edit("/w/src/go.mod")
    log.bash("git commit -am 'fix(deps): go 1.21'", "[main 01e0de5] fix(deps): go 1.21")
    done = log.say("Downgraded go.mod to 1.21 and pushed.")
    [attempt] = log.extract().attempts
    assert attempt.range == (look, done) and attempt.outcome == "success"
    assert "still there: The go.mod still shows 1.24.0" in attempt.result and "after editing go.mod" in attempt.result


def test_a_problem_still_there_at_the_agents_last_words_is_not_fixed() -> None:
    log = Log()
    log.user("scrub the instructions from the exported session")
    log.bash("python3 scrub.py session.jsonl > out.jsonl", "")
    log.say("I found that strict mode still left long instruction text in the system messages.")
    log.edit("/w/scrub.py")
    log.bash("python3 scrub.py session.jsonl > out.jsonl", "")
    log.say("The output still contains the base instructions; I could not get them out.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "the agent's last words say it still is" in attempt.result


def test_a_problem_still_there_that_the_agent_only_talks_about_is_no_story() -> None:
    log = Log()
    log.user("check whether the old flag is used")
    log.bash("rg -n legacy_flag src", "src/app.py:3: legacy_flag = True")
    log.say("The code still shows legacy_flag in app.py; it is set but never read.")
    assert log.extract().attempts == []


# ---------------------------------------------------------------- the harness said no: nothing was tried
def test_a_call_a_project_hook_blocked_is_no_story() -> None:
    log = Log()
    log.user("review the service for panics")
    log.call("Read", {"file_path": "/w/.env"}, "Read operation blocked by hook:\n- [python hooks/guard.py]: checking\n"
             "BLOCKED: secrets files may not be read\nUse the sample file instead", error=True)
    log.call("Read", {"file_path": "/w/.env.sample"}, "API_URL=\n")
    log.say("The service never panics outside tests.")
    assert log.extract().attempts == []


def test_the_warm_up_agents_replies_are_no_story() -> None:
    log = Log()
    log.user("Warmup")
    log.call("Glob", {"pattern": "**/*"}, "Warmup", error=True)
    log.bash("ls", "Warmup", exit_code=1)
    log.say("Ready.")
    assert log.extract().attempts == []


def test_a_hook_named_in_a_real_failure_still_fails() -> None:
    log = Log()
    log.user("make the pre-commit hook pass")
    log.bash("pre-commit run --all-files", "ruff....Failed\n- hook id: ruff\nsrc/app.py:3:1: F401 unused import",
             exit_code=1)
    log.edit("/w/src/app.py")
    log.bash("pre-commit run --all-files", "ruff....Passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"
