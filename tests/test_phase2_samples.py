"""End to end on the sample session logs: ``yoi phase1`` then ``yoi phase2`` (rules) on a fresh workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from phase2_fixtures import tree_bytes
from support import REPO, make_ws, run_yoi

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.rules_engine import one_line
from yoi_tui.core.retrieval.resident_context import build_resident_context
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.record_listing import iter_record_paths
from yoi_tui.core.store.staging import list_staging, read_staging
from yoi_tui.core.store.titles import clean_title


def _norm(text: str) -> str:
    """Compare text as a reader sees it: one line, no code-span backticks or '#', any case."""
    return one_line(text.replace("`", "").replace("#", "")).lower()


SAMPLES = sorted((REPO / "tests" / "data" / "samples").glob("*.jsonl"))


@pytest.mark.skipif(not SAMPLES, reason="no sample session logs in tests/data/samples")
def test_phase1_then_phase2_on_the_samples(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    phase1 = run_yoi("phase1", "--workspace", str(ws.root), "--force", *map(str, SAMPLES))
    assert phase1.returncode == 0, phase1.stderr
    staged = [read_staging(p) for p in list_staging(ws)]
    assert staged, "Phase 1 wrote no staging from the samples"

    phase2 = run_yoi("phase2", "--workspace", str(ws.root), "--flush")
    assert phase2.returncode == 0, phase2.stderr
    assert phase2.stdout.startswith("phase2 run ") and f"staging consumed {len(staged)}, kept 0" in phase2.stdout
    assert not list_staging(ws)

    records = {}
    for path in iter_record_paths(ws):
        record = read_record(ws, path).record
        assert record is not None
        records[record.rel] = record
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []
    bodies = _norm("\n".join(r.body for r in records.values()))
    # A reader recognises what happened: every request's summary and every decision is in a record,
    # each record opens with a title, and the resident context lists the requests.
    for staging in staged:
        for request in staging.activity.requests:
            assert _norm(request.summary) in bodies
        for decision in staging.activity.decisions:  # its title as every record title is cleaned ("Plan:" off)
            assert _norm(clean_title(decision.title)) in bodies
    for rel, record in records.items():
        if rel != "memory/summary.md":
            assert record.body.startswith("\n# "), rel
            assert record.meta.get("sources") or record.meta.get("last_sources"), rel
    staged_sessions = {s.source.session_id for s in staged}
    cited = {s["session_id"] for r in records.values() for s in r.sources()}
    # Sources point at the lines each item came from, not at the whole staging range.
    whole = {(s.source.session_id, *s.source.range) for s in staged}
    for rel, record in records.items():
        for source in record.meta.get("sources") or []:
            assert (source["session_id"], *source["range"]) not in whole, rel
    # Issue 12's "done when": no question or harness line as a request, attempts say truthfully
    # whether they were fixed, and the subagent's lessons are kept, not dropped.
    requests = [r for rel, r in records.items() if rel.startswith("memory/requests/")]
    assert not any("?" in (r.body.split("\n")[1]) for r in requests)
    # The failing test ran while the agent worked on the user's second request (entry 38), so its
    # story joins that request's record, not the first one's.
    four = records["memory/requests/use-the-initials-from-the-username-if-name-isn-t-present.md"].body
    assert "pnpm test NavUser.test.tsx` failed" in four and "then succeeded" in four and "Not fixed" not in four
    assert "NavUser.test.tsx" not in records["memory/requests/add-the-first-two-initials-of-actual-user.md"].body
    lessons = records["knowledge/lessons-from-agent-sessions.md"].body
    assert "command not found: tree" in lessons and "ran `find " in lessons
    assert cited <= staged_sessions and cited
    summary = build_resident_context(ws).text  # the listings are computed, not stored
    assert "memory/summary.md" not in records
    assert "## Recent requests\n- " in summary

    # Again, with no new staging: nothing changes (and Phase 1 over the same logs adds nothing).
    before = tree_bytes(ws.root)
    again = run_yoi("phase2", "--workspace", str(ws.root), "--flush")
    assert again.returncode == 0 and "nothing to do" in again.stdout
    run_yoi("phase1", "--workspace", str(ws.root), "--force", *map(str, SAMPLES))
    assert not list_staging(ws)
    dry = run_yoi("phase2", "--workspace", str(ws.root), "--flush", "--dry-run")
    assert dry.returncode == 0 and dry.stdout == ""
    assert tree_bytes(ws.root) == before
