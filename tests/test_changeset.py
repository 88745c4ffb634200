"""Change sets: scratch copy, apply (subset, conflicts, locked files), journal, recovery, exact-bytes revert."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phase2_fixtures import tree_bytes
from support import decision_meta, make_ws, write_record

from yoi_tui.core.errors import RecordLockedError, YoiError
from yoi_tui.core.runs import changeset as cs_module
from yoi_tui.core.runs.changeset import (
    ConsumedInput,
    Scratch,
    apply,
    find_run,
    list_runs,
    recover_pending,
    revert,
    runs_dir,
    unified_diff,
)
from yoi_tui.core.store.reader import read_exact
from yoi_tui.core.store.workspace import Workspace

# A record with a BOM, CRLF line ends, no final newline and one byte that is not UTF-8: revert
# must bring back exactly these bytes.
ODD_BYTES = (b"\xef\xbb\xbf---\r\ncreated_at: 2026-11-02T09:00:00+00:00\r\nupdated_at: 2026-11-02T09:00:00+00:00\r\n"
             b"sources: []\r\nstatus: open\r\n---\r\n\r\n# Odd \xff file\r\nno final newline")


def _setup(tmp_path: Path) -> tuple[Workspace, dict[str, bytes]]:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/keep.md", decision_meta(), "\n# Keep\n")
    write_record(ws, "memory/decisions/change-me.md", decision_meta(), "\n# Change me\n")
    write_record(ws, "memory/decisions/remove-me.md", decision_meta(), "\n# Remove me\n")
    (ws.decisions_dir / "odd.md").write_bytes(ODD_BYTES)
    (ws.staging_dir / "s1.json").write_text('{"staging": 1}\n', encoding="utf-8")
    (ws.staging_dir / "s2.json").write_text('{"staging": 2}\n', encoding="utf-8")
    return ws, tree_bytes(ws.root)


def _compute(ws: Workspace) -> cs_module.ChangeSet:
    with Scratch(ws) as scratch:
        text = scratch.read("memory/decisions/change-me.md")
        assert text is not None
        scratch.write("memory/decisions/change-me.md", text + "More.\n", why=["s1"])
        scratch.write("memory/requests/new-one.md", "---\nx: 1\n---\nnew\n", why=["s2"])
        scratch.delete("memory/decisions/remove-me.md", why=["s1"], category=["superseded"], reason="dup")
        odd = scratch.read("memory/decisions/odd.md")
        assert odd is not None
        scratch.write("memory/decisions/odd.md", odd.replace("Odd", "Even"), why=["s2"])
        scratch.write("memory/summary.md", "---\nupdated_at: 2026-11-02T09:00:00+00:00\n---\nsummary\n",
                      why=["s1", "s2"], derived=True)
        # Touched but unchanged: not a change.
        keep = scratch.read("memory/decisions/keep.md")
        assert keep is not None
        scratch.write("memory/decisions/keep.md", keep, why=["s1"])
        inputs = [ConsumedInput(s, f"memory/_staging/{s}.json",
                                (ws.staging_dir / f"{s}.json").read_text(encoding="utf-8")) for s in ("s1", "s2")]
        return scratch.changeset(run_id="run-1", purpose="phase2", engine="rules", inputs=inputs)


def test_scratch_changes_leave_the_workspace_alone(tmp_path: Path) -> None:
    ws, before = _setup(tmp_path)
    changeset = _compute(ws)
    assert tree_bytes(ws.root) == before  # nothing changed until apply
    ops = {c.path: c.op for c in changeset.changes}
    assert ops == {"memory/decisions/change-me.md": "modify", "memory/requests/new-one.md": "add",
                   "memory/decisions/remove-me.md": "delete", "memory/decisions/odd.md": "modify",
                   "memory/summary.md": "add"}
    removed = changeset.get("memory/decisions/remove-me.md")
    assert removed is not None and removed.after is None and removed.category == ["superseded"]
    assert removed.reason == "dup" and removed.why == ["s1"]
    assert changeset.get("memory/summary.md").derived  # type: ignore[union-attr]
    assert changeset.counts() == {"add": 2, "modify": 2, "delete": 1}
    diff = changeset.diff()
    assert "+++ b/memory/requests/new-one.md" in diff and "--- /dev/null" in diff
    assert "-# Odd" in diff.replace("\r", "")


def test_apply_all_then_revert_restores_exact_bytes(tmp_path: Path) -> None:
    ws, before = _setup(tmp_path)
    changeset = _compute(ws)
    result = apply(ws, changeset)
    assert result.ok and len(result.applied) == 5
    assert read_exact(ws.root / "memory/requests/new-one.md") == "---\nx: 1\n---\nnew\n"
    assert not (ws.decisions_dir / "remove-me.md").exists()
    assert (ws.decisions_dir / "odd.md").read_bytes() == ODD_BYTES.replace(b"Odd", b"Even")
    assert sorted(result.inputs_deleted) == ["s1", "s2"]
    assert not list(ws.staging_dir.glob("*.json"))
    journal = json.loads((runs_dir(ws) / "run-1.json").read_text())
    assert journal["status"] == "applied"
    assert not list(runs_dir(ws).glob("*.pending.json"))

    reverted = revert(ws, "run-1")
    assert reverted.ok and sorted(reverted.restored) == sorted(c.path for c in changeset.changes)
    assert sorted(reverted.inputs_restored) == ["s1", "s2"]
    assert tree_bytes(ws.root) == before  # every byte back, staging included
    again = revert(ws, "run")  # a unique prefix; reverting twice is harmless
    assert again.ok and not again.restored and len(again.already) == 5
    assert list_runs(ws)[0].status == "reverted"


def test_apply_only_a_subset(tmp_path: Path) -> None:
    ws, before = _setup(tmp_path)
    changeset = _compute(ws)
    result = apply(ws, changeset, only={"memory/requests/new-one.md"})
    assert [c.path for c in result.applied] == ["memory/requests/new-one.md"]
    assert len(result.rejected) == 4
    assert (ws.decisions_dir / "remove-me.md").read_bytes() == before["memory/decisions/remove-me.md"]
    with pytest.raises(YoiError, match="not in the change set"):
        apply(ws, _compute_again(ws), only={"memory/nope.md"})


def _compute_again(ws: Workspace) -> cs_module.ChangeSet:
    with Scratch(ws) as scratch:
        scratch.write("memory/requests/other.md", "x\n")
        return scratch.changeset(run_id="run-2", purpose="phase2", engine="rules")


def test_a_human_edit_between_run_and_apply_wins(tmp_path: Path) -> None:
    ws, _before = _setup(tmp_path)
    changeset = _compute(ws)
    edited = (ws.decisions_dir / "change-me.md").read_text() + "A person's line.\n"
    (ws.decisions_dir / "change-me.md").write_text(edited)
    (ws.root / "memory/summary.md").write_text("---\nupdated_at: 2026-11-02T09:00:00+00:00\n---\nmine\n")
    result = apply(ws, changeset)
    conflicts = {c.path: reason for c, reason in result.conflicts}
    assert set(conflicts) == {"memory/decisions/change-me.md", "memory/summary.md"}
    assert "changed on disk" in conflicts["memory/decisions/change-me.md"]
    assert "was created" in conflicts["memory/summary.md"]
    assert (ws.decisions_dir / "change-me.md").read_text() == edited  # not overwritten
    assert "mine" in (ws.root / "memory/summary.md").read_text()
    # The other files were applied; s1 (behind the conflicting record) is kept for the next run,
    # s2 is consumed (the summary is derived: its conflict holds no staging back).
    assert "memory/requests/new-one.md" in {c.path for c in result.applied}
    assert result.inputs_deleted == ["s2"] and "s1" in result.inputs_kept
    assert (ws.staging_dir / "s1.json").exists()


def test_a_locked_file_is_never_written(tmp_path: Path) -> None:
    ws, before = _setup(tmp_path)
    changeset = _compute(ws)
    target = ws.decisions_dir / "change-me.md"
    os.chmod(target, 0o444)
    try:
        result = apply(ws, changeset)
        assert any(c.path == "memory/decisions/change-me.md" and "read-only" in r for c, r in result.conflicts)
        assert target.read_bytes() == before["memory/decisions/change-me.md"]
    finally:
        os.chmod(target, 0o644)


def test_scratch_refuses_a_locked_record(tmp_path: Path) -> None:
    ws, _ = _setup(tmp_path)
    os.chmod(ws.decisions_dir / "keep.md", 0o444)
    try:
        with Scratch(ws) as scratch, pytest.raises(RecordLockedError):
            scratch.write("memory/decisions/keep.md", "x")
    finally:
        os.chmod(ws.decisions_dir / "keep.md", 0o644)


def test_revert_refuses_a_file_changed_since(tmp_path: Path) -> None:
    ws, before = _setup(tmp_path)
    apply(ws, _compute(ws))
    later = (ws.root / "memory/requests/new-one.md")
    later.write_text("a person edited this after the run\n")
    result = revert(ws, "last")
    assert not result.ok
    assert result.refused == [("memory/requests/new-one.md", "changed since the run applied it; left as it is")]
    assert later.read_text() == "a person edited this after the run\n"
    after = tree_bytes(ws.root)
    for rel, data in before.items():
        assert after[rel] == data  # everything else is back
    assert list_runs(ws)[0].status == "partially-reverted"


def test_recover_pending_rolls_an_interrupted_apply_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, _ = _setup(tmp_path)
    changeset = _compute(ws)
    calls = {"n": 0}

    def crash(name: str) -> None:
        if name == "apply:file":
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt  # stands in for a crash after the 2nd file

    monkeypatch.setattr(cs_module, "crashpoint", crash)
    with pytest.raises(KeyboardInterrupt):
        apply(ws, changeset)
    monkeypatch.setattr(cs_module, "crashpoint", lambda name: None)
    assert (runs_dir(ws) / "run-1.pending.json").exists()
    assert len(list(ws.staging_dir.glob("*.json"))) == 2  # not consumed yet
    recovered = recover_pending(ws)
    assert len(recovered) == 1 and recovered[0].recovered and recovered[0].ok
    for change in changeset.changes:
        assert read_exact(ws.root / change.path) == change.after
    assert not list(ws.staging_dir.glob("*.json"))
    assert (runs_dir(ws) / "run-1.json").exists() and not (runs_dir(ws) / "run-1.pending.json").exists()
    assert recover_pending(ws) == []


def test_find_run_references(tmp_path: Path) -> None:
    ws, _ = _setup(tmp_path)
    with pytest.raises(YoiError, match="no applied runs"):
        find_run(ws, "last")
    apply(ws, _compute(ws))
    assert find_run(ws, "last")[0] == "run-1"
    assert find_run(ws, "run-")[0] == "run-1"
    with pytest.raises(YoiError, match="no journalled run"):
        find_run(ws, "zzz")


def test_unified_diff_marks_missing_final_newline() -> None:
    diff = unified_diff("memory/x.md", "a\nb", "a\nc\n")
    assert diff.startswith("--- a/memory/x.md\n+++ b/memory/x.md\n")
    assert "\\ No newline at end of file" in diff and "+c" in diff


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab\n\r\x0c é", max_size=40), added=st.booleans(), context=st.integers(0, 4))
def test_unified_diff_of_an_added_or_deleted_file_is_difflibs(text: str, added: bool, context: int) -> None:
    """Added and deleted files skip difflib's matching (GC deletes thousands): same text as difflib."""
    before, after = (None, text) if added else (text, None)
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    for lines in (old, new):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n\\ No newline at end of file\n"
    expected = "".join(difflib.unified_diff(old, new, fromfile="/dev/null" if added else "a/x.md",
                                            tofile="b/x.md" if added else "/dev/null", n=context))
    assert unified_diff("x.md", before, after, context=context) == expected


def test_scratch_points_absolute_links_into_the_copy(tmp_path: Path) -> None:
    """An absolute link to a record inside the workspace is re-pointed at the scratch copy's file
    (found from the folder listings); relative links and links leading out are left as they are."""
    ws, _ = _setup(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    (ws.knowledge_dir / "deep").mkdir(parents=True)
    (ws.knowledge_dir / "deep" / "abs.md").symlink_to(ws.decisions_dir / "keep.md")
    (ws.decisions_dir / "abs.md").symlink_to(ws.decisions_dir / "keep.md")
    (ws.decisions_dir / "rel.md").symlink_to("keep.md")
    (ws.decisions_dir / "out.md").symlink_to(outside)
    with Scratch(ws) as scratch:
        root = scratch.ws.root
        assert os.readlink(root / "knowledge/deep/abs.md") == str(root / "memory/decisions/keep.md")
        assert os.readlink(root / "memory/decisions/abs.md") == str(root / "memory/decisions/keep.md")
        assert os.readlink(root / "memory/decisions/rel.md") == "keep.md"
        assert os.readlink(root / "memory/decisions/out.md") == str(outside)
