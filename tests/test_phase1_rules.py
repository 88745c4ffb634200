"""The Phase 1 rules engine, behaviour by behaviour (issue 12): each test fails without its rule.

Entries are built as the adapters emit them; the Claude Code specifics (hook feedback, task
notifications) go through a real transcript file and the real adapter and cleaning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yoi_tui.core.phase1.chunking import chunk_entries
from yoi_tui.core.phase1.rules_engine import extract
from yoi_tui.core.sessions.clean import clean_entries
from yoi_tui.core.sessions.detect import load_session
from yoi_tui.core.sessions.model import Entry
from yoi_tui.core.store.staging import Activity


class Log:
    """A session under construction: each helper appends entries with consecutive indices."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.calls = 0

    def _add(self, **fields: Any) -> int:
        self.entries.append(Entry(index=len(self.entries), **fields))
        return len(self.entries) - 1

    def user(self, text: str) -> int:
        return self._add(role="user", text=text, kind="message")

    def say(self, text: str) -> int:
        return self._add(role="assistant", text=text, kind="message")

    def interrupt(self) -> int:
        return self._add(role="system", text="[Request interrupted by user]", kind="interrupt")

    def call(self, name: str, data: dict[str, Any], output: str = "", *, error: bool = False,
             exit_code: int | None = None, rejected: bool = False) -> int:
        self.calls += 1
        call_id = f"c{self.calls}"
        start = self._add(role="assistant", kind="tool_call", tool_name=name, tool_input=data, tool_call_id=call_id)
        self._add(role="tool", text=output, tool_name=name, tool_call_id=call_id, is_error=error or rejected,
                  exit_code=exit_code, kind="rejected" if rejected else "tool_result")
        return start

    def bash(self, command: str, output: str = "", *, exit_code: int = 0) -> int:
        return self.call("Bash", {"command": command}, output, error=exit_code != 0, exit_code=exit_code or None)

    def edit(self, path: str) -> int:
        return self.call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "updated")

    def extract(self) -> Activity:
        return extract(self.entries)


# ---------------------------------------------------------------- requests


def test_greetings_and_pasted_code_are_not_requests_and_a_question_asks_to_explain() -> None:
    log = Log()
    log.user("hi there")
    question = log.user("does it get the logged in user from the authStore?")
    log.say("Let me trace through the code to verify where the user data comes from:")
    log.say("Yes. The user comes from useAuthStore in AppSidebar.tsx and is passed down as a prop.")
    log.user("```ts\nconst user = useAuthStore((s) => s.user);\nreturn <NavUser user={user} />;\n```")
    activity = log.extract()
    # The greeting and the pasted code ask nothing; the question asks the agent to answer it (eighth
    # round: a request to explain, its answer also told as a discussion).
    [request] = activity.requests
    assert request.intent == "explain" and request.range is not None and request.range[0] == question
    [discussion] = activity.discussions
    assert discussion.range == (question, question + 2)
    # The reply's substance, not the agent's filler.
    assert discussion.points == ["The user comes from useAuthStore in AppSidebar.tsx and is passed down as a prop."]


def test_a_correction_refines_the_request_it_follows() -> None:
    log = Log()
    first = log.user("please move the + button to the right of the search in apps/app/src/AppInnerSidebar.tsx")
    log.call("Read", {"file_path": "/p/NewSessionButton.tsx"}, "...")
    log.interrupt()
    fix = log.user("not the new session button. the plus button inside the search input")
    later = log.user("let's give the button a background")  # a new request, not a correction
    activity = log.extract()
    titles = [r.title for r in activity.requests]
    assert titles == ["Move the + button to the right of the search", "Give the button a background"]
    assert "refined: Not the new session button." in activity.requests[0].summary
    assert activity.requests[0].range is not None and activity.requests[0].range[0] == first
    assert activity.requests[0].range[1] == fix and activity.requests[1].range == (later, later)


def test_intent_target_and_title_come_from_the_sentence_not_code_or_temp_paths() -> None:
    log = Log()
    log.user("let's give the button a background")
    log.user("port this project to Rust")
    log.user("finish up the lmstudio support")
    log.user("this one '/var/folders/sr/T/TemporaryItems/Screenshot 2025-10-24 at 2.54.54 PM.png' should be "
             "fixed: the avatar shows Guest User. We should use the initials from the username if name isn't present")
    log.user("Can you add the first two initials of actual user who is logged into the NavUser")
    requests = log.extract().requests
    assert [(r.intent, r.title) for r in requests] == [
        ("change", "Give the button a background"),
        ("change", "Port this project to Rust"),
        ("continue", "Finish up the lmstudio support"),
        ("fix", "Use the initials from the username if name isn't present"),
        ("add", "Add the first two initials of actual user"),
    ]
    assert "Screenshot" not in requests[3].target and "PM.png" not in requests[3].target
    assert "NavUser" in requests[4].target
    for request in requests:  # never cut mid-word: every title word is a word of the message
        words = set(request.summary.replace(".", " ").split())
        assert all(word in words or word.lower() in {w.lower() for w in words} for word in request.title.split())


def test_a_problem_statement_is_a_fix() -> None:
    log = Log()
    log.user("mix phx.server doesnt seem to start")
    log.user("scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch it")
    requests = log.extract().requests
    assert [(r.intent, r.title) for r in requests] == [
        ("fix", "Make mix phx.server start"),
        ("fix", "Make scrolling back in xterm.js work")]
    assert requests[0].target == "mix phx.server"


# ---------------------------------------------------------------- attempts


def test_exit_codes_mean_what_the_command_means() -> None:
    log = Log()
    log.user("find where the cache is configured")
    log.bash("rg -n 'cache_dir' src", "", exit_code=1)  # no match
    log.bash("grep -r TODO src | grep cache", "", exit_code=1)
    log.bash("diff a.txt b.txt", "1c1\n< a\n---\n> b", exit_code=1)
    log.bash("test -f config.toml", "", exit_code=1)
    log.bash("git add -A && git commit -m 'wip'", "On branch main\nnothing to commit, working tree clean",
             exit_code=1)
    log.bash("ls -la /p/missing", "ls: cannot access '/p/missing': No such file or directory", exit_code=2)
    log.call("Read", {"file_path": "/p/nope.py"}, "<tool_use_error>File does not exist.</tool_use_error>", error=True)
    log.call("Read", {"file_path": "/p/test/support"}, "EISDIR: illegal operation on a directory, read", error=True)
    log.call("Edit", {"file_path": "/p/a.py"}, "<tool_use_error>File has not been read yet.</tool_use_error>",
             error=True)
    log.call("Bash", {"command": "rm -rf build"}, "The user doesn't want to proceed with this tool use.",
             rejected=True)
    assert log.extract().attempts == []


def test_errors_the_client_returns_itself_are_not_attempts() -> None:
    """Harness noise (issue 23): the tool never ran, so there is nothing to remember."""
    log = Log()
    log.user("make the check pass")
    # Claude Code 2.1, MCP server not up yet; claude -p with nobody to approve (texts as 2.1.332 writes them).
    log.call("mcp__yoi__knowledge_search", {"query": "release"},
             "<tool_use_error>Still connecting (try again or proceed without): yoi</tool_use_error>", error=True)
    log.call("Bash", {"command": "python3 check.py"}, "This command requires approval", error=True)
    log.call("Write", {"file_path": "/p/config.txt", "content": "x"},
             "Claude requested permissions to write to /p/config.txt, but you haven't granted it yet.", error=True)
    # Codex 0.169: a tool it does not offer (the MCP server still starting), a refused and an aborted call.
    log.call("exec_command", {"cmd": "python3 check.py"}, "unsupported call: mcp__yoi__knowledge_search", error=True)
    log.call("exec_command", {"cmd": "make deploy"}, "exec command rejected by user", error=True)
    log.call("exec_command", {"cmd": "pytest"}, "aborted", error=True)
    assert log.extract().attempts == []
    log.bash("python3 check.py", "error: config.txt is missing", exit_code=1)  # a real run that failed still is
    assert len(log.extract().attempts) == 1


def test_fixed_only_when_a_later_run_of_the_same_check_passes() -> None:
    log = Log()
    log.user("add initials to NavUser")
    failed = log.bash("cd apps/app && pnpm test NavUser.test.tsx",
                      "FAIL NavUser.test.tsx > getInitials\nAssertionError: expected '' to be '??'", exit_code=1)
    log.say("There's a small bug in the getInitials function when the name is empty.")
    log.edit("/p/apps/app/src/NavUser.tsx")
    log.bash("pnpm lint NavUser.tsx", "ok")  # looks alike, is another check: not the fix
    passed = log.bash("cd apps/app && pnpm test NavUser.test.tsx", "Test Files 1 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, passed + 1)
    assert "AssertionError" in attempt.result and "after editing NavUser.tsx" in attempt.result
    assert "cause: There's a small bug in the getInitials function" in attempt.result
    assert "pnpm lint" not in attempt.result


def test_a_failure_with_no_passing_rerun_says_not_fixed() -> None:
    log = Log()
    log.user("run the tests")
    failed = log.bash("pytest tests/test_io.py", "E   AssertionError: 1 != 2\n1 failed", exit_code=1)
    log.bash("pytest tests/test_parser.py", "1 passed")  # another test file: another check
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and "not fixed in this range" in attempt.result
    assert attempt.range == (failed, failed + 1)


def test_a_missing_program_is_fixed_by_the_alternative_aimed_at_the_same_path() -> None:
    log = Log()
    log.user("explore the lib folder")
    failed = log.bash("tree /p/lib -L 3", "(eval):1: command not found: tree", exit_code=127)
    log.say("Let me use find instead.")
    fixed = log.bash("find /p/lib -type d | sort", "/p/lib\n/p/lib/app")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, fixed + 1)
    assert "command not found: tree" in attempt.result and "ran `find /p/lib -type d | sort` instead" in attempt.result


def test_stop_hook_feedback_is_a_failure_signal(tmp_path: Path) -> None:
    def line(n: int, kind: str, message: dict[str, Any], **extra: Any) -> str:
        return json.dumps({"type": kind, "uuid": f"u{n}", "sessionId": "s-hook", "timestamp": "2026-01-01T00:00:00Z",
                           "message": message, **extra})

    lines = [
        line(1, "user", {"role": "user", "content": "add a changelog entry for the parser fix"}),
        line(2, "assistant", {"role": "assistant", "id": "m1", "content": [{"type": "text", "text": "Done."}]}),
        line(3, "user", {"role": "user", "content": "Stop hook feedback:\nThe tests were not run: run pytest "
                                                    "before stopping"}, isMeta=True),
        line(4, "assistant", {"role": "assistant", "id": "m2", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]}),
        line(5, "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "12 passed", "is_error": False}]}),
        line(6, "assistant", {"role": "assistant", "id": "m3", "content": [{"type": "text", "text": "Tests pass."}]}),
        line(7, "user", {"role": "user", "content": "<task-notification>\n<task-id>b1</task-id>\n<status>completed"
                                                    "</status>\n</task-notification>\nRead the output file to "
                                                    "retrieve the result: /tmp/t/b1.output"}),
    ]
    path = tmp_path / "s-hook.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    entries = clean_entries(load_session(path).entries)
    hook = next(e for e in entries if e.kind == "hook_feedback")
    activity = extract(entries)
    [attempt] = activity.attempts
    assert attempt.trial == "the Stop hook" and attempt.outcome == "success"
    assert "The tests were not run" in attempt.result and attempt.range is not None
    assert attempt.range[0] == hook.index
    # The harness's task notification is not something the user typed.
    assert [r.title for r in activity.requests] == ["Add a changelog entry for the parser fix"]


# ---------------------------------------------------------------- decisions


def test_ask_user_question_is_a_decision_with_chosen_and_rejected_options() -> None:
    log = Log()
    log.user("commit the work")
    ask = log.call("AskUserQuestion", {"questions": [{
        "question": "The pre-commit hook blocks on old issues. How should we proceed?", "header": "Commit",
        "options": [{"label": "Skip hook (--no-verify) (Recommended)"}, {"label": "Fix pre-existing issues"}]}]},
        'User has answered your questions: "The pre-commit hook blocks on old issues. How should we proceed?"='
        '"main was clean; fix the issues". You can now continue.')
    [decision] = log.extract().decisions
    assert decision.title == "Commit: Fix pre-existing issues" and decision.chosen == "Fix pre-existing issues"
    assert decision.options == ["Skip hook (--no-verify)", "Fix pre-existing issues"]
    assert "main was clean" in decision.rationale
    assert "the agent recommended Skip hook (--no-verify)" in decision.rationale
    assert decision.range == (ask, ask + 1)


def test_exit_plan_mode_rejected_then_approved_is_a_revised_decision() -> None:
    log = Log()
    log.user("move the + button out of the search input")
    first = log.call("ExitPlanMode", {"plan": "Move the + button to the right of the ⌘J shortcut."},
                     "The user doesn't want to proceed with this tool use.", rejected=True)
    log.user("Completely outside the search bar entirely")
    approved = log.call("ExitPlanMode", {"plan": "# Plan: Button outside the search bar\n\n## Approach\n\n"
                                                  "Make the search input and the button flex siblings.\n"},
                        "User has approved your plan.")
    [decision] = log.extract().decisions
    assert decision.title == "Plan: Button outside the search bar"
    assert decision.chosen == "Make the search input and the button flex siblings."
    assert decision.options == ["Move the + button to the right of the ⌘J shortcut.", "Button outside the search bar"]
    assert decision.rationale == "the user rejected the first plan: Completely outside the search bar entirely"
    assert decision.range == (first, approved + 1)


def test_choices_without_the_old_cue_words_and_no_fake_decision_from_a_summary() -> None:
    log = Log()
    log.user("add test coverage reporting")
    one = log.say("I'll set up coverage with cargo-llvm-cov so CI can report it.")
    two = log.say("Now fix the opaque MapSet issue — add a dialyzer nowarn since MapSet is intentionally opaque.")
    log.say("Done! I've changed the button variant to default instead of ghost, which gives it a background.")
    log.say("Let me use find instead.")
    decisions = log.extract().decisions
    assert [(d.range, d.chosen) for d in decisions] == [
        ((one, one), "set up coverage with cargo-llvm-cov so CI can report it"),
        ((two, two), "add a dialyzer nowarn")]
    assert decisions[1].rationale == "MapSet is intentionally opaque"


# ---------------------------------------------------------------- chunking


def test_a_chunk_never_separates_a_failure_from_its_result() -> None:
    log = Log()
    log.user("run the suite")
    for number in range(30):
        log.say(f"step {number} " + "words " * 60)
    log.bash("pytest -q", "1 failed", exit_code=1)
    log.edit("/p/a.py")
    log.bash("pytest -q", "3 passed")
    for chunk in chunk_entries(log.entries, 700):
        kinds = [e.kind for e in chunk]
        assert kinds[-1] != "tool_call"
        assert kinds[0] != "tool_result"


def test_a_short_answer_to_the_agents_question_is_not_a_new_request() -> None:
    log = Log()
    log.user("add a cache to the API client")
    log.say("Should the cache live in memory or on disk?")
    log.user("on disk please")
    log.say("Done. Want me to add the --no-cache flag too?")
    later = log.user("continue until all are done")  # an instruction, even after a question
    requests = log.extract().requests
    assert [r.title for r in requests] == ["Add a cache to the API client", "Continue until all are done"]
    assert "refined: On disk please." in requests[0].summary and requests[1].range == (later, later)


def test_how_the_agent_uses_its_tools_is_not_a_decision() -> None:
    log = Log()
    log.user("look at the parser")
    log.say("I'll use the Read tool to open parser.py first.")
    log.say("I'll use a subagent for the exploration.")
    assert log.extract().decisions == []


def test_the_whole_suite_passing_covers_one_failing_test_file() -> None:
    log = Log()
    log.user("fix the io test")
    failed = log.bash("pytest tests/test_io.py", "E AssertionError\n1 failed", exit_code=1)
    log.edit("/p/io.py")
    passed = log.bash("pytest", "42 passed")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, passed + 1)


def test_a_fix_made_by_a_command_is_named_and_a_header_error_says_what_failed() -> None:
    log = Log()
    log.user("commit the OTEL bootstrap")
    failed = log.call("Bash", {"command": "git add -A && git commit -m 'feat: otel'"},
                      "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix.",
                      error=True)
    log.bash("git status", "modified: lib/otel.ex")  # a look around: not part of the fix
    log.bash("mix format", "")
    passed = log.bash("git add -A && git commit -m 'feat: otel'", "[main 12e2d10] feat: otel")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (failed, passed + 1)
    assert "failed: Pre-commit validation failed: [FORMAT] Code is not formatted." in attempt.result
    assert "fixed — after running `mix format`;" in attempt.result and "git status" not in attempt.result


def test_a_command_quoted_mid_sentence_is_not_a_choice() -> None:
    log = Log()
    log.user("commit the styles")
    log.say("The .gitignore prevents `git add .` from including it, but since it's already tracked, changes to it "
            "need to be staged explicitly.")
    log.say("I'll keep the old parser since the tests depend on it.")
    [decision] = log.extract().decisions
    assert (decision.chosen, decision.rationale) == ("keep the old parser", "the tests depend on it")


def test_exploration_that_fails_is_not_an_attempt_but_a_missing_program_is() -> None:
    log = Log()
    log.user("look at the fixture")
    log.bash('head -c 500 fixture.jsonl | python3 -c "\nimport json, sys\nprint(json.loads(sys.stdin.read()))\n"',
             "Traceback (most recent call last):\n  File \"<string>\", line 3\nJSONDecodeError", exit_code=1)
    log.bash("cat fixture.jsonl | jq .type", "jq: error (at <stdin>:1): Cannot index string", exit_code=5)
    log.call("Bash", {"command": "npx vitest run"}, "<tool_use_error>Sibling tool call errored</tool_use_error>",
             error=True)
    assert log.extract().attempts == []


def test_a_choice_takes_its_reason_from_the_sentence_before() -> None:
    log = Log()
    log.user("make credo pass")
    at = log.say("This is a known Elixir compiler bug — aliases used only inside `rescue` blocks are reported as "
                 "unused. I'll use the full path and suppress the credo warning inline.")
    log.say("Let me check it. I'll use grep and sed to find the other call sites.")  # how, not a choice
    [decision] = log.extract().decisions
    assert decision.range == (at, at) and decision.chosen == "use the full path and suppress the credo warning inline"
    assert decision.rationale.startswith("This is a known Elixir compiler bug")


def test_a_check_that_fails_through_a_wrapper_is_fixed_by_running_it_without_the_wrapper() -> None:
    log = Log()
    log.user("run the tests")
    log.bash("rtk bun run test", "error: unrecognized subcommand 'bun'", exit_code=2)
    log.bash("bun run test", "1318 pass\n0 fail")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (1, 4)
    assert "ran `bun run test` instead" in attempt.result
    log = Log()
    log.user("run the tests")
    log.bash("rtk bun run test", "error: unrecognized subcommand 'bun'", exit_code=2)
    log.bash("bun run test", "src/a.test.ts:3: expected 1, got 2\n1 fail", exit_code=1)
    first, second = log.extract().attempts
    assert first.outcome == "success" and first.range == (1, 4)  # the wrapper problem is gone: bun ran
    assert second.outcome == "failure" and second.trial == "`bun run test`"


def test_a_search_pointed_at_a_missing_folder_is_a_look_around_and_counts_as_the_check_running() -> None:
    log = Log()
    log.user("find the trace options")
    log.bash("rg -n trace src/commands/trace src/core", "rg: src/commands/trace: No such file or directory (os error 2)\n"
             "src/core/a.ts:3:trace", exit_code=2)
    assert log.extract().attempts == []
    log = Log()
    log.user("find where the exporter is configured")
    log.bash("grep -rn --bogus exporter src", "grep: unrecognized option '--bogus'", exit_code=2)
    log.bash("grep -rn exporter src lib", "grep: lib: No such file or directory\nsrc/a.ts:3:exporter", exit_code=2)
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (1, 4)


def test_a_pipe_or_semicolon_inside_quotes_does_not_split_the_command() -> None:
    log = Log()
    log.user("check nothing else references the plugin")
    log.bash("rg -n \"claude-trace|trace-plugin\" . -g '!plugins/**'", "", exit_code=1)
    assert log.extract().attempts == []  # rg's exit 1 is "no match", the | was inside the pattern
    log = Log()
    log.user("find the flag")
    log.bash("rg -n \"--trace|trace input\" src/grade", "rg: unrecognized flag --trace|trace input", exit_code=2)
    log.bash("rg -n -- \"--trace|trace input\" src/grade", "src/grade/a.ts:3:--trace")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (1, 4)


def test_a_failure_is_told_by_its_unknown_field_line_and_a_listing_in_between_is_no_fix_step() -> None:
    log = Log()
    log.user("is issue 12 resolved?")
    log.bash("gh issue view 12 --json title,closedByPullRequestsReferences",
             "Unknown JSON field: \"closedByPullRequestsReferences\"\nAvailable fields:\n  title\n  url", exit_code=1)
    log.bash("gh pr list --search 12 --json number", "[]")
    log.bash("gh issue view 12 --json title", "{\"title\": \"x\"}")
    [attempt] = log.extract().attempts
    assert "Unknown JSON field" in attempt.result and "gh pr list" not in attempt.result
    assert attempt.outcome == "success"


def test_a_warning_before_the_error_is_not_what_failed() -> None:
    log = Log()
    log.user("run the eval")
    log.bash("bun cli.ts eval run x.yaml --output /tmp/run", "⚠ Unknown setting 'byok' for provider. This property "
             "will be ignored.\nError: Run workspace must use .agentv/results/<experiment>", exit_code=1)
    [attempt] = log.extract().attempts
    assert "Error: Run workspace must use" in attempt.result and "byok" not in attempt.result


def test_a_pipe_that_hides_the_same_error_is_no_pass_and_a_rebuild_is_part_of_the_fix() -> None:
    log = Log()
    log.user("load the skill")
    error = "SyntaxError: Export named 'mergeConfigObjects' not found in module dist/index.js"
    log.bash("bun cli.ts skills get bench", error, exit_code=1)
    log.bash("bun cli.ts skills get bench | sed -n '1,50p'", error)  # sed's exit 0
    log.bash("bun run build", "Build success")
    log.bash("bun cli.ts skills get bench", "# bench skill")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success" and attempt.range == (1, 8)
    assert "failed (2 times)" in attempt.result and "after running `bun run build`" in attempt.result
