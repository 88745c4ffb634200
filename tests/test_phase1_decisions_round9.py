"""The Phase 1 rules engine's ninth round on decisions, mechanism by mechanism, each on a small
constructed log of ``Entry`` items (no line copied from a benchmark session); each test fails
without its rule."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- the reason first, then "so I'll X"


def test_a_reason_told_first_and_then_the_choice_is_a_decision() -> None:
    log = Log()
    log.user("add rate limiting to the upload endpoint")
    thought = _thinking(log, "**Reviewing the upload route**\n\nThe gateway already tags every request with the "
                             "caller's account id, so I'll key the rate limiter on the account id rather than on "
                             "the client address.")
    step = log.edit("src/upload.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("key the rate limiter on the account id")
    assert decision.rationale.startswith("The gateway already tags every request")
    assert decision.range == (thought, step)


def test_a_reason_and_then_leaving_something_out_is_a_decision_in_a_message_too() -> None:
    log = Log()
    log.user("wire the contact form to the mail service")
    said = log.say("A spam filter on the form isn't part of this request, so I'll leave the spam filter out for "
                   "now and only send the mail.")
    log.edit("src/contact.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("leave the spam filter out")
    assert decision.range is not None and decision.range[0] == said


def test_a_look_up_a_bare_so_ill_do_it_and_the_agents_own_weighing_are_none() -> None:
    for text in ("The handler is missing from the router, so I'll check where the routes are registered.",
                 "The user explicitly asked for this, so I'll implement it.",
                 "The build output looks stale, so I'll look into the cache settings next.",
                 "I'm considering a queue for the uploads, but the tasks name no queue, so I'll keep the handler "
                 "small and plain.",
                 "I'm verifying whether the push went through, so I'll confirm the branch status."):
        log = Log()
        log.user("add rate limiting to the upload endpoint")
        _thinking(log, f"**Reviewing the upload route**\n\n{text}")
        log.bash("sed -n '1,80p' src/upload.ts")
        assert log.extract().decisions == [], text
