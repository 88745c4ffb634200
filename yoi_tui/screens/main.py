"""The main screen: the record tree with a fuzzy filter, the selected record, the problems panel.

Reads the App's store and findings; the App calls ``refresh_records``/``show_problems`` when they
change. Rendering a record's Markdown runs in an exclusive async worker, so holding ↓ through the
tree never queues renders.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Tree

from ..core.store.kinds import RecordKind
from ..model.browse import RecordEntry, filter_entries, group_entries
from ..widgets.header import AppHeader
from ..widgets.problems import ProblemsPanel
from ..widgets.record_tree import RecordTree
from ..widgets.record_view import RecordView

LARGE_FILTER = 2000  # above this many records the filter waits for a typing pause


class FilterInput(Input):
    """The ``/`` filter: ↓/Enter go to the tree, Esc clears."""

    BINDINGS = [
        Binding("down,enter", "to_tree", "To tree", show=False),
        Binding("escape", "clear", "Clear filter", show=False),
    ]

    def action_to_tree(self) -> None:
        self.screen.set_focus(self.screen.query_one(RecordTree))

    def action_clear(self) -> None:
        self.value = ""
        self.screen.set_focus(self.screen.query_one(RecordTree))


class MainScreen(Screen[None]):
    """Browse: records by kind, the selected record, and the workspace's lint findings."""

    HELP_TITLE = "yoi — browse records"
    HELP_TEXT = (
        "The tree lists every record by kind; decisions are split by status. Move with ↑/↓; the "
        "record shows on the right (frontmatter fields, then the body). / filters by slug and "
        "description (fuzzy: typos are fine); start the filter with ? to search the full text "
        "instead (?stale totals). Enter or e opens the editor. The problems panel lists "
        "lint findings for the whole workspace: Enter on one opens the record at that line. "
        "Changes made outside the app (git pull, another editor) show up within a few seconds."
    )
    PALETTE_AREA = "browse"

    BINDINGS = [
        # The footer shows these in this order, and at 80 columns only the first ones fit: help and
        # the pipeline first (issue 28), then browsing. F1 here so it leads (the App's own is last).
        Binding("f1", "app.help", "Help", tooltip="Keys and what this screen does", id="yoi.main.help"),
        Binding("1", "app.run_phase1", "Phase 1", tooltip="Run Phase 1 on this project's session logs",
                id="yoi.main.phase1"),
        Binding("2", "app.run_phase2", "Phase 2", tooltip="Run Phase 2 and review its change set",
                id="yoi.main.phase2"),
        Binding("g", "app.run_gc", "GC", tooltip="Run GC and review it operation by operation", id="yoi.main.gc"),
        Binding("h", "app.runs_history", "History", tooltip="Journalled runs: diffs and revert",
                id="yoi.main.history"),
        Binding("u", "app.usage", "Usage", tooltip="Record usage and the candidate report", id="yoi.main.usage"),
        # Priority, and focus set synchronously: keys typed right after "/" (fast typing, tmux
        # send-keys) must land in the filter, not in the tree (where "e" would open the editor).
        Binding("slash", "filter", "Filter", tooltip="Filter records by slug and description", priority=True,
                id="yoi.main.filter"),
        Binding("e", "edit", "Edit", tooltip="Edit the selected record", id="yoi.main.edit"),
        Binding("n", "app.new_record", "New", tooltip="New record from a template", id="yoi.main.new"),
        Binding("c", "app.compose", "Compose", tooltip="Compose a prompt with #slug completion",
                id="yoi.main.compose"),
        Binding("p", "focus_problems", "Problems", tooltip="Go to the problems panel", id="yoi.main.problems"),
        Binding("t", "focus_tree", "Tree", tooltip="Go to the record tree", id="yoi.main.tree"),
        Binding("v", "focus_view", "View", tooltip="Scroll the record view", id="yoi.main.view"),
        Binding("ctrl+r", "rescan", "Rescan", tooltip="Re-read changed files and lint again",
                id="yoi.main.rescan"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="yoi.main.clear"),
    ]

    def __init__(self) -> None:
        super().__init__(id="main")
        self._filter_timer: Timer | None = None
        self._ready = False  # children exist (is_mounted is only set after on_mount returns)
        self.matched: list[RecordEntry] = []

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        with Horizontal(id="main-body"):
            with Vertical(id="left"):
                yield FilterInput(placeholder="/ filter · ?text for full text", id="filter")
                yield RecordTree(id="tree")
            yield RecordView(id="view")
        yield ProblemsPanel(title="Problems", id="problems")
        yield Footer()

    def on_mount(self) -> None:
        self._ready = True
        self.query_one("#filter", Input).cursor_blink = self.app.cursor_blink  # type: ignore[attr-defined]
        self.refresh_records()
        self.show_problems()
        self.query_one(RecordTree).focus()

    # ------------------------------------------------------------------ data from the App

    @property
    def store(self):  # -> RecordStore
        return self.app.store  # type: ignore[attr-defined]

    @property
    def tree(self) -> RecordTree:
        return self.query_one(RecordTree)

    @property
    def filter_text(self) -> str:
        return self.query_one("#filter", Input).value

    def refresh_records(self) -> None:
        """Rebuild the tree from the store with the current filter; keep the selection."""
        if not self._ready:
            return
        self._apply_filter(keep_selection=True)

    def _apply_filter(self, *, keep_selection: bool = False) -> None:
        store = self.store
        query = self.filter_text.strip()
        entries = sorted(store.entries.values(), key=lambda e: e.slug)
        if query:
            matched = [entry for entry, _score in filter_entries(query, entries)]
        else:
            matched = entries
        self.matched = matched
        tree = self.tree
        keep = tree.highlighted_rel if keep_selection or not query else (matched[0].rel if matched else None)
        tree.rebuild(group_entries(matched), filtering=bool(query), keep=keep)
        left = self.query_one("#left")
        total = len(store)
        left.border_title = "Records"
        left.border_subtitle = f"{len(matched)} of {total}" if query else f"{total} records" + (
            "" if store.loaded else " · loading…")
        self._mark_tree()
        self._show_highlighted()

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        if len(self.store) <= LARGE_FILTER:
            self._apply_filter()
            return
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.15, self._apply_filter)

    def lint_started(self) -> None:
        if self._ready:
            try:
                self.query_one(ProblemsPanel).set_busy(True)
            except NoMatches:  # closing
                return

    def show_problems(self) -> None:
        if not self._ready:
            return
        try:
            panel = self.query_one(ProblemsPanel)
        except NoMatches:  # a lint finished while the app was closing: its widgets are gone
            return
        panel.set_diagnostics(self.app.diagnostics, linted=self.app.linted_once)  # type: ignore[attr-defined]
        panel.set_busy(self.app.linting)  # type: ignore[attr-defined]
        self._mark_tree()

    def _mark_tree(self) -> None:
        marks: dict[str, str] = {}
        for diag in self.app.diagnostics:  # type: ignore[attr-defined]
            if diag.is_error:
                marks[diag.path] = "error"
            else:
                marks.setdefault(diag.path, "warning")
        self.tree.set_marks(marks)

    # ------------------------------------------------------------------ selection

    @on(Tree.NodeHighlighted, "#tree")
    def _highlighted(self) -> None:
        self._show_highlighted()

    def _show_highlighted(self) -> None:
        rel = self.tree.highlighted_rel
        view = self.query_one(RecordView)
        entry = self.store.get(rel) if rel else None
        if rel is not None and view.rel == rel and entry is not None and entry is self._shown_entry:
            return
        self._shown_entry = entry
        self._render_entry(entry)

    _shown_entry: RecordEntry | None = None

    @work(exclusive=True, group="view")
    async def _render_entry(self, entry: RecordEntry | None) -> None:
        await self.query_one(RecordView).show(entry)

    def selected_kind(self) -> RecordKind | None:
        rel = self.tree.highlighted_rel
        entry = self.store.get(rel) if rel else None
        return entry.kind if entry is not None else None

    @on(RecordTree.EditRequested)
    def _edit_requested(self, event: RecordTree.EditRequested) -> None:
        self.app.open_editor(event.rel)  # type: ignore[attr-defined]

    @on(ProblemsPanel.ProblemSelected, "#problems")
    def _problem_selected(self, event: ProblemsPanel.ProblemSelected) -> None:
        diag = event.diagnostic
        self.app.open_editor(diag.path, diag.line, diag.col)  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter" and isinstance(self.focused, Input):
            return False  # typing "/" into the filter (or a dialog's input) types it
        return True

    def action_filter(self) -> None:
        self.set_focus(self.query_one("#filter", Input))

    def action_clear_filter(self) -> None:
        if self.filter_text:
            self.query_one("#filter", Input).value = ""
        self.tree.focus()

    def action_edit(self) -> None:
        rel = self.tree.highlighted_rel
        if rel:
            self.app.open_editor(rel)  # type: ignore[attr-defined]
        else:
            self.notify("Select a record first (↑/↓ in the tree)", severity="warning")

    def action_focus_problems(self) -> None:
        self.query_one(ProblemsPanel).focus()

    def action_focus_tree(self) -> None:
        self.tree.focus()

    def action_focus_view(self) -> None:
        self.query_one(RecordView).focus()

    def action_rescan(self) -> None:
        self.app.rescan()  # type: ignore[attr-defined]
        self.app.start_lint()  # type: ignore[attr-defined]
        self.notify("Rescanning the workspace…", timeout=2)
