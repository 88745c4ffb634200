"""Regenerate the README's app screenshots (SVG) from the real app on the demo workspace.

    .venv/bin/python scripts/screenshots.py                 # all shots into docs/images/
    .venv/bin/python scripts/screenshots.py --only editor   # one shot
    .venv/bin/python scripts/screenshots.py --out /tmp/x    # elsewhere

To add a screen, write an ``async def`` that drives the app to the state to photograph (the same
way the snapshot tests do) and add a ``Shot`` to ``SHOTS``; then reference
``docs/images/<name>.svg`` from the README.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZE = (110, 32)


async def wait_until(pilot: Any, predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not reach the state to photograph")
        await pilot.pause(0.05)


async def main_screen(app: Any, pilot: Any) -> None:
    from yoi_tui.widgets.record_view import RecordView

    await wait_until(pilot, lambda: app.linted_once and not app.linting)
    await wait_until(pilot, lambda: app.screen.query_one(RecordView).rel == "memory/summary.md")


async def editor(app: Any, pilot: Any) -> None:
    from yoi_tui.screens.editor import EditorScreen

    await wait_until(pilot, lambda: app.linted_once and not app.linting)
    app.open_editor("memory/decisions/api-versioning-in-path.md", 7, 9)
    await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted)
    screen = app.screen
    await wait_until(pilot, lambda: screen.linted_version == screen.version and screen.diagnostics != [])


async def composer(app: Any, pilot: Any) -> None:
    from yoi_tui.widgets.slug_complete import SlugAutoComplete

    await wait_until(pilot, lambda: bool(app.screen.query(SlugAutoComplete)))
    await pilot.press(*"Fix the totals ", "#", *"mon")
    screen = app.screen
    await wait_until(pilot, lambda: screen.previewed_version == screen.version)


@dataclass(frozen=True)
class Shot:
    name: str
    title: str
    drive: Callable[[Any, Any], Awaitable[None]]
    mode: str = "browse"


SHOTS = [
    Shot("main", "yoi-tui: browse records, lint problems panel", main_screen),
    Shot("editor", "yoi-tui: editing a record with live lint", editor),
    Shot("composer", "yoi-tui: composing a prompt with #slug completion", composer, mode="compose"),
]


async def capture(shot: Shot, root: Path, out: Path) -> Path:
    from yoi_tui.app import make_app

    app = make_app(root, mode=shot.mode, label="demo workspace", poll_seconds=None, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await shot.drive(app, pilot)
        await pilot.pause()
        svg = app.export_screenshot(title=shot.title)
    path = out / f"{shot.name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images", help="folder for the SVG files")
    parser.add_argument("--only", choices=[s.name for s in SHOTS], action="append", help="shot(s) to take")
    args = parser.parse_args(argv)
    from yoi_tui.core.demo import create_demo_workspace

    args.out.mkdir(parents=True, exist_ok=True)
    for shot in SHOTS:
        if args.only and shot.name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:  # a fresh demo per shot: no state carries over
            root = Path(tmp) / "ws"
            create_demo_workspace(root)
            print(asyncio.run(capture(shot, root, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
