"""The answer schema the ``llm`` Phase 1 engine asks a model for: the staging ``Activity``, bounded.

The same fields and the same strictness as ``store.staging.Activity`` (unknown fields rejected, so a
model cannot set ``source``), plus a length for every string and a count for every list. Sent as a
JSON schema, the bounds become the server's grammar (llama.cpp, Ollama and vLLM constrain to them):
a small model can no longer write one 4,000-token string, and the output cap of a request can be
sized to the schema (``max_answer_tokens``) instead of a blanket 4096. A valid answer is converted to
``Activity`` unchanged; what the bounds refuse is retried like any malformed answer.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..store.staging import Activity

ITEMS = 4  # per category and chunk: a chunk that holds more is cut smaller (phase1.chunk_tokens)
SHORT, LINE, TEXT = 120, 240, 400

Short = Annotated[str, Field(max_length=SHORT)]
Line = Annotated[str, Field(max_length=LINE)]
Text = Annotated[str, Field(max_length=TEXT)]
Range = tuple[int, int] | None


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecisionAnswer(_Answer):
    title: Short
    options: Annotated[list[Short], Field(max_length=4)] = []
    chosen: Short
    rationale: Text
    range: Range = None


class DiscussionAnswer(_Answer):
    topic: Short
    points: Annotated[list[Line], Field(max_length=4)] = []
    range: Range = None


class AttemptAnswer(_Answer):
    trial: Line
    result: Text
    outcome: Literal["success", "failure", "partial"]
    range: Range = None


class RequestAnswer(_Answer):
    intent: Annotated[str, Field(max_length=16)]
    target: Short
    summary: Line
    title: Short | None = None
    range: Range = None


class ActivityAnswer(_Answer):
    """What happened in a range of a session log; empty lists are a valid and common answer."""

    decisions: Annotated[list[DecisionAnswer], Field(max_length=ITEMS)] = []
    discussions: Annotated[list[DiscussionAnswer], Field(max_length=ITEMS)] = []
    attempts: Annotated[list[AttemptAnswer], Field(max_length=ITEMS)] = []
    requests: Annotated[list[RequestAnswer], Field(max_length=ITEMS)] = []


# Characters of the longest item per category (its strings at their caps plus JSON punctuation).
_ITEM_CHARS = {"decisions": SHORT * 6 + TEXT + 120, "discussions": SHORT + LINE * 4 + 80,
               "attempts": LINE + TEXT + 100, "requests": 16 + SHORT * 2 + LINE + 120}


def max_answer_tokens() -> int:
    """Tokens of the longest answer the schema allows (about 3 characters a token in JSON)."""
    return (sum(ITEMS * chars for chars in _ITEM_CHARS.values()) + 100) // 3


def to_activity(answer: ActivityAnswer | Activity | dict[str, object]) -> Activity:
    """The staging ``Activity`` of a valid answer."""
    if isinstance(answer, Activity):
        return answer
    data = answer.model_dump(exclude_none=True) if isinstance(answer, BaseModel) else answer
    return Activity.model_validate(data)
