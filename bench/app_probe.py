#!/usr/bin/env python3
"""Start the app headless on a workspace and report when it paints, loads and lints (one JSON line).

Run by ``bench/run.py`` in a fresh process: ``python bench/app_probe.py WORKSPACE --t0 EPOCH``.
``--t0`` is the wall-clock time the harness took just before starting this process, so every
figure includes interpreter start-up and imports, as a user waiting for the screen would see it.

* ``first_paint_s``: the first frame the compositor hands to ``App._display`` while the main
  screen's record tree lists records (painted from the folder listing; records are parsed
  afterwards in a worker on large workspaces);
* ``loaded_s``: every record is parsed (statuses, descriptions shown);
* ``linted_s``: the workspace-wide lint behind the problems panel finished;
* ``maxrss_kb``: peak resident memory of the process, measured after the lint.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _tree_rows(app: object) -> int:
    """Records listed in the main screen's tree (0 until it is populated)."""
    screen = getattr(app, "screen", None)
    try:
        from yoi_tui.widgets.record_tree import RecordTree

        tree = screen.query_one(RecordTree)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - not mounted yet, or the widget changed: keep waiting
        return 0
    shown = getattr(tree, "shown_rels", None)
    if shown is not None:
        return len(shown)
    root = getattr(tree, "root", None)
    return len(getattr(root, "children", ()) or ())


async def probe(workspace: Path, t0: float, timeout: float) -> dict[str, object]:
    from yoi_tui.app import make_app

    imported = time.time() - t0
    app = make_app(workspace, poll_seconds=None, cursor_blink=False)
    result: dict[str, object] = {"import_s": imported}
    painted: list[float] = []
    display = app._display  # the compositor hands every frame to App._display (headless: not written out)

    def watch(screen: object, renderable: object) -> None:
        if renderable is not None and not painted and _tree_rows(app) > 0:
            painted.append(time.time() - t0)
        display(screen, renderable)  # type: ignore[arg-type]

    app._display = watch  # type: ignore[method-assign]
    deadline = time.monotonic() + timeout
    async with app.run_test(size=(140, 40)) as pilot:
        while not painted:
            if time.monotonic() > deadline:
                raise TimeoutError("the main screen never painted a record")
            await asyncio.sleep(0.002)
        result["first_paint_s"] = painted[0]
        result["rows"] = _tree_rows(app)
        store = getattr(app, "store", None)
        while store is not None and not getattr(app.store, "loaded", True):  # type: ignore[attr-defined]
            if time.monotonic() > deadline:
                raise TimeoutError("records were never loaded")
            await pilot.pause(0.01)
        result["loaded_s"] = time.time() - t0
        if hasattr(app, "linted_once"):
            while not (app.linted_once and not app.linting):  # type: ignore[attr-defined]
                if time.monotonic() > deadline:
                    raise TimeoutError("the workspace lint never finished")
                await pilot.pause(0.02)
            result["linted_s"] = time.time() - t0
            result["problems"] = len(getattr(app, "diagnostics", []))
    result["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description="Time the app's start-up headless (used by bench/run.py).")
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--t0", type=float, default=None, help="wall-clock start (default: now)")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    t0 = args.t0 if args.t0 is not None else time.time()
    try:
        result = asyncio.run(probe(args.workspace, t0, args.timeout))
    except ImportError as exc:
        print(json.dumps({"error": f"app not importable: {exc}"}))
        return 3
    except Exception as exc:  # noqa: BLE001 - the harness reports any failure as a row note
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
