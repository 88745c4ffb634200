"""Tool calls expressed as structured output, for models without native tool calls.

Many small local models (and Ollama setups) answer a ``tools`` request with a ```json block in the
text instead of ``tool_calls``. With ``llm.tool_mode = "structured"`` (or ``auto`` when the probe
found no native tool calls), Phase 2's and GC's agent runs step by step instead: every answer is
ONE JSON object ``{"tool": NAME, "arguments": {...}}`` — a JSON schema the server constrains to
(``oneOf`` one object per tool, its arguments the tool's own parameter schema), or the same schema
in the prompt — and ``{"tool": "finish", "arguments": {"summary": ...}}`` ends the run.

The tools are the very ``FunctionToolset`` the native agent gets: the same confined ``FileTools``
methods, the same lint refusal text (a ``ModelRetry`` from ``agent_tools.call_tool`` goes back as
the next message), the same failed-write count and abort (``TooManyFailedWrites`` propagates), and
the same limits (``llm.max_requests`` requests, ``llm.token_budget`` tokens, counted over the whole
run). An answer that is not valid JSON, names no known tool or has arguments the tool's schema
refuses is retried ``llm.output_retries`` times (pydantic-ai's output retries), then the run stops
(``UnexpectedModelBehavior``: the callers abort cleanly, nothing kept). A read-only call repeated
with the same arguments is not run again: the model is told, and the next step's schema leaves
that tool out (a small model at temperature 0 otherwise loops until the request limit). A write
repeated with the same arguments as one that went through ends the run (what was written is kept;
the request limit would throw it away), and so does the caller's ``finished`` check.
"""

# No ``from __future__ import annotations``: kept like the other agent modules.
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.settings import ModelSettings

FINISH = "finish"
CUT_OFF = "Your previous answer was cut off at the output limit. Answer again with a shorter JSON object.\n\n"
READ_ONLY = frozenset({"list_files", "read_file", "knowledge_search", "memory_search"})
REPEATED = "the model repeated its last {name} call with the same arguments; the run ends there"

PROTOCOL = """

## How to use the tools
You call tools by answering with ONE JSON object and nothing else, every turn:
{{"tool": "<tool name>", "arguments": {{<the tool's arguments>}}}}
The tool's result (or the reason it refused) comes back as the next message; then answer with the
next call. When you are done, answer {{"tool": "finish", "arguments": {{"summary": "<one short paragraph>"}}}}.

The tools:
{tools}
"""


@dataclass
class StepResult:
    """What ``agent.run_sync`` would return, for the callers: the final answer and the usage."""

    output: str
    usage: Any
    steps: int


def _describe(tools: dict[str, Any]) -> str:
    lines = []
    for name, tool in tools.items():
        params = tool.function_schema.json_schema.get("properties", {})
        required = set(tool.function_schema.json_schema.get("required", []))
        args = ", ".join(f"{p}{'' if p in required else '?'}" for p in params)
        doc = " ".join((tool.function_schema.description or "").split())
        lines.append(f"- {name}({args}): {doc}")
    lines.append(f"- {FINISH}(summary): end the run with one short paragraph saying what you changed.")
    return "\n".join(lines)


def step_schema(tools: dict[str, Any], *, finish: bool = True, without: frozenset[str] = frozenset()) -> dict[str, Any]:
    """One object per tool (its name a constant, its arguments the tool's parameter schema), or finish;
    the tools in ``without`` are left out."""
    options = []
    for name, tool in tools.items():
        if name in without:
            continue
        params = dict(tool.function_schema.json_schema)
        options.append({"type": "object", "properties": {"tool": {"const": name}, "arguments": params},
                        "required": ["tool", "arguments"], "additionalProperties": False})
    if not finish:
        return {"type": "object", "oneOf": options}
    options.append({"type": "object", "properties": {
        "tool": {"const": FINISH},
        "arguments": {"type": "object", "properties": {"summary": {"type": "string", "maxLength": 600}},
                      "required": ["summary"], "additionalProperties": False}},
        "required": ["tool", "arguments"], "additionalProperties": False})
    return {"type": "object", "oneOf": options}


def _render(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def run_structured(model: Any, toolset: Any, instructions: str, prompt: str, deps: Any, *, step_mode: str,
                   settings: "ModelSettings | None", limits: Any, retries: int, usage: Any = None,
                   before_finish: Any = None, act_first: bool = False,
                   first: frozenset[str] = frozenset(), finished: Any = None) -> StepResult:
    """Run the agent as JSON steps; returns the finish summary and the usage of every step.

    ``act_first``: the first step's schema has no ``finish`` (where the server constrains to the
    schema, the model must take one tool action before it may end the run). ``first``: when not
    empty, the only tools the first step's schema offers (Phase 2's fields mode: a write).
    ``finished``: asked after every tool call that went through; a summary (not None) ends the run
    there with it (Phase 2's fields mode: every staging item is recorded). A write repeated with the same arguments as one
    that went through ends the run too: at temperature 0 the model would repeat it until the request
    limit, and the limit would throw away what it wrote."""
    from pydantic import ValidationError
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.exceptions import OutputTokenLimitExceeded
    from pydantic_ai.output import StructuredDict
    from pydantic_ai.usage import RunUsage

    from .llm import output_spec

    tools = dict(toolset.tools)
    def _known_call(output: dict[str, Any]) -> dict[str, Any]:
        name = output.get("tool") if isinstance(output, dict) else None
        arguments = output.get("arguments") if isinstance(output, dict) else None
        if not isinstance(arguments, dict):
            arguments = {}
        if name == FINISH:
            return {"tool": FINISH, "arguments": {"summary": str(arguments.get("summary") or "")}}
        tool = tools.get(str(name))
        if tool is None:
            raise ModelRetry(f"unknown tool {name!r}: answer one JSON object with \"tool\" one of "
                             f"{', '.join([*tools, FINISH])} and its \"arguments\"")
        try:
            validated = tool.function_schema.validator.validate_python(arguments)
        except ValidationError as exc:
            raise ModelRetry(f"the arguments of {name} are not valid: {exc.errors(include_url=False)}") from None
        return {"tool": name, "arguments": validated}

    agents: dict[tuple[bool, frozenset[str]], Any] = {}

    def _agent(finish: bool, without: frozenset[str]) -> Any:
        """The step agent whose schema offers finish or not, and leaves out ``without``."""
        if (finish, without) not in agents:
            step_type = StructuredDict(step_schema(tools, finish=finish, without=without), name="tool_call",
                                       description="the next tool call" + (", or finish" if finish else ""))
            agent: Any = Agent(model, output_type=output_spec(step_type, step_mode),
                               instructions=instructions + PROTOCOL.format(tools=_describe(tools)),
                               retries={"output": retries}, model_settings=settings)
            agent.output_validator(_known_call)
            agents[finish, without] = agent
        return agents[finish, without]

    usage = usage if usage is not None else RunUsage()  # the caller's: counted even when the run aborts
    history: list[Any] | None = None
    message = prompt
    steps = 0
    cut_off = 0  # answers cut off at the output cap, retried like malformed ones
    seen: set[str] = set()  # the read-only calls answered so far
    done: set[str] = set()  # the other calls that went through
    without: frozenset[str] = frozenset()
    while True:
        runner = _agent(not (act_first and steps == 0), without | (frozenset(tools) - first if first and steps == 0
                                                                   else frozenset()))
        try:
            result = runner.run_sync(message, message_history=history, usage=usage, usage_limits=limits)
        except OutputTokenLimitExceeded:  # pydantic-ai does not retry a cut-off answer: this step does
            cut_off += 1
            if cut_off > retries:
                raise
            message = CUT_OFF + message
            continue
        history = result.all_messages()
        steps += 1
        call = result.output
        name, arguments = call["tool"], call["arguments"]
        without = frozenset()
        key = json.dumps([name, arguments], sort_keys=True, default=str)
        if name in READ_ONLY and key in seen:
            # A small model at temperature 0 repeats itself: the same answer again would loop until
            # the request limit. It is told, and the next step's schema leaves that tool out.
            message = (f"{name} with these arguments was already answered above; use that answer and take the "
                       "next step (another tool, or a write)")
            without = frozenset({name})
            continue
        if name in READ_ONLY:
            seen.add(key)
        elif key in done:
            return StepResult(output=REPEATED.format(name=name), usage=usage, steps=steps)
        if name == FINISH:
            objection = before_finish() if before_finish is not None else None
            if objection:
                message = objection
                continue
            return StepResult(output=arguments["summary"], usage=usage, steps=steps)
        context = SimpleNamespace(deps=deps, usage=usage)
        try:
            answer = tools[name].function(context, **arguments)
        except ModelRetry as exc:  # the tool refused (lint, confinement): the model fixes its call
            message = f"{name} refused:\n{exc.message}\nFix the call and answer with the next JSON object."
        else:
            if name not in READ_ONLY:
                done.add(key)
            summary = finished() if finished is not None else None
            if summary:
                return StepResult(output=summary, usage=usage, steps=steps)
            message = f"{name} returned:\n{_render(answer)}"
