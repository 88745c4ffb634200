"""docs/configuration.md explains every key of the settings schema, with its default; the config
``yoi init`` writes names every key too."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from support import REPO

from yoi_tui.core.store.config import DEFAULT_CONFIG_TEXT, Config
from yoi_tui.core.store.config_schema import config_model

PAGE = REPO / "docs" / "configuration.md"
ROW = re.compile(r"^\| `(?P<key>[a-z0-9_]+\.[a-z0-9_]+)` \| (?P<default>[^|]+?) \| (?P<meaning>.+) \|$", re.MULTILINE)


def _schema_defaults() -> dict[str, Any]:
    """``section.key -> default`` of every setting, from the pydantic schema the config is validated with."""
    dumped = config_model()().model_dump()
    return {f"{section}.{key}": value for section, values in dumped.items() for key, value in values.items()}


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, list):
        return "`[" + ", ".join(f'"{v}"' for v in value) + "]`"
    return f"`{value}`"


def test_every_key_is_explained_with_its_default() -> None:
    rows = {m["key"]: m for m in ROW.finditer(PAGE.read_text(encoding="utf-8"))}
    defaults = _schema_defaults()
    assert set(rows) == set(defaults), {"missing": sorted(set(defaults) - set(rows)),
                                        "not a key": sorted(set(rows) - set(defaults))}
    for key, value in defaults.items():
        assert rows[key]["default"] == _shown(value), key
        assert len(rows[key]["meaning"].split()) >= 4, f"{key}: say what it does"


def test_the_config_yoi_init_writes_names_every_key_at_its_default() -> None:
    uncommented = "\n".join(line.removeprefix("# ") if re.match(r"# [a-z_]+ = ", line) else line
                            for line in DEFAULT_CONFIG_TEXT.splitlines())
    written = tomllib.loads(uncommented)
    keys = {f"{section}.{key}": value for section, values in written.items() for key, value in values.items()}
    defaults = _schema_defaults()
    assert set(keys) == set(defaults), sorted(set(defaults) ^ set(keys))
    examples = {"llm.base_url", "llm.api_key_env"}  # unset by default: the text shows an example value
    for key, value in defaults.items():
        if key not in examples:
            assert keys[key] == value, key
    assert Config.from_dict(config_model()().model_dump()) == Config()
