"""The selected record: its frontmatter as a field table and its body rendered as Markdown.

The body is rendered from the parsed record (frontmatter already split off); the Markdown parser
also carries the front-matter plugin, so a raw file shown for an unparseable record never renders
its YAML as a rule plus a heading.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from rich.console import Group as RichGroup
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from ..model.browse import RecordEntry


def _parser() -> MarkdownIt:
    return MarkdownIt("gfm-like").use(front_matter_plugin)


def format_value(value: Any) -> Text:
    """A frontmatter value as short, readable text (sources as 'session [a, b]' lines)."""
    if isinstance(value, bool):
        return Text("true" if value else "false", style="magenta")
    if value is None:
        return Text("null", style="dim")
    if isinstance(value, datetime | date):
        return Text(value.isoformat(), style="cyan")
    if isinstance(value, list):
        if not value:
            return Text("[]", style="dim")
        if all(not isinstance(item, list | dict) for item in value):
            return Text("[" + ", ".join(str(item) for item in value) + "]")
        lines = Text()
        for position, item in enumerate(value):
            if position:
                lines.append("\n")
            if isinstance(item, dict) and "session_id" in item:
                rng = item.get("range")
                lines.append(str(item.get("session_id")), style="green")
                lines.append(f" {rng}" if rng is not None else "", style="dim")
            else:
                lines.append(f"- {item}")
        return lines
    if isinstance(value, dict):
        return Text(", ".join(f"{k}: {v}" for k, v in value.items()))
    return Text(str(value))


def fields_table(entry: RecordEntry) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    record = entry.record
    if record is None:
        return table
    for key, value in record.meta.items():
        table.add_row(key, format_value(value))
    return table


def _unparsed_hint(entry: RecordEntry) -> str:
    """What the user can do: text that does not parse is fixed in the editor; a file that cannot be
    read at all (no permission, a FIFO or device in the record's place) the editor cannot open either."""
    if any(d.rule == "file-unreadable" for d in entry.problems):
        return "This file cannot be read, so the editor cannot open it; fix it outside the app (below)."
    return "This record cannot be parsed; press e to fix it in the editor."


class RecordView(VerticalScroll):
    """Field table + Markdown body of one record (or its reading problems when unparseable)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rel: str | None = None
        self.can_focus = True

    def compose(self) -> ComposeResult:
        yield Static(id="record-fields")
        yield Markdown("", id="record-body", parser_factory=_parser)

    async def show(self, entry: RecordEntry | None) -> None:
        fields = self.query_one("#record-fields", Static)
        body = self.query_one("#record-body", Markdown)
        if entry is None:
            self.rel = None
            self.border_title = "Record"
            fields.update(Text("No record selected. Pick one in the tree (↑/↓), or press / to filter.",
                               style="dim"))
            await body.update("")
            return
        self.rel = entry.rel
        self.border_title = entry.rel
        if entry.record is None:
            if not entry.loaded:
                fields.update(Text("loading…", style="dim"))
                await body.update("")
                return
            problems = [Text(f"{d.rule}: {d.message}", style="red") for d in entry.problems]
            fields.update(RichGroup(Text(_unparsed_hint(entry), style="bold red"), *problems))
            await body.update("")
            return
        fields.update(fields_table(entry))
        await body.update(entry.record.body)
        self.scroll_home(animate=False)
