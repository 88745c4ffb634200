"""The linter (SPEC 4): one implementation for the CLI, the app's problems panel and agent writes."""

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

__all__ = [
    "FILE_RULES", "STATIC_RULES", "WRITE_TIME_RULES", "IndexEntry", "LintContext", "LintReport", "WorkspaceIndex",
    "WriteContext", "check_write", "format_diagnostics", "lint_paths", "lint_record", "lint_text",
    "lint_workspace", "load_records",
]
