"""Phase 1 rules: "remember this" in a user turn (issue 25) becomes a request carrying what it points
at — the agent's last message, or the turn's own content — never the acknowledgement's words."""

from __future__ import annotations

import pytest

from yoi_tui.core.phase1.rules_requests import extract_requests
from yoi_tui.core.sessions.model import Entry

PROPOSAL = ("I suggest we keep the retry budget at five attempts with exponential backoff, since the provider "
            "throttles bursts.")


def _turns(*texts: tuple[str, str]) -> list[Entry]:
    return [Entry(index=i, role=role, text=text) for i, (role, text) in enumerate(texts)]  # type: ignore[arg-type]


@pytest.mark.parametrize("ask", [
    "Yes, and remember that for the future",
    "yes remember that",
    "Keep this in mind going forward.",
    "Please note that down for later.",
    "Great, don't forget that next time!",
    "これを覚えておいて",
    "はい、今後はそれでお願いします",
    "Merk dir das.",
    "Recuerda esto para el futuro.",
    "记住这个",
])
def test_an_acknowledgement_asking_to_remember_carries_what_the_agent_said(ask: str) -> None:
    requests = extract_requests(_turns(("user", "How should webhook retries work?"), ("assistant", PROPOSAL),
                                       ("user", ask)))
    # The question is a request of its own (to explain), the ask to remember the one after it.
    assert [r.intent for r in requests] == ["explain", "remember"]
    request = requests[1]
    assert request.intent == "remember" and request.range == (1, 2)
    assert request.title == "Remember: keep the retry budget at five attempts with exponential backoff"
    assert "five attempts with exponential backoff" in request.summary
    for word in ("future", "Yes", "mind", "覚えて"):
        assert word not in request.title


def test_a_remember_turn_with_its_own_content_carries_that_content() -> None:
    requests = extract_requests(_turns(("assistant", "Done."),
                                       ("user", "Remember that the staging server is at 10.0.0.5")))
    assert [(r.title, r.summary, r.range) for r in requests] == [
        ("Remember: the staging server is at 10.0.0.5", "the staging server is at 10.0.0.5", (1, 1))]


def test_asking_whether_the_agent_remembers_is_not_an_ask() -> None:
    requests = extract_requests(_turns(("assistant", PROPOSAL), ("user", "Do you remember what we chose for the cache?")))
    assert [r.intent for r in requests] == ["explain"]  # a question to answer, nothing to remember


def test_with_nothing_to_point_at_no_request_is_made() -> None:
    assert extract_requests(_turns(("user", "Yes, and remember that for the future"))) == []
