"""The demo workspace generator (model.demo): every kind, deliberate problems, determinism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.store.record_listing import iter_record_paths
from yoi_tui.core.store.staging import list_staging, read_staging
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.model.demo import DELIBERATE_PROBLEMS, SESSIONS, create_demo_workspace


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_demo_has_every_kind_and_enough_records(tmp_path: Path) -> None:
    summary = create_demo_workspace(tmp_path / "ws")
    assert set(summary.counts) == {"summary", "decision", "request", "knowledge"}
    assert summary.total >= 35  # enough to scroll the tree at 100x30
    ws = Workspace(tmp_path / "ws")
    assert len(iter_record_paths(ws)) == summary.total
    statuses = {p.read_text().split("status: ")[1].split("\n")[0] for p in ws.decisions_dir.glob("*.md")}
    assert {"open", "resolved", "replaced"} <= statuses


def test_demo_carries_exactly_the_deliberate_problems(tmp_path: Path) -> None:
    create_demo_workspace(tmp_path / "ws")
    report = lint_workspace(Workspace(tmp_path / "ws"))
    found = {(d.path, d.rule) for d in report.diagnostics}
    assert set(DELIBERATE_PROBLEMS) <= found
    assert report.errors == 3  # bad-status, dangling-ref, field-type: the README walks through one
    # Nothing else is wrong: every other finding is the mirror of the similar-slugs pair.
    extra = found - set(DELIBERATE_PROBLEMS)
    assert extra == {("memory/decisions/retry-webhooks-with-backoff.md", "similar-slugs")}


def test_demo_is_deterministic(tmp_path: Path) -> None:
    create_demo_workspace(tmp_path / "a")
    create_demo_workspace(tmp_path / "b")
    assert _tree_bytes(tmp_path / "a") == _tree_bytes(tmp_path / "b")


def test_demo_staging_and_session_logs_are_valid(tmp_path: Path) -> None:
    create_demo_workspace(tmp_path / "ws")
    ws = Workspace(tmp_path / "ws")
    staged = [read_staging(p) for p in list_staging(ws)]
    assert len(staged) == 2 and staged[0].activity.decisions
    logs = sorted((ws.root / "sessions").glob("*.jsonl"))
    assert [p.stem for p in logs] == sorted(SESSIONS)
    header = json.loads(logs[0].read_text().splitlines()[0])
    assert header["yoi_session"] == 1
    from yoi_tui.core.sessions.detect import load_session

    parsed = load_session(logs[0])
    assert not parsed.problems
    assert parsed.session_id == SESSIONS[0] and len(parsed.entries) == 6


def test_demo_usage_events_are_valid_and_varied(tmp_path: Path) -> None:
    from yoi_tui.core.usage.log import candidate_report, load_events, record_stats

    create_demo_workspace(tmp_path / "ws")
    ws = Workspace(tmp_path / "ws")
    events, problems = load_events(ws)
    assert problems == [] and len(events) == 15
    protected = {stat.slug: stat.protected for stat in record_stats(ws)}
    assert protected["rule-money-as-integer-cents"] and not protected["howto-run-tests-locally"]
    assert [stat.slug for stat in candidate_report(ws)] == ["rule-money-as-integer-cents",
                                                           "explain-migrations-first"]


def test_demo_extra_records_scale_and_stay_lintable(tmp_path: Path) -> None:
    summary = create_demo_workspace(tmp_path / "ws", extra=300)
    assert summary.total == 39 + 300
    report = lint_workspace(Workspace(tmp_path / "ws"))
    assert report.errors == 3  # fillers add no errors


def test_demo_rerun_overwrites_in_place(tmp_path: Path) -> None:
    create_demo_workspace(tmp_path / "ws")
    target = tmp_path / "ws" / "memory" / "decisions" / "adopt-fastapi.md"
    target.write_text("changed", encoding="utf-8")
    create_demo_workspace(tmp_path / "ws")
    assert target.read_text(encoding="utf-8").startswith("---\n")


def test_core_imports_without_textual() -> None:
    """The memory core (and the demo/browse models the app uses) never imports Textual."""
    modules = ["yoi_tui.model.browse", "yoi_tui.model.demo"] + ["yoi_tui.core." + name for name in (
        "store.atomic", "store.config", "diagnostics", "errors", "retrieval.expand", "store.ids",
        "store.kinds", "text.markers", "store.models", "store.records", "retrieval.search",
        "retrieval.slugrefs", "store.staging", "usage.log", "store.workspace", "store.writer", "lint")]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
            "assert not bad, bad\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
