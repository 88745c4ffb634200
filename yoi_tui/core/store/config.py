"""``.yoi/config.toml``: every threshold the product uses, with defaults and strict validation.

The file is optional. A bad value names the key, the value and what is allowed; an unknown key is
an error with a "did you mean" suggestion (SPEC 13).

The settings are plain read-only classes (``Section``), so loading them imports no pydantic
(start-up time is measured, and ``yoi search``/``lint``/``hook`` load the config on every call).
Each ``Setting`` holds its default and constraints; ``config_schema.py`` builds the pydantic models from them and
validates a file only when it sets anything. A valid file's values are cached by the hash of its
bytes (and of this module) in ``.yoi/state/config-valid.json``, so the next run skips validation.
"""

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from ..errors import ConfigError
from .safe_read import NotRegularFile, load_cache_json, read_regular_bytes

Engine = Literal["rules", "llm"]
CACHE_NAME = "config-valid.json"


class Setting:
    """One key: its default (or a factory for it) and the constraints (gt, ge, le) it must meet."""

    __slots__ = ("default", "factory", "meta")

    def __init__(self, default: Any = None, factory: Callable[[], Any] | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        self.default, self.factory, self.meta = default, factory, meta or {}

    def fresh(self) -> Any:
        return self.factory() if self.factory is not None else self.default


def _f(default: Any, *, description: str | None = None, **constraints: float) -> Any:
    """A setting with its default and the constraints ``config_schema`` enforces."""
    meta: dict[str, Any] = dict(constraints)
    if description:
        meta["description"] = description
    if isinstance(default, list):
        return Setting(factory=lambda: list(default), meta=meta)
    return Setting(default, meta=meta)


def _section(cls: Callable[[], Any]) -> Any:
    """A nested section's setting (typed as the section, like ``_f``'s values)."""
    return Setting(factory=cls)


class Section:
    """A group of settings: the ``Setting`` class attributes, typed by the annotations.

    Plain classes rather than dataclasses or pydantic models: a dataclass ``exec``s its methods at
    import (8 ms for these nine), and this module is imported by every command.
    """

    settings: ClassVar[dict[str, Setting]] = {}
    types: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls) -> None:
        cls.settings = {name: value for name, value in vars(cls).items() if isinstance(value, Setting)}
        cls.types = {name: cls.__annotations__[name] for name in cls.settings}

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(self.settings)
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown setting(s) {', '.join(sorted(unknown))}")
        for name, setting in self.settings.items():
            object.__setattr__(self, name, values[name] if name in values else setting.fresh())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable defaults); typeshed: a method

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self.settings)})"

    def as_dict(self) -> dict[str, Any]:
        """Every setting as plain JSON-able data."""
        out: dict[str, Any] = {}
        for name in self.settings:
            value = getattr(self, name)
            out[name] = value.as_dict() if isinstance(value, Section) else \
                list(value) if isinstance(value, list) else value
        return out


class RecordsConfig(Section):
    knowledge_kinds: list[str] = _f(["term", "policy", "rule", "fact", "howto"])
    cap_summary: int = _f(20_000, gt=0, description="body character cap of memory/summary.md")
    cap_decision: int = _f(4_000, gt=0)
    cap_request: int = _f(3_000, gt=0)
    cap_knowledge: int = _f(8_000, gt=0)
    description_max: int = _f(1024, gt=0, description="max description length when model_invokation")
    sources_max: int = _f(20, gt=0, description="sources-overflow warns above this many sources")
    similar_slug_ratio: float = _f(90.0, ge=0, le=100, description="rapidfuzz ratio for similar-slugs")
    compressible_fraction: float = _f(0.6, gt=0, le=1,
                                      description="compressible warns above this share of the cap")


class LintConfig(Section):
    disable: list[str] = _f([], description="rule names never reported")


class SearchConfig(Section):
    context_lines: int = _f(2, ge=0, le=50)
    limit: int = _f(10, gt=0, le=1000)


class ContextConfig(Section):
    max_tokens: int = _f(4_000, ge=100, le=1_000_000,
                         description="the resident context block's size cap in estimated tokens (yoi context, "
                                     "SessionStart): summary, model_invokation descriptions, listings")


class UsageConfig(Section):
    window: int = _f(10, gt=0, description="frequency window: the Nth most recent invoke")
    denominator_floor: int = _f(100_000, ge=1, description="minimum tokens in the frequency denominator")
    protect_threshold: float = _f(1.0, ge=0, description="invokes per Mtoken that protect a record from GC")
    candidate_threshold: float = _f(0.0, ge=0, description="optional frequency floor (invokes per Mtoken) a "
                                    "candidate must reach besides the counts; 0 = off, as a team should keep it "
                                    "(a windowed floor makes promotion depend on what a clone had pulled)")
    candidate_min_sessions: int = _f(2, ge=1, description="sessions a record is invoked from before it is a candidate")
    candidate_min_invokes: int = _f(2, ge=1, description="invokes (consecutive ones in one session count as one) "
                                                         "before a record is a candidate")


class Phase1Config(Section):
    engine: Engine = _f("rules")
    token_threshold: int = _f(20_000, ge=0, description="input tokens since the pointer that trigger Phase 1")
    chunk_tokens: int = _f(24_000, gt=500, description="approximate tokens per extraction chunk")


class Phase2Config(Section):
    engine: Engine = _f("rules")
    staging_files: int = _f(5, ge=1, description="staging file count that triggers Phase 2")
    staging_bytes: int = _f(200_000, ge=1, description="staging bytes that trigger Phase 2")
    max_failed_writes: int = _f(3, ge=1, description="failed writes after which an llm run aborts")
    lock_lease_seconds: int = _f(600, ge=10, description="a lock whose heartbeat is older is stale")


class GcConfig(Section):
    engine: Engine = _f("rules")
    unused_min_age_tokens: int = _f(
        20_000_000, ge=0, description="a never-invoked record is 'unused' only once this many input tokens "
                                      "(usage clock) have passed since its created_at")
    request_stale_tokens: int = _f(
        100_000_000, ge=0, description="an unused request whose updated_at is this many input tokens old is "
                                       "'old' and GC drops it")
    replaced_grace_tokens: int = _f(
        5_000_000, ge=0, description="a record GC merged away stays as a replaced stub until this many input "
                                    "tokens have passed, so a clone that has not pulled the merge yet can still "
                                    "update it through git (docs/team.md)")


class LlmConfig(Section):
    extract_model: str = _f("anthropic:claude-haiku-4-5", description="model string for Phase 1")
    consolidation_model: str = _f("anthropic:claude-sonnet-4-5", description="model string for Phase 2 and GC")
    base_url: str | None = _f(None, description="OpenAI-compatible server URL (Ollama, vLLM, ...)")
    api_key_env: str | None = _f(None, description="name of the environment variable holding the API key")
    output_mode: Literal["auto", "native", "prompted", "tool"] = _f(
        "auto", description="how Phase 1 asks for its schema: auto (native JSON schema where the server "
                            "offers it, else prompted), native, prompted or tool")
    tool_mode: Literal["auto", "native", "structured"] = _f(
        "auto", description="how Phase 2 and GC call their tools: auto (probed once), native tool calls, or "
                            "structured (one JSON object naming the tool per step) for models without them")
    write_mode: Literal["auto", "text", "fields"] = _f(
        "auto", description="how Phase 2's llm engine writes a record: text (the model writes the whole file), "
                            "fields (the model fills the record's fields, yoi writes the file); auto: fields "
                            "when the tools are structured steps, text with native tool calls")
    temperature: float = _f(0.0, ge=0, le=2, description="sampling temperature of every request")
    max_output_tokens: int = _f(2048, ge=64, description="output cap of an agent step (Phase 1's is sized "
                                                         "to its schema, at most this)")
    request_timeout: float = _f(120.0, gt=0, description="seconds one model request may take")
    token_budget: int = _f(300_000, ge=1, description="input plus output tokens one run may spend")
    max_requests: int = _f(40, ge=1, description="model requests one Phase 2 or GC run may make")
    output_retries: int = _f(2, ge=0, description="retries of a malformed or truncated answer")


class Config(Section):
    records: RecordsConfig = _section(RecordsConfig)
    lint: LintConfig = _section(LintConfig)
    search: SearchConfig = _section(SearchConfig)
    context: ContextConfig = _section(ContextConfig)
    usage: UsageConfig = _section(UsageConfig)
    phase1: Phase1Config = _section(Phase1Config)
    phase2: Phase2Config = _section(Phase2Config)
    gc: GcConfig = _section(GcConfig)
    llm: LlmConfig = _section(LlmConfig)

    def cap_for(self, kind: str) -> int:
        """Body character cap of a record kind (summary, decision, request, knowledge)."""
        return int(getattr(self.records, f"cap_{kind}"))

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "Config":
        """A config from already-validated values (``config_schema.validate`` or the cache)."""
        return cls(**{name: cls.types[name](**values.get(name, {})) for name in cls.settings})


def _schema_key(raw: bytes) -> str:
    """Names a file's content and this module's source: a changed rule invalidates the cache."""
    import hashlib  # only for a config that sets values (its validation is cached by hash)

    digest = hashlib.sha256(raw)
    try:
        digest.update(Path(__file__).read_bytes())
    except OSError:
        digest.update(b"?")
    return digest.hexdigest()


def _cached(cache_dir: Path | None, key: str) -> Config | None:
    if cache_dir is None:
        return None
    try:
        data = load_cache_json(cache_dir / CACHE_NAME)
        if isinstance(data, dict) and data.get("key") == key and isinstance(data.get("values"), dict):
            return Config.from_dict(data["values"])
    except (OSError, ValueError, TypeError):
        pass  # no, corrupt or foreign cache: validate again
    return None


def _remember(cache_dir: Path | None, key: str, config: Config) -> None:
    """Best effort: a cache that cannot be written only costs one validation next time."""
    if cache_dir is None or not cache_dir.parent.is_dir():
        return
    target = cache_dir / CACHE_NAME
    temp = target.with_name(f".{CACHE_NAME}.{os.getpid()}.tmp")
    try:
        cache_dir.mkdir(exist_ok=True)
        temp.write_text(json.dumps({"key": key, "values": config.as_dict()}), encoding="utf-8")
        os.replace(temp, target)
    except OSError:
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            pass


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # a control character TOML rejects


def _sets_nothing(text: str) -> bool:
    """True when every line is blank or a comment (then the file is valid TOML meaning {}).

    A control character (other than tab and CRLF) is left to tomllib, which rejects it.
    """
    if _CONTROL_RE.search(text) or \
            text.count("\r") != text.count("\r\n"):
        return False
    # TOML whitespace is space and tab only; anything else on a line is left to tomllib.
    return all(not line.strip(" \t\r") or line.lstrip(" \t").startswith("#") for line in text.split("\n"))


def load_config(path: Path, cache_dir: Path | None = None) -> Config:
    """Load and validate a config file; a missing file (or one that sets nothing) gives the defaults.

    ``cache_dir`` (the workspace's ``.yoi/state``) keeps the values of a file once validated.
    """
    try:
        raw_bytes = read_regular_bytes(path)
    except FileNotFoundError:
        return Config()
    except NotRegularFile as exc:
        raise ConfigError(exc.message, path=path) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path=path) from exc
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError("config is not UTF-8 text", path=path) from exc
    if _sets_nothing(text):
        return Config()  # the file `yoi init` writes: no TOML parser needed (7 ms of regexes)
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", path=path) from exc
    if all(name in Config.settings and section == {} for name, section in data.items()):
        return Config()  # only the empty [section] headers `yoi init` writes
    key = _schema_key(raw_bytes)
    cached = _cached(cache_dir, key)
    if cached is not None:
        return cached
    from .config_schema import validate  # pydantic: only for a file not validated before

    config = Config.from_dict(validate(data, path))
    _remember(cache_dir, key, config)
    return config


DEFAULT_CONFIG_TEXT = """\
# yoi settings. Every key is optional; the values shown are the defaults (each is explained in
# docs/configuration.md). The llm engines need `pip install 'yoi-tui[llm]'`.
# Run `yoi lint` after editing: a bad key or value is reported with the allowed values.

[records]
# knowledge_kinds = ["term", "policy", "rule", "fact", "howto"]
# cap_summary = 20000
# cap_decision = 4000
# cap_request = 3000
# cap_knowledge = 8000
# description_max = 1024
# sources_max = 20
# similar_slug_ratio = 90.0
# compressible_fraction = 0.6

[lint]
# disable = []

[search]
# context_lines = 2
# limit = 10

[context]
# max_tokens = 4000

[usage]
# window = 10
# denominator_floor = 100000
# protect_threshold = 1.0
# candidate_threshold = 0.0   # off; a frequency floor on top of the counts (solo use, docs/team.md)
# candidate_min_sessions = 2
# candidate_min_invokes = 2

[phase1]
# engine = "rules"
# token_threshold = 20000
# chunk_tokens = 24000

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
# api_key_env = "ANTHROPIC_API_KEY"   # the variable's name, never the key itself
# output_mode = "auto"   # native JSON schema where the server offers one, else prompted
# tool_mode = "auto"     # native tool calls, or "structured" (one JSON object a step) for models without
# write_mode = "auto"    # "fields": the model fills a record's fields and yoi writes it; "text": the whole file
# temperature = 0.0
# max_output_tokens = 2048
# request_timeout = 120.0
# token_budget = 300000   # input + output tokens one run may spend
# max_requests = 40
# output_retries = 2
"""
