"""The review screen: judge a change set file by file (Phase 2) or operation by operation (GC).

The layout is toad's permissions screen: a list of what was proposed (A/M/D marks, GC grouped by
category) beside the *why* of the highlighted item and a ``DiffView`` of its file(s), unified or
split (``s``). ``a``/``r``/``d`` accept, reject or defer the item, ``A``/``R`` all of them,
``space`` toggles; ``enter`` asks for confirmation (counting the files) and applies the accepted
files through the change-set machinery (atomic, journalled, conflicts left alone). Rejected items
consume their staging; deferred and undecided ones keep it for a later run. Escape discards the
run (the lock is released, nothing is applied).

Opened on a dry run or on a journalled run from the history, the screen is read-only.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..core.errors import YoiError
from ..core.store.reader import read_exact
from ..messages import ReviewApplied
from ..widgets.header import AppHeader
from .dialogs import Choice, ChoiceModal
from .review_items import HELD_GROUP, ReviewItem, gc_items, phase2_items

DECISION_MARK = {"accept": ("✔", "green"), "reject": ("✘", "red"), "defer": ("⏸", "yellow"), None: ("·", "dim")}
# A journalled file's recorded state (the history's read-only view) -> the mark the review gave it.
STATE_MARK = {"applied": DECISION_MARK["accept"], "rejected": DECISION_MARK["reject"],
              "deferred": DECISION_MARK["defer"], "conflict": ("!", "bold red")}
READONLY_HIDDEN = frozenset({"decide", "decide_all", "toggle", "apply", "withdraw", "close"})
"""Actions a read-only review does not offer (hidden from its footer); ``close_readonly`` stands in
for ``close`` there: Esc only goes back."""


class ReviewScreen(Screen[None]):
    """Decide each proposed item, then apply the accepted ones (see the module docstring)."""

    HELP_TITLE = "yoi — review a change set"
    HELP_TEXT = (
        "Each line is one proposed change: a file for Phase 2 (A added, M modified, D deleted), an "
        "operation for GC (a merge changes several files; they are accepted or rejected together). "
        "The right side shows why it was proposed and the diff. a accept, r reject, d defer (its "
        "staging is kept for a later run), A / R all, space toggles. Enter applies the accepted "
        "files after a confirmation; rejected items are journalled and their staging consumed; "
        "undecided items count as deferred. A rejection is remembered: the same staging items (GC: the "
        "same operation on unchanged files) are not proposed again; they are listed as held back, and w "
        "withdraws the rejection. s switches unified/split diffs. Escape discards the "
        "run: nothing is applied and the lock is released."
    )
    PALETTE_AREA = "review"

    BINDINGS = [
        # The footer shows these in this order and at 80 columns only the first ones fit (issue 28):
        # help first, as on the main screen (the App's own F1 comes last), then the decisions.
        Binding("f1", "app.help", "Help", tooltip="Keys and what this screen does", id="yoi.review.help"),
        Binding("a", "decide('accept')", "Accept", tooltip="Accept the highlighted item", id="yoi.review.accept"),
        Binding("r", "decide('reject')", "Reject", tooltip="Reject the highlighted item (not proposed again)",
                id="yoi.review.reject"),
        Binding("d", "decide('defer')", "Defer", tooltip="Defer the highlighted item (proposed again next run)",
                id="yoi.review.defer"),
        Binding("A", "decide_all('accept')", "Accept all", tooltip="Accept every item", id="yoi.review.accept_all",
                show=False),  # in F1's list and the palette; the footer keeps room for Discard
        Binding("R", "decide_all('reject')", "Reject all", tooltip="Reject every item", id="yoi.review.reject_all",
                show=False),
        Binding("space", "toggle", "Toggle", tooltip="Toggle accept/reject", id="yoi.review.toggle", show=False),
        # Not a priority binding: a priority key jumps ahead of the keys typed before it (they are still
        # queued for the list), so "a r enter" typed fast would apply before the decisions landed.
        Binding("enter", "apply", "Apply", tooltip="Apply the accepted files (asks first)", id="yoi.review.apply"),
        Binding("w", "withdraw", "Withdraw rejection", tooltip="Withdraw the earlier rejection that holds this "
                "item back: proposed again from the next run", id="yoi.review.withdraw",
                show=False),  # named in the why pane of a held-back item, where it applies
        Binding("s", "toggle_split", "Split", tooltip="Switch unified and split diffs",
                id="yoi.review.split"),
        Binding("escape", "close", "Discard", tooltip="Discard the run: nothing applied, lock released",
                id="yoi.review.close"),
        Binding("escape", "close_readonly", "Close", tooltip="Back (nothing to decide here)",
                id="yoi.review.back"),
    ]

    split: var[bool] = var(False)

    def __init__(self, kind: str, *, prepared: Any = None, items: list[ReviewItem] | None = None,
                 title: str | None = None, readonly: bool = False) -> None:
        super().__init__(id="review")
        self.kind = kind
        self.prepared = prepared
        if items is None:
            if kind == "gc":
                items = gc_items(prepared.report.changeset, prepared.report.operations)
            else:
                items = phase2_items(prepared.changeset, prepared.report.held_back)
        self.items = items
        self.by_id = {item.id: item for item in items}
        self.readonly = readonly or prepared is None or getattr(prepared, "lock", None) is None
        self.decisions: dict[str, str | None] = {item.id: None for item in items if item.decidable}
        self.title_text = title or ("Phase 2" if kind == "phase2" else "GC")
        self.shown: str | None = None  # the item whose diff is on screen
        self.applying = False

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        with Horizontal(id="review-body"):
            with Vertical(id="review-left", classes="pane"):
                yield OptionList(*self._options(), id="review-list")
            with Vertical(id="review-right"):
                yield Static(id="review-why", classes="pane")
                yield VerticalScroll(id="review-diffs", classes="pane")
        yield Static(id="review-status")
        yield Footer()

    def on_mount(self) -> None:
        left = self.query_one("#review-left")
        left.border_title = "Operations" if self.kind == "gc" else "Files"
        self.query_one("#review-why").border_title = "Why"
        self.query_one("#review-diffs").border_title = "Diff"
        self.sub_title = self.title_text
        option_list = self.query_one("#review-list", OptionList)
        option_list.focus()
        first = next((i for i, opt in enumerate(option_list.options) if not opt.disabled), None)
        if first is not None:
            option_list.highlighted = first
        self._update_status()

    # ------------------------------------------------------------------ list

    def _prompt(self, item: ReviewItem) -> Text:
        if item.decidable:
            mark, style = DECISION_MARK[self.decisions.get(item.id)]
        elif item.state is None:
            mark, style = "○", "dim"
        else:  # as the review showed it when the run was decided (✘ rejected, not ·)
            mark, style = STATE_MARK.get(item.state.split(",")[0].split(" ")[0], ("·", "dim"))
        # One line per item, cut with an ellipsis at the list's edge: a path wrapped mid-word even
        # at 160 columns (issue 28).
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{mark} ", style=style)
        text.append(f"{item.marks} ".ljust(4), style="bold")
        text.append(item.label, style="" if item.decidable or item.state else "dim")
        if item.state:
            text.append(f"  {item.state}", style="dim")
        return text

    def _options(self) -> list[Option]:
        options: list[Option] = []
        group = None
        grouped = self.kind == "gc"
        for item in self.items:
            if (grouped or item.group == HELD_GROUP) and item.group != group:
                group = item.group
                options.append(Option(Text(group.upper(), style="bold underline"), id=f"group:{group}", disabled=True))
            options.append(Option(self._prompt(item), id=item.id))
        return options

    def _refresh_item(self, item_id: str) -> None:
        option_list = self.query_one("#review-list", OptionList)
        option_list.replace_option_prompt(item_id, self._prompt(self.by_id[item_id]))

    @property
    def highlighted(self) -> ReviewItem | None:
        option_list = self.query_one("#review-list", OptionList)
        if option_list.highlighted is None:
            return None
        option = option_list.get_option_at_index(option_list.highlighted)
        return self.by_id.get(option.id or "")

    @on(OptionList.OptionSelected, "#review-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # enter on the list: the list's own binding, handled in key order
        if self.check_action("apply", ()):
            self.action_apply()

    @on(OptionList.OptionHighlighted, "#review-list")
    def _highlighted(self) -> None:
        item = self.highlighted
        if item is None:
            return
        why = Text(item.why)
        changed = self._changed_on_disk(item) if not self.readonly else []
        if changed:
            why.append(f"\n⚠ changed on disk since the run read it: {', '.join(changed)} — applying leaves "
                       "it alone (a conflict)", style="bold yellow")
        self.query_one("#review-why", Static).update(why)
        self._diff_generation += 1
        self.show_diff(item, self._diff_generation)

    def _changed_on_disk(self, item: ReviewItem) -> list[str]:
        """The item's files whose content on disk is no longer what the run read (small reads)."""
        root = self.app.ws.root  # type: ignore[attr-defined]
        changed = []
        for change in item.changes:
            try:
                if read_exact(root / change.path) != change.before:
                    changed.append(change.path)
            except YoiError:
                changed.append(change.path)
        return changed

    _diff_generation = 0
    _mount_lock: asyncio.Lock | None = None

    @work(group="diff", exit_on_error=False)
    async def show_diff(self, item: ReviewItem, generation: int) -> None:
        # Not ``exclusive``: cancelling a worker in the middle of a mount leaves the DOM half-built.
        # Each worker prepares its views, then only the newest one mounts (one at a time).
        from textual_diff_view import DiffView  # heavy: imported when a diff is first shown

        views = []
        for change in item.changes:
            # Both sides named by the path: the title shows the modified side's, and a deleted file's
            # title should name the file, not /dev/null (the +/- counts say it is gone).
            view = DiffView(change.path, change.path, change.before or "", change.after or "", split=self.split)
            await view.prepare()
            views.append(view)
            if generation != self._diff_generation:
                return
        if self._mount_lock is None:
            self._mount_lock = asyncio.Lock()
        async with self._mount_lock:
            # Newer highlight, or the screen is gone (applied and switched to the result meanwhile).
            if generation != self._diff_generation or not self.is_attached:
                return
            diffs = self.query_one("#review-diffs", VerticalScroll)
            await diffs.remove_children()
            if views:
                await diffs.mount_all(views)
            else:
                await diffs.mount(Static(Text("Nothing to show: this finding changes no file.", style="dim")))
            diffs.scroll_home(animate=False)
            self.shown = item.id

    def watch_split(self, split: bool) -> None:
        if not self.is_mounted:
            return
        from textual_diff_view import DiffView

        for view in self.query(DiffView):
            view.split = split

    # ------------------------------------------------------------------ decisions

    def _update_status(self) -> None:
        counts = {"accept": 0, "reject": 0, "defer": 0, None: 0}
        for decision in self.decisions.values():
            counts[decision] += 1
        if self.readonly:
            status = getattr(getattr(self.prepared, "report", None), "status", None)
            why = ("a journalled run" if self.prepared is None else
                   "nothing to apply — the run changes no file; these are its findings" if status == "nothing-to-do"
                   else "dry run — nothing can be applied")
            text = Text(f"read-only: {why}", style="bold")
        else:
            text = Text()
            # One line at 80 columns (issue 28: it wrapped before 'applies').
            text.append(f" {counts['accept']} accepted", style="bold green")
            text.append(f"  {counts['reject']} rejected", style="bold red")
            text.append(f"  {counts['defer']} deferred", style="bold yellow")
            text.append(f"  {counts[None]} undecided (as deferred)", style="dim")
            text.append(" · enter applies", style="bold")
        self.query_one("#review-status", Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Read-only (a dry run, a journalled run): the deciding keys are not offered at all, and Esc
        # says Close, not Discard (issue 28: the history's footer offered Accept/Reject/Discard).
        if action == "close_readonly":
            return self.readonly
        if self.readonly and action in READONLY_HIDDEN:
            return False
        return True

    def action_close_readonly(self) -> None:
        self.action_close()

    def _set(self, item_id: str, decision: str | None) -> None:
        if item_id in self.decisions:
            self.decisions[item_id] = decision
            self._refresh_item(item_id)

    def action_decide(self, decision: str) -> None:
        item = self.highlighted
        if item is None or not item.decidable:
            self.app.bell()
            return
        self._set(item.id, decision)
        self._update_status()
        option_list = self.query_one("#review-list", OptionList)
        if option_list.highlighted is not None and option_list.highlighted < option_list.option_count - 1:
            option_list.action_cursor_down()  # on to the next item; no wrap back to the top at the end

    def action_decide_all(self, decision: str) -> None:
        for item_id in self.decisions:
            self._set(item_id, decision)
        self._update_status()

    def action_toggle(self) -> None:
        item = self.highlighted
        if item is None or not item.decidable:
            return
        self._set(item.id, "reject" if self.decisions[item.id] == "accept" else "accept")
        self._update_status()

    def action_toggle_split(self) -> None:
        self.split = not self.split

    def action_withdraw(self) -> None:
        """Take back the remembered rejection behind a held-back item (``core.runs.rejections``)."""
        from ..core.runs.rejections import RejectionStore

        item = self.highlighted
        if item is None or not item.rejection:
            self.notify("Only an item held back by an earlier rejection can be withdrawn.", severity="warning")
            return
        ws = self.app.ws  # type: ignore[attr-defined]
        store = RejectionStore.gc(ws) if self.kind == "gc" else RejectionStore.phase2(ws)
        try:
            withdrawn, _unknown = store.withdraw([item.rejection])
        except (YoiError, OSError) as exc:
            self.notify(f"Not withdrawn: {exc}", severity="error")
            return
        for other in self.items:
            if other.rejection == item.rejection:
                other.rejection, other.state = None, "withdrawn"
                self._refresh_item(other.id)
        self.notify(f"Rejection withdrawn ({len(withdrawn)}): proposed again from the next run.")

    # ------------------------------------------------------------------ apply / discard

    def selection(self) -> tuple[list[ReviewItem], list[ReviewItem], list[ReviewItem]]:
        """Accepted, rejected and deferred items (undecided count as deferred)."""
        accepted = [self.by_id[i] for i, d in self.decisions.items() if d == "accept"]
        rejected = [self.by_id[i] for i, d in self.decisions.items() if d == "reject"]
        deferred = [self.by_id[i] for i, d in self.decisions.items() if d in ("defer", None)]
        return accepted, rejected, deferred

    def action_apply(self) -> None:
        if self.applying:
            return
        accepted, rejected, deferred = self.selection()
        if not accepted and not rejected:
            self.notify("Nothing accepted or rejected yet: a accepts, r rejects (A / R: all).", severity="warning")
            return
        files = sum(len(i.changes) for i in accepted)
        if self.kind == "gc":  # GC has no staging: say what its rejections and deferrals do
            message = (f"Write {files} file(s) ({len(accepted)} operation(s) accepted).\n"
                       f"Reject {len(rejected)} operation(s): journalled; not proposed again while their files "
                       "are unchanged.\n"
                       f"Defer {len(deferred)} operation(s): proposed again by the next GC.\n"
                       "A file edited on disk since GC read it is left alone and reported as a conflict.")
        else:
            message = (f"Write {files} file(s) ({len(accepted)} file(s) accepted).\n"
                       f"Reject {len(rejected)} file(s): journalled, their staging consumed.\n"
                       f"Defer {len(deferred)} file(s): their staging kept for a later run.\n"
                       "A file edited on disk since the run read it is left alone and reported as a conflict.")

        def answered(value: str | None) -> None:
            if value == "apply":
                self.applying = True
                self._apply_worker(accepted, rejected, deferred)

        self.app.push_screen(ChoiceModal(f"Apply {files} file(s)?", message,
                                         [Choice("y", "Apply", "apply", "success"), Choice("n", "Back", "cancel")],
                                         id="apply-confirm"), answered)

    @work(thread=True, exclusive=True, group="apply", exit_on_error=False)
    def _apply_worker(self, accepted: list[ReviewItem], rejected: list[ReviewItem],
                      deferred: list[ReviewItem]) -> None:
        only = {p for item in accepted for p in item.paths}
        try:
            if self.kind == "gc":
                ops = {op.id for op in self.prepared.report.proposed}
                result = self.prepared.apply(only=only, deferred_operations=[i.id for i in deferred if i.id in ops])
            else:
                result = self.prepared.apply(only=only, deferred={p for item in deferred for p in item.paths})
        except YoiError as exc:  # e.g. the lock was lost: nothing applied (apply released the lock)
            self.post_message(ReviewApplied(None, exc.message))
            return
        self.post_message(ReviewApplied(result))

    @on(ReviewApplied)
    def _applied(self, message: ReviewApplied) -> None:
        from .result import ResultScreen

        self.prepared = None  # the lock went with the apply
        if message.result is None:
            self.applying = False
            self.readonly = True
            self._update_status()
            self.notify(f"Not applied: {message.error}", severity="error", timeout=10)
            return
        self.app.rescan()  # type: ignore[attr-defined]
        self.app.switch_screen(ResultScreen(self.kind, message.result))

    def action_close(self) -> None:
        if self.applying:
            return
        if self.readonly or self.prepared is None:
            self._discard()
            return

        def answered(value: str | None) -> None:
            if value == "discard":
                self._discard()

        kept = "" if self.kind == "gc" else ", no staging is consumed,"
        self.app.push_screen(ChoiceModal("Discard this run?", f"Nothing is applied{kept} and "
                                         "the consolidation lock is released.",
                                         [Choice("y", "Discard", "discard", "error"), Choice("n", "Back", "cancel")],
                                         id="discard-confirm"), answered)

    def on_unmount(self) -> None:
        # Quitting the app with a review open: give the lock back rather than leave it to go stale.
        if self.prepared is not None and not self.readonly and not self.applying:
            try:
                self.prepared.release()
            except YoiError:
                pass
            self.prepared = None

    def _discard(self) -> None:
        if self.prepared is not None and not self.readonly:
            try:
                self.prepared.release()
            except YoiError as exc:
                self.notify(f"releasing the lock: {exc.message}", severity="error")
            self.prepared = None
            self.notify("Run discarded: nothing applied, lock released.")
        self.dismiss(None)
