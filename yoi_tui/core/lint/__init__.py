"""The linter (SPEC 4): one implementation for the CLI, the app's problems panel and agent writes.

Names are imported from their modules on first use (PEP 562): ``yoi lint`` on an unchanged
workspace answers from ``lint.stored`` without importing the rules, pydantic or the secret
patterns (~120 ms), which importing them all here would cost every ``yoi_tui.core.lint.*`` import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

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


__getattr__ = lazy_names(__name__, _HOMES, globals())


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
