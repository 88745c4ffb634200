"""A scripted model for the ``llm`` engines' tests (pydantic-ai ``FunctionModel``): Phase 2's and GC's.

``Script([call("write_file", ...), done()])`` plays the given responses in order (then answers
``done()``; ``json_done()`` for ``structured=True``, a model without native tool calls whose steps
are ``json_call``s) and keeps what the engine showed it: the user prompts, every tool answer and retry
prompt (``feedback``: ``"<outcome>: <content>"``, e.g. ``"retried: lint refused ..."``), and the
number of model calls. Each tool call or answer reports a fixed token usage, so tests can check
what was recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

Step = ModelResponse | Callable[[list[ModelMessage]], ModelResponse]


def call(tool: str, **args: Any) -> ModelResponse:
    """The model calls ``tool`` with ``args`` (1000 input, 50 output tokens)."""
    return ModelResponse(parts=[ToolCallPart(tool, args)], usage=RequestUsage(input_tokens=1000, output_tokens=50))


def done(text: str = "Done.") -> ModelResponse:
    """The model's final answer (1200 input, 20 output tokens)."""
    return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=1200, output_tokens=20))


class Script:
    """A model that plays a fixed list of responses and keeps what it was shown."""

    def __init__(self, steps: list[Step], *, structured: bool = False) -> None:
        self.steps = list(steps)
        self.structured = structured
        self.feedback: list[str] = []
        self.prompts: list[str] = []
        self.calls = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                content = getattr(part, "content", None)
                if part.part_kind == "user-prompt":
                    self.prompts.append(str(content))
                if part.part_kind in ("tool-return", "retry-prompt") and content is not None:
                    self.feedback.append(f"{getattr(part, 'outcome', part.part_kind)}: {content}")
        if not self.steps:
            return json_done() if self.structured else done()
        step = self.steps.pop(0)
        return step(messages) if callable(step) else step

    def model(self) -> FunctionModel:
        return FunctionModel(self)


def json_call(tool: str, **args: Any) -> ModelResponse:
    """A model without native tool calls calls ``tool``: one JSON object as its text (structured mode)."""
    return ModelResponse(parts=[TextPart(json.dumps({"tool": tool, "arguments": args}))],
                         usage=RequestUsage(input_tokens=1000, output_tokens=50))


def json_done(summary: str = "Done.") -> ModelResponse:
    """The structured-mode final answer (1200 input, 20 output tokens)."""
    return json_call("finish", summary=summary)
