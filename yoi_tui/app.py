"""``YoiApp``: the terminal app over one workspace, and ``make_app``, the factory tests share with main.

The App owns the data every screen reads — the ``RecordStore`` (records read once), the
workspace-wide lint findings, and the change poll — and the background workers that refresh them.
Screens own layout and presentation (``screens/``); widgets are small and reusable (``widgets/``).
Thread workers never touch widgets: they post messages (``messages.py``) handled on the UI thread.

Startup: the first screen paints from a folder listing; records are parsed in a worker (inline for
small workspaces, so a demo paints complete) and the whole workspace is linted after that.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from .core.diagnostics import Diagnostic
from .core.errors import YoiError
from .core.freshness.store_watch import StoreWatcher
from .core.lint import lint_workspace
from .core.lint.cache import UsageFrequencies
from .core.store.kinds import RecordKind, path_for
from .core.store.templates import knowledge_kind_for, record_template
from .core.store.workspace import Workspace
from .messages import RecordSaved, RecordsChanged, StoreLoaded, WorkspaceLinted
from .model.browse import RecordStore
from .screens.compose import ComposeScreen
from .screens.dialogs import Choice, ChoiceModal, HelpModal, NewRecordModal, NewRecordRequest
from .screens.editor import EditorScreen
from .screens.main import MainScreen

STYLES = Path(__file__).parent / "styles"
INLINE_LOAD_MAX = 400  # records parsed before the first paint; more go to a worker
DEFAULT_POLL_SECONDS = 2.0


PIPELINE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Run Phase 1", "run_phase1", "Extract this project's session logs into staging"),
    ("Run Phase 2", "run_phase2", "Fold the staging into records; review the diff before applying"),
    ("Run GC", "run_gc", "Propose clean-ups; review them operation by operation"),
    ("Runs history", "runs_history", "Journalled runs: open their diffs, revert one"),
    ("Usage", "usage", "Record frequency, protection, candidates, invokes over the token clock"),
)


RECORD_HIT_WEIGHT = 0.5
"""A record's palette score is scaled by this: a command ("Run Phase 2") ranks above every record
that matches the query as well or worse (typing "run" listed 39 records first)."""


class RecordCommands(Provider):
    """Command palette: "open: <slug>" for every record (opens it in the editor), ranked below commands."""

    async def search(self, query: str) -> Hits:
        app = self.app
        assert isinstance(app, YoiApp)
        matcher = self.matcher(query)
        for entry in list(app.store.entries.values()):
            title = f"open: {entry.slug} ({entry.kind.value})"
            score = matcher.match(title)
            if score > 0:
                yield Hit(score * RECORD_HIT_WEIGHT, matcher.highlight(title),
                          lambda rel=entry.rel: app.open_editor(rel), help=entry.description or entry.rel)

    async def discover(self) -> Hits:
        app = self.app
        assert isinstance(app, YoiApp)
        for entry in list(app.store.entries.values())[:20]:
            yield DiscoveryHit(f"open: {entry.slug} ({entry.kind.value})",
                               lambda rel=entry.rel: app.open_editor(rel), help=entry.description or entry.rel)


class YoiApp(App[str | None]):
    """The yoi memory app: browse, edit and compose over one workspace."""

    TITLE = "yoi"
    CSS_PATH = [STYLES / "app.tcss", STYLES / "main.tcss", STYLES / "editor.tcss", STYLES / "compose.tcss",
                STYLES / "dialogs.tcss", STYLES / "runs.tcss"]
    COMMANDS = App.COMMANDS | {RecordCommands}
    BINDINGS = [
        Binding("f1", "help", "Help", tooltip="Keys and what this screen does", id="yoi.app.help"),
        Binding("ctrl+q", "quit", "Quit", tooltip="Quit (asks about unsaved changes)", priority=True,
                id="yoi.app.quit"),
    ]

    def __init__(self, ws: Workspace, *, mode: str = "browse", label: str | None = None,
                 poll_seconds: float | None = DEFAULT_POLL_SECONDS, cursor_blink: bool = True,
                 inline_load_max: int = INLINE_LOAD_MAX, log_folders: Iterable[Path] = (),
                 llm_model: object = None, fixed_now: datetime | None = None,
                 driver_class: type | None = None) -> None:
        super().__init__(driver_class=driver_class)
        self.fixed_now = fixed_now  # the runs' clock (snapshots and screenshots freeze it); None: now
        self.log_folders = list(log_folders)  # extra folders the Phase 1 picker offers (the demo's sessions/)
        self.llm_model = llm_model  # a model object for the llm engines (tests: a scripted model); None: config
        self.ws = ws
        self.mode = mode
        self.label = label or ws.root.name
        self.poll_seconds = poll_seconds
        self.cursor_blink = cursor_blink
        self.inline_load_max = inline_load_max
        self.store = RecordStore.from_names(ws)
        if mode == "compose":
            # Completion needs only knowledge records; small workspaces read them before painting.
            if sum(e.kind is RecordKind.KNOWLEDGE for e in self.store.entries.values()) <= inline_load_max:
                self.store = RecordStore.load(ws, kinds=[RecordKind.KNOWLEDGE])
        elif len(self.store) <= inline_load_max:
            self.store = RecordStore.load(ws)  # small: parse now, so the first paint is complete
        self.diagnostics: list[Diagnostic] = []
        self.lint_generation = 0
        self.linting = False
        self.linted_once = False
        self.composed: str | None = None
        self.watcher: StoreWatcher | None = None

    # ------------------------------------------------------------------ screens

    def get_default_screen(self) -> Screen:
        if self.mode == "compose":
            return ComposeScreen(standalone=True)
        return MainScreen()

    def on_mount(self) -> None:
        self.sub_title = self.label
        if self.mode == "compose":
            if not self.store.loaded:
                self.call_after_refresh(self.load_store, [RecordKind.KNOWLEDGE])
            return
        # After the first paint: a parsing thread started now would compete for the GIL with it.
        if self.store.loaded:
            self.call_after_refresh(self.start_lint)
        else:
            self.call_after_refresh(self.load_store)
        if self.poll_seconds:
            self.watcher = StoreWatcher(self.ws)  # file-system notifications: idle ticks do nothing
            self.watcher.start()
            self.set_interval(self.poll_seconds, self.poll_changes, name="poll-changes")

    def on_unmount(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    @property
    def main_screen(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def _editors(self) -> list[EditorScreen]:
        return [s for s in self.screen_stack if isinstance(s, EditorScreen)]

    # ------------------------------------------------------------------ loading and linting

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_store(self, kinds: list[RecordKind] | None = None) -> None:
        store = RecordStore.load(self.ws, kinds)
        if not get_current_worker().is_cancelled:
            self.post_message(StoreLoaded(store))

    @on(StoreLoaded)
    def _on_store_loaded(self, message: StoreLoaded) -> None:
        self._store_loaded(message.store)

    def _store_loaded(self, store: RecordStore) -> None:
        self.store = store
        if self.mode == "compose":
            return  # nothing to show or lint: the composer reads the store on each '#'
        main = self.main_screen
        if main is not None:
            main.refresh_records()
        self.start_lint()

    def start_lint(self) -> None:
        """Lint the whole workspace in a worker; a newer run makes older results stale."""
        self.lint_generation += 1
        self.linting = True
        main = self.main_screen
        if main is not None:
            main.lint_started()
        self._lint_worker(self.lint_generation)

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False)
    def _lint_worker(self, generation: int) -> None:
        # `yoi lint` in a child process (lint_process: its memory peak and its Python work stay out
        # of the app's process); in-process, with the same inputs, when the child gives nothing.
        from .lint_process import lint_in_child

        diagnostics = lint_in_child(self.ws)
        if diagnostics is None:
            report = lint_workspace(self.ws, frequencies=UsageFrequencies(self.ws), cache=True)
            diagnostics = report.diagnostics
        if not get_current_worker().is_cancelled:
            self.post_message(WorkspaceLinted(generation, diagnostics))

    @on(WorkspaceLinted)
    def _on_linted(self, message: WorkspaceLinted) -> None:
        if message.generation != self.lint_generation:
            return  # a newer run is on its way
        self.linting = False
        self.linted_once = True
        self.diagnostics = message.diagnostics
        main = self.main_screen
        if main is not None:
            main.show_problems()

    @on(RecordSaved)
    def _on_record_saved(self, message: RecordSaved) -> None:
        """Show the saved file's findings at once; a full relint follows for cross-record rules."""
        self.diagnostics = [d for d in self.diagnostics if d.path != message.rel] + message.diagnostics
        main = self.main_screen
        if main is not None:
            main.show_problems()
        self.rescan()

    # ------------------------------------------------------------------ external changes

    def poll_changes(self) -> None:
        if not self.store.loaded or (self.watcher is not None and not self.watcher.should_poll()):
            return
        self._poll_worker(self.store.stats())

    def rescan(self) -> None:
        """Look for changed files now (after a save, or on request)."""
        if self.store.loaded:
            self._poll_worker(self.store.stats())

    @work(thread=True, exclusive=True, group="poll", exit_on_error=False)
    def _poll_worker(self, known: dict) -> None:
        changes = RecordStore.changes_since(self.ws, known)
        if (changes or changes.restamped) and not get_current_worker().is_cancelled:
            self.post_message(RecordsChanged(changes))

    @on(RecordsChanged)
    def _on_records_changed(self, message: RecordsChanged) -> None:
        changes = message.changes
        # A poll started before an earlier change was applied may report it again: drop what we have.
        changes.updated = [e for e in changes.updated if (old := self.store.get(e.rel)) is None
                           or old.stat != e.stat]
        changes.removed = [rel for rel in changes.removed if rel in self.store.entries]
        if not changes:
            self.store.apply(changes)  # only signatures that moved with the text unchanged
            return
        self.store.apply(changes)
        main = self.main_screen
        if main is not None:
            main.refresh_records()
        for editor in self._editors():
            editor.disk_changed(changes.rels)
        self.start_lint()

    # ------------------------------------------------------------------ navigation

    def open_editor(self, rel: str, line: int | None = None, col: int | None = None) -> None:
        entry = self.store.get(rel)
        path = entry.path if entry is not None else self.ws.root / rel
        for editor in self._editors():
            if editor.rel == rel:
                self.notify(f"{rel} is already open", severity="warning")
                return
        self.push_screen(EditorScreen(self.ws, path, line=line, col=col))

    def action_new_record(self) -> None:
        main = self.main_screen
        kind = main.selected_kind() if main is not None else None

        def created(request: NewRecordRequest | None) -> None:
            if request is None:
                return
            path = path_for(self.ws, request.kind, request.slug)
            kinds = self.ws.config.records.knowledge_kinds
            default = kinds[0] if kinds else "fact"
            text = record_template(request.kind, request.slug,
                                   knowledge_kind=knowledge_kind_for(request.slug, kinds, default))
            self.push_screen(EditorScreen(self.ws, path, new_text=text))

        self.push_screen(NewRecordModal(self.ws, kind) if kind else NewRecordModal(self.ws), created)

    def action_compose(self) -> None:
        self.push_screen(ComposeScreen(standalone=False))

    # ------------------------------------------------------------------ runs, history, usage

    def _run_open(self) -> bool:
        from .screens.review import ReviewScreen
        from .screens.runs import RunsScreen

        if any(isinstance(s, RunsScreen | ReviewScreen) and not getattr(s, "readonly", False)
               for s in self.screen_stack):
            self.notify("A run is already open: finish or discard it first.", severity="warning")
            return True
        return False

    def action_run_phase1(self) -> None:
        from .core.sessions.discover import discover_logs
        from .screens.runs import RunsScreen

        if not self._run_open():
            self.push_screen(RunsScreen("phase1", logs=discover_logs(self.ws.root, extra_folders=self.log_folders)))

    def action_run_phase2(self) -> None:
        from .screens.runs import RunsScreen

        if not self._run_open():
            self.push_screen(RunsScreen("phase2"))

    def action_run_gc(self) -> None:
        from .screens.runs import RunsScreen

        if not self._run_open():
            self.push_screen(RunsScreen("gc"))

    def action_runs_history(self) -> None:
        from .screens.history import HistoryScreen

        self.push_screen(HistoryScreen())

    def action_usage(self) -> None:
        from .screens.usage import UsageScreen

        self.push_screen(UsageScreen())

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, HelpModal):
            return
        keys: list[tuple[str, str]] = []
        seen: set[str] = set()
        # yoi's own actions first (their ids start with "yoi."), then Textual's (cursor keys, focus...).
        ranked = sorted(screen.active_bindings.values(),
                        key=lambda active: 0 if (active.binding.id or "").startswith("yoi.") else 1)
        for active in ranked:
            binding = active.binding
            if not binding.description or binding.system or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append((self.get_key_display(binding), binding.description))
        title = getattr(screen, "HELP_TITLE", "yoi")
        intro = getattr(screen, "HELP_TEXT", "")
        self.push_screen(HelpModal(title, intro, keys))

    async def action_quit(self) -> None:
        dirty = [e for e in self._editors() if e.dirty]
        if not dirty:
            self.exit()
            return
        def answered(value: str | None) -> None:
            if value == "quit":
                self.exit()

        names = ", ".join(e.rel for e in dirty)
        self.push_screen(ChoiceModal("Unsaved changes", f"{names} has unsaved changes. Quit anyway?",
                                     [Choice("d", "Discard and quit", "quit", "error"),
                                      Choice("c", "Cancel", "cancel")], id="quit-confirm"), answered)

    # ------------------------------------------------------------------ palette

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The pipeline's entries ("Run Phase 1"...), every binding of the current screen as a palette
        entry ("area: Action"), then Textual's own."""
        area = getattr(screen, "PALETTE_AREA", "app")
        seen: set[str] = set()
        if self.mode != "compose":
            for title, action, help_text in PIPELINE_COMMANDS:
                seen.add(f"app.{action}")
                yield SystemCommand(title, help_text, lambda act=action: self.call_later(self.run_action, act))
        for _key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.description or binding.system or binding.action in seen or not active.enabled:
                continue
            if not (binding.id or "").startswith("yoi."):
                continue  # a widget's own cursor keys ("Cursor to next ancestor") are no commands
            seen.add(binding.action)
            namespace, action = active.node, binding.action
            yield SystemCommand(f"{area}: {binding.description}",
                                binding.tooltip or binding.description,
                                lambda node=namespace, act=action: self.call_later(self._run_bound, node, act))
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit",):
                yield command

    async def _run_bound(self, node: object, action: str) -> None:
        await self.run_action(action, node)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ errors

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            if event.worker.group == "lint":
                self.linting = False
            message = error.message if isinstance(error, YoiError) else f"{type(error).__name__}: {error}"
            self.notify(f"{event.worker.group or event.worker.name} failed: {message}", severity="error")


def make_app(workspace: Workspace | Path | str, *, mode: str = "browse", label: str | None = None,
             poll_seconds: float | None = DEFAULT_POLL_SECONDS, cursor_blink: bool = True,
             inline_load_max: int = INLINE_LOAD_MAX, log_folders: Iterable[Path] = (),
             llm_model: object = None, fixed_now: datetime | None = None,
             driver_class: type | None = None) -> YoiApp:
    """The app over ``workspace`` (``mode``: "browse" or "compose"); used by main and the tests."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    _ = ws.config  # a bad config fails here, as a YoiError naming the key, before the screen opens
    return YoiApp(ws, mode=mode, label=label, poll_seconds=poll_seconds, cursor_blink=cursor_blink,
                  inline_load_max=inline_load_max, log_folders=log_folders, llm_model=llm_model,
                  fixed_now=fixed_now, driver_class=driver_class)
