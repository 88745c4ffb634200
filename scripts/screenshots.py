"""Regenerate the README's tour screenshots (SVG) from the real app on the demo workspace.

    .venv/bin/python scripts/screenshots.py                 # all shots into docs/images/
    .venv/bin/python scripts/screenshots.py --only editor   # one shot
    .venv/bin/python scripts/screenshots.py --out /tmp/x    # elsewhere

The machinery is the app's own (``yoi_tui.screenshots``: a fresh demo per shot, a frozen clock,
stable SVGs), which also makes the walk-through pictures of docs/app.md. To add a README shot,
write an ``async def step(app, pilot)`` that drives the app to the state to photograph (or reuse
a step of ``yoi_tui.screenshots``), add it to ``SHOTS``, and reference ``docs/images/<name>.svg``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from yoi_tui.screenshots import Step, linted, shoot_sync, wait_for

REPO = Path(__file__).resolve().parents[1]
SIZE = (110, 32)


async def main_screen(app: Any, pilot: Any) -> None:
    from yoi_tui.widgets.record_view import RecordView

    await linted(app, pilot)
    await wait_for(pilot, lambda: app.screen.query_one(RecordView).rel == "memory/summary.md", what="the summary")


async def editor(app: Any, pilot: Any) -> None:
    from yoi_tui.screens.editor import EditorScreen

    await linted(app, pilot)
    app.open_editor("memory/decisions/api-versioning-in-path.md", 7, 9)
    await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted, what="the editor")
    screen = app.screen
    await wait_for(pilot, lambda: screen.linted_version == screen.version and screen.diagnostics != [],
                   what="the editor's lint")


async def composer(app: Any, pilot: Any) -> None:
    from yoi_tui.widgets.slug_complete import SlugAutoComplete

    await linted(app, pilot)
    app.action_compose()
    await wait_for(pilot, lambda: bool(app.screen.query(SlugAutoComplete)), what="the composer")
    await pilot.press(*"Fix the totals ", "#", *"mon")
    screen = app.screen
    await wait_for(pilot, lambda: screen.previewed_version == screen.version, what="the preview")


# README tour: file name → steps from a fresh demo workspace.
SHOTS: dict[str, list[Step]] = {
    "main": [main_screen],
    "editor": [editor],
    "composer": [composer],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images", help="folder for the SVG files")
    parser.add_argument("--only", choices=list(SHOTS), action="append", help="shot(s) to take")
    args = parser.parse_args(argv)
    for name, steps in SHOTS.items():
        if not args.only or name in args.only:
            print(shoot_sync(steps, args.out / f"{name}.svg", size=SIZE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
