"""The key-by-key tables of docs/record-format.md, built from the record models and the config.

``tests/test_record_format_doc.py`` checks that the page holds exactly what ``keys_table`` and
``caps_table`` return, so the page cannot drift from ``models.py`` / ``meta_fields.py`` /
``config.py``. Regenerate with ``python -m yoi_tui.core.store.format_table``.
"""

from __future__ import annotations

import typing
from datetime import datetime
from typing import Any

from .config import Config, RecordsConfig
from .kinds import RecordKind
from .meta_fields import DECISION_STATUSES, REQUIRED_KEYS
from .models import META_MODELS, Source

KEYS_BEGIN, KEYS_END = "<!-- record-keys:begin (generated: format_table.py) -->", "<!-- record-keys:end -->"
CAPS_BEGIN, CAPS_END = "<!-- record-caps:begin (generated: format_table.py) -->", "<!-- record-caps:end -->"

# What each key means (the one thing the models cannot say); a key without a line here fails the test.
MEANING: dict[str, str] = {
    "updated_at": "when the record last changed",
    "created_at": "when the record was first written",
    "last_rewritten_from_range": "which staging Phase 2 last rewrote the summary from (yoi writes it)",
    "sources": "the session-log ranges the record came from (`[]` for one written by hand)",
    "last_sources": "the latest session-log ranges the knowledge came from (`[]` for one written by hand)",
    "status": " \\| ".join(f"`{status}`" for status in DECISION_STATUSES) + "; `replaced` needs `replaced_by`",
    "replaced_by": "the slug of the record of the same kind that replaces this one",
    "kind": "one of `records.knowledge_kinds`: "
            + ", ".join(f"`{k}`" for k in RecordsConfig.settings["knowledge_kinds"].fresh()) + " by default",
    "description": "one line: what it is and when to read it (searched; injected into every prompt when "
                   "`model_invokation: true`)",
    "model_invokation": "`true`: the description is in every prompt's resident context (Claude Code's "
                        "`disable-model-invocation` is its opposite)",
    "user_invocable": "`true`: a person's `#slug` in a prompt expands to the body",
}
FIXED_BY_LINT = frozenset({"created_at", "updated_at", "sources", "last_sources", "model_invokation",
                           "user_invocable"})
"""Required keys ``yoi lint --fix`` adds when missing (``lint/fix.py``)."""


def _value(annotation: Any) -> str:
    if annotation is datetime:
        return "timestamp with UTC offset, e.g. `2026-01-05T10:00:00+00:00`"
    if annotation is bool:
        return "`true` / `false`"
    if annotation is str:
        return "text"
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is list and args and args[0] is Source:
        return "list of `{session_id: ..., range: [start, end]}`"
    if type(None) in args:
        return " or ".join(_value(a) for a in args if a is not type(None)) + " or `null`"
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _value(args[0])
    if origin is list:
        return "list of integers"
    if origin is dict:
        return "mapping"
    return str(annotation)


def keys_table() -> str:
    """Every key of every kind: required or optional, its value, its default, what it means."""
    rows = ["| kind | key | | value | default | meaning |", "|---|---|---|---|---|---|"]
    for kind, model in META_MODELS.items():
        required = REQUIRED_KEYS[kind]
        for name in [*required, *(n for n in model.model_fields if n not in required)]:
            field = model.model_fields[name]
            needed = "required" if name in required else "optional"
            if field.is_required():
                default = "— (`yoi lint --fix` adds it)" if name in FIXED_BY_LINT else "—"
            else:
                shown = "null" if field.default is None else str(field.default).lower()
                default = f"`{shown}`" + (" (`yoi lint --fix` adds it)" if name in FIXED_BY_LINT else "")
            rows.append(f"| {kind.value} | `{name}` | {needed} | {_value(field.annotation)} | {default} | "
                        f"{MEANING[name]} |")
    return "\n".join(rows)


def caps_table() -> str:
    """The size limits the linter enforces, with their ``.yoi/config.toml`` keys and defaults."""
    config = Config()
    rows = ["| limit | default | key in `.yoi/config.toml` | rule |", "|---|---|---|---|"]
    for kind in RecordKind:
        rows.append(f"| {kind.value} body | {config.cap_for(kind.value):,} characters | "
                    f"`records.cap_{kind.value}` | `over-cap` (error) |")
    rows.append(f"| knowledge description, when `model_invokation: true` | {config.records.description_max:,} "
                "characters | `records.description_max` | `description-too-long` (error) |")
    rows.append(f"| sources / last_sources | {config.records.sources_max} entries | `records.sources_max` | "
                "`sources-overflow` (warning) |")
    rows.append(f"| body over this share of its cap, rarely used | {config.records.compressible_fraction:g} | "
                "`records.compressible_fraction` | `compressible` (warning) |")
    return "\n".join(rows)


def render_page_sections(page: str) -> str:
    """``page`` with both generated blocks replaced by the current tables."""
    for begin, end, table in ((KEYS_BEGIN, KEYS_END, keys_table()), (CAPS_BEGIN, CAPS_END, caps_table())):
        head, _, rest = page.partition(begin)
        _, _, tail = rest.partition(end)
        page = f"{head}{begin}\n{table}\n{end}{tail}"
    return page


if __name__ == "__main__":  # pragma: no cover
    from pathlib import Path

    doc = Path(__file__).resolve().parents[3] / "docs" / "record-format.md"
    doc.write_text(render_page_sections(doc.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {doc}")
