"""The composer: write a prompt, complete ``#slug``s, preview the prompt as an agent receives it.

The preview is ``core.retrieval.expand.expand_prompt`` run without recording usage (a keystroke is not an
invoke), after a short pause, in a thread worker; results for older text are dropped. Unknown
``#slug``s are highlighted in red, expanded ones in green. Finishing (ctrl+j) expands once more,
this time recording the invokes, then either exits with the text (``yoi-tui compose`` prints it to
stdout) or, inside the browser, copies it to the clipboard.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TextArea
from textual.worker import get_current_worker

from ..core.retrieval.expand import ExpandResult, expand_prompt
from ..core.retrieval.slugrefs import iter_slug_refs
from ..core.text.markers import KNOWLEDGE_END
from ..widgets.header import AppHeader
from ..widgets.slug_complete import PromptTextArea, SlugAutoComplete
from .dialogs import Choice, ChoiceModal

PREVIEW_DELAY = 0.2


@dataclass
class PreviewReady(Message):
    version: int
    result: ExpandResult


def render_preview(result: ExpandResult) -> Text:
    """The expanded prompt with ``#slug``s styled: green expanded, red unknown; blocks dimmed."""
    text = Text(result.text)
    unknown = {ref.slug for ref in result.unknown}
    prompt_end = len(result.text)
    first_block = result.text.find('<yoi-knowledge slug="')
    if first_block >= 0:
        prompt_end = first_block
    for ref in iter_slug_refs(result.text[:prompt_end]):
        if ref.slug in unknown:
            text.stylize("bold white on red", ref.start, ref.end)
        else:
            text.stylize("bold green", ref.start, ref.end)
    start = first_block
    while start >= 0:
        header_end = result.text.find("\n", start)
        end = result.text.find(KNOWLEDGE_END, start)
        if header_end < 0 or end < 0:
            break
        text.stylize("bold cyan", start, header_end)
        text.stylize("cyan", end, end + len(KNOWLEDGE_END))
        start = result.text.find('<yoi-knowledge slug="', end)
    return text


def summary_line(result: ExpandResult) -> str:
    parts = [f"{len(result.expanded)} expanded"]
    if result.unknown:
        names = ", ".join(dict.fromkeys(f"#{ref.slug}" for ref in result.unknown))
        parts.append(f"{len(result.unknown)} unknown: {names}")
    return " · ".join(parts)


class ComposeScreen(Screen[None]):
    """Prompt editor with ``#`` completion and a live preview of the expanded prompt."""

    HELP_TITLE = "yoi — compose a prompt"
    HELP_TEXT = (
        "Type your prompt. Typing # lists the knowledge records you can reference (fuzzy: a few "
        "letters are enough), each with its description; ↑/↓ choose, Enter or Tab completes, Esc "
        "closes the list. The right pane shows the prompt as the agent will receive it: each "
        "referenced record's body appended in a delimited block; a #slug that names no usable "
        "record is highlighted in red. ctrl+j finishes: `yoi-tui compose` prints the expanded "
        "prompt to stdout (claude \"$(yoi-tui compose)\"); inside the browser it is copied to the "
        "clipboard."
    )
    PALETTE_AREA = "compose"

    BINDINGS = [
        Binding("ctrl+j", "finish", "Finish", tooltip="Expand and finish (print or copy)", priority=True,
                id="yoi.compose.finish"),
        Binding("escape", "leave", "Close", tooltip="Close the composer", id="yoi.compose.close"),
        Binding("f2", "toggle_focus", "Prompt ⇄ preview", tooltip="Switch focus to the preview and back",
                id="yoi.compose.toggle-focus"),
    ]

    def __init__(self, *, standalone: bool, text: str = "") -> None:
        super().__init__(id="compose")
        self.standalone = standalone
        self._initial = text
        self.version = 0
        self.previewed_version = -1
        self.result: ExpandResult | None = None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        with Horizontal(id="compose-body"):
            with Vertical(id="prompt-pane"):
                yield PromptTextArea(self._initial, id="prompt")
            with VerticalScroll(id="preview-pane"):
                yield Static(id="preview")
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one(PromptTextArea)
        area.cursor_blink = self.app.cursor_blink  # type: ignore[attr-defined]
        self.query_one("#prompt-pane").border_title = "Prompt — # to reference knowledge"
        self.query_one("#preview-pane").border_title = "Expanded prompt (as the agent receives it)"
        self.mount(SlugAutoComplete(area, self._candidates, id="slug-complete"))
        area.focus()
        self._preview_worker(area.text, self.version)

    def _candidates(self) -> list[tuple[str, str]]:
        return self.app.store.knowledge_candidates()  # type: ignore[attr-defined]

    @property
    def completer(self) -> SlugAutoComplete:
        return self.query_one(SlugAutoComplete)

    @property
    def prompt_text(self) -> str:
        return self.query_one(PromptTextArea).text

    @on(TextArea.Changed, "#prompt")
    def _changed(self) -> None:
        self.version += 1
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(PREVIEW_DELAY, lambda: self._preview_worker(self.prompt_text, self.version))

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _preview_worker(self, text: str, version: int) -> None:
        result = expand_prompt(self.app.ws, text, record=False)  # type: ignore[attr-defined]
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewReady(version, result))

    @on(PreviewReady)
    def _preview_ready(self, message: PreviewReady) -> None:
        if message.version != self.version:
            return
        self.previewed_version = message.version
        self.result = message.result
        preview = self.query_one("#preview", Static)
        if not message.result.text.strip():
            preview.update(Text("The expanded prompt appears here.", style="dim"))
        else:
            preview.update(render_preview(message.result))
        self.query_one("#preview-pane").border_subtitle = summary_line(message.result)

    # ------------------------------------------------------------------ actions

    def action_finish(self) -> None:
        text = self.prompt_text
        if not text.strip():
            self.notify("The prompt is empty", severity="warning")
            return
        result = expand_prompt(self.app.ws, text, record=True)  # type: ignore[attr-defined]
        self.app.composed = result.text  # type: ignore[attr-defined]
        if self.standalone:
            self.app.exit(result.text)
            return
        self.app.copy_to_clipboard(result.text)
        self.notify(f"Expanded prompt copied to the clipboard ({len(result.text):,} characters, "
                    f"{summary_line(result)})", timeout=5)
        self.dismiss()

    def action_leave(self) -> None:
        if self.completer.display:
            self.completer.action_hide()
            return
        if not self.prompt_text.strip():
            self._leave()
            return

        def answered(value: str | None) -> None:
            if value == "leave":
                self._leave()

        self.app.push_screen(ChoiceModal("Discard the prompt?", "The prompt has not been used yet.",
                                         [Choice("d", "Discard", "leave", "error"),
                                          Choice("c", "Keep editing", "cancel", "primary")],
                                         id="discard-prompt"), answered)

    def _leave(self) -> None:
        if self.standalone:
            self.app.exit(None)
        else:
            self.dismiss()

    def action_toggle_focus(self) -> None:
        area = self.query_one(PromptTextArea)
        if area.has_focus:
            self.query_one("#preview-pane").focus()
        else:
            area.focus()
