"""Building a pydantic-ai model from config: provider prefix, base URL and API-key variable.

Model strings: ``anthropic:NAME``, ``openai-chat:NAME`` (Chat Completions: what local OpenAI-
compatible servers such as vLLM, llama.cpp or LM Studio serve), ``openai:NAME`` (OpenAI's Responses
API), ``ollama:NAME``. Provider modules cost about 1.5 s to import, so they are imported here, at
call time, and never at start-up.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, YoiError
from ..store.config import LlmConfig

if TYPE_CHECKING:  # pragma: no cover
    from pydantic_ai.models import Model
    from pydantic_ai.settings import ModelSettings

PREFIXES = ("anthropic", "openai-chat", "openai", "ollama")
LLM_EXTRA_HINT = ("pip install 'yoi-tui[llm]' (from a clone: pip install '.[llm]', pipx install --force '.[llm]' "
                  "or uv tool install --force '.[llm]')")


def require_llm_libraries() -> None:
    """Raise ``YoiError`` (exit 2) saying what to install when the llm engines' libraries are missing:
    the default install is offline and leaves the model providers out (the ``llm`` extra)."""
    from importlib.util import find_spec

    missing = [name for name in ("pydantic_ai", "openai", "anthropic") if find_spec(name) is None]
    if missing:
        raise YoiError(f"the llm engine needs the model libraries, which the default install leaves out "
                       f"({', '.join(missing)} not installed): {LLM_EXTRA_HINT}; or use the offline 'rules' engine")


def _api_key(config: LlmConfig, default_env: str | None) -> str | None:
    env_name = config.api_key_env or default_env
    if env_name is None:
        return None
    return os.environ.get(env_name)


def build_model(model_string: str, config: LlmConfig) -> Model:
    """A pydantic-ai model for ``model_string`` using ``config.base_url`` and ``config.api_key_env``."""
    require_llm_libraries()
    prefix, _, name = model_string.partition(":")
    if not name or prefix not in PREFIXES:
        raise ConfigError(f"model '{model_string}' must look like PROVIDER:NAME with PROVIDER one of "
                          f"{', '.join(PREFIXES)} (e.g. anthropic:claude-sonnet-4-5, ollama:qwen3:8b, "
                          "openai-chat:my-local-model)")
    if prefix == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        key = _api_key(config, "ANTHROPIC_API_KEY")
        _require_key(key, config, "ANTHROPIC_API_KEY")
        return AnthropicModel(name, provider=AnthropicProvider(api_key=key, base_url=config.base_url))
    if prefix == "ollama":
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.ollama import OllamaProvider

        base = config.base_url or os.environ.get("OLLAMA_BASE_URL") or "http://localhost:11434/v1"
        return OpenAIChatModel(name, provider=OllamaProvider(base_url=base, api_key=_api_key(config, None)))
    from pydantic_ai.providers.openai import OpenAIProvider

    key = _api_key(config, "OPENAI_API_KEY")
    if config.base_url is None:
        _require_key(key, config, "OPENAI_API_KEY")
    provider = OpenAIProvider(base_url=config.base_url, api_key=key or "not-needed")
    if prefix == "openai-chat":
        from pydantic_ai.models.openai import OpenAIChatModel

        return OpenAIChatModel(name, provider=provider)
    from pydantic_ai.models.openai import OpenAIResponsesModel

    return OpenAIResponsesModel(name, provider=provider)


def _require_key(key: str | None, config: LlmConfig, default_env: str) -> None:
    if not key:
        env_name = config.api_key_env or default_env
        raise ConfigError(f"the llm engine needs an API key in the environment variable {env_name} "
                          "(set llm.api_key_env in .yoi/config.toml to use another variable, or use the "
                          "offline 'rules' engine)")


def model_settings(config: LlmConfig, *, max_tokens: int | None = None) -> ModelSettings:
    """Every request deterministic and bounded: ``llm.temperature`` (0: the same log gives the same
    answer), an output cap (``max_tokens`` when the caller sized one to its schema, never above
    ``llm.max_output_tokens``; it also keeps Anthropic non-streamed), ``llm.request_timeout`` over
    all the SDK's attempts, and one SDK retry (ours are bounded by ``llm.output_retries``)."""
    cap = config.max_output_tokens if max_tokens is None else min(max_tokens, config.max_output_tokens)
    return {"max_tokens": cap, "temperature": config.temperature, "timeout": config.request_timeout,
            "request_timeout": config.request_timeout, "max_retries": 1}


def usage_limits(config: LlmConfig, *, spent: int = 0, requests: int | None = None) -> Any:
    """pydantic-ai ``UsageLimits`` for what is left of ``llm.token_budget`` (``spent`` already used)."""
    from pydantic_ai.usage import UsageLimits

    return UsageLimits(request_limit=requests or config.max_requests,
                       total_tokens_limit=max(1, config.token_budget - spent))


def output_spec(output_type: Any, mode: str) -> Any:
    """Wrap ``output_type`` for a structured-output mode (tool, native, prompted)."""
    from pydantic_ai.output import NativeOutput, PromptedOutput, ToolOutput

    if mode == "native":
        return NativeOutput(output_type)
    if mode == "prompted":
        return PromptedOutput(output_type)
    return ToolOutput(output_type)
