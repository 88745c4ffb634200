"""Reading and writing the JSON config files of harnesses without losing anything in them.

Key order is kept (``dict`` order); the output uses the indentation the file already had (two
spaces for a new file), so a re-run that changes nothing produces the same bytes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .plan import IntegrationError, read_text


def load_object(path: Path) -> tuple[str | None, dict[str, Any]]:
    """``(text, parsed object)``; a missing or empty file is ``(text, {})``."""
    text = read_text(path)
    if text is None or not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IntegrationError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); fix it by hand, "
            "nothing was changed", path=path) from exc
    if not isinstance(data, dict):
        raise IntegrationError(f"expected a JSON object at the top, found {type(data).__name__}; "
                               "nothing was changed", path=path)
    return text, data


def _indent_of(text: str | None) -> int:
    if text:
        match = re.search(r"^( +)\S", text, re.MULTILINE)
        if match:
            return len(match.group(1))
    return 2


def dump_object(data: dict[str, Any], like: str | None) -> str:
    return json.dumps(data, indent=_indent_of(like), ensure_ascii=False) + "\n"


def render(before: str | None, data: dict[str, Any], original: dict[str, Any]) -> str | None:
    """The file's new text (None: remove it); the old text unchanged when the data did not change."""
    if data == original and before is not None:
        return before
    if not data:
        return None  # nothing of anyone's is left (yoi created it, uninstall emptied it): remove the file
    return dump_object(data, before)
