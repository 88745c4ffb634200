"""``.yoi/config.toml``: every threshold the product uses, with defaults and strict validation.

The file is optional. A bad value names the key, the value and what is allowed; an unknown key is
an error with a "did you mean" suggestion (SPEC 13).
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

Engine = Literal["rules", "llm"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class RecordsConfig(_Section):
    knowledge_kinds: list[str] = Field(default_factory=lambda: ["term", "policy", "rule", "fact", "howto"])
    cap_summary: int = Field(20_000, gt=0, description="body character cap of memory/summary.md")
    cap_decision: int = Field(4_000, gt=0)
    cap_request: int = Field(3_000, gt=0)
    cap_knowledge: int = Field(8_000, gt=0)
    description_max: int = Field(1024, gt=0, description="max description length when model_invokation")
    sources_max: int = Field(20, gt=0, description="sources-overflow warns above this many sources")
    similar_slug_ratio: float = Field(90.0, ge=0, le=100, description="rapidfuzz ratio for similar-slugs")
    compressible_fraction: float = Field(0.6, gt=0, le=1, description="compressible warns above this share of the cap")


class LintConfig(_Section):
    disable: list[str] = Field(default_factory=list, description="rule names never reported")


class SearchConfig(_Section):
    context_lines: int = Field(2, ge=0, le=50)
    limit: int = Field(10, gt=0, le=1000)


class UsageConfig(_Section):
    window: int = Field(10, gt=0, description="frequency window: the Nth most recent invoke")
    denominator_floor: int = Field(100_000, ge=1, description="minimum tokens in the frequency denominator")
    protect_threshold: float = Field(1.0, ge=0, description="invokes per Mtoken that protect a record from GC")
    candidate_threshold: float = Field(1.0, ge=0, description="invokes per Mtoken for the candidate report")
    candidate_min_sessions: int = Field(2, ge=1)


class Phase1Config(_Section):
    engine: Engine = "rules"
    token_threshold: int = Field(20_000, ge=0, description="input tokens since the pointer that trigger Phase 1")
    chunk_tokens: int = Field(24_000, gt=500, description="approximate tokens per extraction chunk")


class Phase2Config(_Section):
    engine: Engine = "rules"
    staging_files: int = Field(5, ge=1, description="staging file count that triggers Phase 2")
    staging_bytes: int = Field(200_000, ge=1, description="staging bytes that trigger Phase 2")
    max_failed_writes: int = Field(3, ge=1, description="failed writes after which an llm run aborts")
    lock_lease_seconds: int = Field(600, ge=10, description="a lock whose heartbeat is older is stale")


class GcConfig(_Section):
    engine: Engine = "rules"
    unused_min_age_tokens: int = Field(
        20_000_000, ge=0, description="a never-invoked record is 'unused' only once this many input tokens "
                                     "(usage clock) have passed since its created_at")
    request_stale_tokens: int = Field(
        100_000_000, ge=0, description="an unused request whose updated_at is this many input tokens old is "
                                      "'old' and GC drops it")
    replaced_grace_tokens: int = Field(
        5_000_000, ge=0, description="a record GC merged away stays as a replaced stub until this many input "
                                    "tokens have passed, so a clone that has not pulled the merge yet can still "
                                    "update it through git (docs/team.md)")


class LlmConfig(_Section):
    extract_model: str = Field("anthropic:claude-haiku-4-5", description="model string for Phase 1")
    consolidation_model: str = Field("anthropic:claude-sonnet-4-5", description="model string for Phase 2 and GC")
    base_url: str | None = Field(None, description="OpenAI-compatible server URL (Ollama, vLLM, ...)")
    api_key_env: str | None = Field(None, description="name of the environment variable holding the API key")
    output_mode: Literal["tool", "native", "prompted"] = "tool"


class Config(_Section):
    records: RecordsConfig = Field(default_factory=RecordsConfig)
    lint: LintConfig = Field(default_factory=LintConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    usage: UsageConfig = Field(default_factory=UsageConfig)
    phase1: Phase1Config = Field(default_factory=Phase1Config)
    phase2: Phase2Config = Field(default_factory=Phase2Config)
    gc: GcConfig = Field(default_factory=GcConfig)
    llm: LlmConfig = Field(default_factory=LlmConfig)

    def cap_for(self, kind: str) -> int:
        """Body character cap of a record kind (summary, decision, request, knowledge)."""
        return int(getattr(self.records, f"cap_{kind}"))


def _known_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    current: type[BaseModel] = model
    for part in loc[:-1]:
        field = current.model_fields.get(str(part))
        annotation = field.annotation if field else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            current = annotation
        else:
            return []
    return list(current.model_fields)


def _describe(error: dict[str, Any], path: Path) -> str:
    loc = tuple(error["loc"])
    key = ".".join(str(p) for p in loc)
    if error["type"] == "extra_forbidden":
        known = _known_keys(Config, loc)
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean '{'.'.join([*map(str, loc[:-1]), close[0]])}'?" if close else ""
        allowed = f" (known keys here: {', '.join(known)})" if known and not close else ""
        return f"{path}: unknown key '{key}'{hint}{allowed}"
    value = error.get("input")
    return f"{path}: bad value for '{key}': {value!r} — {error['msg']}"


def load_config(path: Path) -> Config:
    """Load and validate a config file; a missing file gives the defaults."""
    try:
        raw_bytes = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path=path) from exc
    try:
        data = tomllib.loads(raw_bytes.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConfigError("config is not UTF-8 text", path=path) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", path=path) from exc
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        messages = [_describe(dict(err), path) for err in exc.errors()]
        raise ConfigError("\n".join(messages)) from exc


DEFAULT_CONFIG_TEXT = """\
# yoi settings. Every key is optional; the values shown are the defaults.
# Run `yoi lint` after editing: a bad key or value is reported with the allowed values.

[records]
# knowledge_kinds = ["term", "policy", "rule", "fact", "howto"]
# cap_summary = 20000
# cap_decision = 4000
# cap_request = 3000
# cap_knowledge = 8000
# sources_max = 20
# similar_slug_ratio = 90

[lint]
# disable = []

[search]
# context_lines = 2
# limit = 10

[usage]
# window = 10
# denominator_floor = 100000
# protect_threshold = 1.0
# candidate_threshold = 1.0
# candidate_min_sessions = 2

[phase1]
# engine = "rules"
# token_threshold = 20000

[phase2]
# engine = "rules"
# staging_files = 5
# staging_bytes = 200000
# max_failed_writes = 3
# lock_lease_seconds = 600

[gc]
# engine = "rules"
# unused_min_age_tokens = 20000000
# request_stale_tokens = 100000000
# replaced_grace_tokens = 5000000

[llm]
# extract_model = "anthropic:claude-haiku-4-5"
# consolidation_model = "anthropic:claude-sonnet-4-5"
# base_url = "http://localhost:11434/v1"   # e.g. Ollama; use an "openai-chat:" or "ollama:" model
# api_key_env = "ANTHROPIC_API_KEY"
"""
