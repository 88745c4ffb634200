"""The pydantic-ai side the ``llm`` engines of Phase 2 and GC share.

Both engines run one agent (``llm.consolidation_model``) over a ``file_tools.FileTools`` (Phase 2's
and GC's tools subclass it) and differ only in their write tools, instructions and prompt. What is the same
lives here:

* ``call_tool`` — runs a tool method, turning a ``ToolRefusal`` into ``ModelRetry`` so the model
  sees the message and can fix its call;
* ``add_file_tools`` (``list_files``, ``read_file``) and ``add_search_tools`` (``knowledge_search``,
  ``memory_search``) — the confined read-only tools. Two functions, not one, so each engine keeps
  its tools in the order its model has always been shown them;
* ``engine_model`` — the injected model, or the configured one with its settings and tool mode
  (native tool calls, or tool calls as structured output for models without them);
* ``new_toolset`` — the ``FunctionToolset`` an engine registers its tools on;
* ``run_agent`` — one run (native, or ``structured_steps``) with the engines' shared limits and
  error handling: too many failed writes, a spent budget or an agent error abort the run (nothing
  is kept), a failed model call or an unusable model is a ``YoiError``; the tokens used are
  recorded in every case (``record_llm_usage``).

pydantic-ai is imported inside the functions, so importing this module stays cheap.
"""

# No ``from __future__ import annotations``: pydantic-ai reads the tool functions' type hints with
# ``get_type_hints``, and ``RunContext`` is imported inside the ``add_*`` functions (lazily).
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import YoiError
from ..store.workspace import Workspace

if TYPE_CHECKING:
    from pydantic_ai.settings import ModelSettings


def call_tool(ctx: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` for a tool of ``ctx.deps``; a ``ToolRefusal`` goes back to the model as ``ModelRetry``."""
    from pydantic_ai import ModelRetry

    from .file_tools import ToolRefusal

    try:
        return fn(*args)
    except ToolRefusal as exc:
        raise ModelRetry(str(exc)) from None


def add_file_tools(agent: Any) -> None:
    """Register ``list_files`` and ``read_file`` (``FileTools``' confined reading) on ``agent``."""
    from pydantic_ai import RunContext

    @agent.tool
    def list_files(ctx: RunContext[Any], folder: str = "") -> list[str]:
        """List files under a folder (memory/..., knowledge/...; default: all the allowed folders)."""
        return call_tool(ctx, ctx.deps.list_files, folder)

    @agent.tool
    def read_file(ctx: RunContext[Any], path: str) -> str:
        """Read a file, e.g. memory/decisions/use-sqlite.md or knowledge/atomic-writes.md."""
        return call_tool(ctx, ctx.deps.read_file, path)


def add_search_tools(agent: Any) -> None:
    """Register ``knowledge_search`` and ``memory_search`` (on the scratch copy) on ``agent``."""
    from pydantic_ai import RunContext

    @agent.tool
    def knowledge_search(ctx: RunContext[Any], query: str = "", slug: str | None = None,
                         kind: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Search knowledge/*.md: every whitespace-separated term must occur; or look up one slug."""
        return call_tool(ctx, ctx.deps.knowledge_search, query, slug, kind, limit)

    @agent.tool
    def memory_search(ctx: RunContext[Any], query: str = "", slug: str | None = None,
                      kind: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Search the summary, decisions and requests (kind: summary|decision|request)."""
        return call_tool(ctx, ctx.deps.memory_search, query, slug, kind, limit)


@dataclass
class EngineModel:
    """The model an agent run uses and how: native tool calls, or tool calls as structured output
    (``step_mode``: native JSON schema or prompted), with its request settings."""

    model: Any
    settings: "ModelSettings | None"
    tool_mode: str = "native"  # native | structured
    step_mode: str = "prompted"  # native | prompted: how a structured step asks for its schema
    write_mode: str = "text"  # text | fields: Phase 2 writes whole records, or the model fills their fields


def engine_model(ws: Workspace, model: Any = None) -> EngineModel:
    """``model`` (a test's scripted model: no settings, the configured tool mode, native by default),
    else ``llm.consolidation_model`` with its settings and the mode ``llm.tool_mode`` (or the probe) gives."""
    config = ws.config.llm
    mode: str
    step: str
    if model is not None:
        mode = config.tool_mode if config.tool_mode != "auto" else "native"
        step = config.output_mode if config.output_mode in ("native", "prompted") else "prompted"
        return EngineModel(model, None, mode, step, write_mode(config.write_mode, mode))
    from .llm import build_model, model_settings
    from .llm_probe import tool_mode

    name = config.consolidation_model
    built = build_model(name, config)
    mode, step = tool_mode(ws, name, config)
    return EngineModel(built, model_settings(config), mode, step, write_mode(config.write_mode, mode))


def write_mode(configured: str, tool_mode: str) -> str:
    """``llm.write_mode``, with ``auto`` resolved: a model without native tool calls (the probe's
    verdict, cached; or ``llm.tool_mode = "structured"``) fills a record's fields, one with them
    writes the record's text."""
    if configured != "auto":
        return configured
    return "fields" if tool_mode == "structured" else "text"


def new_toolset(*, max_failed_writes: int) -> Any:
    """An empty pydantic-ai ``FunctionToolset`` for an engine's tools: given to a native agent, or
    driven step by step (``structured_steps``). Its retry budget exceeds ``max_failed_writes``, so
    the total failed-write count (``FileTools``) is what aborts a run."""
    from pydantic_ai.toolsets import FunctionToolset

    return FunctionToolset(max_retries=max_failed_writes + 2)


def record_llm_usage(ws: Workspace, usage: Any, notes: list[str]) -> dict[str, int]:
    """A run's ``{"input_tokens", "output_tokens"}``; the input tokens also become a ``tokens`` usage
    event. ``usage`` may be None (no model call was made). A failure to record is added to ``notes``."""
    tokens = int(getattr(usage, "input_tokens", 0) or 0) if usage is not None else 0
    counted = {"input_tokens": tokens, "output_tokens": int(getattr(usage, "output_tokens", 0) or 0)
               if usage is not None else 0}
    if tokens <= 0:
        return counted
    try:
        from ..usage.log import record_tokens

        record_tokens(ws, tokens)
    except (ImportError, YoiError, OSError) as exc:
        notes.append(f"usage: tokens not recorded ({exc})")
    return counted


def run_agent(engine: EngineModel, toolset: Any, instructions: str, prompt: str, tools: Any, *, ws: Workspace,
              notes: list[str], lost: str, on_usage: Callable[[dict[str, int]], None],
              before_finish: Callable[[], str | None] | None = None, act_first: bool = False,
              first: frozenset[str] = frozenset(), finished: Callable[[], str | None] | None = None) -> Any:
    """One agent run over ``toolset`` with ``tools`` as its deps; returns the result (``.output``).

    Native tool calls, or ``structured_steps`` when the model has none (``engine.tool_mode``). The
    run is bounded by ``llm.max_requests`` and ``llm.token_budget``; a malformed answer is retried
    ``llm.output_retries`` times. Too many failed writes, an exhausted limit, or an agent error
    raise ``RunAborted`` (the caller throws the scratch copy away; ``lost`` ends the agent-error
    message, e.g. "nothing it wrote is kept"). A failed model call or a model pydantic-ai cannot use
    raise ``YoiError``. ``before_finish`` may refuse the model's final answer with a message (the
    model is told and goes on; it returns None to let the run end); ``act_first`` keeps ``finish``
    out of a structured run's first step, ``first`` (when not empty) the tools its first step may
    call, ``finished`` ends it once its work is done (see ``structured_steps``). Whatever happens, ``record_llm_usage`` runs and ``on_usage`` receives its
    counts before the exception propagates.
    """
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.exceptions import AgentRunError, ModelAPIError, UserError
    from pydantic_ai.usage import RunUsage

    from .file_tools import TooManyFailedWrites
    from .llm import usage_limits
    from .run_context import RunAborted
    from .structured_steps import run_structured

    config = ws.config.llm
    limits = usage_limits(config)
    counted = RunUsage()  # filled as the run goes, so an aborted run's tokens are recorded too
    usage: Any = counted
    try:
        if engine.tool_mode == "structured":
            result = run_structured(engine.model, toolset, instructions, prompt, tools, step_mode=engine.step_mode,
                                    settings=engine.settings, limits=limits, retries=config.output_retries,
                                    usage=counted, before_finish=before_finish, act_first=act_first,
                                    first=first, finished=finished)
        else:
            agent: Any = Agent(engine.model, output_type=str, instructions=instructions, toolsets=[toolset],
                               retries={"output": max(1, config.output_retries)}, model_settings=engine.settings)
            if before_finish is not None:
                @agent.output_validator
                def _finish(output: str) -> str:
                    message = before_finish()
                    if message:
                        raise ModelRetry(message)
                    return output

            result = agent.run_sync(prompt, deps=tools, usage_limits=limits, usage=counted)
        usage = result.usage
    except TooManyFailedWrites as exc:
        raise RunAborted(exc.message) from exc
    except ModelAPIError as exc:
        raise YoiError(f"the model call failed ({config.consolidation_model}): {exc}; "
                       "nothing was changed") from exc
    except AgentRunError as exc:
        raise RunAborted(f"the llm engine stopped: {exc}; {lost}") from exc
    except UserError as exc:
        raise YoiError(f"the llm engine cannot run: {exc}") from exc
    finally:
        on_usage(record_llm_usage(ws, usage, notes))
    return result


__all__ = ["EngineModel", "add_file_tools", "add_search_tools", "call_tool", "engine_model", "new_toolset",
           "record_llm_usage", "run_agent"]
