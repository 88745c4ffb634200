"""``#slug`` completion in a multi-line prompt: a TextArea adapter for textual-autocomplete 4.0.6.

textual-autocomplete only supports ``Input`` targets. ``SlugAutoComplete`` points it at a
``TextArea`` by overriding three private methods (``target``, ``_get_target_state``,
``_listen_to_messages``, ``_complete``) — the library is pinned to 4.0.6 for that reason and the
Pilot/snapshot tests cover the behaviour. ``PromptTextArea`` swallows Enter while the dropdown is
open: the autocomplete hears keys only after the TextArea has handled them, so without this Enter
would insert a newline instead of completing.

Candidates are the user-invocable knowledge slugs, ranked by ``model.browse.rank_slugs`` (prefix,
substring, subsequence, fuzzy), each shown with its description.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.content import Content
from textual.widgets import TextArea
from textual_autocomplete import AutoComplete, DropdownItem, TargetState

from ..model.browse import rank_slugs, slug_span

DESCRIPTION_WIDTH = 56


class SlugOption(DropdownItem):
    """One dropdown row: ``#slug`` (matched letters bold) and its description, dimmed."""

    def __init__(self, slug: str, description: str, positions: tuple[int, ...] = ()) -> None:
        main = Content(slug)
        for position in positions:
            main = main.stylize("bold $text-accent", position, position + 1)
        super().__init__(main=main, prefix=Content("#"), id=slug)
        description = description if len(description) <= DESCRIPTION_WIDTH else \
            description[:DESCRIPTION_WIDTH - 1] + "…"
        self._set_prompt(Content.assemble(Content("#"), main, "  ", (description, "dim")))
        self.slug = slug


class SlugAutoComplete(AutoComplete):
    """Completes the ``#slug`` at the cursor of a ``TextArea`` from ``candidates()``."""

    DEFAULT_CSS = """
    SlugAutoComplete { max-height: 10; }
    """

    def __init__(self, target: TextArea, candidates: Callable[[], list[tuple[str, str]]],
                 *, id: str | None = None) -> None:
        super().__init__(target, id=id)  # type: ignore[arg-type]
        self._slug_candidates = candidates

    # -- adapter: a TextArea target ------------------------------------------------------------

    @property
    def target(self) -> TextArea:  # type: ignore[override]
        assert isinstance(self._target, TextArea)
        return self._target

    def _get_target_state(self) -> TargetState:
        area = self.target
        return TargetState(area.text, area.document.get_index_from_location(area.cursor_location))

    def _listen_to_messages(self, event: events.Event) -> None:
        super()._listen_to_messages(event)  # up/down/tab/enter/escape while the dropdown is open
        if isinstance(event, TextArea.Changed):  # the base class only reacts to Input.Changed
            self._handle_target_update()

    def _complete(self, option_index: int) -> None:
        if not self.display or self.option_list.option_count == 0:
            return
        option = self.option_list.get_option_at_index(option_index)
        with self.prevent(TextArea.Changed):
            self.apply_completion(option.id or "", self._get_target_state())
        self.post_completion()
        # The completion was applied with Changed suppressed; the owner still wants to know.
        self.target.post_message(TextArea.Changed(self.target))

    # -- hooks ---------------------------------------------------------------------------------

    def get_search_string(self, target_state: TargetState) -> str:
        span = slug_span(target_state.text, target_state.cursor_position)
        return "" if span is None else target_state.text[span[0] + 1: target_state.cursor_position]

    def get_candidates(self, target_state: TargetState) -> list[DropdownItem]:
        return []  # unused: get_matches ranks the candidates itself

    def get_matches(self, target_state: TargetState, candidates: list[DropdownItem],
                    search_string: str) -> list[DropdownItem]:
        if slug_span(target_state.text, target_state.cursor_position) is None:
            return []
        ranked = rank_slugs(search_string, self._slug_candidates())
        return [SlugOption(m.slug, m.description, m.positions) for m in ranked]

    def should_show_dropdown(self, search_string: str) -> bool:
        state = self._get_target_state()
        if slug_span(state.text, state.cursor_position) is None or self.option_list.option_count == 0:
            return False
        if self.option_list.option_count == 1:
            # The only candidate is already typed in full: nothing left to complete.
            return self.option_list.get_option_at_index(0).id != search_string
        return True

    def apply_completion(self, value: str, state: TargetState) -> None:
        span = slug_span(state.text, state.cursor_position)
        if span is None or not value:
            return
        start, end = span
        area = self.target
        location = area.document.get_location_from_index
        after = state.text[end:end + 1]
        # A space after the slug so typing continues with the next word — unless one is there already.
        insert = "#" + value + ("" if after[:1].isspace() or after in (",", ".", ")", ";", ":", "?", "!") else " ")
        result = area.replace(insert, location(start), location(end))
        area.cursor_location = result.end_location

    @property
    def shown_slugs(self) -> list[str]:
        """Slugs in the dropdown, in order (for tests and the help text)."""
        return [self.option_list.get_option_at_index(i).id or "" for i in range(self.option_list.option_count)]


class PromptTextArea(TextArea):
    """The composer's text area: Enter completes while the ``#`` dropdown is open."""

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(text, language=None, soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         id=id, placeholder=Text("Type a prompt; # references knowledge (Enter/Tab completes)",
                                                 style="dim"))

    @property
    def completer(self) -> SlugAutoComplete | None:
        return self.screen.query(SlugAutoComplete).first(None)

    async def _on_key(self, event: events.Key) -> None:
        completer = self.completer
        dropdown_open = completer is not None and completer.display and completer.option_list.option_count > 0
        if dropdown_open and event.key in ("enter", "tab"):
            event.prevent_default()  # the autocomplete completes on this key
            return
        await super()._on_key(event)
