"""What a configured model can do: grammar-constrained JSON schema output and native tool calls.

The llm engines choose how to talk to a model from two capabilities:

* ``json_schema`` — the server honours ``response_format: json_schema`` (OpenAI, llama.cpp's server,
  Ollama, vLLM). Phase 1 then asks for its schema natively (the server constrains the output), and
  a structured tool step is constrained the same way; otherwise the schema goes into the prompt.
* ``tools`` — the model answers a ``tools`` request with ``tool_calls``. Many small local models do
  not (they write a ```json block in the text); Phase 2 and GC then express each tool call as
  structured output (``runs.structured_steps``).

Hosted providers are known (OpenAI: both; Anthropic: tools, and JSON schema for the models
pydantic-ai's profile says support it). Any other server — a ``base_url``, or ``ollama:`` — is
probed once with two tiny bounded requests (``max_tokens`` 64 and 48, temperature 0) over its
OpenAI-compatible ``/chat/completions``, and the answer is cached in
``.yoi/state/cache/llm-capabilities.json`` per (model string, base URL). ``llm.output_mode`` and
``llm.tool_mode`` override the probe; a probe that cannot reach the server is an environment error.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..errors import YoiError
from ..store.config import LlmConfig
from ..store.json_cache import load_cache, save_cache
from ..store.workspace import Workspace

CACHE_NAME = "llm-capabilities.json"
_VERSION = 1

_SCHEMA = {"type": "object", "properties": {"greeting": {"type": "string", "maxLength": 12},
                                             "number": {"type": "integer"}},
           "required": ["greeting", "number"], "additionalProperties": False}
_TOOL = {"type": "function", "function": {
    "name": "report_number", "description": "Report a number.",
    "parameters": {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]}}}


@dataclass(frozen=True)
class Capabilities:
    json_schema: bool
    tools: bool
    probed: bool = False  # measured on the server (False: known from the provider)


def _known(model_string: str, config: LlmConfig) -> Capabilities | None:
    prefix, _, name = model_string.partition(":")
    if prefix == "anthropic":
        from pydantic_ai.profiles.anthropic import anthropic_model_profile

        profile = anthropic_model_profile(name) or {}
        return Capabilities(json_schema=bool(profile.get("supports_json_schema_output")), tools=True)
    if prefix in ("openai", "openai-chat") and config.base_url is None:
        return Capabilities(json_schema=True, tools=True)
    return None


def _base_url(model_string: str, config: LlmConfig) -> str:
    if model_string.startswith("ollama:"):
        return config.base_url or os.environ.get("OLLAMA_BASE_URL") or "http://localhost:11434/v1"
    return str(config.base_url)


def _post(url: str, body: dict[str, Any], config: LlmConfig, key_env: str | None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(key_env) if key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=config.request_timeout) as response:  # noqa: S310 - configured URL
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return {"error": exc.code}  # a server that rejects the request shape lacks the capability
    except (OSError, ValueError) as exc:
        raise YoiError(f"cannot reach the model server at {url} to learn what it supports: {exc} "
                       "(set llm.output_mode and llm.tool_mode to skip the probe)") from exc
    return data if isinstance(data, dict) else {}


def _message(reply: dict[str, Any]) -> dict[str, Any]:
    choices = reply.get("choices") or [{}]
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    return message if isinstance(message, dict) else {}


def probe(model_string: str, config: LlmConfig) -> Capabilities:
    """Ask the server: does it constrain to a JSON schema, does the model make native tool calls?"""
    url, name = _base_url(model_string, config), model_string.partition(":")[2]
    # The key the engine itself would send (runs.llm.build_model): none to Ollama unless named.
    key_env = config.api_key_env or (None if model_string.startswith("ollama:") else "OPENAI_API_KEY")
    reply = _post(url, {"model": name, "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 64,
                        "temperature": 0, "response_format": {"type": "json_schema", "json_schema": {
                            "name": "probe", "schema": _SCHEMA}}}, config, key_env)
    try:
        answer = json.loads(_message(reply).get("content") or "")
        json_schema = isinstance(answer, dict) and set(answer) == {"greeting", "number"} and \
            isinstance(answer["number"], int)
    except ValueError:
        json_schema = False
    reply = _post(url, {"model": name, "max_tokens": 48, "temperature": 0, "tools": [_TOOL], "tool_choice": "auto",
                        "messages": [{"role": "user", "content": "Call the report_number tool with value 7."}]},
                  config, key_env)
    calls = _message(reply).get("tool_calls") or []
    tools = any(isinstance(c, dict) and (c.get("function") or {}).get("name") == "report_number" for c in calls)
    return Capabilities(json_schema=json_schema, tools=tools, probed=True)


def capabilities(ws: Workspace | None, model_string: str, config: LlmConfig) -> Capabilities:
    """The model's capabilities: known, cached, or probed now (and cached)."""
    known = _known(model_string, config)
    if known is not None:
        return known
    key = f"{model_string} {_base_url(model_string, config)}"
    path = ws.state_dir / "cache" / CACHE_NAME if ws is not None else None
    cached = load_cache(path, _VERSION, "models") or {}
    entry = cached.get(key)
    if isinstance(entry, dict) and isinstance(entry.get("json_schema"), bool) and isinstance(entry.get("tools"), bool):
        return Capabilities(json_schema=entry["json_schema"], tools=entry["tools"], probed=True)
    found = probe(model_string, config)
    if path is not None and ws is not None and ws.state_dir.parent.is_dir():
        save_cache(path, _VERSION, "models", {**cached, key: {"json_schema": found.json_schema, "tools": found.tools}})
    return found


def output_mode(ws: Workspace | None, model_string: str, config: LlmConfig) -> str:
    """Phase 1's structured-output mode: the configured one, or native where the server offers a schema."""
    if config.output_mode != "auto":
        return config.output_mode
    return "native" if capabilities(ws, model_string, config).json_schema else "prompted"


def tool_mode(ws: Workspace | None, model_string: str, config: LlmConfig) -> tuple[str, str]:
    """Phase 2's and GC's ``(tool mode, output mode of a structured step)``."""
    mode = config.tool_mode
    if mode == "auto":
        mode = "native" if capabilities(ws, model_string, config).tools else "structured"
    if mode == "native":
        return mode, "tool"
    if config.output_mode in ("native", "prompted"):
        return mode, config.output_mode
    return mode, "native" if capabilities(ws, model_string, config).json_schema else "prompted"
