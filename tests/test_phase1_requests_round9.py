"""Phase 1's ninth round on requests, each mechanism on a small constructed log (no line copied from a
benchmark session); each test fails without its rule (the negative cases guard its edges).

- A reply that hands over what the agent asked for ("My email is …") refines the request the agent
  asked it for, even when the agent asked without a question mark or at length.
- A document's path sent on its own after the agent's report is a run of that document (a prompt
  file handed over), not a bare follow-up of the request before.
"""

from __future__ import annotations

from test_phase1_rules import Log


def test_an_answer_handing_over_what_the_agent_asked_for_refines_the_request() -> None:
    log = Log()
    first = log.user("set up the git author for this repository and make the first commit")
    log.bash("git config user.name", "")
    log.say("I need your email address to set the commit author. Please share the one you use on GitHub.")
    answer = log.user("My email is dev@example.invalid, the same one as on GitHub")
    log.bash("git config user.email dev@example.invalid")
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == first and request.range[1] >= answer
    assert "refined: My email is dev@example.invalid" in request.summary


def test_an_answer_to_a_question_asked_at_length_refines_it() -> None:
    log = Log()
    first = log.user("deploy the api to our cloud account")
    log.say("There are two environments in the config, staging and production. Which one should I deploy "
            "to? Production needs the release tag, staging does not, so I can go ahead with either once you say.")
    log.user("the staging one, since production needs a release tag and we have not cut one yet")
    [request] = log.extract().requests
    assert request.range is not None and request.range[0] == first
    assert "refined: The staging one" in request.summary


def test_a_reply_stating_a_problem_or_giving_an_instruction_is_a_request_of_its_own() -> None:
    log = Log()
    log.user("add the export button to the report page")
    log.edit("/w/src/report.tsx")
    log.say("The export button is added. Let me know if anything looks off?")
    broken = log.user("It's broken now, the page stays blank after I click it")
    log.edit("/w/src/report.tsx")
    log.say("Fixed the blank page. Please share the browser you use if it happens again.")
    again = log.user("my browser is Firefox. Also add a CSV option to the export")
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [0, broken, again]


def test_a_document_path_sent_alone_after_a_report_is_a_run_of_its_own() -> None:
    log = Log()
    first = log.user("prompts/plan.md")
    log.bash("cat prompts/plan.md", "# Plan the feature ...")
    log.say("- Wrote the plan to specs/001/plan.md")
    second = log.user("prompts/implement.md")
    log.bash("cat prompts/implement.md", "# Implement the tasks ...")
    log.say("- Implemented the first three tasks")
    origin = log.user("origin/main")  # a bare follow-up with no verb: still a step of the request before
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [first, second]
    assert requests[1].range is not None and requests[1].range[1] >= origin


def _api_error(log: Log, text: str) -> int:
    return log._add(role="system", text=text, kind="api_error")


def _command(log: Log, text: str) -> int:
    at = log._add(role="user", text=text, kind="command")
    log._add(role="system", text="Catch you later!", kind="command_output")
    return at


def test_no_response_requested_after_a_local_command_cuts_nothing_off() -> None:
    log = Log()
    log.user("create an image processing library that will be published to PyPI")
    log.edit("/w/src/lib/__init__.py")
    log.say("The library is in place and its tests pass.")
    _command(log, "/exit")
    _api_error(log, "No response requested.")
    publish = log.user("I want to try to publish this to PyPI. The token should be set.")
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [0, publish]
    assert requests[1].intent == "run" and requests[1].target.startswith("this")  # "try to publish": publish


def test_no_response_requested_after_the_agents_words_still_stopped_the_work() -> None:
    log = Log()
    log.user("review the code and open issues for what you find")
    log.say("Now I'll open the issues with gh:")
    _api_error(log, "No response requested.")
    again = log.user("continue")
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [0, again] and requests[1].intent == "continue"


def test_after_clear_a_short_message_starts_a_request_of_its_own() -> None:
    log = Log()
    log.user("move the login button to the header")
    log.edit("/w/src/Header.tsx")
    log.say("The login button is in the header now.")
    _command(log, "/clear")
    after = log.user("no, use the staging database for the seed script")
    requests = log.extract().requests
    assert [r.range[0] for r in requests if r.range] == [0, after]


def test_a_judgement_or_an_instruction_in_a_clause_is_no_answer_handed_over() -> None:
    from yoi_tui.core.phase1.rules_requests import answers_ask

    said = "The export is added. Please share the folder the reports should go to, or let me know if CSV is enough."
    assert answers_ask("They are in the docs folder", said)
    assert answers_ask("It's in ~/reports/monthly", said)
    for reply in ("That's great, now add a PDF option too", "They are in the docs folder, use those",
                  "It's good but the header overlaps the menu on mobile", "That's perfect",
                  "My main concern is the speed of the search, can you make it faster?"):
        assert not answers_ask(reply, said), reply
