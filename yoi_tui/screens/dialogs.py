"""Modal dialogs: a keyed choice (conflict, unsaved changes), the new-record prompt, and help."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from ..core.store.kinds import RecordKind, path_for
from ..core.store.templates import NEW_RECORD_KINDS, slug_problem
from ..core.store.workspace import Workspace


@dataclass(frozen=True)
class Choice:
    """One answer of a ``ChoiceModal``: its key, its button label, the value it dismisses with."""

    key: str
    label: str
    value: str
    variant: str = "default"


class ChoiceModal(ModalScreen[str]):
    """A question with a few answers, each on its own key; escape picks ``cancel_value``."""

    def __init__(self, title: str, message: str, choices: list[Choice], *, cancel_value: str = "cancel",
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.message = message
        self.choices = choices
        self.cancel_value = cancel_value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            with Horizontal(id="dialog-buttons"):
                for choice in self.choices:
                    # Content, not a markup string: "[r]" is the key hint, not a style tag.
                    yield Button(Content(f"{choice.label} [{choice.key}]"), id=f"choice-{choice.value}",
                                 variant=choice.variant)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def on_key(self, event: events.Key) -> None:
        # The answers' keys are data, not class bindings; the buttons show them.
        if event.key == "escape":
            event.stop()
            self.dismiss(self.cancel_value)
            return
        for choice in self.choices:
            if event.key == choice.key:
                event.stop()
                self.dismiss(choice.value)
                return

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id and event.button.id.startswith("choice-"):
            self.dismiss(event.button.id.removeprefix("choice-"))


@dataclass(frozen=True)
class NewRecordRequest:
    kind: RecordKind
    slug: str


class NewRecordModal(ModalScreen[NewRecordRequest | None]):
    """Pick a kind and type a slug, validated as you type; Enter creates, escape cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="yoi.new.cancel"),
        # Priority: the slug Input has its own ctrl+d/ctrl+k, and the kind keys must win while typing.
        Binding("ctrl+d", "kind('decision')", "Decision", priority=True, id="yoi.new.decision"),
        Binding("ctrl+r", "kind('request')", "Request", priority=True, id="yoi.new.request"),
        Binding("ctrl+k", "kind('knowledge')", "Knowledge", priority=True, id="yoi.new.knowledge"),
    ]

    def __init__(self, ws: Workspace, kind: RecordKind = RecordKind.DECISION) -> None:
        super().__init__(id="new-record")
        self.ws = ws
        self.kind = kind if kind in NEW_RECORD_KINDS else RecordKind.DECISION

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("New record", id="dialog-title")
            with RadioSet(id="new-kind"):
                for kind in NEW_RECORD_KINDS:
                    yield RadioButton(kind.value, value=kind is self.kind, id=f"kind-{kind.value}")
            yield Input(placeholder="slug, e.g. use-sqlite-for-cache", id="new-slug", max_length=80)
            yield Static(id="new-slug-status")
            yield Static(Text("Enter create · Esc cancel · ^d/^r/^k kind", style="dim"), id="new-help")

    def on_mount(self) -> None:
        slug_input = self.query_one("#new-slug", Input)
        slug_input.cursor_blink = self.app.cursor_blink  # type: ignore[attr-defined]
        slug_input.focus()
        self._validate()

    @property
    def slug(self) -> str:
        return self.query_one("#new-slug", Input).value.strip()

    def _validate(self) -> str | None:
        problem = slug_problem(self.ws, self.kind, self.slug)
        status = self.query_one("#new-slug-status", Static)
        if problem is None:
            status.update(Text(f"✓ {self.ws.rel(path_for(self.ws, self.kind, self.slug))}", style="green"))
        else:
            status.update(Text(f"✗ {problem}", style="red" if self.slug else "dim"))
        self.query_one("#new-slug", Input).set_class(problem is not None and bool(self.slug), "-invalid")
        return problem

    @on(Input.Changed, "#new-slug")
    def _slug_changed(self) -> None:
        self._validate()

    @on(RadioSet.Changed, "#new-kind")
    def _kind_changed(self, event: RadioSet.Changed) -> None:
        self.kind = RecordKind(str(event.pressed.label))
        self._validate()

    def action_kind(self, kind: str) -> None:
        self.query_one(f"#kind-{kind}", RadioButton).value = True

    @on(Input.Submitted, "#new-slug")
    def _submitted(self) -> None:
        if self._validate() is None:
            self.dismiss(NewRecordRequest(self.kind, self.slug))
        else:
            self.app.bell()

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpModal(ModalScreen[None]):
    """F1: what this screen is for and every key it answers to."""

    BINDINGS = [Binding("escape,f1,q", "close", "Close", id="yoi.help.close")]

    def __init__(self, title: str, intro: str, keys: list[tuple[str, str]]) -> None:
        super().__init__(id="help")
        self.title_text = title
        self.intro = intro
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, description in self.keys:
            table.add_row(key, description)
        with VerticalScroll(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.intro, id="help-intro")
            yield Static(table, id="help-keys")
            yield Static(Text("ctrl+p opens the command palette: every action by name.  Esc closes.", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
