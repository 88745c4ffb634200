"""The editor: raw text of one record (frontmatter + body) with live lint and a safe save.

- Live lint: every change restarts a short timer (``LINT_DELAY``); when it fires, an exclusive
  thread worker lints the buffer with ``lint_text``. Each run carries the buffer's version and a
  result for an older version is dropped, so findings never describe text that is gone.
- Save (ctrl+s) is atomic (``writer.save_text``) and passes the text as it was when opened: if
  the file changed on disk since, the user chooses reload / overwrite / cancel. A new record is
  saved with "the file must not exist", so a record created meanwhile is never overwritten.
- Leaving with unsaved changes asks (save / discard / cancel).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TextArea
from textual.worker import get_current_worker

from ..core.diagnostics import Diagnostic
from ..core.errors import RecordChangedError, RecordLockedError, YoiError
from ..core.lint import WorkspaceIndex, lint_text
from ..core.store.atomic import is_locked
from ..core.store.reader import decode_record_bytes, read_record
from ..core.store.safe_read import NotRegularFile, read_regular_bytes
from ..core.store.workspace import Workspace
from ..core.store.writer import render_record, save_text
from ..messages import RecordSaved
from ..widgets.header import AppHeader
from ..widgets.problems import ProblemsPanel, counts_text
from ..widgets.record_editor import RecordTextArea
from .dialogs import Choice, ChoiceModal

LINT_DELAY = 0.35  # seconds of typing pause before the buffer is linted


@dataclass
class BufferLinted(Message):
    """One live-lint run finished for buffer ``version``."""

    version: int
    diagnostics: list[Diagnostic]


class EditorScreen(Screen[None]):
    """Edit one record file; ``new_text`` opens an unsaved new record at ``path``."""

    HELP_TITLE = "yoi — edit a record"
    HELP_TEXT = (
        "You edit the whole file: the YAML frontmatter between the '---' lines, then the Markdown "
        "body. The file is linted a moment after you stop typing; findings are listed below and "
        "counted in the status line. ctrl+s saves atomically; if someone changed the file on disk "
        "since you opened it, you choose whether to reload, overwrite or cancel. Esc leaves "
        "(asking first when there are unsaved changes)."
    )
    PALETTE_AREA = "editor"

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", tooltip="Save the file atomically", priority=True, id="yoi.editor.save"),
        Binding("escape", "close", "Close", tooltip="Close the editor (asks about unsaved changes)",
                priority=True, id="yoi.editor.close"),
        Binding("f8", "next_problem", "Next problem", tooltip="Move the cursor to the next finding",
                id="yoi.editor.next-problem"),
        Binding("f2", "toggle_focus", "Problems ⇄ text", tooltip="Switch focus between text and problems",
                id="yoi.editor.toggle-focus"),
        Binding("ctrl+l", "lint_now", "Lint now", tooltip="Lint the buffer now", id="yoi.editor.lint"),
    ]

    def __init__(self, ws: Workspace, path: Path, *, line: int | None = None, col: int | None = None,
                 new_text: str | None = None) -> None:
        super().__init__(classes="editor")
        self.ws = ws
        self.path = Path(path)
        self.rel = ws.rel(self.path)
        self.is_new = new_text is not None
        self._initial = new_text
        self._start = (max(0, (line or 1) - 1), max(0, (col or 1) - 1)) if line else None
        self.original: str | None = None  # the file's text when opened (None: new file)
        self.bom = False
        self.version = 0
        self.linted_version = -1
        self.diagnostics: list[Diagnostic] = []
        self.changed_on_disk = False
        self._lint_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        yield Static(id="editor-status")
        yield RecordTextArea(id="editor-text")
        yield ProblemsPanel(title="Problems in this file", show_path=False, id="editor-problems")
        yield Footer()

    def on_mount(self) -> None:
        area = self.text_area
        area.cursor_blink = self.app.cursor_blink  # type: ignore[attr-defined]
        if self._initial is not None:
            text = self._initial
        else:
            loaded = self._read_disk()
            if loaded is None:
                self.app.pop_screen()
                return
            text = loaded
            self.original = text
        with self.prevent(TextArea.Changed):
            area.load_text(text)
        if self._start is not None:
            area.cursor_location = self._clamp(self._start)
            area.scroll_cursor_visible(center=True, animate=False)
        area.focus()
        self._update_status()
        self._start_lint()
        if not self.is_new and is_locked(self.path):
            # Say it now, not only when ctrl+s fails after the person has typed their changes.
            self.notify(f"{self.rel} is locked (read-only): you can read it, but saving needs its write bit "
                        "back (chmod u+w)", severity="warning", timeout=8)

    def _clamp(self, location: tuple[int, int]) -> tuple[int, int]:
        row = min(location[0], self.text_area.document.line_count - 1)
        col = min(location[1], len(self.text_area.document.get_line(row)))
        return row, col

    def _read_disk(self) -> str | None:
        """The file's text (BOM remembered), or None after telling the user why it cannot be edited."""
        if self.path.is_symlink() and not self.ws.contains(self.path):
            # The reader refuses links out of the workspace; the editor must not read through them either.
            self.notify(f"{self.rel} is a symlink pointing outside the workspace; not opened", severity="error")
            return None
        try:
            data = read_regular_bytes(self.path)  # never blocks: a FIFO named like a record is refused
        except FileNotFoundError:
            self.notify(f"{self.rel} no longer exists", severity="error")
            return None
        except NotRegularFile as exc:
            self.notify(f"{self.rel} {exc.message}", severity="error")
            return None
        except OSError as exc:
            self.notify(f"{self.rel}: cannot read: {exc.strerror or exc}", severity="error")
            return None
        text, bom, diags = decode_record_bytes(data, self.rel)
        if text is None:
            reason = diags[-1].message if diags else "not UTF-8 text"
            self.notify(f"{self.rel}: {reason}; not opened", severity="error")
            return None
        self.bom = bom
        return text

    # ------------------------------------------------------------------ state

    @property
    def text_area(self) -> RecordTextArea:
        return self.query_one("#editor-text", RecordTextArea)

    @property
    def text(self) -> str:
        return self.text_area.text

    @property
    def dirty(self) -> bool:
        return self.is_new or self.text != self.original

    def _update_status(self) -> None:
        status = Text()
        status.append(self.rel, style="bold")
        if self.is_new:
            status.append("  new file", style="bold cyan")
        elif self.dirty:
            status.append("  ● modified", style="bold yellow")
        else:
            status.append("  saved", style="dim")
        if self.changed_on_disk:
            status.append("  changed on disk", style="bold magenta")
        status.append("   ")
        if self.linted_version == self.version:
            errors = sum(d.is_error for d in self.diagnostics)
            style = "bold red" if errors else ("yellow" if self.diagnostics else "green")
            status.append(("✔ " if not self.diagnostics else "") + counts_text(self.diagnostics), style=style)
        else:
            status.append("linting…", style="dim")
        row, col = self.text_area.cursor_location
        status.append(f"   Ln {row + 1}, Col {col + 1}", style="dim")
        self.query_one("#editor-status", Static).update(status)

    @on(TextArea.Changed, "#editor-text")
    def _changed(self) -> None:
        self.version += 1
        self._update_status()
        if self._lint_timer is not None:
            self._lint_timer.stop()
        self._lint_timer = self.set_timer(LINT_DELAY, self._start_lint)

    @on(TextArea.SelectionChanged, "#editor-text")
    def _moved(self) -> None:
        self._update_status()

    # ------------------------------------------------------------------ live lint

    def _start_lint(self) -> None:
        self._lint_worker(self.text, self.version)

    @work(thread=True, exclusive=True, group="live-lint", exit_on_error=False)
    def _lint_worker(self, text: str, version: int) -> None:
        diagnostics = lint_text(self.ws, self.path, text, WorkspaceIndex.from_names(self.ws))
        if get_current_worker().is_cancelled:
            return  # a newer run replaced this one
        self.post_message(BufferLinted(version, diagnostics))

    @on(BufferLinted)
    def _linted(self, result: BufferLinted) -> None:
        if result.version != self.version:
            return  # stale: the text changed while this run was linting
        self.linted_version = result.version
        self.diagnostics = result.diagnostics
        self.query_one(ProblemsPanel).set_diagnostics(result.diagnostics)
        self._update_status()

    def action_lint_now(self) -> None:
        self._start_lint()

    # ------------------------------------------------------------------ navigation

    @on(ProblemsPanel.ProblemSelected, "#editor-problems")
    def _goto_problem(self, event: ProblemsPanel.ProblemSelected) -> None:
        self._goto(event.diagnostic)

    def _goto(self, diag: Diagnostic) -> None:
        area = self.text_area
        area.cursor_location = self._clamp((diag.line - 1, diag.col - 1))
        area.scroll_cursor_visible(center=True, animate=False)
        area.focus()

    def action_next_problem(self) -> None:
        if not self.diagnostics:
            self.notify("No problems in this file")
            return
        row = self.text_area.cursor_location[0] + 1
        ordered = sorted(self.diagnostics, key=lambda d: (d.line, d.col))
        after = [d for d in ordered if d.line > row]
        self._goto(after[0] if after else ordered[0])

    def action_toggle_focus(self) -> None:
        panel = self.query_one(ProblemsPanel)
        if panel.has_focus:
            self.text_area.focus()
        else:
            panel.focus()

    # ------------------------------------------------------------------ save

    def action_save(self) -> None:
        self._save(check=True)

    def _save(self, *, check: bool, then_close: bool = False) -> bool:
        text = self._bumped(self.text)
        expected: str | None | object = (None if self.is_new else self.original) if check else ...
        try:
            save_text(self.path, text, expected_before=expected, bom=self.bom)
        except RecordChangedError:
            self._ask_conflict(then_close)
            return False
        except RecordLockedError:
            self.notify(f"{self.rel} is locked (read-only); restore its write bit (chmod u+w) to save",
                        severity="error", timeout=8)
            return False
        except YoiError as exc:
            self.notify(f"{self.rel}: {exc.message}", severity="error", timeout=8)
            return False
        self.original = text
        self.is_new = False
        self.changed_on_disk = False
        self._update_status()
        saved_diags = self.diagnostics if self.linted_version == self.version else []
        errors = sum(d.is_error for d in saved_diags)
        note = f" with {counts_text(saved_diags)}" if errors else ""
        self.notify(f"Saved {self.rel}{note}", severity="warning" if errors else "information", timeout=3)
        self.app.post_message(RecordSaved(self.rel, list(saved_diags)))
        if self.linted_version != self.version:
            self._start_lint()
        if then_close:
            self.dismiss()
        return True

    def _bumped(self, text: str) -> str:
        """``text`` with ``updated_at`` set to now when the person changed it and the record has the key
        (a save without changes, or a record whose frontmatter does not parse, is written as it is)."""
        if text == self.original:
            return text
        record = read_record(self.ws, self.path, text=text).record
        if record is None or "updated_at" not in record.meta:
            return text
        bumped = render_record(record, {"updated_at": datetime.now(UTC).replace(microsecond=0)})
        if bumped != text:
            with self.prevent(TextArea.Changed):
                cursor = self.text_area.cursor_location
                self.text_area.load_text(bumped)
                self.text_area.cursor_location = self._clamp(cursor)
        return bumped

    def _ask_conflict(self, then_close: bool) -> None:
        def answered(value: str | None) -> None:
            if value == "reload":
                self._reload()
            elif value == "overwrite":
                self._save(check=False, then_close=then_close)

        what = "was created by someone else" if self.is_new else "changed on disk since you opened it"
        self.app.push_screen(ChoiceModal(
            "File changed on disk",
            f"{self.rel} {what}. Reload it (your edits are dropped), overwrite it with your text, or "
            "cancel and keep editing?",
            [Choice("r", "Reload", "reload"), Choice("o", "Overwrite", "overwrite", "error"),
             Choice("c", "Cancel", "cancel", "primary")], id="conflict"), answered)

    def _reload(self) -> None:
        text = self._read_disk()
        if text is None:
            return
        self.original = text
        self.is_new = False
        self.changed_on_disk = False
        self.text_area.load_text(text)  # posts Changed: relints
        self._update_status()
        self.notify(f"Reloaded {self.rel} from disk", timeout=3)

    def disk_changed(self, rels: list[str]) -> None:
        """The App saw ``rels`` change on disk; mark this buffer if its file is one of them."""
        if self.rel not in rels or self.is_new:
            return
        current = self._peek_disk()
        if current is not None and current == self.original:
            return  # our own save
        self.changed_on_disk = True
        self._update_status()
        self.notify(f"{self.rel} changed on disk; saving will ask before overwriting", severity="warning",
                    timeout=5)

    def _peek_disk(self) -> str | None:
        try:
            data = read_regular_bytes(self.path)
        except (OSError, NotRegularFile):
            return None
        text, _bom, _diags = decode_record_bytes(data, self.rel)
        return text

    # ------------------------------------------------------------------ leave

    def action_close(self) -> None:
        if not self.dirty:
            self.dismiss()
            return

        def answered(value: str | None) -> None:
            if value == "save":
                self._save(check=True, then_close=True)
            elif value == "discard":
                self.dismiss()

        self.app.push_screen(ChoiceModal(
            "Unsaved changes",
            f"{self.rel} has unsaved changes.",
            [Choice("s", "Save", "save", "primary"), Choice("d", "Discard", "discard", "error"),
             Choice("c", "Cancel", "cancel")], id="unsaved"), answered)
