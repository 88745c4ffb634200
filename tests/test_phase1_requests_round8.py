"""Phase 1's eighth round, requests: what the user asks of the agent without an instruction verb.

A question asked of the agent ("why won't you run it?", "which branch am I on?") is a request to
answer it (intent ``explain``; ``review`` for "did you …?" / "should we …?"), titled by the
question; its answer is still told as a discussion. A bare "yes" to the agent's offer ("Would you
like me to add the flag?") is a request to go ahead with what was offered (intent ``continue``). The
logs are small constructed ones; no line is copied from a session.
"""

from __future__ import annotations

from test_phase1_rules import Log


def test_a_question_asked_of_the_agent_is_a_request_to_explain() -> None:
    log = Log()
    log.user("add a --dry-run flag to the sync command")
    log.edit("/p/sync.py")
    log.say("Added --dry-run to sync.")
    asked = log.user("why won't the flag show up in --help?")
    log.say("The help text is cached by the shell completion; it appears after a restart.")
    activity = log.extract()
    assert [(r.intent, r.range[0] if r.range else None) for r in activity.requests] == [("add", 0), ("explain", asked)]
    question = activity.requests[1]
    assert question.title == "Why won't the flag show up in --help"
    assert question.done == "The help text is cached by the shell completion; it appears after a restart."
    # The answer is still a discussion too.
    [discussion] = activity.discussions
    assert discussion.range is not None and discussion.range[0] == asked


def test_a_question_whether_something_was_done_asks_for_a_check() -> None:
    log = Log()
    log.user("rename the cache module to store")
    log.say("Renamed.")
    log.user("Did you run the linters after the rename?")
    [_, check] = log.extract().requests
    assert check.intent == "review"


def test_an_instruction_asked_as_a_question_keeps_its_verb() -> None:
    log = Log()
    log.user("lets go ahead and deploy this to staging, the config is right?")
    [request] = log.extract().requests
    assert request.intent == "run"


def test_do_it_is_no_question() -> None:
    log = Log()
    log.user("tidy the log messages in the uploader")
    log.say("I'd suggest shorter messages with the file name first.")
    log.user("do it")
    assert [r.intent for r in log.extract().requests if r.intent == "explain"] == []


def test_a_bare_yes_to_the_agents_offer_is_a_request_to_go_ahead() -> None:
    log = Log()
    log.user("look into why uploads time out on large files")
    log.call("Read", {"file_path": "/p/upload.py"}, "def upload(): ...")
    log.say("The upload reads the whole file into memory. A streamed upload would fix it.\n\n"
            "Would you like me to switch the upload to streaming?")
    yes = log.user("yes")
    log.edit("/p/upload.py")
    log.say("Uploads are streamed now.")
    requests = log.extract().requests
    assert [r.intent for r in requests] == ["review", "continue"]
    go = requests[1]
    assert go.range is not None and go.range[0] == yes
    assert go.title == "Go ahead: switch the upload to streaming"


def test_a_yes_to_a_plain_question_of_fact_is_no_request() -> None:
    log = Log()
    log.user("fix the flaky retry test")
    log.say("Is the test run with the network disabled in CI?")
    log.user("yes")
    assert [r.intent for r in log.extract().requests] == ["fix"]
