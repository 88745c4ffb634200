"""Snapshot tests (SVG baselines in the top-level ``snapshots/test_app_snapshots/``).

Deterministic by construction: the demo workspace has fixed text and timestamps, the header shows
a fixed label (never the temporary path), cursors do not blink, polling is off, the terminal size
is fixed, and each test waits for the state it photographs (lint done, record rendered, preview
ready). Update baselines only after looking at ``snapshot_report.html``: ``pytest --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

from yoi_tui.screens.compose import ComposeScreen
from yoi_tui.screens.editor import EditorScreen
from yoi_tui.widgets.record_tree import RecordTree
from yoi_tui.widgets.record_view import RecordView
from yoi_tui.widgets.slug_complete import PromptTextArea, SlugAutoComplete

SIZE = (110, 32)


def test_main_screen(snap_compare, demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)

    async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        await wait_until(pilot, lambda: app.screen.query_one(RecordView).rel == "memory/summary.md")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_record_view_after_filtering(snap_compare, demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    target = "knowledge/rule-money-as-integer-cents.md"

    async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        await pilot.press("slash", *"money", "enter")
        tree = app.screen.query_one(RecordTree)
        await wait_until(pilot, lambda: tree.highlighted_rel is not None)
        tree.select_rel(target)
        await wait_until(pilot, lambda: app.screen.query_one(RecordView).rel == target)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_editor_with_lint_error(snap_compare, demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)

    async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        app.open_editor("memory/decisions/api-versioning-in-path.md", 7, 9)
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
        editor = app.screen
        await wait_until(pilot, lambda: editor.linted_version == editor.version and editor.diagnostics != [])
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_completion_dropdown_open(snap_compare, demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")

    async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_until(pilot, lambda: bool(app.screen.query(SlugAutoComplete)))
        await pilot.press(*"Fix the totals ", "#", *"mon")
        screen = app.screen
        assert isinstance(screen, ComposeScreen)
        await wait_until(pilot, lambda: screen.previewed_version == screen.version)
        await pilot.pause()
        assert screen.completer.display

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_composer_preview(snap_compare, demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")

    async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_until(pilot, lambda: bool(app.screen.query(SlugAutoComplete)))
        screen = app.screen
        assert isinstance(screen, ComposeScreen)
        screen.query_one(PromptTextArea).load_text(
            "The January totals drift by a cent for tenant 42.\n"
            "Follow #rule-money-as-integer-cents and check #term-tenant.\n"
            "Also see #howto-fix-rounding.\n")
        await pilot.pause()
        await wait_until(pilot, lambda: screen.previewed_version == screen.version)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
