"""What review needs from change sets: deferred files keep their staging, rejected ones consume it,
the progress callback can cancel a run before anything is written (lock released)."""

from __future__ import annotations

from pathlib import Path

import pytest
from phase2_fixtures import tree_bytes
from support import decision_meta, make_ws, write_record

from yoi_tui.core.phase2.runner import prepare_round
from yoi_tui.core.runs.changeset import ConsumedInput, Scratch, apply, read_run, revert
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.runs.progress import Progress, RunCancelled
from yoi_tui.core.store.workspace import Workspace


def _changeset(ws: Workspace):  # type: ignore[no-untyped-def]
    for name in ("s1", "s2", "s3"):
        (ws.staging_dir / f"{name}.json").write_text(f'{{"staging": "{name}"}}\n', encoding="utf-8")
    inputs = [ConsumedInput(n, f"memory/_staging/{n}.json", f'{{"staging": "{n}"}}\n') for n in ("s1", "s2", "s3")]
    with Scratch(ws) as scratch:
        scratch.write("memory/requests/a.md", "---\nx: 1\n---\na\n", why=["s1"])
        scratch.write("memory/requests/b.md", "---\nx: 1\n---\nb\n", why=["s2"])
        scratch.write("memory/requests/c.md", "---\nx: 1\n---\nc\n", why=["s3"])
        scratch.write("memory/summary.md", "---\nx: 1\n---\nsummary\n", why=["s1", "s2", "s3"], derived=True)
        return scratch.changeset(run_id="run-1", purpose="phase2", engine="rules", inputs=inputs)


def test_deferred_keeps_staging_rejected_consumes_it(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    before = tree_bytes(ws.root)
    result = apply(ws, _changeset(ws), only={"memory/requests/a.md", "memory/summary.md"},
                   deferred={"memory/requests/c.md"})
    assert [c.path for c in result.applied] == ["memory/requests/a.md", "memory/summary.md"]
    assert [c.path for c in result.rejected] == ["memory/requests/b.md"]
    assert [c.path for c in result.deferred] == ["memory/requests/c.md"]
    assert sorted(result.inputs_deleted) == ["s1", "s2"]
    assert list(result.inputs_kept) == ["s3"] and "deferred in review" in result.inputs_kept["s3"]
    assert (ws.staging_dir / "s3.json").exists() and not (ws.staging_dir / "s2.json").exists()
    assert not (ws.root / "memory/requests/c.md").exists()
    states = {c["path"]: c["state"] for c in read_run(ws, "run-1")["changes"]}
    assert states["memory/requests/c.md"] == "deferred" and states["memory/requests/b.md"] == "rejected"
    revert(ws, "run-1")  # deferred and rejected files are not touched by a revert; consumed staging comes back
    after = tree_bytes(ws.root)
    assert {k: v for k, v in after.items() if ".yoi/state" not in k} == \
        {k: v for k, v in before.items() if ".yoi/state" not in k} | {
            f"memory/_staging/{n}.json": f'{{"staging": "{n}"}}\n'.encode() for n in ("s1", "s2", "s3")}


def test_a_file_both_accepted_and_deferred_is_deferred(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    result = apply(ws, _changeset(ws), only={"memory/requests/a.md"}, deferred={"memory/requests/a.md"})
    assert [c.path for c in result.deferred] == ["memory/requests/a.md"] and not result.applied


def test_progress_can_cancel_a_round_before_anything_is_written(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/x.md", decision_meta(), "\n# X\n")
    from yoi_tui.core.store.models import Source
    from yoi_tui.core.store.staging import Activity, Decision, Extractor, write_staging

    write_staging(ws, Source(session_id="s1", range=(0, 3)), Extractor(engine="rules"),
                  Activity(decisions=[Decision(title="Use X", chosen="x", rationale="because")]))
    before = tree_bytes(ws.root)
    seen: list[str] = []

    def progress(step: Progress) -> None:
        seen.append(step.phase)
        if step.phase == "engine":
            raise RunCancelled("cancelled")

    with pytest.raises(RunCancelled):
        prepare_round(ws, flush=True, progress=progress)
    assert seen == ["lock", "snapshot", "engine"]
    assert not lock_path(ws).exists()
    assert tree_bytes(ws.root) == before
