"""Rendering findings: human text, JSON (SPEC 14) and GitHub Actions annotations."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal

from ..diagnostics import Diagnostic

OutputFormat = Literal["text", "json", "github"]


def _github_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_prop(text: str) -> str:
    return _github_escape(text).replace(":", "%3A").replace(",", "%2C")


def format_diagnostics(diags: Iterable[Diagnostic], fmt: OutputFormat) -> str:
    """The findings as text in one format (no trailing summary line)."""
    items = list(diags)
    if fmt == "json":
        return json.dumps([d.to_json() for d in items], indent=2, ensure_ascii=False)
    if fmt == "github":
        lines = []
        for d in items:
            level = "error" if d.is_error else "warning"
            message = d.message + (f" (hint: {d.hint})" if d.hint else "")
            lines.append(f"::{level} file={_github_prop(d.path)},line={d.line},col={d.col},"
                         f"title={_github_prop(d.rule)}::{_github_escape(message)}")
        return "\n".join(lines)
    lines = []
    for d in items:
        tag = "" if d.is_error else " (warning)"
        lines.append(f"{d.path}:{d.line}:{d.col}: {d.rule}{tag} {d.message}")
        if d.hint:
            lines.append(f"    hint: {d.hint}")
    return "\n".join(lines)
