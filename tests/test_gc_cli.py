"""``yoi gc`` as a user and a harness run it (real subprocesses): output, --json, lock, revert, crashes."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

from phase2_fixtures import normalised_records, stage_realistic, start_yoi, tree_bytes, wait_for
from support import decision_meta, knowledge_meta, make_ws, request_meta, run_yoi, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import record_invoke, record_tokens


def _yoi(ws_root: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_yoi(args[0], "--workspace", str(ws_root), *args[1:], env=env)


def _workspace(tmp_path: Path) -> Workspace:
    """One record for each thing the rules engine does, plus a locked and a protected one."""
    ws = make_ws(tmp_path)
    (ws.root / "src").mkdir()
    (ws.root / "src/cache.py").write_text("")
    write_record(ws, "memory/decisions/use-sqlite-for-the-cache.md",
                 decision_meta(status="resolved", sources=[{"session_id": "s1", "range": [0, 3]},
                                                           {"session_id": "s1", "range": [5, 8]}]),
                 "\n# Use SQLite for the cache\n\n## Chosen\nSQLite in `src/cache.py`.\n")
    write_record(ws, "memory/decisions/use-sqlite-for-the-caches.md",
                 decision_meta(sources=[{"session_id": "s2", "range": [4, 9]}]),
                 "\n# Use SQLite for caches\n\n## Rationale\nOne file; see `src/old_cache.py`.\n")
    write_record(ws, "memory/decisions/use-json-files.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite-for-the-cache"), "\n# Use JSON files\n")
    locked = write_record(ws, "memory/decisions/use-pickle.md",
                          decision_meta(status="replaced", replaced_by="use-sqlite-for-the-cache"), "\n# Pickle\n")
    os.chmod(locked, 0o444)
    write_record(ws, "memory/decisions/use-shelve.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite-for-the-cache"), "\n# Shelve\n")
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(24)]
    write_record(ws, "knowledge/retry-policy.md", knowledge_meta(last_sources=many), "\nRetry three times.\n")
    write_record(ws, "memory/requests/add-a-progress-bar.md", request_meta(status="resolved"),
                 "\n# Add a progress bar\n")
    record_tokens(ws, 25_000_000, session_id="sess-a")
    for _ in range(4):
        record_invoke(ws, "use-shelve", "decision", "search", session_id="sess-a")
    record_tokens(ws, 100_000, session_id="sess-a")
    return ws


def test_dry_run_prints_diff_and_findings_and_changes_nothing(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    before = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    result = _yoi(ws.root, "gc", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "--- a/memory/decisions/use-json-files.md\n+++ /dev/null\n" in result.stdout
    assert "+Also titled: Use SQLite for caches\n" in result.stdout
    err = result.stderr
    assert "gc (dry run, rules): would modify 3, delete 2 file(s) in 4 operation(s)" in err
    assert "nothing was written" in err
    assert ("  drop    memory/decisions/use-json-files.md  [superseded,unused] replaced by "
            "`use-sqlite-for-the-cache`; never invoked in 25.1M tokens since it was written; nothing refers to it") in err
    assert "  locked    drop    memory/decisions/use-pickle.md  [superseded,unused]" in err
    assert "  protected drop    memory/decisions/use-shelve.md  [superseded] " in err
    assert "  reported  rewrite memory/decisions/use-sqlite-for-the-cache.md  [outdated] names a path that no " \
           "longer exists: `src/old_cache.py`" in err
    after = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    # Only GC's caches may appear (.yoi/state/ holds caches, as lint and search do).
    assert set(after) - set(before) <= {".yoi/state/cache/frontmatter-v1.json", ".yoi/state/cache/gc-similar-v1.json"}
    assert {rel: data for rel, data in after.items() if rel in before} == before
    assert not lock_path(ws).exists()


def test_apply_then_revert_restores_exact_bytes(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    before = tree_bytes(ws.root)
    result = _yoi(ws.root, "gc")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("gc run ") and "(rules): modified 3, deleted 2 in 4 operation(s); conflicts 0" in first
    assert "      M memory/decisions/use-sqlite-for-the-caches.md" in result.stdout  # a replaced stub
    run_id = first.split()[2]
    assert f"revert with: yoi revert {run_id}" in result.stdout
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []
    again = _yoi(ws.root, "gc")
    assert again.returncode == 0 and again.stdout.startswith("gc (rules): no change proposed; ")
    listed = _yoi(ws.root, "revert", "--list")
    assert run_id in listed.stdout and " gc " in listed.stdout
    reverted = _yoi(ws.root, "revert", run_id)
    assert reverted.returncode == 0, reverted.stderr
    assert "5 file(s) restored" in reverted.stdout
    assert tree_bytes(ws.root) == before


def test_json_shape(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    dry = json.loads(_yoi(ws.root, "gc", "--dry-run", "--json").stdout)
    assert dry["status"] == "dry-run" and dry["engine"] == "rules" and dry["exit"] == 0
    assert dry["clock"] == 25_100_000 and dry["counts"] == {"add": 0, "modify": 3, "delete": 2}
    assert dry["by_state"] == {"proposed": 4, "locked": 1, "protected": 1, "reported": 3}
    by_id = {o["id"]: o for o in dry["operations"]}
    merge = by_id["merge:memory/decisions/use-sqlite-for-the-cache.md"]
    assert set(merge) == {"id", "op", "state", "categories", "reason", "kind", "slug", "path", "paths", "details"}
    assert merge["paths"] == ["memory/decisions/use-sqlite-for-the-cache.md",
                              "memory/decisions/use-sqlite-for-the-caches.md"]
    assert by_id["locked:drop:memory/decisions/use-pickle.md"]["categories"] == ["superseded", "unused"]
    files = {f["path"]: f for f in dry["files"]}
    deleted = files["memory/decisions/use-sqlite-for-the-caches.md"]
    assert deleted["op"] == "modify" and deleted["category"] == ["noisy"]  # kept as a replaced stub
    assert deleted["operation"] == merge["id"] and deleted["diff"].startswith("--- a/memory/decisions/")
    assert files["knowledge/retry-policy.md"]["reason"] == "24 last_sources; keep the last 20 by session and range (git has the rest)"
    applied = json.loads(_yoi(ws.root, "gc", "--json").stdout)
    assert applied["status"] == "applied" and applied["applied_counts"] == {"add": 0, "modify": 3, "delete": 2}
    assert applied["conflicts"] == [] and Path(applied["journal"]).is_file()
    assert "diff" not in applied["files"][0]


def test_a_live_phase2_run_makes_gc_exit_1_and_the_other_way_round(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    stage_realistic(ws)
    barrier = tmp_path / "go"
    phase2 = start_yoi("phase2", "--workspace", str(ws.root), "--flush",
                       env={"YOI_PAUSE_AT": "phase2:computed", "YOI_PAUSE_FILE": str(barrier)})
    assert wait_for(Path(f"{barrier}.reached"))
    before = tree_bytes(ws.root, "knowledge")
    busy = _yoi(ws.root, "gc")
    assert busy.returncode == 1 and "another phase2 run holds the consolidation lock" in busy.stderr
    busy_json = json.loads(_yoi(ws.root, "gc", "--json").stdout)
    assert busy_json["status"] == "busy" and busy_json["holder"]["purpose"] == "phase2" and busy_json["exit"] == 1
    assert tree_bytes(ws.root, "knowledge") == before
    barrier.touch()
    phase2.communicate(timeout=60)
    assert phase2.returncode == 0

    barrier2 = tmp_path / "go2"
    gc = start_yoi("gc", "--workspace", str(ws.root),
                   env={"YOI_PAUSE_AT": "gc:computed", "YOI_PAUSE_FILE": str(barrier2)})
    assert wait_for(Path(f"{barrier2}.reached"))
    stage_realistic(ws)
    blocked = _yoi(ws.root, "phase2", "--flush")
    assert blocked.returncode == 1 and "another gc run holds the consolidation lock" in blocked.stderr
    barrier2.touch()
    out, err = gc.communicate(timeout=60)
    assert gc.returncode == 0, (out, err)
    assert not lock_path(ws).exists()


def test_the_configured_llm_engine_needs_its_key(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    write_record(ws, "memory/decisions/big.md", decision_meta(), "\n# Big\n\n" + "word " * 900 + "\n")  # a target
    before = tree_bytes(ws.root, "memory", "knowledge")
    (ws.root / ".yoi/config.toml").write_text('[gc]\nengine = "llm"\n')
    result = _yoi(ws.root, "gc", "--dry-run", env={"ANTHROPIC_API_KEY": ""})
    assert result.returncode == 2 and "ANTHROPIC_API_KEY" in result.stderr, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert tree_bytes(ws.root, "memory", "knowledge") == before and not lock_path(ws).exists()


def test_config_errors_and_help(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.root / ".yoi/config.toml").write_text("[gc]\nunused_min_age_token = 5\n")
    bad = _yoi(ws.root, "gc")
    assert bad.returncode == 2 and "did you mean 'gc.unused_min_age_tokens'" in bad.stderr
    (ws.root / ".yoi/config.toml").write_text("[gc]\nrequest_stale_tokens = -1\n")
    negative = _yoi(ws.root, "gc")
    assert negative.returncode == 2 and "gc.request_stale_tokens" in negative.stderr
    helped = run_yoi("gc", "--help")
    assert helped.returncode == 0 and "examples:" in helped.stdout and "--dry-run" in helped.stdout
    empty = make_ws(tmp_path / "empty")
    nothing = _yoi(empty.root, "gc")
    assert nothing.returncode == 0 and nothing.stdout == "gc (rules): no change proposed (clock 0 tokens)\n"


def test_sigkill_at_every_step_converges(tmp_path: Path) -> None:
    """GC killed at each crash point of its run (lock, compute, journal, each file, ...): a rerun
    finishes or redoes the work and leaves exactly the records of an uninterrupted run."""
    template = _workspace(tmp_path / "template").root
    reference = tmp_path / "reference"
    shutil.copytree(template, reference, symlinks=True)
    log = tmp_path / "points.log"
    assert _yoi(reference, "gc", env={"YOI_CRASHPOINT_LOG": str(log)}).returncode == 0
    points = [line.split(" ", 1)[1] for line in log.read_text().splitlines()]
    # The finer points inside one file's write (temp file renamed, apply's check) are killed at by
    # test_leftovers.py and the race tests; here every step of the run.
    steps = [n for n, name in enumerate(points, 1) if name not in ("write:renaming", "apply:checked", "apply:renaming",
                                                                          "apply:creating")]
    assert [points[n - 1] for n in steps[:4]] == ["gc:locked", "gc:recovered", "gc:computed", "gc:before-apply"]
    assert points.count("apply:file") == 5
    expected = normalised_records(reference)
    for number in steps:
        work = tmp_path / f"trial-{number}"
        shutil.copytree(template, work, symlinks=True)
        killed = _yoi(work, "gc", env={"YOI_CRASH_AT": str(number)})
        assert killed.returncode == -signal.SIGKILL, (number, killed.stdout, killed.stderr)
        assert [d for d in lint_workspace(Workspace(work)).diagnostics if d.is_error] == [], number
        rerun = _yoi(work, "gc")
        assert rerun.returncode == 0, (number, rerun.stdout, rerun.stderr)
        assert normalised_records(work) == expected, f"crash at point {number} ({points[number - 1]})"
        assert not lock_path(Workspace(work)).exists()
        assert not list((work / ".yoi/state/runs").glob("*.pending.json"))
