"""The linter (SPEC 4): one implementation for the CLI, the app's problems panel and agent writes.

Names are imported from their modules on first use (PEP 562): ``yoi lint`` on an unchanged
workspace answers from ``lint.stored`` without importing the rules, pydantic or the secret
patterns (~120 ms), which importing them all here would cost every ``yoi_tui.core.lint.*`` import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "IndexEntry": "index", "WorkspaceIndex": "index", "format_diagnostics": "output", "LintContext": "rules",
    "FILE_RULES": "runner", "STATIC_RULES": "runner", "WRITE_TIME_RULES": "runner", "LintReport": "runner",
    "lint_paths": "runner", "lint_record": "runner", "lint_text": "runner", "lint_workspace": "runner",
    "load_records": "runner", "WriteContext": "write_check", "check_write": "write_check",
}

__all__ = [
    "FILE_RULES", "STATIC_RULES", "WRITE_TIME_RULES", "IndexEntry", "LintContext", "LintReport", "WorkspaceIndex",
    "WriteContext", "check_write", "format_diagnostics", "lint_paths", "lint_record", "lint_text",
    "lint_workspace", "load_records",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .index import IndexEntry, WorkspaceIndex
    from .output import format_diagnostics
    from .rules import LintContext
    from .runner import (
        FILE_RULES,
        STATIC_RULES,
        WRITE_TIME_RULES,
        LintReport,
        lint_paths,
        lint_record,
        lint_text,
        lint_workspace,
        load_records,
    )
    from .write_check import WriteContext, check_write
