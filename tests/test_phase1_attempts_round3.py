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


def test_a_throwaway_script_rewritten_under_another_name_is_the_same_check() -> None:
    log = Log()
    log.user("check the flag is generated from the setting")
    failed = log.bash("rm -rf /tmp/flagtest* && cat > /tmp/check-flags.js << 'EOF'\nimport { flags } from "
                      "'/w/dist/flags.js';\nconsole.log(flags({ unsafe: false }));\nconsole.log(flags({ unsafe: true "
                      "}));\nEOF\nnode /tmp/check-flags.js", "zsh: no matches found: /tmp/flagtest*\nError: Cannot find "
                      "module '/tmp/check-flags.js'", exit_code=1)
    fixed = log.bash("cat > /tmp/check-flags-2.js << 'EOF'\nimport { flags } from '/w/dist/flags.js';\n"
                     "console.log(flags({ unsafe: false }));\nconsole.log(flags({ unsafe: true }));\nEOF\n"
                     "node /tmp/check-flags-2.js", "--safe\n--unsafe")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    # Another script under another name is another check.
    log = Log()
    log.user("check the flag is generated from the setting")
    log.bash("cat > /tmp/a.js << 'EOF'\nimport { flags } from '/w/dist/flags.js';\nconsole.log(flags({}));\nEOF\n"
             "node /tmp/a.js", "Error: Cannot find module '/w/dist/flags.js'", exit_code=1)
    log.bash("cat > /tmp/b.js << 'EOF'\nconst fs = require('fs');\nfor (const f of fs.readdirSync('/w/dist')) "
             "process.stdout.write(f + '\\n');\nEOF\nnode /tmp/b.js", "index.js")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_missing_program_is_fixed_by_the_next_command_that_met_the_need() -> None:
    log = Log()
    log.user("find where the retry policy is set")
    failed = log.bash('rg -n "retry_policy"', "bash: rg: command not found", exit_code=127)
    fixed = log.bash('grep -rn "retry_policy" --include=*.py .', "./svc/http.py:12: retry_policy = 3")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "ran `grep -rn" in attempt.result
    # The next command failing too met nothing.
    log = Log()
    log.user("find where the retry policy is set")
    log.bash('rg -n "retry_policy"', "bash: rg: command not found", exit_code=127)
    log.bash("brew install ripgrep", "Error: no network", exit_code=1)
    assert [a.outcome for a in log.extract().attempts] == ["failure", "failure"]


def test_a_look_that_failed_is_met_by_the_next_look_of_the_same_program() -> None:
    log = Log()
    log.user("is there a remote branch for the feature yet")
    failed = log.bash("git ls-remote --heads origin", "fatal: unable to access 'https://example.com/r.git/': Could "
                      "not resolve host: example.com", exit_code=128)
    fixed = log.bash("git for-each-ref refs/remotes/origin --format='%(refname:short)'", "origin/main")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    # A check is not met by a look: a failed build stays failed after `git log`.
    log = Log()
    log.user("build it")
    log.bash("cargo build", "error[E0308]: mismatched types", exit_code=101)
    log.bash("cargo tree", "app v0.1.0")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_question_answered_by_the_exit_status_is_no_failure() -> None:
    log = Log()
    log.user("is the worker still up, and is the fix on main")
    log.bash("ps -p 4242 -o pid,cmd", "  PID CMD", exit_code=1)
    log.bash("kill -0 4242", "", exit_code=1)
    log.bash("git merge-base --is-ancestor fix-retry main", "", exit_code=1)
    log.bash("git ls-files --error-unmatch notes/todo.md", "error: pathspec 'notes/todo.md' did not match",
             exit_code=1)
    log.bash("git rev-parse --verify feature/x", "fatal: Needed a single revision", exit_code=128)
    log.bash("curl -sf http://127.0.0.1:8000/healthz", "", exit_code=7)
    assert log.extract().attempts == []
    # The same programs failing otherwise still fail.
    log = Log()
    log.user("push the fix")
    log.bash("curl -sf https://api.example.com/v1/deploy -X POST", "curl: (22) 500", exit_code=22)
    log.bash("git rev-parse HEAD~40", "fatal: ambiguous argument 'HEAD~40'", exit_code=128)
    assert len(log.extract().attempts) == 2


def test_a_status_probe_while_a_background_run_starts_is_no_failure() -> None:
    log = Log()
    log.user("start the indexer and tell me when it is ready")
    log.call("exec_command", {"cmd": "python -m indexer serve"}, "Process running with session ID 7\nOutput:\n")
    log.call("exec_command", {"cmd": "python scripts/watch.py --once"}, "Process exited with code 1\nOutput:\n"
             "indexer: starting (0/3 shards)", error=True, exit_code=1)
    log.call("exec_command", {"cmd": "python scripts/watch.py --once"}, "Process exited with code 0\nOutput:\n"
             "indexer: ready (3/3 shards)", exit_code=0)
    assert log.extract().attempts == []
    # With nothing running in the background, the same check failing is a failure.
    log = Log()
    log.user("check the indexer")
    log.call("exec_command", {"cmd": "python scripts/watch.py --once"}, "Process exited with code 1\nOutput:\n"
             "indexer: crashed (0/3 shards)", error=True, exit_code=1)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_poll_keeps_the_identity_of_the_command_it_reads() -> None:
    log = Log()
    log.user("run the tests")
    failed = log.call("exec_command", {"cmd": "pytest tests/test_io.py"}, "Process running with session ID 3\n")
    log.call("write_stdin", {"session_id": 3, "chars": ""}, "Process exited with code 1\nOutput:\nFAILED "
             "tests/test_io.py::test_reads - AssertionError", error=True, exit_code=1)
    log.edit("/w/io.py")
    log.call("exec_command", {"cmd": "pytest tests/test_io.py"}, "Process running with session ID 4\n")
    fixed = log.call("write_stdin", {"session_id": 4, "chars": ""}, "Process exited with code 0\nOutput:\n3 passed",
                     exit_code=0)
    [attempt] = log.extract().attempts
    assert attempt.trial == "`pytest tests/test_io.py`" and attempt.outcome == "success"
    assert attempt.range == (failed, fixed + 1)


def test_a_chain_of_checks_run_again_with_one_more_check_is_the_same_story() -> None:
    log = Log()
    log.user("make lint and tests green")
    failed = log.bash("uv run ruff check src 2>&1 && uv run ruff format --check src 2>&1", "src/a.py:1:1: I001 "
                      "Import block is un-sorted\nFound 1 error.", exit_code=1)
    log.edit("/w/src/a.py")
    log.bash("uv run ruff check src 2>&1 && uv run ruff format --check src 2>&1 && uv run pytest -q 2>&1",
             "All checks passed!\nWould reformat: src/a.py\n1 file would be reformatted", exit_code=1)
    fixed = log.bash("uv run ruff format src 2>&1 && uv run ruff check src 2>&1 && uv run pytest -q 2>&1",
                     "1 file reformatted\nAll checks passed!\n8 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "failed (2 times)" in attempt.result


def test_a_missing_test_runner_is_got_past_by_running_the_tests_another_way() -> None:
    log = Log()
    log.user("add tests for the handshake")
    failed = log.call("exec_command", {"cmd": "pytest --version"}, "Process exited with code 127\nOutput:\n"
                      "/bin/bash: pytest: command not found", error=True, exit_code=127)
    log.call("exec_command", {"cmd": "python3 -m pytest --version"}, "Process exited with code 1\nOutput:\n"
             "/usr/bin/python3: No module named pytest", error=True, exit_code=1)
    log.call("exec_command", {"cmd": "python3 -m pip install --user pytest"}, "Process exited with code 1\nOutput:\n"
             "ERROR: Could not find a version that satisfies the requirement pytest", error=True, exit_code=1)
    log.say("No network for pip, so the suite will use unittest from the standard library.")
    log.call("apply_patch", {"input": "*** Begin Patch\n*** Add File: tests/test_handshake.py\n+import unittest\n"
                             "*** End Patch"}, "Success")
    ran = log.call("exec_command", {"cmd": "python3 -m unittest discover -s tests"}, "Process exited with code 0\n"
                   "Output:\nRan 4 tests in 0.01s\n\nOK", exit_code=0)
    [attempt] = log.extract().attempts  # pip refused on the way: a step of the same story
    assert attempt.outcome == "success" and attempt.range == (failed, ran + 1)
    assert "failed (2 times)" in attempt.result


def test_what_failed_while_a_check_kept_failing_is_part_of_that_story() -> None:
    log = Log()
    log.user("run the prerequisites script")
    first = log.bash("./bin/prereq.sh --json", "/usr/bin/env: 'bash\\r': No such file or directory", exit_code=127)
    log.bash("python - <<'PY'\nimport pathlib\nPY", "bash: line 1: python: command not found", exit_code=127)
    log.bash("python3 - <<'PY'\nimport pathlib\np = pathlib.Path('bin/prereq.sh')\np.write_bytes(p.read_bytes()"
             ".replace(b'\\r', b''))\nPY", "")
    log.bash("./bin/prereq.sh --json", "ERROR: Not on a feature branch", exit_code=1)
    log.bash("git checkout 005-feature", "Switched to branch '005-feature'")
    fixed = log.bash("./bin/prereq.sh --json", '{"FEATURE_DIR": "specs/005-feature"}')
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (first, fixed + 1)
    # A failure after the check's last failing run that was fixed on its own is its own story.
    log = Log()
    log.user("run the prerequisites script")
    log.bash("./bin/prereq.sh --json", "ERROR: Not on a feature branch", exit_code=1)
    log.bash("git checkout -b 005-feature", "fatal: a branch named '005-feature' already exists", exit_code=128)
    log.bash("git checkout 005-feature", "Switched to branch '005-feature'")
    log.bash("./bin/prereq.sh --json", '{"FEATURE_DIR": "specs/005-feature"}')
    assert [a.outcome for a in log.extract().attempts] == ["success", "success"]


def test_a_command_the_codex_sandbox_refused_to_start_failed_with_the_code_it_reports() -> None:
    from yoi_tui.core.sessions.codex import parse_output

    refused = ('exec_command failed: CreateProcess { message: "Codex(Sandbox(Denied { output: ExecToolCallOutput { '
               'exit_code: 128, stdout: StreamOutput { text: \\"\\" }, stderr: StreamOutput { text: \\"fatal: Unable '
               "to create '/w/.git/index.lock': Operation not permitted\\\" } }))\" }")
    _text, exit_code, is_error = parse_output(refused)
    assert exit_code == 128 and is_error is True
    log = Log()
    log.user("commit the constitution")
    failed = log.call("exec_command", {"cmd": 'git commit -m "docs: constitution"'}, refused, error=True,
                      exit_code=128)
    # (run again with the escalation the agent asked for: the same command run again by the harness
    # with nothing asked for is no story since the ninth round, tests/test_phase1_attempts_round9.py)
    log.call("exec_command", {"cmd": 'git commit -m "docs: constitution"', "sandbox_permissions": "require_escalated"},
             "Process running with session ID 9\n"
             "Output:\n[STARTED] vp check --fix")
    fixed = log.call("write_stdin", {"session_id": 9, "chars": ""}, "Process exited with code 0\nOutput:\n"
                     "[main 563a869] docs: constitution", exit_code=0)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)


def test_powershell_speaks_for_itself_a_missing_cmdlet_and_a_look() -> None:
    log = Log()
    log.user("show me the contact section")
    failed = log.call("shell_command", {"command": "cd frontend; sed -n '1,220p' src/Contact.jsx"}, "Exit code: 1\n"
                      "Output:\nsed : The term 'sed' is not recognized as the name of a cmdlet, function, script "
                      "file, or operable program.", error=True, exit_code=1)
    fixed = log.call("shell_command", {"command": "cd frontend; Get-Content src/Contact.jsx"}, "Exit code: 0\n"
                     "Output:\nexport default function Contact() {}", exit_code=0)
    log.call("shell_command", {"command": "cd frontend; Get-Content src/App.jsx"}, "Exit code: 1\nOutput:\n"
             "Get-Content : Cannot find path 'D:\\app\\frontend\\src\\App.jsx' because it does not exist.",
             error=True, exit_code=1)
    [attempt] = log.extract().attempts  # a look at a path that is not there is no attempt
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)


def test_a_check_run_through_a_launcher_is_the_check_it_runs() -> None:
    assert check_key("uv run pytest tests/test_io.py") == check_key("pytest tests/test_io.py")
    assert check_key("poetry run --no-interaction mypy src") == check_key("mypy src")
    assert check_key("npx --yes vitest run src/a.test.ts") == check_key("vitest src/a.test.ts")
    assert check_key("pnpm exec tsc --noEmit") == check_key("tsc --noEmit")
    assert check_key("npm run lint") == check_key("npm lint") != check_key("npm run build")
    log = Log()
    log.user("fix the reader")
    failed = log.bash("uv run pytest tests/test_io.py -x", "FAILED tests/test_io.py::test_reads", exit_code=1)
    log.edit("/w/io.py")
    fixed = log.bash("python -m pytest -q", "12 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)


def test_a_full_run_failing_on_other_agents_work_in_progress_is_no_attempt() -> None:
    log = Log()
    log.user("add the export command, other agents are working on the importer")
    log.edit("/w/export.py")
    log.bash("pytest -q", "FAILED tests/test_importer.py::test_rows - ImportError: cannot import name 'parse'",
             exit_code=1)
    log.say("The only failures are in test_importer.py, which belongs to another agent's work in progress; the "
            "export tests pass.")
    log.bash("pytest -q tests/test_export.py", "4 passed")
    assert log.extract().attempts == []
    # Put down to nobody else, the failure stays.
    log = Log()
    log.user("add the export command")
    log.bash("pytest -q", "FAILED tests/test_importer.py::test_rows - ImportError: cannot import name 'parse'",
             exit_code=1)
    log.say("The failures are in test_importer.py, which this change does not touch.")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"


def test_a_status_probe_asked_again_with_nothing_done_in_between_waited_and_fixed_nothing() -> None:
    log = Log()
    log.user("wait for the deploy to be healthy")
    log.bash("./scripts/deploy-status.sh --once", "deploy: rolling (1/3 ready)", exit_code=1)
    log.bash("sleep 30", "")
    log.bash("./scripts/deploy-status.sh --once", "deploy: healthy (3/3 ready)")
    assert log.extract().attempts == []
    # A probe that passed after a change was fixed by it.
    log = Log()
    log.user("make the service healthy")
    log.bash("./scripts/svc.sh health", "unhealthy: missing DATABASE_URL", exit_code=1)
    log.edit("/w/.env")
    log.bash("./scripts/svc.sh health", "healthy")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success"


def test_a_missing_program_asked_again_for_something_else_is_the_same_failure() -> None:
    log = Log()
    log.user("find the retry settings")
    failed = log.bash('rg -n "retry" src', "bash: rg: command not found", exit_code=127)
    log.bash('rg -n "backoff" src', "bash: rg: command not found", exit_code=127)
    fixed = log.bash("find src -name '*.py' -exec grep -n retry {} +", "src/http.py:3: retry = 3")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "failed (2 times)" in attempt.result


def test_answers_by_exit_through_git_global_options_and_installed_questions() -> None:
    log = Log()
    log.user("what changed, and is httpx installed")
    log.bash("git --no-pager diff --exit-code -- src/a.py", "-old\n+new", exit_code=1)
    log.bash("git -C repo grep -n retry_policy", "", exit_code=1)
    log.bash("git rev-parse --is-inside-work-tree", "fatal: not a git repository", exit_code=128)
    log.bash("git ls-remote --exit-code --heads origin feature/x", "", exit_code=2)
    log.bash("pip show httpx", "WARNING: Package(s) not found: httpx", exit_code=1)
    log.bash("npm ls left-pad", "└── (empty)", exit_code=1)
    assert log.extract().attempts == []
    log = Log()
    log.user("push it")
    log.bash("git --no-pager push origin main", "error: failed to push some refs", exit_code=1)
    assert len(log.extract().attempts) == 1


def test_the_part_that_failed_run_alone_is_the_same_check() -> None:
    log = Log()
    log.user("fix the failing test")
    failed = log.bash("pytest -q", "FAILED tests/test_io.py::test_reads - AssertionError\n1 failed, 40 passed",
                      exit_code=1)
    log.edit("/w/io.py")
    log.bash("pytest -q tests/test_io.py", "FAILED tests/test_io.py::test_reads - KeyError", exit_code=1)
    log.edit("/w/io.py")
    fixed = log.bash("pytest -q tests/test_io.py", "3 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "failed (2 times)" in attempt.result
    # Another file, which the failure did not name, passing says nothing about it.
    log = Log()
    log.user("fix the failing test")
    log.bash("pytest -q", "FAILED tests/test_io.py::test_reads - AssertionError", exit_code=1)
    log.bash("pytest -q tests/test_cli.py", "5 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure"
