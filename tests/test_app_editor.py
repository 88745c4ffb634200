"""Pilot tests of the editor: live lint, atomic save, conflicts, unsaved changes, new records."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from yoi_tui.app import YoiApp
from yoi_tui.screens.dialogs import ChoiceModal, NewRecordModal
from yoi_tui.screens.editor import LINT_DELAY, EditorScreen
from yoi_tui.screens.main import MainScreen
from yoi_tui.widgets.problems import ProblemsPanel
from yoi_tui.widgets.record_tree import RecordTree

SIZE = (110, 32)
DECISION = "memory/decisions/api-versioning-in-path.md"


async def _open(pilot, wait_until, rel: str) -> EditorScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await wait_until(pilot, lambda: app.linted_once and not app.linting, what="first lint")
    app.open_editor(rel)
    await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted, what="editor")
    editor = app.screen
    await wait_until(pilot, lambda: editor.linted_version == editor.version, what="initial lint")
    return editor


async def _linted(pilot, wait_until, editor: EditorScreen) -> None:  # type: ignore[no-untyped-def]
    """Wait for the live lint of the current text (the Changed message is handled first)."""
    await pilot.pause()
    await wait_until(pilot, lambda: editor.linted_version == editor.version, timeout=LINT_DELAY + 5,
                     what="live lint")


def _replace_line(editor: EditorScreen, row: int, text: str) -> None:
    area = editor.text_area
    area.replace(text, (row, 0), (row, len(area.document.get_line(row))))


async def test_bad_field_shows_finding_within_debounce(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, "memory/decisions/adopt-fastapi.md")
        assert editor.diagnostics == [] and not editor.dirty
        row = editor.text.split("\n").index("status: resolved")
        editor.text_area.cursor_location = (row, len("status: "))
        editor.text_area.action_delete_to_end_of_line()
        await pilot.press(*"maybe")
        assert editor.dirty
        # Within the debounce (plus the lint itself) the finding appears; no sleeping in the test.
        await _linted(pilot, wait_until, editor)
        assert [(d.rule, d.line) for d in editor.diagnostics] == [("bad-status", row + 1)]
        panel = editor.query_one(ProblemsPanel)
        assert panel.row_count == 1 and "1 error" in str(panel.border_title)


async def test_stale_lint_results_are_dropped(demo_root: Path, make_test_app, wait_until) -> None:
    from yoi_tui.screens.editor import BufferLinted

    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, DECISION)
        before = list(editor.diagnostics)
        editor.post_message(BufferLinted(editor.version - 1, []))  # a result for older text
        await pilot.pause()
        assert editor.diagnostics == before


async def test_fix_then_save_writes_atomically_and_clears_the_problem(demo_root: Path, make_test_app,
                                                                      wait_until) -> None:
    app: YoiApp = make_test_app(demo_root)
    path = demo_root / DECISION
    os.chmod(path, 0o640)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, DECISION)
        assert [d.rule for d in editor.diagnostics] == ["bad-status"]
        row = editor.text.split("\n").index("status: accepted")
        _replace_line(editor, row, "status: resolved")
        await _linted(pilot, wait_until, editor)
        assert editor.diagnostics == []
        inode = path.stat().st_ino
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not editor.dirty
        assert "status: resolved\n" in path.read_text(encoding="utf-8")
        assert path.stat().st_ino != inode  # written to a temp file, then renamed over
        assert stat.S_IMODE(path.stat().st_mode) == 0o640  # mode kept
        assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
        # The main screen's problems panel loses that finding at once.
        assert not any(d.path == DECISION for d in app.diagnostics)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        panel = app.screen.query_one(ProblemsPanel)
        assert all(d.path != DECISION for d in panel.diagnostics)
        await wait_until(pilot, lambda: not app.linting)


async def test_conflict_prompt_when_the_file_changed_underneath(demo_root: Path, make_test_app,
                                                                wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, DECISION)
        _replace_line(editor, 0, "---")
        editor.text_area.insert("# my edit\n", (editor.text.count("\n"), 0))
        someone_else = path.read_text(encoding="utf-8").replace("accepted", "open")
        path.write_text(someone_else, encoding="utf-8")  # e.g. git pull
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal), what="conflict prompt")
        assert app.screen.id == "conflict"
        assert path.read_text(encoding="utf-8") == someone_else  # nothing overwritten yet
        await pilot.press("c")  # cancel: keep editing, file untouched
        assert app.screen is editor and editor.dirty
        assert path.read_text(encoding="utf-8") == someone_else
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        await pilot.press("r")  # reload: take the disk version
        await pilot.pause()
        assert app.screen is editor and not editor.dirty and editor.text == someone_else
        editor.text_area.insert("extra\n", (editor.text.count("\n"), 0))
        path.write_text(someone_else + "third party\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        await pilot.press("o")  # overwrite: my text wins, knowingly
        await pilot.pause()
        assert path.read_text(encoding="utf-8") == editor.text and not editor.dirty


async def test_leaving_with_unsaved_changes_asks(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    original = path.read_text(encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, DECISION)
        editor.text_area.insert("draft\n", (editor.text.count("\n"), 0))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        assert app.screen.id == "unsaved"
        await pilot.press("c")
        assert app.screen is editor
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        await pilot.press("d")  # discard
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert path.read_text(encoding="utf-8") == original
        # Quitting with a dirty editor asks too.
        app.open_editor(DECISION)
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
        app.screen.text_area.insert("draft\n", (0, 0))
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        assert app.screen.id == "quit-confirm"
        await pilot.press("c")
        assert isinstance(app.screen, EditorScreen)


async def test_locked_file_is_refused_with_a_message(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open(pilot, wait_until, DECISION)
        editor.text_area.insert("x\n", (editor.text.count("\n"), 0))
        before = path.read_text(encoding="utf-8")
        os.chmod(path, 0o444)
        try:
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert editor.dirty and path.read_text(encoding="utf-8") == before
            assert any("locked" in n.message for n in app._notifications)
        finally:
            os.chmod(path, 0o644)


async def test_new_record_from_template_with_live_slug_validation(demo_root: Path, make_test_app,
                                                                  wait_until) -> None:
    app: YoiApp = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.linted_once)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewRecordModal))
        modal = app.screen
        status = modal.query_one("#new-slug-status")
        await pilot.press("ctrl+k")  # knowledge
        await pilot.press(*"Render PDF")
        assert "not a valid slug; try 'render-pdf'" in str(status.content)
        await pilot.press("enter")
        assert app.screen is modal  # refused
        for _ in range(len("Render PDF")):
            await pilot.press("backspace")
        await pilot.press(*"term-tenant")
        assert "already exists" in str(status.content)
        for _ in range(len("term-tenant")):
            await pilot.press("backspace")
        await pilot.press(*"howto-render-pdf")
        assert "✓ knowledge/howto-render-pdf.md" in str(status.content)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        assert editor.is_new and editor.rel == "knowledge/howto-render-pdf.md"
        assert "kind: howto" in editor.text  # the kind its slug names (howto-...), not the first kind
        await _linted(pilot, wait_until, editor)
        assert editor.diagnostics == []  # templates are lint-clean
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert (demo_root / "knowledge" / "howto-render-pdf.md").read_text(encoding="utf-8") == editor.text
        await pilot.press("escape")
        tree = app.screen.query_one(RecordTree)
        await wait_until(pilot, lambda: "knowledge/howto-render-pdf.md" in tree.shown_rels, what="tree refresh")


async def test_new_record_never_overwrites_one_created_meanwhile(demo_root: Path, make_test_app,
                                                                 wait_until) -> None:
    app: YoiApp = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.linted_once)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewRecordModal))
        await pilot.press(*"late-comer", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen))
        target = demo_root / "memory" / "decisions" / "late-comer.md"
        target.write_text("someone else's\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceModal))
        await pilot.press("c")
        assert target.read_text(encoding="utf-8") == "someone else's\n"


async def test_symlink_out_of_the_workspace_is_not_opened(demo_root: Path, tmp_path: Path, make_test_app,
                                                          wait_until) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("---\nkind: fact\n---\nprivate\n", encoding="utf-8")
    link = demo_root / "knowledge" / "linked.md"
    link.symlink_to(outside)
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.linted_once)
        app.open_editor("knowledge/linked.md")
        await wait_until(pilot, lambda: any("outside the workspace" in n.message for n in app._notifications))
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))



async def test_a_fifo_named_like_a_record_is_not_opened_and_does_not_hang(demo_root: Path, make_test_app,
                                                                         wait_until) -> None:
    """Reading a FIFO blocks until a writer comes: the editor opens record files non-blocking and
    regular-file-only, so it says what the path is instead."""
    import os

    os.mkfifo(demo_root / "knowledge" / "pipe.md")
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.linted_once)
        app.open_editor("knowledge/pipe.md")
        await wait_until(pilot, lambda: any("FIFO" in n.message for n in app._notifications))
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
