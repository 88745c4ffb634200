"""GC's rules engine on hand-built workspaces: each category and operation, and the hard rules.

Real files in tmp_path, real usage events (``record_tokens``/``record_invoke``), the real runner
(``run_gc``/``prepare_gc``) with its scratch copy, lock and journal.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from phase2_fixtures import tree_bytes
from support import decision_meta, knowledge_meta, make_ws, request_meta, write_record

from yoi_tui.core.gc import GcOperation, GcReport, prepare_gc, run_gc
from yoi_tui.core.gc.facts import PathChecker, UsageFacts, named_paths
from yoi_tui.core.gc.rules_engine import stub_line
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.runner import prepare_round
from yoi_tui.core.runs.changeset import revert
from yoi_tui.core.runs.consolidation_lock import LockBusy, lock_path
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import record_invoke, record_tokens

FUTURE = datetime.now(UTC).replace(microsecond=0) + timedelta(days=3)


def _ops(report: GcReport, path: str) -> list[GcOperation]:
    return [o for o in report.operations if o.path == path]


def _op(report: GcReport, path: str, op: str) -> GcOperation:
    (found,) = [o for o in _ops(report, path) if o.op == op]
    return found


def _age(ws: Workspace, tokens: int = 30_000_000) -> None:
    """Advance the token clock (all records of the tests were written before it ran)."""
    record_tokens(ws, tokens, session_id="clock")


def _errors(ws: Workspace) -> list[tuple[str, str]]:
    return sorted((d.path, d.rule) for d in lint_workspace(ws).diagnostics if d.is_error)


def _reload(ws: Workspace) -> Workspace:
    return Workspace(ws.root)


# --------------------------------------------------------------------------- superseded → drop


def test_replaced_and_unreferenced_is_dropped(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(status="resolved"), "\n# Use SQLite\n")
    old = write_record(ws, "memory/decisions/use-json-files.md",
                       decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use JSON files\n")
    dry = run_gc(ws, dry_run=True)
    drop = _op(dry, "memory/decisions/use-json-files.md", "drop")
    assert drop.state == "proposed" and drop.categories == ["superseded"]
    assert "replaced by `use-sqlite`" in drop.reason and "nothing refers to it" in drop.reason
    change = dry.changeset.get("memory/decisions/use-json-files.md")  # type: ignore[union-attr]
    assert change is not None and change.op == "delete" and change.category == ["superseded"]
    assert change.reason == drop.reason
    assert old.exists()  # dry run
    report = run_gc(ws)
    assert report.status == "applied" and report.exit_code == 0
    assert not old.exists() and _errors(ws) == []


def test_replaced_but_still_referenced_is_kept_and_reported(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/atomic-writes.md", knowledge_meta())
    write_record(ws, "knowledge/atomic-write.md", knowledge_meta(replaced_by="atomic-writes"))
    write_record(ws, "memory/decisions/save-safely.md", decision_meta(), "\nSee #atomic-write for how.\n")
    before = tree_bytes(ws.root)
    report = run_gc(ws)
    drop = _op(report, "knowledge/atomic-write.md", "drop")
    assert drop.state == "reported" and drop.details["referred_from"] == ["memory/decisions/save-safely.md"]
    assert "point them at `atomic-writes`" in drop.reason
    assert tree_bytes(ws.root) == before and report.status == "nothing-to-do"


def test_a_replaced_chain_nothing_points_at_goes_together(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/requests/v3.md", request_meta())
    write_record(ws, "memory/requests/v2.md", request_meta(replaced_by="v3"))
    write_record(ws, "memory/requests/v1.md", request_meta(replaced_by="v2"))
    report = run_gc(ws)
    assert {o.path for o in report.proposed} == {"memory/requests/v1.md", "memory/requests/v2.md"}
    assert sorted(p.name for p in ws.requests_dir.iterdir()) == ["v3.md"]
    assert _errors(ws) == []


def test_a_replaced_record_whose_replacement_is_missing_is_kept(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/orphan.md", decision_meta(status="replaced", replaced_by="nowhere"))
    write_record(ws, "memory/decisions/no-target.md", decision_meta(status="replaced"))
    report = run_gc(ws)
    orphan = _op(report, "memory/decisions/orphan.md", "drop")
    assert orphan.state == "reported" and "replacement chain from `nowhere` is broken" in orphan.reason
    assert "no replaced_by names the replacement" in _op(report, "memory/decisions/no-target.md", "drop").reason
    assert report.proposed == []


def test_references_from_workflows_and_unparsable_records_keep_a_record(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/deploy-steps.md", knowledge_meta())
    write_record(ws, "knowledge/deploy-howto.md", knowledge_meta(replaced_by="deploy-steps"))
    write_record(ws, "knowledge/release-notes.md", knowledge_meta())
    write_record(ws, "knowledge/release-note.md", knowledge_meta(replaced_by="release-notes"))
    workflow = ws.workflow_dir / "deploy.md"
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text("# Deploy\n\n1. Follow #deploy-howto.\n")
    broken = ws.decisions_dir / "broken.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("---\nstatus: [unclosed\n---\nSee #release-note.\n")
    before = tree_bytes(ws.root)
    report = run_gc(ws)
    assert _op(report, "knowledge/deploy-howto.md", "drop").details["referred_from"] == ["memory/workflow/deploy.md"]
    assert _op(report, "knowledge/release-note.md", "drop").details["referred_from"] == ["memory/decisions/broken.md"]
    assert any("memory/decisions/broken.md: not evaluated" in n for n in report.changeset.notes)  # type: ignore[union-attr]
    assert tree_bytes(ws.root) == before  # workflow/ and the broken record untouched


# --------------------------------------------------------------------------- unused


def test_unused_resolved_or_old_requests_are_dropped_other_unused_records_reported(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.root / ".yoi/config.toml").write_text("[gc]\nrequest_stale_tokens = 25000000\n")
    ws = _reload(ws)
    write_record(ws, "memory/requests/add-progress-bar.md", request_meta(status="resolved"), "\n# Add a progress bar\n")
    write_record(ws, "memory/requests/port-to-windows.md", request_meta(), "\n# Port to Windows\n")
    write_record(ws, "memory/requests/dark-mode.md", request_meta(updated_at=FUTURE), "\n# Dark mode\n")
    write_record(ws, "memory/requests/used-request.md", request_meta(status="resolved"), "\n# Used\n")
    write_record(ws, "memory/decisions/never-read.md", decision_meta(status="resolved"), "\n# Never read\n")
    write_record(ws, "knowledge/brand-new.md", knowledge_meta(created_at=FUTURE))
    _age(ws)
    record_invoke(ws, "used-request", "request", "search", session_id="reader")
    report = run_gc(ws, dry_run=True)
    resolved = _op(report, "memory/requests/add-progress-bar.md", "drop")
    assert resolved.state == "proposed" and resolved.categories == ["unused"]
    assert "never invoked in 30.0M tokens" in resolved.reason and "the request is resolved" in resolved.reason
    old = _op(report, "memory/requests/port-to-windows.md", "drop")
    assert old.state == "proposed" and "last updated 30.0M tokens ago" in old.reason
    # Updated recently (on the token clock): unused, but not old → only reported.
    assert _op(report, "memory/requests/dark-mode.md", "drop").state == "reported"
    decision = _op(report, "memory/decisions/never-read.md", "drop")
    assert decision.state == "reported" and decision.categories == ["unused"] and "kept" in decision.reason
    assert decision.details["age_tokens"] == 30_000_000
    assert _ops(report, "memory/requests/used-request.md") == []  # invoked: not unused
    assert _ops(report, "knowledge/brand-new.md") == []  # written after the clock ran: too young
    assert {c.path for c in report.changeset.changes} == {  # type: ignore[union-attr]
        "memory/requests/add-progress-bar.md", "memory/requests/port-to-windows.md"}


def test_no_usage_clock_means_nothing_is_unused(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/requests/add-progress-bar.md", request_meta(status="resolved"))
    report = run_gc(ws)
    assert report.operations == [] and report.status == "nothing-to-do" and report.clock == 0


def test_clock_at_a_moment_follows_uuid7_time(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.usage_dir.mkdir(parents=True, exist_ok=True)
    t1 = datetime(2026, 1, 1, tzinfo=UTC)
    t2 = datetime(2026, 3, 1, tzinfo=UTC)

    def uuid7_at(moment: datetime, n: int) -> str:
        ms = int(moment.timestamp() * 1000)
        value = (ms << 80) | (0x7 << 76) | (n << 64) | (0b10 << 62) | n
        hexed = f"{value:032x}"
        return f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"

    (ws.usage_dir / "s.jsonl").write_text(
        f'{{"id":"{uuid7_at(t1, 1)}","type":"tokens","input_tokens":1000}}\n'
        f'{{"id":"{uuid7_at(t2, 2)}","type":"tokens","input_tokens":500}}\n')
    facts = UsageFacts.load(ws)
    assert facts.clock == 1500
    assert facts.age_tokens(t1 - timedelta(seconds=1)) == 1500
    assert facts.age_tokens(t1) == 500
    assert facts.age_tokens(t2 + timedelta(days=1)) == 0
    assert facts.age_tokens("not a time") is None


# --------------------------------------------------------------------------- protection and locks


def test_protected_records_are_never_dropped(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/new-way.md", decision_meta())
    path = write_record(ws, "memory/decisions/old-way.md", decision_meta(status="replaced", replaced_by="new-way"))
    for _ in range(3):
        record_invoke(ws, "old-way", "decision", "search", session_id="reader")
    _age(ws, 200_000)
    report = run_gc(ws)
    drop = _op(report, "memory/decisions/old-way.md", "drop")
    assert drop.state == "protected" and "protected: used 15.00 times per million tokens" in drop.reason
    assert path.exists() and report.status == "nothing-to-do"


def test_locked_files_are_never_touched_and_reported_as_locked(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/new-way.md", decision_meta())
    replaced = write_record(ws, "memory/decisions/old-way.md",
                            decision_meta(status="replaced", replaced_by="new-way"))
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(25)]
    overflowing = write_record(ws, "memory/requests/long-running.md", request_meta(sources=many))
    twin = write_record(ws, "memory/decisions/new-ways.md", decision_meta(), "\n# New ways\n")
    for path in (replaced, overflowing, twin):
        os.chmod(path, 0o444)
    before = {p: (p.read_bytes(), p.stat().st_mode) for p in (replaced, overflowing, twin)}
    report = run_gc(ws)
    assert _op(report, "memory/decisions/old-way.md", "drop").state == "locked"
    trim = _op(report, "memory/requests/long-running.md", "trim")
    assert trim.state == "locked" and "read-only: not touched" in trim.reason
    merge = _op(report, "memory/decisions/new-ways.md", "merge")
    assert merge.state == "locked" and "`new-way`" in merge.reason
    assert {p: (p.read_bytes(), p.stat().st_mode) for p in before} == before
    assert report.proposed == [] and report.status == "nothing-to-do"


# --------------------------------------------------------------------------- merge


def _body_lines(text: str) -> set[str]:
    return {line.strip() for line in text.split("---", 2)[2].splitlines() if line.strip()}


def test_near_duplicates_are_merged_without_losing_a_line(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    # The keeper is the preferred slug (shortest), whatever the records hold (docs/gc.md, issue 30).
    keep = write_record(ws, "memory/decisions/use-sqlite-for-the-cache.md",
                        decision_meta(status="open", sources=[{"session_id": "s1", "range": [0, 3]},
                                                              {"session_id": "s1", "range": [4, 6]}]),
                        "\n# Use SQLite for the cache\n\n## Options\n- SQLite\n- JSON files\n")
    other = write_record(ws, "memory/decisions/use-sqlite-for-the-caches.md",
                         decision_meta(status="resolved", sources=[{"session_id": "s2", "range": [5, 9]}],
                                       updated_at=datetime(2026, 11, 1, tzinfo=UTC)),
                         "\n# Use SQLite for caches\n\n## Chosen\nSQLite with WAL\n\n## Options\n- SQLite\n- shelve\n")
    record_invoke(ws, "use-sqlite-for-the-cache", "decision", "search", session_id="reader")
    lines = _body_lines(keep.read_text()) | _body_lines(other.read_text())
    report = run_gc(ws)
    merge = _op(report, "memory/decisions/use-sqlite-for-the-cache.md", "merge")
    assert merge.state == "proposed" and merge.categories == ["noisy"]
    assert merge.paths == ["memory/decisions/use-sqlite-for-the-cache.md", "memory/decisions/use-sqlite-for-the-caches.md"]
    # Merged away, not deleted: a replaced stub stays (docs/gc.md), so an update made meanwhile in
    # another clone merges through git instead of meeting a deletion.
    assert merge.details["deleted"] == [] and merge.details["replaced"] == ["use-sqlite-for-the-caches"]
    stub = read_record(ws, other).record
    assert stub is not None and stub.replaced_by == "use-sqlite-for-the-cache" and stub.status == "replaced"
    assert stub_line("use-sqlite-for-the-cache") in stub.body
    text = keep.read_text()
    missing = {line for line in lines if line not in _body_lines(text)}
    assert missing == {"# Use SQLite for caches"} and "Also titled: Use SQLite for caches" in text
    record = read_record(ws, keep).record
    assert record is not None and record.status == "resolved"
    assert "kept `use-sqlite-for-the-cache` because its slug is preferred" in merge.reason
    assert "status open → resolved (`use-sqlite-for-the-caches` records the choice as made)" in merge.reason
    # Blocks merged whole: the other list's new item joins the keeper's list; a new section follows —
    # then in the canonical order every writer gives (store.canonical: Phase 2's sections in their
    # order, one-line entries sorted), so any clone merging these two writes these bytes.
    assert record.body == ("\n# Use SQLite for the cache\n\nAlso titled: Use SQLite for caches\n\n## Chosen\n"
                           "SQLite with WAL\n\n## Options\n- JSON files\n- SQLite\n- shelve\n")
    assert record.meta["sources"] == [{"session_id": "s1", "range": [0, 3]}, {"session_id": "s1", "range": [4, 6]},
                                      {"session_id": "s2", "range": [5, 9]}]
    assert _errors(ws) == []


def test_a_merged_record_something_points_at_stays_as_replaced(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/retry-policy-for-http.md", knowledge_meta(), "\nRetry three times, then give up.\n")
    write_record(ws, "knowledge/retry-policy-for-https.md", knowledge_meta(), "\nBack off exponentially.\n")
    write_record(ws, "memory/decisions/http-client.md", decision_meta(), "\nFollow #retry-policy-for-https.\n")
    for _ in range(2):
        record_invoke(ws, "retry-policy-for-http", "knowledge", "search", session_id="reader")
    report = run_gc(ws)
    merge = _op(report, "knowledge/retry-policy-for-http.md", "merge")
    assert merge.details["replaced"] == ["retry-policy-for-https"] and merge.details["deleted"] == []
    kept = read_record(ws, ws.knowledge_dir / "retry-policy-for-https.md").record
    assert kept is not None and kept.replaced_by == "retry-policy-for-http"
    assert kept.body == f"\nBack off exponentially.\n\n{stub_line('retry-policy-for-http')}\n"
    change = report.changeset.get("knowledge/retry-policy-for-https.md")  # type: ignore[union-attr]
    assert change is not None and "still referred to from memory/decisions/http-client.md" in (change.reason or "")
    assert "Back off exponentially." in (ws.knowledge_dir / "retry-policy-for-http.md").read_text()
    assert _errors(ws) == []


def test_a_merged_knowledge_record_keeps_its_description_and_reach(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/release-checklist.md", knowledge_meta(description="Steps before a release."),
                 "\n# Release checklist\n\n- bump the version\n")
    write_record(ws, "knowledge/release-checklists.md",
                 knowledge_meta(description="Read before tagging.", model_invokation=True),
                 "\n# Release checklist\n\n- tag the commit\n")
    record_invoke(ws, "release-checklist", "knowledge", "slug", session_id="reader")
    run_gc(ws)
    merged = read_record(ws, ws.knowledge_dir / "release-checklist.md").record
    assert merged is not None and (ws.knowledge_dir / "release-checklists.md").exists()  # a replaced stub
    assert merged.model_invokation and merged.description == "Steps before a release."
    # (the preferred slug is kept; the other's item joins its list, the other description is a
    # labelled line under the title, where store.canonical keeps such lines)
    assert merged.body == ("\n# Release checklist\n\nAlso described as: Read before tagging.\n\n"
                           "- bump the version\n- tag the commit\n")
    assert _errors(ws) == []


def test_slugs_with_different_numbers_are_not_merged(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/requests/fix-issue-12.md", request_meta())
    write_record(ws, "memory/requests/fix-issue-13.md", request_meta())
    assert run_gc(ws).operations == []


def test_a_protected_near_duplicate_is_not_merged_away(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/cache-expiry-for-http.md", decision_meta())
    write_record(ws, "memory/decisions/cache-expiry-for-https.md", decision_meta())
    for slug in ("cache-expiry-for-http", "cache-expiry-for-http", "cache-expiry-for-https"):
        record_invoke(ws, slug, "decision", "search", session_id="reader")
    _age(ws, 100_000)
    report = run_gc(ws)
    protected = _op(report, "memory/decisions/cache-expiry-for-https.md", "merge")
    assert protected.state == "protected" and "`cache-expiry-for-http`" in protected.reason
    assert report.proposed == []


def test_a_merge_the_linter_refuses_changes_nothing_and_exits_1(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/requests/speed-up-startup.md", request_meta(), "\n" + "a " * 1000 + "\n")
    write_record(ws, "memory/requests/speed-up-startups.md", request_meta(), "\n" + "b " * 1000 + "\n")
    before = tree_bytes(ws.root)
    report = run_gc(ws)
    refused = [o for o in report.operations if o.op == "merge"]
    assert [o.state for o in refused] == ["refused"] and "over-cap" in refused[0].reason
    assert report.exit_code == 1 and tree_bytes(ws.root) == before


# --------------------------------------------------------------------------- trim, over cap, outdated


def test_source_overflow_keeps_the_last_n_of_the_canonical_order(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    many = [{"session_id": f"s{i:02d}", "range": [0, i]} for i in range(25)]
    # Listed in another order (another clone appended them as they arrived): the same ones are kept,
    # the last 20 by session id and range (store.canonical), so every clone's trim agrees.
    shuffled = many[10:] + many[:10]
    path = write_record(ws, "memory/decisions/long-running.md", decision_meta(sources=shuffled), "\nBody.\n")
    report = run_gc(ws)
    trim = _op(report, "memory/decisions/long-running.md", "trim")
    assert trim.state == "proposed" and trim.categories == ["noisy"]
    assert trim.reason == "25 sources; keep the last 20 by session and range (git has the rest)"
    record = read_record(ws, path).record
    assert record is not None and record.meta["sources"] == many[5:]
    assert record.meta["updated_at"] == decision_meta()["updated_at"] and record.body == "\nBody.\n"


def test_over_cap_and_outdated_paths_are_reported_not_rewritten(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.root / "src").mkdir()
    (ws.root / "src/cache.py").write_text("")
    body = ("\n# Cache\n\nLives in `src/cache.py`; the old code was in `src/old_cache.py:12` and `lib/legacy/`.\n"
            "```\ncat src/fenced.py\n```\nRun `pytest tests/test_x.py` (a command, not a path).\n"
            + "word " * 900 + "\n")
    write_record(ws, "memory/decisions/cache.md", decision_meta(), body)
    before = tree_bytes(ws.root)
    report = run_gc(ws)
    (rewrite,) = _ops(report, "memory/decisions/cache.md")
    assert rewrite.op == "rewrite" and rewrite.state == "reported"
    assert rewrite.categories == ["noisy", "outdated"]
    assert "does not rewrite prose" in rewrite.reason and rewrite.details["cap"] == 4000
    assert rewrite.details["missing_paths"] == ["src/old_cache.py", "lib/legacy/"]
    assert tree_bytes(ws.root) == before and report.exit_code == 0


def test_named_paths_and_memory_only_workspaces() -> None:
    body = ("Paths: `src/x.py`, `./docs/a.md#L3`, `yoi_tui/core/a.py::test_it`, `client/`.\n"
            "Not paths: `https://e.com/a.py`, `a/b`, `../up.py`, `/etc/hosts.conf`, `1/2.5`, `git add x.py`.\n"
            "```\n`src/in_fence.py`\n```\n")
    assert named_paths(body) == ["src/x.py", "docs/a.md", "yoi_tui/core/a.py", "client/"]


def test_paths_are_not_checked_against_a_memory_only_workspace(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    checker = PathChecker(ws.root)
    assert not checker.has_code
    assert checker.missing(["client/api.py", "memory/decisions/gone.md"]) == ["memory/decisions/gone.md"]


# --------------------------------------------------------------------------- summary and workflow


def test_the_summary_is_never_dropped_and_workflows_never_written(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/summary.md", {"updated_at": datetime(2026, 1, 1, tzinfo=UTC)},
                 "\n# Summary\n\n## Recent requests\n- Old (`old-request`)\n" + "x" * 20_100 + "\n")
    write_record(ws, "memory/requests/old-request.md", request_meta(status="resolved"))
    workflow = ws.workflow_dir / "release.md"
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text("---\nreplaced_by: x\n---\nSteps.\n")
    _age(ws)
    report = run_gc(ws)
    assert [(o.op, o.state) for o in _ops(report, "memory/summary.md")] == [("rewrite", "reported")]
    assert (ws.root / "memory/summary.md").exists() and workflow.read_text() == "---\nreplaced_by: x\n---\nSteps.\n"
    assert [o.path for o in report.proposed] == ["memory/requests/old-request.md"]
    assert any("memory/summary.md still lists `old-request`" in n for n in report.changeset.notes)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- run mechanics


def _busy_workspace(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/new-way.md", decision_meta())
    write_record(ws, "memory/decisions/old-way.md", decision_meta(status="replaced", replaced_by="new-way"))
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(22)]
    write_record(ws, "memory/requests/long-running.md", request_meta(sources=many))
    return ws


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    ws = _busy_workspace(tmp_path)
    before = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    report = run_gc(ws, dry_run=True)
    assert report.status == "dry-run" and len(report.proposed) == 2
    after = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    # The files a dry run may write are GC's caches (.yoi/state/ holds caches, SPEC 2).
    assert set(after) - set(before) == {".yoi/state/cache/frontmatter-v1.json", ".yoi/state/cache/gc-similar-v1.json"}
    assert {rel: data for rel, data in after.items() if rel in before} == before
    assert not lock_path(ws).exists()


def test_apply_then_revert_restores_exact_bytes(tmp_path: Path) -> None:
    ws = _busy_workspace(tmp_path)
    # CRLF and a BOM survive the trim and the revert byte for byte.
    path = ws.requests_dir / "long-running.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    before = tree_bytes(ws.root)
    report = run_gc(ws)
    assert report.result is not None and report.result.counts() == {"add": 0, "modify": 1, "delete": 1}
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf---\r\n") and b"\r\n  - session_id: s2\r\n" in data
    assert b"session_id: s1\r\n" not in data
    result = revert(ws, report.run_id or "")
    assert result.ok and sorted(result.restored) == ["memory/decisions/old-way.md", "memory/requests/long-running.md"]
    assert tree_bytes(ws.root) == before


def test_prepared_gc_holds_the_phase2_lock_and_applies_accepted_operations(tmp_path: Path) -> None:
    ws = _busy_workspace(tmp_path)
    prepared = prepare_gc(ws)
    assert prepared.lock is not None and lock_path(ws).exists()
    with pytest.raises(LockBusy, match="another gc run holds the consolidation lock"):
        prepare_round(ws, flush=True)
    with pytest.raises(LockBusy):
        prepare_gc(ws)
    ids = {o.id for o in prepared.report.proposed}
    assert ids == {"drop:memory/decisions/old-way.md", "trim:memory/requests/long-running.md"}
    for change in prepared.changeset.changes:  # what the app shows beside each diff
        assert change.category and change.reason
    result = prepared.apply(operations={"trim:memory/requests/long-running.md"})
    assert [c.path for c in result.applied] == ["memory/requests/long-running.md"]
    assert [c.path for c in result.rejected] == ["memory/decisions/old-way.md"]
    assert (ws.decisions_dir / "old-way.md").exists() and not lock_path(ws).exists()


def test_a_record_edited_after_the_run_read_it_is_a_conflict(tmp_path: Path) -> None:
    ws = _busy_workspace(tmp_path)
    prepared = prepare_gc(ws)
    path = ws.decisions_dir / "old-way.md"
    edited = path.read_text() + "A person's note.\n"
    path.write_text(edited)
    result = prepared.apply()
    assert [c.path for c, _ in result.conflicts] == ["memory/decisions/old-way.md"]
    assert path.read_text() == edited and prepared.report.exit_code == 1


def test_gc_with_a_live_phase2_lock_is_busy(tmp_path: Path) -> None:
    ws = _busy_workspace(tmp_path)
    from yoi_tui.core.runs.consolidation_lock import ConsolidationLock

    with ConsolidationLock(ws, purpose="phase2"):
        with pytest.raises(LockBusy, match="another phase2 run"):
            run_gc(ws)
        run_gc(ws, dry_run=True)  # a dry run takes no lock
    assert run_gc(ws).status == "applied"
