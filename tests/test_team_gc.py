"""GC that agrees with itself across clones: the same records give the same operations whatever the
usage, file times or clone; a record merged away stays a replaced stub, so another clone's update of
it merges through git and is folded into the keeper later instead of being lost."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml
from git_support import clone, commit_all, git, git_env, make_remote, yoi
from support import decision_meta, make_ws, request_meta, write_record

from yoi_tui.core.gc import run_gc
from yoi_tui.core.gc.rules_engine import stub_line
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import record_invoke, record_tokens

KEEP = "memory/requests/add-a-dark-mode.md"
DUP = "memory/requests/add-a-dark-modes.md"


def _pair(ws: Workspace) -> None:
    # The keeper holds more (two sources against one: docs/gc.md), whatever its slug.
    write_record(ws, KEEP, request_meta(sources=[{"session_id": "s1", "range": [0, 3]},
                                                 {"session_id": "s3", "range": [2, 6]}]),
                 "\n# Add a dark mode\n\n## Summary\nA dark theme.\n")
    write_record(ws, DUP, request_meta(sources=[{"session_id": "s2", "range": [1, 4]}]),
                 "\n# Add a dark mode\n\n## Summary\nA dark theme for the editor.\n")


def _proposed(ws: Workspace) -> list[tuple]:
    report = run_gc(ws, dry_run=True)
    return sorted((o.op, o.state, tuple(o.paths or ()), (o.details or {}).get("into")) for o in report.operations
                  if o.state == "proposed")


def test_the_same_records_give_the_same_operations_in_every_clone(tmp_path: Path) -> None:
    first = make_ws(tmp_path / "one")
    second = make_ws(tmp_path / "two")
    for ws in (first, second):
        _pair(ws)
    # What differs between clones: usage (who searched what), file times, the order files were written.
    # (Used, but below the protection threshold: the old rule kept the most used record.)
    record_invoke(second, "add-a-dark-modes", "request", "search", session_id="other")
    record_tokens(second, 3_000_000, session_id="other")
    os.utime(second.root / KEEP, (1, 1))
    ops = _proposed(first)
    assert ops == _proposed(second)
    assert ops == [("merge", "proposed", (KEEP, DUP), "add-a-dark-mode")]  # the record holding more keeps


def test_a_merge_stub_keeps_a_late_update_and_folds_it_before_it_is_dropped(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.config_path).write_text("[gc]\nreplaced_grace_tokens = 1000000\n", encoding="utf-8")
    ws = Workspace(ws.root)
    _pair(ws)
    record_tokens(ws, 10, session_id="x")
    run_gc(ws)
    stub = read_record(ws, ws.root / DUP).record
    assert stub is not None and stub.replaced_by == "add-a-dark-mode" and stub_line("add-a-dark-mode") in stub.body
    # Within the grace period the stub stays, and says why.
    report = run_gc(Workspace(ws.root), dry_run=True)
    kept = [o for o in report.operations if o.path == DUP]
    assert kept and kept[0].state == "reported" and "kept as a replaced stub" in kept[0].reason
    # Another clone, not having pulled the merge, updated the record; git merged that into the stub.
    text = (ws.root / DUP).read_text().replace("    range: [1, 4]\n", "    range: [1, 4]\n  - session_id: s9\n    range: [0, 2]\n")
    text = text.replace("A dark theme for the editor.\n", "A dark theme for the editor.\nAlso the terminal.\n")
    # Stamped before the token events below (stamps are whole seconds; no sleeping in tests).
    text = re.sub(r"updated_at: .*", "updated_at: 2026-11-02T10:00:00+00:00", text)
    (ws.root / DUP).write_text(text)
    record_tokens(ws, 2_000_000, session_id="x")
    fold = run_gc(Workspace(ws.root))
    folded = [o for o in fold.operations if o.op == "merge" and o.state == "proposed"]
    assert folded and folded[0].details["folded"] and folded[0].paths == [KEEP]
    keeper = read_record(ws, ws.root / KEEP).record
    assert keeper is not None
    assert {"session_id": "s9", "range": [0, 2]} in keeper.meta["sources"]
    assert "Also the terminal." in keeper.body and "Merged into" not in keeper.body
    assert (ws.root / DUP).exists()  # dropped only once nothing is left to fold
    run_gc(Workspace(ws.root))
    assert not (ws.root / DUP).exists()
    assert [d for d in lint_workspace(Workspace(ws.root)).diagnostics if d.is_error] == []


def test_a_gc_merge_against_another_clones_update_merges_in_git_without_loss(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    _pair(Workspace(a))
    commit_all(a, "two near-duplicate requests", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    b = clone(remote, tmp_path / "b", env)
    assert yoi(a, "gc", env=env).returncode == 0
    commit_all(a, "gc", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    # b updates the record a merged away, before pulling.
    path = b / DUP
    path.write_text(path.read_text().replace("    range: [1, 4]\n", "    range: [1, 4]\n  - session_id: s9\n    range: [0, 2]\n")
                    .replace("for the editor.\n", "for the editor.\nAlso the terminal.\n"))
    commit_all(b, "update", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr  # no modify/delete conflict
    merged = path.read_text()
    meta = yaml.safe_load(merged.split("---\n")[1])
    assert meta["replaced_by"] == "add-a-dark-mode"
    assert {"session_id": "s9", "range": [0, 2]} in meta["sources"] and "Also the terminal." in merged
    assert yoi(b, "lint", env=env).returncode == 0


def test_keeper_choice_ignores_update_times(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/pick-a-db.md", decision_meta(), "\n# Pick a DB\n\nOlder.\n")
    write_record(ws, "memory/decisions/pick-a-dbs.md",
                 decision_meta(updated_at=datetime(2026, 12, 1, tzinfo=UTC)), "\n# Pick a DB\n\nNewer.\n")
    ops = _proposed(ws)
    assert ops == [("merge", "proposed", ("memory/decisions/pick-a-db.md", "memory/decisions/pick-a-dbs.md"),
                    "pick-a-db")]


def test_folding_converges_when_the_keeper_is_at_the_source_cap(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.config_path).write_text("[gc]\nreplaced_grace_tokens = 10\n\n[records]\nsources_max = 3\n", encoding="utf-8")
    ws = Workspace(ws.root)
    latest = [{"session_id": f"k{i}", "range": [0, 1]} for i in range(3)]
    write_record(ws, KEEP, request_meta(sources=latest), "\n# Add a dark mode\n\nA dark theme.\n")
    # A stub whose sources the merge trimmed away (before the keeper's last three in the canonical
    # order of sources, session id then range: store.canonical).
    write_record(ws, DUP, request_meta(replaced_by="add-a-dark-mode", sources=[{"session_id": "a-old", "range": [0, 1]}]),
                 f"\n# Add a dark mode\n\nA dark theme.\n\n{stub_line('add-a-dark-mode')}\n")
    record_tokens(ws, 100, session_id="x")
    report = run_gc(Workspace(ws.root))
    assert not [o for o in report.operations if o.op == "merge" and o.state == "proposed"]  # nothing to fold
    assert not (ws.root / DUP).exists()  # dropped: the keeper holds everything within the cap
    keeper = read_record(ws, ws.root / KEEP).record
    assert keeper is not None and keeper.meta["sources"] == latest


def test_a_phase2_move_stub_is_kept_like_a_merge_stub(tmp_path: Path) -> None:
    from phase2_fixtures import stage

    from yoi_tui.core.phase2.runner import run_phase2
    from yoi_tui.core.store.staging import Request

    ws = make_ws(tmp_path)
    write_record(ws, DUP, request_meta(), "\n# Add a dark modes\n\nA dark theme.\n")
    stage(ws, "s2", 0, 3, requests=[Request(intent="Add a dark mode", target="", summary="for the editor")])
    run_phase2(ws, flush=True)
    stub = read_record(ws, ws.root / DUP).record
    assert stub is not None and stub.replaced_by == "add-a-dark-mode" and "by Phase 2" in stub.body
    record_tokens(ws, 10, session_id="x")
    # Within the grace period GC keeps it (a plain replaced record nothing points at would be dropped).
    report = run_gc(Workspace(ws.root), dry_run=True)
    kept = [o for o in report.operations if o.path == DUP]
    assert kept and kept[0].state == "reported" and "kept as a replaced stub" in kept[0].reason


# --------------------------------------------------------------------------- many clones (issue 30)


def _age(path: Path) -> None:
    """Stamp a stub before the token events that follow (stamps are whole seconds; no sleeping)."""
    path.write_text(re.sub(r"updated_at: .*", "updated_at: 2026-11-02T10:00:00+00:00", path.read_text()))


def _git_ws(tmp_path: Path, grace: int = 10) -> Workspace:
    ws = make_ws(tmp_path)
    git_dir_env = git_env(tmp_path / "home")
    git(ws.root, "init", "-q", "-b", "main", env=git_dir_env)
    ws.config_path.write_text(f"[gc]\nreplaced_grace_tokens = {grace}\n", encoding="utf-8")
    return Workspace(ws.root)


def test_in_a_git_work_tree_a_merge_stub_is_kept_after_its_grace_period(tmp_path: Path) -> None:
    ws = _git_ws(tmp_path)
    _pair(ws)
    run_gc(ws)
    _age(ws.root / DUP)
    record_tokens(ws, 1_000, session_id="x")  # far past the grace period
    for _ in range(2):
        report = run_gc(Workspace(ws.root))
        assert not (report.changeset and DUP in report.changeset.paths())
    assert (ws.root / DUP).exists()  # never deleted: no clone can know every other one has pulled
    kept = [o for o in run_gc(Workspace(ws.root), dry_run=True).operations if o.path == DUP]
    assert kept and kept[0].state == "reported" and "shared through git" in kept[0].reason
    assert [d for d in lint_workspace(Workspace(ws.root)).diagnostics if d.is_error] == []


def test_many_clones_gc_and_a_late_update_never_conflict(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    (a / ".yoi/config.toml").write_text("[gc]\nreplaced_grace_tokens = 10\n", encoding="utf-8")
    _pair(Workspace(a))
    commit_all(a, "two near-duplicate requests", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    b = clone(remote, tmp_path / "b", env)
    # a merges, the grace period passes, a runs GC again (the old rule dropped the stub here) and pushes.
    assert yoi(a, "gc", env=env).returncode == 0
    _age(a / DUP)
    record_tokens(Workspace(a), 1_000, session_id="x")
    assert yoi(a, "gc", env=env).returncode == 0
    commit_all(a, "gc twice", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    # b, which never pulled the merge, updates the merged-away record, then pulls.
    path = b / DUP
    path.write_text(path.read_text().replace("    range: [1, 4]\n", "    range: [1, 4]\n  - session_id: s9\n    range: [0, 2]\n")
                    .replace("for the editor.\n", "for the editor.\nAlso the terminal.\n"))
    commit_all(b, "update", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr  # no modify/delete conflict
    # b's GC folds the late update into the keeper: nothing lost, nothing for a person.
    record_tokens(Workspace(b), 1_000, session_id="y")
    assert yoi(b, "gc", env=env).returncode == 0
    keeper = read_record(Workspace(b), b / KEEP).record
    assert keeper is not None and {"session_id": "s9", "range": [0, 2]} in keeper.meta["sources"]
    assert "Also the terminal." in keeper.body
    assert yoi(b, "lint", env=env).returncode == 0


def test_a_stub_whose_keeper_a_person_deleted_is_live_again(tmp_path: Path) -> None:
    ws = _git_ws(tmp_path)
    _pair(ws)
    run_gc(ws)
    (ws.root / KEEP).unlink()  # a person deletes the record the stub was merged into
    report = run_gc(Workspace(ws.root))
    revived = [o for o in report.operations if o.state == "proposed" and o.path == DUP]
    assert revived and revived[0].details["revived"]
    record = read_record(ws, ws.root / DUP).record
    assert record is not None and not record.replaced_by and "Merged into" not in record.body
    assert {"session_id": "s2", "range": [1, 4]} in record.meta["sources"]  # its sources are not lost
    assert "A dark theme for the editor." in record.body
    assert [d for d in lint_workspace(Workspace(ws.root)).diagnostics if d.is_error] == []


def test_a_replaced_by_loop_from_two_clones_keepers_is_broken_at_the_preferred_slug(tmp_path: Path) -> None:
    """Two clones' GCs saw different sources and kept different records of one group; git merged
    each file into a stub of the other (X -> Y, Y -> X). The next GC, in any clone, makes the one
    preferred by name live again: nothing dangles, no source is lost."""
    ws = _git_ws(tmp_path)
    keep_src = [{"session_id": "s1", "range": [0, 3]}]
    dup_src = [{"session_id": "s2", "range": [1, 4]}]
    write_record(ws, KEEP, request_meta(replaced_by="add-a-dark-modes", sources=keep_src),
                 f"\n# Add a dark mode\n\nA dark theme.\n\n{stub_line('add-a-dark-modes')}\n")
    write_record(ws, DUP, request_meta(replaced_by="add-a-dark-mode", sources=dup_src),
                 f"\n# Add a dark mode\n\nA dark theme for the editor.\n\n{stub_line('add-a-dark-mode')}\n")
    report = run_gc(Workspace(ws.root))
    revived = [o for o in report.operations if o.state == "proposed" and (o.details or {}).get("revived")]
    assert [o.path for o in revived] == [KEEP]  # the shorter slug, whoever runs GC
    keeper = read_record(ws, ws.root / KEEP).record
    assert keeper is not None and not keeper.replaced_by and "Merged into" not in keeper.body
    run_gc(Workspace(ws.root))
    # The other is an ordinary stub of it now; its content is folded in, nothing lost.
    stub = read_record(ws, ws.root / DUP).record
    assert stub is not None and stub.replaced_by == "add-a-dark-mode"
    assert [d for d in lint_workspace(Workspace(ws.root)).diagnostics if d.is_error] == []
