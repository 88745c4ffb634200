"""The six things a new user hit in the app's part 1, each with a test that fails without its fix."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from textual.widgets import Button

from yoi_tui.core.store.templates import knowledge_kind_for
from yoi_tui.screens.dialogs import Choice, ChoiceModal
from yoi_tui.screens.editor import EditorScreen
from yoi_tui.screens.main import MainScreen
from yoi_tui.terminal import size_of
from yoi_tui.widgets.problems import ProblemsPanel

DECISION = "memory/decisions/api-versioning-in-path.md"
OLD_STAMP = "updated_at: 2026-01-"


def test_compose_sizes_from_stderr_when_stdout_is_captured() -> None:
    """``X="$(yoi-tui compose)"`` in a 200×50 terminal: the screen is 200×50, not 80×24."""
    master, slave = pty.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        assert size_of(slave) == (200, 50)
        code = ("import shutil\nfrom yoi_tui.terminal import driver_for_captured_stdout\n"
                "driver = driver_for_captured_stdout()\n"
                "print(tuple(shutil.get_terminal_size()), driver.__name__, driver._get_terminal_size(driver.__new__(driver)))")
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        out = subprocess.run([sys.executable, "-c", code], stdin=slave, stderr=slave, stdout=subprocess.PIPE,
                             text=True, env=env, timeout=60).stdout
    finally:
        os.close(master)
        os.close(slave)
    # What Textual would have asked (stdout is a pipe: the 80×24 fallback), then what we use.
    assert out.split() == ["(80,", "24)", "StderrSizedDriver", "(200,", "50)"], out


async def test_dialog_buttons_keep_their_key_hints(demo_root: Path, make_test_app) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=(110, 32)) as pilot:
        app.push_screen(ChoiceModal("t", "m", [Choice("r", "Reload", "reload"), Choice("c", "Cancel", "cancel")]))
        await pilot.pause()
        labels = [str(b.label) for b in app.screen.query(Button)]
    assert labels == ["Reload [r]", "Cancel [c]"]


async def test_saving_bumps_updated_at(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    assert OLD_STAMP in path.read_text(encoding="utf-8")
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        app.open_editor(DECISION)
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
        editor = app.screen
        editor.text_area.insert("One more line.\n", (editor.text.count("\n"), 0))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not editor.dirty)
        text = path.read_text(encoding="utf-8")
        assert editor.text == text  # the buffer shows what was saved
    assert "One more line." in text and OLD_STAMP not in text.split("---")[1]


async def test_unchanged_save_keeps_the_bytes(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    before = path.read_bytes()
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        app.open_editor(DECISION)
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert path.read_bytes() == before


def test_howto_slug_gets_kind_howto() -> None:
    kinds = ["term", "policy", "rule", "fact", "howto"]
    assert knowledge_kind_for("howto-deploy", kinds) == "howto"
    assert knowledge_kind_for("rule-money", kinds) == "rule"
    assert knowledge_kind_for("deploy-notes", kinds, "term") == "term"


async def test_locked_record_is_reported_when_it_opens(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    path = demo_root / DECISION
    os.chmod(path, 0o444)
    try:
        async with app.run_test(size=(110, 32)) as pilot:
            await wait_until(pilot, lambda: app.linted_once and not app.linting)
            app.open_editor(DECISION)
            await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
            await pilot.pause()
            assert any("locked" in n.message for n in app._notifications)
    finally:
        os.chmod(path, 0o644)


async def test_problems_message_column_is_readable_at_80_columns(demo_root: Path, make_test_app,
                                                                 wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.linted_once and not app.linting)
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        panel = app.screen.query_one(ProblemsPanel)
        before_message = sum(panel.columns[key].get_render_width(panel) for key in ("sev", "where", "rule"))
        # At least 30 cells of the message are on screen without scrolling.
        assert panel.size.width - before_message >= 30, (panel.size.width, before_message)
        where = str(panel.get_row_at(0)[1])
        assert where.startswith("…") and where.endswith(":7:1")  # the path's tail is kept
