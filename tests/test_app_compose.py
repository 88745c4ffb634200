"""Pilot tests of the composer: # completion, preview with unknown slugs, finishing; the console script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from yoi_tui.app import YoiApp
from yoi_tui.core.retrieval.expand import expand_prompt
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events
from yoi_tui.screens.compose import ComposeScreen, render_preview
from yoi_tui.screens.main import MainScreen
from yoi_tui.widgets.slug_complete import PromptTextArea, SlugAutoComplete

SIZE = (110, 32)
DEMO_EVENTS = 15  # usage events the demo workspace starts with


async def _composer(pilot, wait_until) -> ComposeScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen) and app.screen.is_mounted
                     and bool(app.screen.query(SlugAutoComplete)), what="composer")
    return app.screen


async def _previewed(pilot, wait_until, screen: ComposeScreen) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    await wait_until(pilot, lambda: screen.previewed_version == screen.version, what="preview")


async def test_hash_letters_enter_inserts_the_slug(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _composer(pilot, wait_until)
        completer = screen.completer
        await pilot.press(*"fix totals ", "#")
        assert completer.display  # a bare # lists every candidate
        assert "term-dunning" not in completer.shown_slugs  # user_invocable: false
        assert "howto-deploy-heroku" not in completer.shown_slugs  # replaced
        await pilot.press(*"mon")
        assert completer.shown_slugs[0] == "rule-money-as-integer-cents"
        await pilot.press("enter")
        assert screen.prompt_text == "fix totals #rule-money-as-integer-cents "
        assert not completer.display
        await pilot.press(*"and", "enter")  # Enter with the dropdown closed is a newline again
        assert screen.prompt_text == "fix totals #rule-money-as-integer-cents and\n"


async def test_tab_arrows_and_escape(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _composer(pilot, wait_until)
        completer = screen.completer
        await pilot.press("#", *"howto")
        candidates = completer.shown_slugs
        assert len(candidates) > 2
        await pilot.press("down", "tab")
        assert screen.prompt_text == f"#{candidates[1]} "
        await pilot.press("#", "r")
        assert completer.display
        await pilot.press("escape")  # closes the dropdown, stays in the composer
        assert not completer.display and app.screen is screen
        assert screen.prompt_text.endswith("#r")


async def test_completion_in_the_middle_of_a_line(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _composer(pilot, wait_until)
        area = screen.query_one(PromptTextArea)
        area.load_text("line one\nplease  and close\nline three")
        area.cursor_location = (1, 7)
        await pilot.press("#", *"tenant")
        assert screen.completer.shown_slugs[0] == "term-tenant"
        await pilot.press("enter")
        assert screen.prompt_text == "line one\nplease #term-tenant and close\nline three"


async def test_preview_expands_and_highlights_unknown_slugs(demo_root: Path, make_test_app,
                                                            wait_until) -> None:
    app = make_test_app(demo_root, mode="compose")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _composer(pilot, wait_until)
        screen.query_one(PromptTextArea).load_text("Use #term-tenant and #no-such-thing here")
        await _previewed(pilot, wait_until, screen)
        result = screen.result
        assert result is not None
        assert result.expanded == ["term-tenant"]
        assert [ref.slug for ref in result.unknown] == ["no-such-thing"]
        assert '<yoi-knowledge slug="term-tenant">' in result.text
        rendered = render_preview(result)
        styles = {rendered.plain[span.start:span.end]: str(span.style) for span in rendered.spans}
        assert styles["#no-such-thing"] == "bold white on red"
        assert styles["#term-tenant"] == "bold green"
        assert "1 unknown: #no-such-thing" in str(screen.query_one("#preview-pane").border_subtitle)
        # The live preview records no usage: a keystroke is not an invoke.
        assert len(load_events(Workspace(demo_root))[0]) == DEMO_EVENTS


async def test_ctrl_j_finishes_with_the_expanded_prompt_and_records_invokes(
        demo_root: Path, make_test_app, wait_until) -> None:
    before = {e["id"] for e in load_events(Workspace(demo_root))[0]}
    app: YoiApp = make_test_app(demo_root, mode="compose")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _composer(pilot, wait_until)
        screen.query_one(PromptTextArea).load_text("Check #term-tenant and #howto-add-migration")
        await pilot.press("ctrl+j")
        await wait_until(pilot, lambda: app.return_value is not None, what="exit")
    expected = expand_prompt(Workspace(demo_root), "Check #term-tenant and #howto-add-migration", record=False)
    assert app.return_value == expected.text
    new = [e for e in load_events(Workspace(demo_root))[0] if e["id"] not in before]
    assert sorted((e["type"], e["slug"], e["via"]) for e in new) == [
        ("invoke", "howto-add-migration", "expand"), ("invoke", "term-tenant", "expand")]


async def test_composer_inside_the_browser_copies_and_returns(demo_root: Path, make_test_app,
                                                              wait_until) -> None:
    app: YoiApp = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.linted_once)
        await pilot.press("c")
        screen = await _composer(pilot, wait_until)
        await pilot.press(*"see ", "#", *"utc", "enter")
        await pilot.press("ctrl+j")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.composed is not None and '<yoi-knowledge slug="rule-utc-timestamps">' in app.composed
        assert app.clipboard == app.composed
        del screen


def test_console_script_help_and_errors(tmp_path: Path) -> None:
    script = [sys.executable, "-m", "yoi_tui.app_main"]
    shown = subprocess.run([*script, "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "--demo" in shown.stdout and "yoi-tui compose" in shown.stdout
    compose = subprocess.run([*script, "compose", "--help"], capture_output=True, text=True, timeout=60)
    assert compose.returncode == 0 and "stdout" in compose.stdout
    missing = subprocess.run([*script, "--workspace", str(tmp_path / "nope")], capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode == 2
    assert "workspace folder does not exist" in missing.stderr and "Traceback" not in missing.stderr
    bad_config = tmp_path / "ws"
    (bad_config / ".yoi").mkdir(parents=True)
    (bad_config / ".yoi" / "config.toml").write_text("[records]\ncap_decisoin = 3\n", encoding="utf-8")
    result = subprocess.run([*script, "--workspace", str(bad_config)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "cap_decision" in result.stderr and "Traceback" not in result.stderr


async def test_compose_mode_on_a_large_workspace_loads_knowledge_in_the_background(
        tmp_path: Path, make_test_app, wait_until) -> None:
    from yoi_tui.model.demo import create_demo_workspace

    create_demo_workspace(tmp_path / "big", extra=100)
    app: YoiApp = make_test_app(tmp_path / "big", mode="compose", inline_load_max=10)
    assert not app.store.loaded
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.store.loaded, what="knowledge load")
        assert isinstance(app.screen, ComposeScreen)
        assert "rule-money-as-integer-cents" in [slug for slug, _ in app.store.knowledge_candidates()]
