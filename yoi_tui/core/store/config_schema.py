"""Validating ``.yoi/config.toml`` with pydantic, from the dataclasses of ``config.py``.

Imported only when a config file sets something and its values are not cached yet: pydantic costs
tens of milliseconds to import and to build the models. The models are generated from the
dataclass fields (type, default, ``gt``/``ge``/``le`` metadata), so the settings are declared once.
"""

from __future__ import annotations

import difflib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ..errors import ConfigError
from .config import Config, Section

_CONFIG = ConfigDict(extra="forbid", validate_default=True)


def _model_for(cls: type[Section]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, setting in cls.settings.items():
        annotation = cls.types[name]
        if isinstance(annotation, type) and issubclass(annotation, Section):
            nested = _model_for(annotation)
            fields[name] = (nested, Field(default_factory=nested))
        elif setting.factory is not None:
            fields[name] = (annotation, Field(default_factory=setting.factory, **setting.meta))
        else:
            fields[name] = (annotation, Field(setting.default, **setting.meta))
    return create_model(cls.__name__, __config__=_CONFIG, **fields)


@cache
def config_model() -> type[BaseModel]:
    """The pydantic model of ``Config`` (built once per process)."""
    return _model_for(Config)


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
        known = _known_keys(config_model(), loc)
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean '{'.'.join([*map(str, loc[:-1]), close[0]])}'?" if close else ""
        allowed = f" (known keys here: {', '.join(known)})" if known and not close else ""
        return f"{path}: unknown key '{key}'{hint}{allowed}"
    value = error.get("input")
    return f"{path}: bad value for '{key}': {value!r} — {error['msg']}"


def validate(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The validated values of a parsed config file (defaults filled in), or ``ConfigError``."""
    try:
        return config_model().model_validate(data).model_dump()
    except ValidationError as exc:
        messages = [_describe(dict(err), path) for err in exc.errors()]
        raise ConfigError("\n".join(messages)) from exc
