"""The Phase 1 rules engine's tenth round on decisions, mechanism by mechanism, each on a small
constructed log of ``Entry`` items (no line copied from a benchmark session); each test fails
without its rule. The round makes over-eager rules stricter: a turn of the conversation, a finding
quoted with its location, a check run for its result, a template or a plan's progress written down
are not decisions."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- a turn of the conversation


def test_a_reason_then_a_turn_of_the_conversation_is_no_decision() -> None:
    for text in ("The reviewer has not replied to the open points yet, so I should acknowledge the report and wait "
                 "for their answer on the naming.",
                 "The user asked what else could be covered, so I'll suggest areas like parsing, retries, "
                 "logging and the config loader.",
                 "The install needs the network and a path outside the sandbox, so I'll escalate this step.",
                 "The user is new to the codebase, so I'll answer with a short overview of the modules first."):
        log = Log()
        log.user("review the exporter and tell me what's left")
        log.bash("ls src", "exporter.py")
        log.say(text)
        assert log.extract().decisions == [], text


def test_a_reason_then_a_change_to_the_project_is_still_a_decision() -> None:
    log = Log()
    log.user("review the exporter and tell me what's left")
    log.bash("ls src", "exporter.py")
    log.say("The exporter reads the whole file into memory, so I'll stream the rows to the writer one by one.")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("stream the rows to the writer")
