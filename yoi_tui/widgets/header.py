"""The app's header: Textual's ``Header`` without its teardown race.

Textual 8.2.8's header copies the title in an async watcher. When a screen is popped while that
copy is still queued (a review applied and closed at once, the app exiting), the watcher finds
its ``HeaderTitle`` already removed and ``NoMatches`` escapes from the app's exit: seen in CI as
a failed test under load. There is no title left to show then, so the copy is skipped, as
Textual already skips it for ``NoScreen``. Pinned Textual (pyproject) keeps this in step.
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widget import Widget
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class AppHeader(Header):
    """``Header`` whose title updates tolerate a header being torn down."""

    def _on_mount(self, event: Mount) -> None:
        # Textual calls every class's _on_mount along the MRO: stop before Header's own (whose
        # watchers would still raise) and do what Widget's does (scrollbars) by hand.
        event.prevent_default()
        Widget._on_mount(self, event)

        async def set_title() -> None:
            try:
                self.query_one(HeaderTitle).update(self.format_title())
            except (NoScreen, NoMatches):
                pass

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
