"""After an apply: what was applied, rejected, deferred and conflicted, with revert on ``u``.

Revert has ``yoi revert`` semantics: it asks first, restores the exact bytes the run replaced and
the staging it consumed, and reports every file changed since (left as it is).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..core.errors import YoiError
from ..core.runs.changeset import RevertResult, revert
from ..widgets.header import AppHeader
from .dialogs import Choice, ChoiceModal


def describe_apply(result: Any) -> Text:
    """The apply result as a few labelled lists."""
    text = Text()
    text.append(f"Run {result.run_id}\n\n", style="bold")
    sections = [("Applied", [f"{c.op:<6} {c.path}" for c in result.applied], "green"),
                ("Rejected", [c.path for c in result.rejected], "red"),
                ("Deferred", [c.path for c in getattr(result, "deferred", [])], "yellow"),
                ("Conflicts (left as they are)", [f"{c.path}: {why}" for c, why in result.conflicts], "magenta"),
                ("Staging consumed", list(result.inputs_deleted), "dim"),
                ("Staging kept", [f"{k}: {v}" for k, v in result.inputs_kept.items()], "dim")]
    if not result.inputs_deleted and not result.inputs_kept:
        sections = sections[:4]  # GC consumes no staging: no staging lines
    for title, lines, style in sections:
        text.append(f"{title}: {len(lines)}\n", style=f"bold {style}")
        for line in lines:
            text.append(f"  {line}\n")
    return text


def describe_revert(result: RevertResult) -> Text:
    text = Text()
    text.append(f"Reverted run {result.run_id}\n", style="bold")
    text.append(f"restored {len(result.restored)} file(s)", style="green")
    if result.already:
        text.append(f", {len(result.already)} already as before")
    if result.inputs_restored:
        text.append(f", {len(result.inputs_restored)} staging file(s) put back")
    text.append("\n")
    for path, why in result.refused:
        text.append(f"  refused {path}: {why}\n", style="red")
    return text


class Reverted(Message):
    def __init__(self, result: RevertResult | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


def confirm_revert(screen: Screen, run_id: str, then: Any, *, purpose: str | None = None) -> None:
    """Ask before reverting ``run_id`` (a ``purpose`` "gc" run has no staging to put back: not
    mentioned); ``then()`` starts the revert."""
    staging = "" if purpose == "gc" else " and the staging it consumed is put back"
    screen.app.push_screen(
        ChoiceModal("Revert this run?", f"Run {run_id}: every file it wrote goes back to its exact bytes{staging}. "
                    "A file edited since is left as it is and reported.",
                    [Choice("y", "Revert", "revert", "warning"), Choice("n", "Back", "cancel")], id="revert-confirm"),
        lambda value: then() if value == "revert" else None)


def revert_run(ws: Any, run_id: str) -> Reverted:
    """Revert ``run_id`` (from a screen's worker thread) as the message the screen then handles."""
    try:
        return Reverted(revert(ws, run_id))
    except YoiError as exc:
        return Reverted(None, exc.message)


class ResultScreen(Screen[None]):
    """The outcome of one apply (see the module docstring)."""

    HELP_TITLE = "yoi — run result"
    HELP_TEXT = "What the run applied, rejected, deferred and left alone. u reverts the run; Esc closes."
    PALETTE_AREA = "result"
    BINDINGS = [
        Binding("u", "revert", "Revert run", tooltip="Undo this run (asks first)", id="yoi.result.revert"),
        Binding("escape,enter", "close", "Close", tooltip="Back to the records", id="yoi.result.close"),
    ]

    def __init__(self, kind: str, result: Any) -> None:
        super().__init__(id="result")
        self.kind = kind
        self.result = result
        self.reverted: RevertResult | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        with VerticalScroll(id="result-body", classes="pane"):
            yield Static(describe_apply(self.result), id="result-text")
            yield Static(id="revert-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#result-body").border_title = f"{'GC' if self.kind == 'gc' else 'Phase 2'}: result"

    def action_revert(self) -> None:
        if not self.result.applied:
            self.notify("Nothing was applied: nothing to revert.", severity="warning")
            return
        confirm_revert(self, self.result.run_id, lambda: self._revert_worker(self.result.run_id), purpose=self.kind)

    @work(thread=True, exclusive=True, group="revert", exit_on_error=False)
    def _revert_worker(self, run_id: str) -> None:
        self.post_message(revert_run(self.app.ws, run_id))  # type: ignore[attr-defined]

    @on(Reverted)
    def _reverted(self, message: Reverted) -> None:
        if message.result is None:
            self.notify(f"Not reverted: {message.error}", severity="error")
            return
        self.reverted = message.result
        self.query_one("#revert-text", Static).update(describe_revert(message.result))
        self.app.rescan()  # type: ignore[attr-defined]

    def action_close(self) -> None:
        self.dismiss(None)
