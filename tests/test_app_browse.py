"""Pilot tests of the main screen: tree, filter, record view, problems panel, external changes."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from yoi_tui.app import YoiApp
from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.templates import record_template
from yoi_tui.screens.dialogs import HelpModal
from yoi_tui.screens.editor import EditorScreen
from yoi_tui.screens.main import MainScreen
from yoi_tui.widgets.problems import ProblemsPanel
from yoi_tui.widgets.record_tree import RecordTree
from yoi_tui.widgets.record_view import RecordView

SIZE = (110, 32)


def _plain(renderable: object) -> str:
    console = Console(width=100, color_system=None)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


async def _ready(pilot, wait_until) -> MainScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await wait_until(pilot, lambda: app.linted_once and not app.linting, what="first lint")
    await pilot.pause()
    assert isinstance(app.screen, MainScreen)
    return app.screen


async def test_tree_groups_records_with_counts(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        tree = screen.query_one(RecordTree)
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["Summary  1", "Decisions  15", "Requests  8", "Knowledge  15"]
        statuses = [str(node.label) for node in tree.root.children[1].children]
        assert statuses == ["open  4", "resolved  9", "replaced  1", "other status  1"]
        assert len(tree.shown_rels) == 39
        # The first record is selected and shown: fields, then the body.
        assert tree.highlighted_rel == "memory/summary.md"
        await wait_until(pilot, lambda: screen.query_one(RecordView).rel == "memory/summary.md")


async def test_filter_narrows_the_list(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        tree = screen.query_one(RecordTree)
        await pilot.press("slash")
        assert app.focused is screen.query_one("#filter")
        await pilot.press(*"webhook")
        await pilot.pause()
        assert sorted(tree.shown_rels) == ["knowledge/howto-debug-webhooks.md",
                                           "memory/decisions/retry-webhook-with-backoff.md",
                                           "memory/decisions/retry-webhooks-with-backoff.md"]
        assert screen.query_one("#left").border_subtitle == "3 of 39"
        # The best match is selected and shown; Enter moves to the tree, Enter again edits.
        assert tree.highlighted_rel in tree.shown_rels
        await pilot.press("escape")
        assert len(tree.shown_rels) == 39 and app.focused is tree


async def test_typo_still_finds_the_record(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        await pilot.press("slash", *"postgers")
        await pilot.pause()
        assert "memory/decisions/use-postgres-for-ledger.md" in screen.query_one(RecordTree).shown_rels


async def test_selected_record_shows_fields_and_markdown_body(demo_root: Path, make_test_app,
                                                              wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        tree = screen.query_one(RecordTree)
        assert tree.select_rel("memory/decisions/drop-redis-cache.md")
        view = screen.query_one(RecordView)
        await wait_until(pilot, lambda: view.rel == "memory/decisions/drop-redis-cache.md")
        await pilot.pause()
        fields = _plain(view.query_one("#record-fields", Static).content)
        assert "status      resolved" in fields
        assert "sess-2026-01-12-b2 [22, 34]" in fields  # sources shown as session [start, end]
        body = view.query_one("#record-body")
        headings = [type(child).__name__ for child in body.children]
        assert headings[0] == "MarkdownH1"  # the body, frontmatter not rendered as a rule + H2
        assert "MarkdownHorizontalRule" not in headings


async def test_problems_panel_lists_workspace_findings(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        panel = screen.query_one(ProblemsPanel)
        rules = [(d.path, d.rule) for d in panel.diagnostics]
        assert ("memory/decisions/api-versioning-in-path.md", "bad-status") in rules
        assert panel.row_count == len(panel.diagnostics) == 6
        assert "3 errors · 3 warnings" in str(panel.border_title)
        assert panel.diagnostics[0].is_error  # errors first


async def test_selecting_a_problem_opens_the_record_at_that_line(demo_root: Path, make_test_app,
                                                                wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        panel = screen.query_one(ProblemsPanel)
        await pilot.press("p")
        assert app.focused is panel
        target = next(i for i, d in enumerate(panel.diagnostics) if d.rule == "dangling-ref")
        panel.move_cursor(row=target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen), what="editor")
        editor = app.screen
        assert editor.rel == "memory/decisions/pdf-rendering-service.md"
        diag = panel.diagnostics[target]
        assert editor.text_area.cursor_location == (diag.line - 1, diag.col - 1)


async def test_external_changes_refresh_the_tree(demo_root: Path, make_test_app, wait_until) -> None:
    app: YoiApp = make_test_app(demo_root, poll_seconds=0.1)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        tree = screen.query_one(RecordTree)
        new = demo_root / "knowledge" / "howto-render-pdf.md"
        new.write_text(record_template(RecordKind.KNOWLEDGE, "howto-render-pdf"), encoding="utf-8")
        (demo_root / "memory" / "requests" / "shorter-test-output.md").unlink()
        await wait_until(pilot, lambda: "knowledge/howto-render-pdf.md" in tree.shown_rels, what="new file")
        await wait_until(pilot, lambda: "memory/requests/shorter-test-output.md" not in tree.shown_rels)
        # The new knowledge record resolves the dangling #howto-render-pdf: the relint clears it.
        await wait_until(pilot, lambda: not app.linting and not any(
            d.rule == "dangling-ref" for d in app.diagnostics), what="relint")


async def test_help_and_palette_cover_every_binding(demo_root: Path, make_test_app, wait_until) -> None:
    app: YoiApp = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        titles = [command.title for command in app.get_system_commands(screen)]
        for description in ("Filter", "Edit", "New", "Compose", "Problems", "Rescan", "Help"):
            assert any(title.endswith(": " + description) for title in titles), description
        await pilot.press("f1")
        assert isinstance(app.screen, HelpModal)
        assert ("n", "New") in app.screen.keys
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_large_workspace_paints_before_parsing(tmp_path: Path, make_test_app, wait_until) -> None:
    from yoi_tui.model.demo import create_demo_workspace

    create_demo_workspace(tmp_path / "big", extra=120)
    app: YoiApp = make_test_app(tmp_path / "big", inline_load_max=50)
    assert not app.store.loaded  # only the folder listing before the first paint
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.store.loaded, what="background load")
        await wait_until(pilot, lambda: app.linted_once, what="lint")
        assert len(app.screen.query_one(RecordTree).shown_rels) == 159


async def test_unreadable_file_is_not_sent_to_the_editor(demo_root: Path, make_test_app, wait_until) -> None:
    """A file the editor cannot open (a FIFO, bytes that are not UTF-8) says so, instead of 'press e';
    text that merely does not parse still points to the editor."""
    os.mkfifo(demo_root / "knowledge" / "pipe.md")
    (demo_root / "knowledge" / "latin1.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    (demo_root / "knowledge" / "broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _ready(pilot, wait_until)
        tree = screen.query_one(RecordTree)
        view = screen.query_one(RecordView)
        shown: dict[str, str] = {}
        for rel in ("knowledge/pipe.md", "knowledge/latin1.md", "knowledge/broken.md"):
            await wait_until(pilot, lambda rel=rel: tree.select_rel(rel), timeout=30, what=f"{rel} listed")
            await wait_until(pilot, lambda rel=rel: view.rel == rel
                             and "loading" not in _plain(view.query_one("#record-fields", Static).content),
                             timeout=30, what=f"{rel} shown")
            shown[rel] = _plain(view.query_one("#record-fields", Static).content)
        for rel in ("knowledge/pipe.md", "knowledge/latin1.md"):
            assert "the editor cannot open it" in shown[rel] and "press e" not in shown[rel], shown[rel]
        assert "press e to fix it in the editor" in shown["knowledge/broken.md"]
