"""The main, review, history and runs screens at 80x24 and 160x48 (issue 28: the app must show its
keys, markers and paths at the smallest common terminal). Baselines in ``snapshots/``.

Deterministic as ``test_app_runs_snapshots``: the demo workspace, the frozen clock, fixed progress
messages; the history's run is journalled under a fixed id (the journal on disk is rewritten with
it before the history reads it: run ids come from the clock).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yoi_tui import screenshots as shots
from yoi_tui.widgets.problems import ProblemsPanel
from yoi_tui.widgets.record_tree import RecordTree

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])


def _run(snap_compare, root: Path, size: tuple[int, int], *steps) -> bool:  # type: ignore[no-untyped-def]
    app = shots.demo_app(root)

    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        for step in steps:
            await step(app, pilot)
        await pilot.pause()

    return snap_compare(app, terminal_size=size, run_before=before)


async def _main(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await shots.linted(app, pilot)
    await shots.wait_for(pilot, lambda: bool(app.screen.query_one(RecordTree).shown_rels), what="the tree")


def _fixed_journal(root: Path) -> None:
    runs = root / ".yoi" / "state" / "runs"
    (journal,) = runs.glob("*.json")
    data = json.loads(journal.read_text(encoding="utf-8"))
    old = data["run_id"]
    text = journal.read_text(encoding="utf-8").replace(old, shots.FIXED_RUN_ID)
    data = json.loads(text)
    for key in ("created_at", "applied_at"):
        data[key] = shots.FIXED_NOW.isoformat()
    (runs / f"{shots.FIXED_RUN_ID}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    journal.unlink()


async def _applied_then_history(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await shots.phase2_review(app, pilot)
    await shots.phase2_confirm(app, pilot)  # the decision rejected, the rest accepted
    await shots.phase2_result(app, pilot)
    await pilot.press("escape")
    await shots.wait_for(pilot, lambda: app.screen.id == "main", what="the main screen")
    _fixed_journal(app.ws.root)
    await shots.history(app, pilot)


async def _history_run_opened(app, pilot) -> None:  # type: ignore[no-untyped-def]
    from yoi_tui.screens.review import ReviewScreen

    await _applied_then_history(app, pilot)
    await pilot.press("enter")
    await shots.wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), what="the read-only review")
    screen = app.screen
    await shots.wait_for(pilot, lambda: screen.shown is not None, what="its first diff")


@SIZES
def test_main(snap_compare, demo_root: Path, size: tuple[int, int]) -> None:
    assert _run(snap_compare, demo_root, size, _main)


@SIZES
def test_review(snap_compare, demo_root: Path, size: tuple[int, int]) -> None:
    assert _run(snap_compare, demo_root, size, shots.phase2_review)


@SIZES
def test_history(snap_compare, demo_root: Path, size: tuple[int, int]) -> None:
    assert _run(snap_compare, demo_root, size, _applied_then_history)


@SIZES
def test_history_run_read_only(snap_compare, demo_root: Path, size: tuple[int, int]) -> None:
    assert _run(snap_compare, demo_root, size, _history_run_opened)


@SIZES
def test_runs(snap_compare, demo_root: Path, size: tuple[int, int]) -> None:
    assert _run(snap_compare, demo_root, size, shots.runs_mid_progress)


# ---------------------------------------------------------------------------- what the pictures show

async def test_footer_at_80_columns_leads_with_help_and_the_pipeline(demo_root: Path) -> None:
    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _main(app, pilot)
        shown = [active.binding.key for active in app.screen.active_bindings.values() if active.binding.show]
        assert shown[:6] == ["f1", "1", "2", "g", "h", "u"]


async def test_problems_say_linting_until_the_first_lint(demo_root: Path) -> None:
    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        problems = app.screen.query_one(ProblemsPanel)
        if not app.linted_once:
            assert "no problems" not in str(problems.border_title) and "linting…" in str(problems.border_title)
        await shots.linted(app, pilot)
        assert str(problems.border_title).startswith("Problems — 3 errors")


async def test_palette_lists_commands_above_records_and_no_textual_internals(demo_root: Path) -> None:
    from textual.command import CommandPalette

    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _main(app, pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert not any("Cursor" in title for title in titles), titles
        await pilot.press("ctrl+p")
        await shots.wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"run")
        palette = app.screen
        from textual.widgets import OptionList

        options = palette.query_one(OptionList)
        await shots.wait_for(pilot, lambda: options.option_count >= 3, what="the hits")
        first = [str(options.get_option_at_index(i).prompt) for i in range(3)]
        assert all(text.startswith("Run ") for text in first), first


async def test_tree_marks_lead_long_slugs(demo_root: Path) -> None:
    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _main(app, pilot)
        tree = app.screen.query_one(RecordTree)
        label = tree._leaves["memory/decisions/retry-webhook-with-backoff.md"].label
        assert str(label).startswith("⚠ retry-webhook-with-backoff")


async def test_gc_confirmations_speak_of_operations_not_staging(demo_root: Path) -> None:
    from yoi_tui.screens.result import ResultScreen

    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await shots.gc_review(app, pilot)
        await shots.gc_decided(app, pilot)
        await pilot.press("enter")
        await shots.wait_for(pilot, lambda: app.screen.id == "apply-confirm", what="the apply confirmation")
        message = app.screen.message
        assert "staging" not in message and "operation(s) accepted" in message
        await pilot.press("y")
        await shots.wait_for(pilot, lambda: isinstance(app.screen, ResultScreen), what="the result")
        await pilot.press("u")
        await shots.wait_for(pilot, lambda: app.screen.id == "revert-confirm", what="the revert confirmation")
        assert "staging" not in app.screen.message


async def test_review_footer_at_80_columns_keeps_help_and_discard(demo_root: Path) -> None:
    """Issue 28: at 80 columns the review's footer cut 'esc Discard' and hid F1 (it came last)."""
    from textual.widgets._footer import FooterKey

    app = shots.demo_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await shots.phase2_review(app, pilot)
        await pilot.pause()
        keys = list(app.screen.query(FooterKey))
        assert keys[0].key == "f1"
        whole = {key.key: key.region for key in keys if key.region.right <= 80 - len("▏^p palette")}
        assert "f1" in whole and "escape" in whole, {key.key: key.region for key in keys}
