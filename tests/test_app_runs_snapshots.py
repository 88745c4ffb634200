"""Snapshots of the runs, review, GC review and usage screens (baselines in ``snapshots/``).

Deterministic: the demo workspace is fixed, the runs' clock is frozen (``FIXED_NOW``), the label
hides the temporary path, the mid-progress screen is fed fixed progress messages, and each step
waits for the state it photographs. The steps are the docs' screenshot steps (``yoi_tui.screenshots``).
"""

from __future__ import annotations

from pathlib import Path

from yoi_tui import screenshots as shots


def _run(snap_compare, root: Path, *steps) -> bool:  # type: ignore[no-untyped-def]
    app = shots.demo_app(root)

    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        for step in steps:
            await step(app, pilot)
        await pilot.pause()

    return snap_compare(app, terminal_size=shots.SIZE, run_before=before)


def test_runs_mid_progress(snap_compare, demo_root: Path) -> None:
    assert _run(snap_compare, demo_root, shots.runs_mid_progress)


def test_phase2_review_with_diff(snap_compare, demo_root: Path) -> None:
    assert _run(snap_compare, demo_root, shots.phase2_review)


def test_gc_review_grouped(snap_compare, demo_root: Path) -> None:
    assert _run(snap_compare, demo_root, shots.gc_review, shots.gc_decided)


def test_gc_rejection_held_on_the_next_run(snap_compare, demo_root: Path) -> None:
    """docs/app.md's walk: the drop rejected in the first GC review is held back in the second."""
    assert _run(snap_compare, demo_root, shots.gc_review, shots.gc_decided, shots.gc_applied, shots.gc_again_held)


def test_usage_screen(snap_compare, demo_root: Path) -> None:
    assert _run(snap_compare, demo_root, shots.usage)
