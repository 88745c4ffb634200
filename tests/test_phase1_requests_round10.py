"""Phase 1's tenth round on requests, each mechanism on a small constructed log (no line copied from a
benchmark session); each test fails without its rule (the negative cases guard its edges).

A command in the client's own syntax sent as a message is a run of it: a slash command the client
passed on as text (``/specify --help``) and a skill named alone (``$skill-installer``); a path and a
shell prompt are neither.
"""

from __future__ import annotations

from test_phase1_rules import Log


def test_a_slash_command_typed_as_a_message_is_a_run_of_it() -> None:
    log = Log()
    start = log.user("/specify --help")
    log.bash("./specify --help", "/bin/bash: ./specify: No such file or directory", exit_code=127)
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == start
    assert request.intent == "run" and request.title == "Run /specify --help"


def test_a_skill_named_alone_is_a_run_of_that_skill() -> None:
    log = Log()
    log.user("add a login page to the web app")
    log.edit("/w/web/login.tsx")
    log.say("The login page is in place.")
    skill = log.user("$skill-installer")
    log.bash("ls ~/.codex/skills", "skill-installer\n")
    requests = log.extract().requests
    assert len(requests) == 2 and requests[1].range is not None and requests[1].range[0] == skill
    assert requests[1].intent == "run" and requests[1].title == "Run the skill-installer skill"


def test_a_pasted_path_or_shell_prompt_is_no_typed_command() -> None:
    log = Log()
    log.user("fix the broken links docfx warns about")
    log.bash("docfx docfx.json", "warning InvalidFileLink")
    log.say("Which warnings do you see?")
    log.user("/w/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).")
    log.user("$ docfx docfx.json")
    titles = [r.title for r in log.extract().requests]
    assert not any(t.startswith("Run /") or "skill" in t for t in titles)


def test_diagnostics_pasted_alone_are_no_request_of_their_own() -> None:
    log = Log()
    first = log.user("when I run the docs build alone it prints these two warnings:")
    log.say("Please paste both warnings in full, then I can fix them.")
    log.user("/w/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).\n"
             "/w/README.md(29,1): warning InvalidFileLink: Invalid file link:(~/ci.yml).")
    log.edit("/w/README.md")
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == first


def test_please_to_an_offer_made_on_a_condition_is_a_request_to_go_ahead() -> None:
    log = Log()
    log.user("run the remaining end-to-end groups")
    log.bash("pnpm exec playwright test e2e/weeks.spec.ts", "11 passed")
    log.say("Group 3 closed cleanly. If useful, I can lay out the exact remaining commands in order.")
    accept = log.user("please")
    log.say("1. Re-run group 4. 2. Run group 5.")
    requests = log.extract().requests
    assert len(requests) == 2 and requests[1].range is not None and requests[1].range[0] == accept
    assert requests[1].title == "Go ahead: lay out the exact remaining commands in order"


def test_please_with_no_offer_before_it_is_no_request() -> None:
    log = Log()
    log.user("run the remaining end-to-end groups")
    log.bash("pnpm exec playwright test e2e/weeks.spec.ts", "11 passed")
    log.say("Group 3 closed cleanly.")
    log.user("please")
    assert len(log.extract().requests) == 1


def test_yes_and_the_offered_action_in_its_own_words_is_a_request_of_its_own() -> None:
    log = Log()
    log.user("review how the query walks nested agents")
    log.bash("rg -n agentId src", "src/query.go:12: agentId")
    log.say("The data model is misaligned. Should I create a detailed implementation plan for the fix first?")
    accept = log.user("yes, please create a detailed plan and add it to the existing master plan document")
    log.edit("/w/docs/PLAN.md")
    requests = log.extract().requests
    assert len(requests) == 2 and requests[1].range is not None and requests[1].range[0] == accept
    assert requests[1].intent == "add"


def test_sure_with_a_detail_of_the_offer_still_answers_it() -> None:
    log = Log()
    first = log.user("add a fake secret to the docs to test the scanner")
    log.bash("rg -n secret docs", "")
    log.say("That would pollute the docs. Would you like me to create a test-secrets.txt or a .scanner-test file?")
    log.user("Sure, put it in test-secrets.")
    log.call("Write", {"file_path": "/w/test-secrets.txt", "content": "x"}, "File created")
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == first


def test_diagnostics_pasted_as_the_first_message_are_the_request() -> None:
    log = Log()
    first = log.user("/w/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).")
    log.edit("/w/README.md")
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == first


_PREAMBLE = "Operating rules.\nRule 1: report the plan and wait for y/n before any change.\nRule 2: never take a detour."


def test_a_preamble_the_agent_opens_every_message_with_is_no_report() -> None:
    # The agent's instructions make it repeat its rules at the top of each response: what it did is
    # the rest of its last message, never the rules.
    log = Log()
    log.user("commit the spec changes and push them")
    log.say(f"{_PREAMBLE}\nPlan: stage the three files, commit, push. OK? (y/n)")
    log.user("y")
    log.bash("git commit -am 'docs: spec'", "[main 1a2b3c4] docs: spec")
    log.say(f"{_PREAMBLE}\nCommitted as 1a2b3c4. Push next? (y/n)")
    log.user("y")
    log.bash("git push", "To origin\n   0f0f0f0..1a2b3c4  main -> main")
    log.say(f"{_PREAMBLE}\nPushed main to origin.")
    [request] = log.extract().requests
    assert "Pushed main to origin" in request.done
    assert "Rule 1" not in request.done and "Operating rules" not in request.done


def test_a_line_only_some_reports_share_stays_in_the_report() -> None:
    log = Log()
    for task in ("rename the config loader", "add a retry to the fetcher", "drop the legacy flag",
                 "document the cache"):
        log.user(task)
        log.edit("/w/src/app.py")
        log.say(f"Done with the change to {task.split()[-1]}.\nAll tests pass." if task != "document the cache"
                else "The cache is documented in README.md.")
    for _ in range(3):
        log.say("Anything else?")
    requests = log.extract().requests
    assert len(requests) == 4
    assert "All tests pass" in requests[0].done  # in 3 of 7 messages: a shared line, not a preamble
