"""Review decisions are remembered (issue 25): a rejection is not proposed again; the review from the
command line (``--reject`` / ``--defer``), what was held back, and withdrawing a rejection."""

from __future__ import annotations

import json
from pathlib import Path

from phase2_fixtures import stage
from support import decision_meta, knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.gc import prepare_gc
from yoi_tui.core.phase2.runner import prepare_round
from yoi_tui.core.store.staging import Decision, Request

REQUEST = "memory/requests/add-a-progress-bar-cli-py.md"
DECISION = "memory/decisions/use-rich-for-the-progress-bar.md"


def _yoi(root: Path, *args: str):  # type: ignore[no-untyped-def]
    return run_yoi(args[0], "--workspace", str(root), *args[1:])


def _stage_two(ws, session: str = "0197c3-session", start: int = 0) -> str:  # type: ignore[no-untyped-def]
    """One staging file whose two items become two files."""
    return stage(ws, session, start, start + 9,
                 requests=[Request(intent="Add a progress bar", target="cli.py", summary="Show progress on long runs.")],
                 decisions=[Decision(title="Use rich for the progress bar", options=["rich", "tqdm"], chosen="rich",
                                     rationale="Already a dependency.")])


def _dry(root: Path) -> dict:  # type: ignore[type-arg]
    result = _yoi(root, "phase2", "--flush", "--dry-run", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["rounds"][0]


def test_a_rejected_file_is_not_proposed_again_from_the_same_staging_items(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    staging_id = _stage_two(ws)
    first = _dry(ws.root)
    assert {f["path"] for f in first["files"]} >= {REQUEST, DECISION}
    result = _yoi(ws.root, "phase2", "--flush", "--reject", REQUEST, "--defer", DECISION)
    assert result.returncode == 0, result.stderr
    assert f"rejected {REQUEST}" in result.stdout and f"deferred {DECISION}" in result.stdout
    assert not (ws.root / REQUEST).exists() and not (ws.root / DECISION).exists()
    assert (ws.staging_dir / f"{staging_id}.json").exists()  # kept for the deferred decision

    again = _dry(ws.root)
    paths = {f["path"] for f in again["files"]}
    assert DECISION in paths and REQUEST not in paths
    assert [(h["path"], h["staging"], h["section"]) for h in again["held_back"]] == [(REQUEST, staging_id, "requests")]
    text = _yoi(ws.root, "phase2", "--flush", "--dry-run")
    assert "held back by an earlier rejection:" in text.stderr and REQUEST in text.stderr

    # The same item extracted again into another staging file (Phase 1 --force) is held back too.
    _stage_two(ws)
    assert REQUEST not in {f["path"] for f in _dry(ws.root)["files"]}

    # Applying the decision now consumes the staging; the request never came back.
    applied = _yoi(ws.root, "phase2", "--flush", "--json")
    assert applied.returncode == 0, applied.stderr
    assert (ws.root / DECISION).exists() and not (ws.root / REQUEST).exists()
    assert not list(ws.staging_dir.glob("*.json"))


def test_withdrawing_a_rejection_proposes_it_again(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _stage_two(ws)
    assert _yoi(ws.root, "phase2", "--flush", "--reject", REQUEST, "--defer", DECISION).returncode == 0
    listed = json.loads(_yoi(ws.root, "phase2", "--rejections", "--json").stdout)["rejections"]
    assert [r["path"] for r in listed] == [REQUEST]
    assert listed[0]["items"][0]["item"] == "Add a progress bar"
    withdrawn = _yoi(ws.root, "phase2", "--withdraw", REQUEST)
    assert withdrawn.returncode == 0, withdrawn.stderr
    assert f"withdrew rejection {listed[0]['id']}" in withdrawn.stdout
    assert REQUEST in {f["path"] for f in _dry(ws.root)["files"]}
    unknown = _yoi(ws.root, "phase2", "--withdraw", "nothing-like-it")
    assert unknown.returncode == 2 and "no rejection named nothing-like-it" in unknown.stderr


def test_review_paths_must_be_in_the_change_set(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _stage_two(ws)
    result = _yoi(ws.root, "phase2", "--flush", "--reject", "memory/requests/no-such.md")
    assert result.returncode == 2
    assert "not in the change set: memory/requests/no-such.md" in result.stderr
    assert not (ws.root / REQUEST).exists() and list(ws.staging_dir.glob("*.json"))
    both = _yoi(ws.root, "phase2", "--flush", "--reject", REQUEST, "--defer", REQUEST)
    assert both.returncode == 2 and "both name" in both.stderr


def test_the_library_review_remembers_rejections_as_the_app_does(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _stage_two(ws)
    prepared = prepare_round(ws, flush=True)
    paths = set(prepared.changeset.paths())
    # The app: accept nothing from the request, defer the decision, reject the rest.
    prepared.apply(only=paths - {REQUEST, DECISION} - {p for p in paths if p.endswith("summary.md")},
                   deferred={DECISION})
    assert [r.data["path"] for r in prepared.report.remembered] == [REQUEST]
    again = prepare_round(ws, flush=True, dry_run=True)
    assert REQUEST not in again.changeset.paths() and DECISION in again.changeset.paths()
    assert again.report.held_back and again.report.held_back[0]["item"] == "Add a progress bar"


# --------------------------------------------------------------------------- GC


def _gc_workspace(tmp_path: Path):  # type: ignore[no-untyped-def]
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(status="resolved"), "\n# Use SQLite\n")
    write_record(ws, "memory/decisions/use-json-files.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use JSON files\n")
    write_record(ws, "memory/decisions/use-pickle.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use pickle\n")
    many = [{"session_id": f"s{i}", "range": [0, i]} for i in range(24)]
    write_record(ws, "knowledge/retry-policy.md", knowledge_meta(last_sources=many), "\nRetry three times.\n")
    return ws


def _gc_dry(root: Path) -> dict:  # type: ignore[type-arg]
    result = _yoi(root, "gc", "--dry-run", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _proposed(data: dict) -> set[str]:  # type: ignore[type-arg]
    return {o["id"] for o in data["operations"] if o["state"] == "proposed"}


def test_a_rejected_gc_operation_stays_rejected_until_its_record_changes(tmp_path: Path) -> None:
    ws = _gc_workspace(tmp_path)
    drop, keep_drop, trim = ("drop:memory/decisions/use-json-files.md", "drop:memory/decisions/use-pickle.md",
                             "trim:knowledge/retry-policy.md")
    assert _proposed(_gc_dry(ws.root)) == {drop, keep_drop, trim}
    result = _yoi(ws.root, "gc", "--reject", drop, "--defer", trim)
    assert result.returncode == 0, result.stderr
    assert "1 rejection(s) remembered" in result.stdout
    assert (ws.root / "memory/decisions/use-json-files.md").exists()
    assert not (ws.root / "memory/decisions/use-pickle.md").exists()

    again = _gc_dry(ws.root)
    assert _proposed(again) == {trim}  # the deferred one comes back, the rejected one does not
    held = again["held_back"]
    assert [h["operation"] for h in held] == [drop] and held[0]["rejection"]
    assert "rejected in an earlier review" in held[0]["reason"]
    assert next(o for o in again["operations"] if o["path"].endswith("use-json-files.md"))["state"] == "held"
    text = _yoi(ws.root, "gc", "--dry-run")
    assert "held back by an earlier rejection:" in text.stderr and drop in text.stderr
    assert _yoi(ws.root, "gc", "--reject", trim).returncode == 0
    assert _gc_dry(ws.root)["status"] == "nothing-to-do"

    # One byte of the record changes: the drop is proposed again.
    path = ws.root / "memory/decisions/use-json-files.md"
    path.write_text(path.read_text().replace("# Use JSON files", "# Use JSON files (old)"))
    assert drop in _proposed(_gc_dry(ws.root))
    # ... and changed back, the same bytes are held back again.
    path.write_text(path.read_text().replace("# Use JSON files (old)", "# Use JSON files"))
    assert drop not in _proposed(_gc_dry(ws.root))


def test_a_gc_rejection_is_shared_and_can_be_withdrawn(tmp_path: Path) -> None:
    ws = _gc_workspace(tmp_path)
    drop = "drop:memory/decisions/use-json-files.md"
    assert _yoi(ws.root, "gc", "--reject", drop, "--defer", "trim:knowledge/retry-policy.md",
                "drop:memory/decisions/use-pickle.md").returncode == 0
    stored = list((ws.root / ".yoi/review/gc").glob("*.json"))  # committed with the workspace, not .yoi/state
    assert len(stored) == 1
    data = json.loads(stored[0].read_text())
    assert data["operation"] == drop and list(data["digests"]) == ["memory/decisions/use-json-files.md"]
    assert "rejected_at" not in data and "run_id" not in data  # two clones write the same file
    listed = _yoi(ws.root, "gc", "--rejections")
    assert drop in listed.stdout
    withdrawn = _yoi(ws.root, "gc", "--withdraw", drop, "--json")
    assert withdrawn.returncode == 0 and json.loads(withdrawn.stdout)["withdrawn"][0]["operation"] == drop
    assert drop in _proposed(_gc_dry(ws.root))


def test_gc_review_ids_must_be_proposed(tmp_path: Path) -> None:
    ws = _gc_workspace(tmp_path)
    result = _yoi(ws.root, "gc", "--reject", "drop:memory/decisions/use-sqlite.md")
    assert result.returncode == 2 and "not a proposed operation: drop:memory/decisions/use-sqlite.md" in result.stderr
    assert (ws.root / "memory/decisions/use-json-files.md").exists()


def test_a_held_drop_keeps_what_it_points_at(tmp_path: Path) -> None:
    """A rejected drop of the head of a replaced chain keeps the chain: nothing dangles."""
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(status="resolved"), "\n# Use SQLite\n")
    write_record(ws, "memory/decisions/use-shelve.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use shelve\n")
    write_record(ws, "memory/decisions/use-json-files.md",
                 decision_meta(status="replaced", replaced_by="use-shelve"), "\n# Use JSON files\n")
    prepared = prepare_gc(ws)
    assert {o.id for o in prepared.report.proposed} == {"drop:memory/decisions/use-json-files.md",
                                                       "drop:memory/decisions/use-shelve.md"}
    prepared.apply(operations=["drop:memory/decisions/use-shelve.md"])  # the app: one accepted, one rejected
    assert [r.data["operation"] for r in prepared.report.remembered] == ["drop:memory/decisions/use-json-files.md"]
    prepared.release()
    # (use-shelve was applied; restore it to see the held drop keep it alive)
    write_record(ws, "memory/decisions/use-shelve.md",
                 decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use shelve\n")
    report = prepare_gc(ws, dry_run=True).report
    assert [o.id for o in report.proposed] == []
    assert {o.state for o in report.operations if o.path.endswith("use-json-files.md")} == {"held"}
