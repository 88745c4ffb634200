"""The problems panel: linter findings in a table; Enter on a row asks to open that place.

Used twice: on the main screen for the whole workspace, and in the editor for the buffer being
edited. The border title carries the counts ("3 errors · 2 warnings").
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from ..core.diagnostics import Diagnostic


def counts_text(diagnostics: list[Diagnostic]) -> str:
    errors = sum(d.is_error for d in diagnostics)
    warnings = len(diagnostics) - errors
    if not diagnostics:
        return "no problems"
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return " · ".join(parts)


class ProblemsPanel(DataTable[Text]):
    """Findings as rows: severity mark, location, rule, message (with the hint when there is one)."""

    class ProblemSelected(Message):
        """Enter on a finding."""

        def __init__(self, panel: ProblemsPanel, diagnostic: Diagnostic) -> None:
            super().__init__()
            self.panel = panel
            self.diagnostic = diagnostic

        @property
        def control(self) -> ProblemsPanel:
            return self.panel

    def __init__(self, *, title: str = "Problems", show_path: bool = True, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.title = title
        self.show_path = show_path
        self.diagnostics: list[Diagnostic] = []
        self.busy = False
        # Until the first lint has finished there is nothing to count: the title says "linting…",
        # never "no problems" (a glance at an empty panel must not read as a clean workspace).
        self.linted = False
        self._set_columns([])

    def _set_columns(self, rows: list[tuple[str, str, Text]]) -> None:
        # Explicit widths from the data: auto widths are measured on an idle pass, so a screenshot
        # taken right after an update could show the columns still at their header widths.
        self.clear(columns=True)
        self.add_column("", key="sev", width=1)
        where, rule = self._caps()
        self.add_column("where", key="where", width=min(where, max([5, *(len(r[0]) for r in rows)])))
        self.add_column("rule", key="rule", width=min(rule, max([4, *(len(r[1]) for r in rows)])))
        self.add_column("message", key="message", width=max([7, *(r[2].cell_len for r in rows)]))

    def _caps(self) -> tuple[int, int]:
        """Widest "where" and "rule" columns: at 80 columns a long path must not push the message
        off screen, so the location gets at most a third of the panel (its tail is kept)."""
        width = self.size.width or (self.app.size.width if self.is_attached else 0) or 120
        return max(16, width // 3), max(10, width // 6)

    def on_mount(self) -> None:
        self._retitle()

    def on_resize(self) -> None:
        if self.diagnostics and self.columns["where"].width != self._caps()[0]:
            self.set_diagnostics(self.diagnostics)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self._retitle()

    def _retitle(self) -> None:
        if not self.linted:
            self.border_title = f"{self.title} — linting…"
            return
        suffix = " · linting…" if self.busy else ""
        self.border_title = f"{self.title} — {counts_text(self.diagnostics)}{suffix}"

    def set_diagnostics(self, diagnostics: list[Diagnostic], *, linted: bool = True) -> None:
        """Replace the rows (errors first, then by path and line); keeps the cursor row when it can.
        ``linted``: the findings are a finished lint's (False: none has finished yet)."""
        self.linted = linted
        ordered = sorted(diagnostics, key=lambda d: (not d.is_error, d.path, d.line, d.col, d.rule))
        row = self.cursor_row
        self.diagnostics = ordered
        rows: list[tuple[str, str, Text]] = []
        for diag in ordered:
            where = f"{diag.path}:{diag.line}:{diag.col}" if self.show_path else f"{diag.line}:{diag.col}"
            message = Text(diag.message)
            if diag.hint:
                message.append(f" — {diag.hint}", style="dim")
            rows.append((where, diag.rule, message))
        self._set_columns(rows)
        where_cap = self.columns["where"].width
        for position, (diag, (where, rule, message)) in enumerate(zip(ordered, rows, strict=True)):
            mark = Text("✖", style="bold red") if diag.is_error else Text("⚠", style="yellow")
            shown = where if len(where) <= where_cap else "…" + where[len(where) - where_cap + 1:]
            self.add_row(mark, Text(shown), Text(rule, style="dim", overflow="ellipsis"), message, key=str(position))
        if ordered:
            self.move_cursor(row=min(row, len(ordered) - 1), animate=False)
        self._retitle()

    @property
    def selected(self) -> Diagnostic | None:
        if not self.diagnostics or self.cursor_row < 0 or self.cursor_row >= len(self.diagnostics):
            return None
        return self.diagnostics[self.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        diag = self.selected
        if diag is not None:
            self.post_message(self.ProblemSelected(self, diag))
