"""The usage screen: per-record frequency per million tokens, invokes, protection and last use
(sortable with ``s``), the knowledge candidate report, and invokes over the token clock.

The chart is Textual's own ``Sparkline``: one bar per slice of the token clock, its height the
invokes in that slice. It ships with Textual (no new dependency), draws in one row per few lines of
height, and a bar chart of counts is all this question needs ("is the memory used more, or less,
as the project goes on?"); a plotting widget (textual-plotext) would add a dependency and axes we
would not read.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Sparkline, Static

from ..core.usage.log import RecordStat, UsageSummary, load_events, usage_report
from ..widgets.header import AppHeader

BUCKETS = 40
SORTS = ("frequency", "invokes", "last use", "record")


def last_use(stat: RecordStat) -> str:
    """The date of the record's last invoke, from its UUIDv7 event id ("" when never invoked)."""
    if not stat.last_invoke_id:
        return ""
    try:
        millis = int(stat.last_invoke_id.replace("-", "")[:12], 16)
        return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%d")
    except ValueError:
        return ""


def invokes_over_clock(events: list[dict], buckets: int = BUCKETS) -> list[int]:
    """Invokes per slice of the token clock (``buckets`` equal slices from 0 to the clock's end)."""
    clock = 0
    at: list[int] = []
    for event in events:
        if event["type"] == "tokens":
            clock += event["input_tokens"]
        elif event["type"] == "invoke":
            at.append(clock)
    counts = [0] * buckets
    if not at:
        return counts
    width = max(clock, 1) / buckets
    for tick in at:
        counts[min(int(tick / width), buckets - 1)] += 1
    return counts


def sort_stats(stats: list[RecordStat], key: str) -> list[RecordStat]:
    if key == "invokes":
        return sorted(stats, key=lambda s: (-s.invokes, s.kind, s.slug))
    if key == "last use":
        return sorted(stats, key=lambda s: (s.last_invoke_id or "", s.slug), reverse=True)
    if key == "record":
        return sorted(stats, key=lambda s: (s.kind, s.slug))
    return sorted(stats, key=lambda s: (-s.frequency, s.kind, s.slug))


class UsageScreen(Screen[None]):
    """See the module docstring."""

    HELP_TITLE = "yoi — usage"
    HELP_TEXT = ("How often each record is invoked, per million input tokens of the token clock (the same "
                 "figures as `yoi usage`). Protected records are never dropped by GC. The candidate report "
                 "lists what Phase 2 may turn into knowledge. s changes the sort; Esc closes.")
    PALETTE_AREA = "usage"
    BINDINGS = [
        Binding("s", "sort", "Sort", tooltip="Sort by frequency, invokes, last use or record", id="yoi.usage.sort"),
        Binding("escape", "close", "Close", tooltip="Back", id="yoi.usage.close"),
    ]

    def __init__(self) -> None:
        super().__init__(id="usage")
        self.sort = SORTS[0]
        self.stats: list[RecordStat] = []
        self.summary = UsageSummary()
        self.curve: list[int] = []

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        yield DataTable(id="usage-table", cursor_type="row", zebra_stripes=True, classes="pane")
        with Horizontal(id="usage-bottom"):
            with Vertical(id="usage-chart-pane", classes="pane"):
                yield Sparkline([], id="usage-chart")
                yield Static(id="usage-chart-caption")
            yield Static(id="usage-candidates", classes="pane")
        yield Footer()

    def on_mount(self) -> None:
        ws = self.app.ws  # type: ignore[attr-defined]
        self.stats, self.summary = usage_report(ws)
        events, _problems = load_events(ws)
        self.curve = invokes_over_clock(events)
        table = self.query_one(DataTable)
        table.add_columns("record", "kind", "invokes", "sessions", "freq/Mtok", "protected", "candidate", "last use")
        self._fill()
        table.focus()
        chart = self.query_one("#usage-chart", Sparkline)
        chart.data = self.curve
        self.query_one("#usage-chart-pane").border_title = "Invokes over the token clock"
        clock_m = self.summary.clock / 1_000_000
        self.query_one("#usage-chart-caption", Static).update(Text(
            f"0 → {clock_m:.1f}M tokens · {self.summary.invokes} invokes in {self.summary.sessions} session(s)",
            style="dim"))
        candidates = self.query_one("#usage-candidates", Static)
        candidates.border_title = "Knowledge candidates (Phase 2 reads this)"
        cands = sorted((s for s in self.stats if s.candidate), key=lambda s: (-s.candidate_frequency, s.slug))
        text = Text()
        for stat in cands:
            text.append(f"{stat.kind}/{stat.slug}", style="bold")
            text.append(f"  {stat.candidate_frequency:.1f}/Mtok, {stat.sessions} sessions\n")
        if not cands:
            text.append("No record is invoked often enough from enough sessions yet.", style="dim")
        for problem in self.summary.problems[:3]:
            text.append(f"\n{problem.path}:{problem.line}: {problem.message}", style="yellow")
        candidates.update(text)

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        table.border_title = f"Records by {self.sort}"
        for stat in sort_stats(self.stats, self.sort):
            table.add_row(stat.slug, stat.kind, str(stat.invokes), str(stat.sessions), f"{stat.frequency:.1f}",
                          "yes" if stat.protected else "", "yes" if stat.candidate else "", last_use(stat))

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)
