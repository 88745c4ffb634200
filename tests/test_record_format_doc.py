"""docs/record-format.md's key and size tables are the record models' and the config's own."""

from __future__ import annotations

from support import REPO

from yoi_tui.core.store import format_table
from yoi_tui.core.store.config import Config
from yoi_tui.core.store.meta_fields import KNOWN_KEYS, REQUIRED_KEYS

PAGE = REPO / "docs" / "record-format.md"


def test_the_page_holds_the_generated_tables() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert format_table.render_page_sections(text) == text, \
        "docs/record-format.md is stale: run python -m yoi_tui.core.store.format_table"


def test_every_known_key_of_every_kind_has_a_row_and_a_meaning() -> None:
    table = format_table.keys_table()
    for kind, keys in KNOWN_KEYS.items():
        for key in keys:
            needed = "required" if key in REQUIRED_KEYS[kind] else "optional"
            assert f"| {kind.value} | `{key}` | {needed} |" in table
    assert set().union(*KNOWN_KEYS.values()) == set(format_table.MEANING)


def test_the_caps_are_the_config_defaults() -> None:
    config, table = Config(), format_table.caps_table()
    for kind in ("summary", "decision", "request", "knowledge"):
        assert f"| {kind} body | {config.cap_for(kind):,} characters | `records.cap_{kind}` |" in table
    assert f"{config.records.description_max:,} characters | `records.description_max`" in table
