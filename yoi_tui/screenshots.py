"""Screenshots of the app, made by driving the demo app with keys: the docs' walk-through and the
snapshot tests share these steps, so the pictures in ``docs/`` are the app, not drawings.

``python -m yoi_tui.screenshots [OUT_DIR]`` writes ``docs/screenshots/*.svg`` (the default). Each
shot starts from a fresh demo workspace in a temporary folder, with the runs' clock frozen
(``FIXED_NOW``) and a fixed label, so the files do not change from one run to the next.

To reuse it (e.g. for the README tour): ``await shoot(steps, path)`` or ``shoot_sync(steps, path)``
with ``steps`` a list of ``async def step(app, pilot)`` — the ones below, or your own.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FIXED_NOW = datetime(2026, 1, 26, 9, 0, tzinfo=UTC)
SIZE = (120, 34)
LABEL = "demo workspace"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"

Step = Callable[[Any, Any], Awaitable[None]]


async def wait_for(pilot: Any, predicate: Callable[[], bool], *, timeout: float = 30.0, what: str = "state") -> None:
    """Poll between event-loop turns until ``predicate()`` (waiting on a state, never on a time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


def demo_app(root: Path) -> Any:
    """The app over the demo workspace at ``root`` with deterministic settings."""
    from .app import make_app

    return make_app(root, label=LABEL, poll_seconds=None, cursor_blink=False, fixed_now=FIXED_NOW,
                    log_folders=[root / "sessions"])


# ---------------------------------------------------------------------------- steps


async def linted(app: Any, pilot: Any) -> None:
    await wait_for(pilot, lambda: app.linted_once and not app.linting, what="the first lint")


async def runs_mid_progress(app: Any, pilot: Any) -> None:
    """The Phase 2 runs screen half-way, fed fixed progress messages (a real run is too quick)."""
    from .core.runs.progress import Progress
    from .messages import RunProgress
    from .screens.runs import RunsScreen

    await linted(app, pilot)
    await pilot.press("2")
    await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), what="the runs screen")
    screen = app.screen
    screen.state = "running"
    for step in (Progress("lock", 1, 4, line="consolidation lock taken"),
                 Progress("snapshot", 2, 4, line="2 staging file(s) to fold in"),
                 Progress("engine", 3, 4, line="rules engine working on a scratch copy"),
                 Progress("write", 3, 4, "memory/decisions/render-pdfs-in-a-separate-service.md",
                          "writing memory/decisions/render-pdfs-in-a-separate-service.md")):
        screen.post_message(RunProgress(step))
    await wait_for(pilot, lambda: len(screen.lines) == 4, what="the progress lines")


async def open_review(app: Any, pilot: Any, key: str) -> Any:
    """Open the runs screen with ``key`` (2 Phase 2, g GC), run it (ctrl+s) and wait for the review's
    first diff; the review screen."""
    from .screens.review import ReviewScreen
    from .screens.runs import RunsScreen

    await linted(app, pilot)
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), what="the runs screen")
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), what="the review screen")
    screen = app.screen
    await wait_for(pilot, lambda: screen.shown is not None, what="the first diff")
    return screen


async def phase2_review(app: Any, pilot: Any) -> None:
    """Run Phase 2 (2, ctrl+s) and stop on the review with the new decision's diff shown."""
    screen = await open_review(app, pilot, "2")
    await pilot.press("a")  # accept the first file; the cursor moves to the new decision
    await wait_for(pilot, lambda: screen.shown == "memory/decisions/render-pdfs-in-a-separate-service.md",
                   what="the decision's diff")


async def phase2_confirm(app: Any, pilot: Any) -> None:
    """... reject the decision, accept the rest, press enter: the confirmation counts the files."""
    await pilot.press("r", "a", "a", "enter")
    await wait_for(pilot, lambda: app.screen.id == "apply-confirm", what="the confirmation")


async def phase2_result(app: Any, pilot: Any) -> None:
    from .screens.result import ResultScreen

    await pilot.press("y")
    await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen), what="the result screen")


async def browser_after(app: Any, pilot: Any) -> None:
    """Back in the browser: the new request record is there."""
    from .widgets.record_tree import RecordTree
    from .widgets.record_view import RecordView

    await pilot.press("escape")
    target = "memory/requests/explain-migrations.md"
    await wait_for(pilot, lambda: app.store.get(target) is not None, what="the new record in the store")
    app.screen.query_one(RecordTree).select_rel(target)
    await wait_for(pilot, lambda: app.screen.query_one(RecordView).rel == target, what="the record view")


async def history(app: Any, pilot: Any) -> None:
    await pilot.press("h")
    await wait_for(pilot, lambda: app.screen.id == "history", what="the history")


async def revert_confirm(app: Any, pilot: Any) -> None:
    await pilot.press("u")
    await wait_for(pilot, lambda: app.screen.id == "revert-confirm", what="the revert confirmation")


async def gc_review(app: Any, pilot: Any) -> None:
    """Run GC (g, ctrl+s): operations grouped by category, a drop highlighted."""
    await open_review(app, pilot, "g")


async def gc_decided(app: Any, pilot: Any) -> None:
    """Accept the merge (both files together), reject one drop."""
    screen = app.screen
    merge = "merge:memory/decisions/retry-webhook-with-backoff.md"  # the preferred slug is kept (docs/gc.md)
    drop = "drop:memory/decisions/cache-invoices-in-redis.md"
    for item_id, key in ((drop, "r"), (merge, "a")):
        option_list = screen.query_one("#review-list")
        option_list.highlighted = option_list.get_option_index(item_id)
        await wait_for(pilot, lambda i=item_id: screen.shown == i, what=f"the diff of {item_id}")
        await pilot.press(key)
    option_list = screen.query_one("#review-list")
    option_list.highlighted = option_list.get_option_index(merge)
    await wait_for(pilot, lambda: screen.shown == merge, what="the merge's diff")


async def gc_applied(app: Any, pilot: Any) -> None:
    """... apply (enter, y) and close the result: the rejected drop is remembered."""
    from .screens.result import ResultScreen

    await pilot.press("enter")
    await wait_for(pilot, lambda: app.screen.id == "apply-confirm", what="the confirmation")
    await pilot.press("y")
    await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen), what="the result screen")
    await pilot.press("escape")


async def gc_again_held(app: Any, pilot: Any) -> None:
    """Run GC again: the drop rejected before is listed as held back, not proposed; highlighted."""
    screen = await open_review(app, pilot, "g")
    held = "held:drop:memory/decisions/cache-invoices-in-redis.md"
    option_list = screen.query_one("#review-list")
    option_list.highlighted = option_list.get_option_index(held)
    await wait_for(pilot, lambda: "earlier review" in str(screen.query_one("#review-why").render()),
                   what="the held-back item's why")


async def usage(app: Any, pilot: Any) -> None:
    from textual.widgets import DataTable

    await linted(app, pilot)
    await pilot.press("u")
    await wait_for(pilot, lambda: app.screen.id == "usage" and app.screen.query_one(DataTable).row_count > 0,
                   what="the usage screen")


# The docs' walk-through: file name → steps from a fresh demo workspace.
TOUR: dict[str, list[Step]] = {
    "runs-progress": [runs_mid_progress],
    "phase2-review": [phase2_review],
    "phase2-confirm": [phase2_review, phase2_confirm],
    "phase2-result": [phase2_review, phase2_confirm, phase2_result],
    "browser-after": [phase2_review, phase2_confirm, phase2_result, browser_after],
    "history-revert": [phase2_review, phase2_confirm, phase2_result, browser_after, history, revert_confirm],
    "gc-review": [gc_review, gc_decided],
    "gc-held": [gc_review, gc_decided, gc_applied, gc_again_held],
    "usage": [usage],
}


async def shoot(steps: Sequence[Step], path: Path, *, size: tuple[int, int] = SIZE,
                root: Path | None = None) -> Path:
    """Drive a fresh demo app through ``steps`` and save the screen as an SVG at ``path``."""
    from .model.demo import create_demo_workspace

    temp = None
    if root is None:
        temp = Path(tempfile.mkdtemp(prefix="yoi-shot-"))
        root = temp / "demo"
        create_demo_workspace(root)
    try:
        app = demo_app(root)
        async with app.run_test(size=size) as pilot:
            for step in steps:
                await step(app, pilot)
            await pilot.pause()
            svg = app.export_screenshot(title=f"yoi-tui — {path.stem}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_stable(svg, root, path.stem), encoding="utf-8")
        return path
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


FIXED_RUN_ID = "01a22d00-0000-7000-8000-000000000001"
_WHEN = re.compile(r"\d{4}-\d\d-\d\d(&#160;| |T)\d\d:\d\d:\d\d")


def _stable(svg: str, root: Path, name: str) -> str:
    """The same picture on every run: run ids (UUIDv7, from the clock) and journal times fixed,
    the temporary folder hidden. Record timestamps come from ``FIXED_NOW`` already."""
    svg = svg.replace(str(root), "<demo>")
    # Textual names the CSS classes after a hash of the (unfixed) screen: name them after the shot.
    svg = re.sub(r"terminal-\d+", "terminal-" + re.sub(r"[^a-z0-9]", "-", name.lower()), svg)
    runs = root / ".yoi" / "state" / "runs"
    for journal in sorted(runs.glob("*.json")) if runs.is_dir() else []:
        run_id = journal.name.split(".")[0]
        svg = svg.replace(run_id, FIXED_RUN_ID).replace(run_id[:13], FIXED_RUN_ID[:13])
    fixed = FIXED_NOW.strftime("%Y-%m-%d")
    return _WHEN.sub(lambda m: f"{fixed}{m.group(1)}{FIXED_NOW.strftime('%H:%M:%S')}", svg)


def shoot_sync(steps: Sequence[Step], path: Path, **kwargs: Any) -> Path:
    return asyncio.run(shoot(steps, path, **kwargs))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0]) if args else DEFAULT_OUT
    for name, steps in TOUR.items():
        print(shoot_sync(steps, out / f"{name}.svg"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
