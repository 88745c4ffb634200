"""Runs history: the journalled runs (``.yoi/state/runs/``) newest first with their counts.

Enter opens a run's diffs read-only (the review screen fed from the journal); ``u`` reverts it
with ``yoi revert`` semantics (asks first; files changed since are reported and left alone).
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..core.errors import YoiError
from ..core.runs.changeset import list_runs, read_run
from ..widgets.header import AppHeader
from .result import Reverted, confirm_revert, describe_revert, revert_run
from .review import ReviewScreen
from .review_items import journal_items


class HistoryScreen(Screen[None]):
    """Journalled runs; open one read-only, or revert it."""

    HELP_TITLE = "yoi — runs history"
    HELP_TEXT = ("Every applied run (Phase 2, GC), newest first, with the files it applied, rejected and "
                 "deferred. Enter shows its diffs (read-only); u reverts it to the exact bytes it replaced, "
                 "after asking; a file edited since is left alone and reported. Esc closes.")
    PALETTE_AREA = "history"
    BINDINGS = [
        Binding("enter", "open", "Open", tooltip="Show the run's diffs (read-only)", id="yoi.history.open"),
        Binding("u", "revert", "Revert", tooltip="Revert the highlighted run (asks first)", id="yoi.history.revert"),
        Binding("escape", "close", "Close", tooltip="Back", id="yoi.history.close"),
    ]

    def __init__(self) -> None:
        super().__init__(id="history")

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True, classes="pane")
        yield Static(id="history-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.border_title = "Runs (newest first)"
        table.add_columns("run", "purpose", "engine", "status", "created", "applied", "rejected", "deferred",
                          "conflicts")
        self.reload()
        table.focus()

    def reload(self) -> None:
        ws = self.app.ws  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        runs = list(reversed(list_runs(ws)))
        for run in runs:
            counts = self._counts(run.run_id)
            table.add_row(run.run_id[:13], run.purpose, run.engine, run.status + (" (pending)" if run.pending else ""),
                          run.created_at.replace("T", " ")[:19], *[str(counts.get(k, 0)) for k in
                                                                    ("applied", "rejected", "deferred", "conflict")],
                          key=run.run_id)
        if runs:
            table.move_cursor(row=min(keep, len(runs) - 1))
        self.query_one("#history-status", Static).update(
            Text(f"{len(runs)} run(s) journalled in .yoi/state/runs/ · enter shows a run's diffs · u reverts it"
                 if runs else
                 "No run has been applied yet: run Phase 2 or GC from the command palette (ctrl+p).", style="dim"))

    def _counts(self, run_id: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        try:
            for change in read_run(self.app.ws, run_id)["changes"]:  # type: ignore[attr-defined]
                counts[str(change.get("state"))] = counts.get(str(change.get("state")), 0) + 1
        except YoiError:
            pass
        return counts

    @on(DataTable.RowSelected, "#history-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter on the table (its own binding): open the run
        self.action_open()

    @property
    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def action_open(self) -> None:
        run_id = self.selected
        if run_id is None:
            return
        try:
            journal = read_run(self.app.ws, run_id)  # type: ignore[attr-defined]
        except YoiError as exc:
            self.notify(exc.message, severity="error")
            return
        kind = "gc" if journal.get("purpose") == "gc" else "phase2"
        self.app.push_screen(ReviewScreen(kind, items=journal_items(journal), readonly=True,
                                          title=f"run {run_id} ({journal.get('purpose')}, {journal.get('status')})"))

    def action_revert(self) -> None:
        run_id = self.selected
        if run_id is not None:
            purpose = next((run.purpose for run in list_runs(self.app.ws) if run.run_id == run_id), None)  # type: ignore[attr-defined]
            confirm_revert(self, run_id, lambda: self._revert_worker(run_id), purpose=purpose)

    @work(thread=True, exclusive=True, group="revert", exit_on_error=False)
    def _revert_worker(self, run_id: str) -> None:
        self.post_message(revert_run(self.app.ws, run_id))  # type: ignore[attr-defined]

    @on(Reverted)
    def _reverted(self, message: Reverted) -> None:
        if message.result is None:
            self.notify(f"Not reverted: {message.error}", severity="error")
            return
        self.reload()
        self.query_one("#history-status", Static).update(describe_revert(message.result))
        self.notify(f"Run {message.result.run_id[:13]} reverted" + ("" if message.result.ok else
                    f"; {len(message.result.refused)} file(s) changed since were left alone"),
                    severity="information" if message.result.ok else "warning")
        self.app.rescan()  # type: ignore[attr-defined]

    def action_close(self) -> None:
        self.dismiss(None)
