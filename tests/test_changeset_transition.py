"""Apply and revert share one typed step (``changeset.take_step`` over a ``Transition``), and the
journal on disk keeps its format: journals written before the step was typed are still reverted and
rolled forward."""

from __future__ import annotations

import json
from pathlib import Path

from support import make_ws

from yoi_tui.core.runs.changeset import Transition, list_runs, recover_pending, revert, runs_dir, take_step
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.store.write_lock import write_lock

BEFORE = "---\nstatus: open\n---\n\n# Before\n"
AFTER = "---\nstatus: open\n---\n\n# After\n"
# A BOM, CRLF and a byte that is not UTF-8 (journalled as the lone surrogate U+DCFF).
ODD_BEFORE = b"\xef\xbb\xbf---\r\nstatus: open\r\n---\r\n# Odd \xff\r\n"
ODD_AFTER = ODD_BEFORE.replace(b"Odd", b"Even")
STAGING = '{"staging": 1}\n'

# A journal exactly as yoi wrote it before this change (version 1; no "items", "category",
# "notes" or "inputs_tracked": the fields older versions did not write either).
OLD_JOURNAL = r"""{
 "version": 1,
 "run_id": "0190aaaa-0000-7000-8000-000000000001",
 "purpose": "phase2",
 "engine": "rules",
 "created_at": "2026-11-02T09:00:00+00:00",
 "status": "%(status)s",
 "applied_at": %(applied_at)s,
 "reverted_at": null,
 "held": {},
 "changes": [
  {"path": "memory/decisions/change-me.md", "op": "modify", "before": "---\nstatus: open\n---\n\n# Before\n",
   "after": "---\nstatus: open\n---\n\n# After\n", "why": ["s1"], "reason": null, "derived": false,
   "state": "%(state)s", "detail": null},
  {"path": "memory/requests/new-one.md", "op": "add", "before": null, "after": "---\nx: 1\n---\nnew\n",
   "why": ["s1"], "state": "%(state)s", "detail": null},
  {"path": "memory/decisions/remove-me.md", "op": "delete", "before": "---\nstatus: open\n---\n\n# Before\n",
   "after": null, "why": ["s1"], "state": "%(state)s", "detail": null},
  {"path": "memory/decisions/odd.md", "op": "modify",
   "before": "\ufeff---\r\nstatus: open\r\n---\r\n# Odd \udcff\r\n",
   "after": "\ufeff---\r\nstatus: open\r\n---\r\n# Even \udcff\r\n", "why": ["s1"], "state": "%(state)s",
   "detail": null}
 ],
 "inputs": [
  {"id": "s1", "path": "memory/_staging/s1.json", "text": "{\"staging\": 1}\n", "state": "%(input_state)s",
   "detail": null}
 ]
}
"""
RUN_ID = "0190aaaa-0000-7000-8000-000000000001"


def _put(ws: Workspace, rel: str, data: bytes | None) -> None:
    path = ws.root / rel
    if data is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _workspace_as(ws: Workspace, *, applied: bool) -> None:
    _put(ws, "memory/decisions/change-me.md", (AFTER if applied else BEFORE).encode())
    _put(ws, "memory/requests/new-one.md", b"---\nx: 1\n---\nnew\n" if applied else None)
    _put(ws, "memory/decisions/remove-me.md", None if applied else BEFORE.encode())
    _put(ws, "memory/decisions/odd.md", ODD_AFTER if applied else ODD_BEFORE)
    _put(ws, "memory/_staging/s1.json", None if applied else STAGING.encode())


def _journal(ws: Workspace, *, pending: bool) -> Path:
    fields = ({"status": "applying", "applied_at": "null", "state": "pending", "input_state": "pending"} if pending
              else {"status": "applied", "applied_at": '"2026-11-02T09:01:00+00:00"', "state": "applied",
                    "input_state": "deleted"})
    path = runs_dir(ws) / (f"{RUN_ID}.pending.json" if pending else f"{RUN_ID}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(OLD_JOURNAL % fields, encoding="utf-8")
    json.loads(path.read_text(encoding="utf-8"))  # (the fixture itself is JSON)
    return path


def test_an_old_applied_journal_is_reverted_byte_for_byte(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _workspace_as(ws, applied=True)
    journal = _journal(ws, pending=False)
    assert [(r.run_id, r.status, r.files) for r in list_runs(ws)] == [(RUN_ID, "applied", 4)]

    result = revert(ws, RUN_ID[:8])
    assert result.ok and result.status == "reverted"
    assert sorted(result.restored) == ["memory/decisions/change-me.md", "memory/decisions/odd.md",
                                       "memory/decisions/remove-me.md", "memory/requests/new-one.md"]
    assert result.removed == ["memory/requests/new-one.md"] and result.inputs_restored == ["s1"]
    assert (ws.root / "memory/decisions/change-me.md").read_text(encoding="utf-8") == BEFORE
    assert (ws.root / "memory/decisions/remove-me.md").read_text(encoding="utf-8") == BEFORE
    assert (ws.root / "memory/decisions/odd.md").read_bytes() == ODD_BEFORE
    assert not (ws.root / "memory/requests/new-one.md").exists()
    assert (ws.root / "memory/_staging/s1.json").read_text(encoding="utf-8") == STAGING

    # The journal keeps its shape: the fields it had, each change's outcome under "revert".
    data = json.loads(journal.read_text(encoding="utf-8"))
    assert data["status"] == "reverted" and data["version"] == 1
    assert [c["revert"] for c in data["changes"]] == ["restored"] * 4
    assert data["changes"][3]["before"] == ODD_BEFORE.decode("utf-8", "surrogateescape")
    assert revert(ws, RUN_ID).status == "nothing-to-revert"  # again: every file already as before


def test_an_old_pending_journal_is_rolled_forward(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _workspace_as(ws, applied=False)
    pending = _journal(ws, pending=True)
    (result,) = recover_pending(ws)
    assert result.recovered and result.ok and len(result.applied) == 4
    assert result.inputs_deleted == ["s1"]
    assert (ws.root / "memory/decisions/change-me.md").read_text(encoding="utf-8") == AFTER
    assert (ws.root / "memory/decisions/odd.md").read_bytes() == ODD_AFTER
    assert not (ws.root / "memory/decisions/remove-me.md").exists()
    assert not pending.exists() and (runs_dir(ws) / f"{RUN_ID}.json").is_file()


def _step(ws: Workspace, transition: Transition):  # type: ignore[no-untyped-def]
    with write_lock(ws.root):
        return take_step(ws, transition)


def test_one_step_both_ways(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    rel = "memory/decisions/change-me.md"
    _put(ws, rel, BEFORE.encode())
    change = {"path": rel, "before": BEFORE, "after": AFTER}
    forward, backward = Transition.forward(change), Transition.backward(change)
    assert (backward.source, backward.target) == (forward.target, forward.source) == (AFTER, BEFORE)

    assert _step(ws, forward).outcome == "moved"
    assert (ws.root / rel).read_text(encoding="utf-8") == AFTER
    assert _step(ws, forward).outcome == "done"  # taking it again changes nothing
    assert _step(ws, backward).outcome == "moved"
    assert (ws.root / rel).read_text(encoding="utf-8") == BEFORE

    _put(ws, rel, b"an edit by a person\n")
    step = _step(ws, forward)
    assert (step.outcome, step.current, step.full_path) == ("diverged", "an edit by a person\n", ws.root / rel)
    assert (ws.root / rel).read_bytes() == b"an edit by a person\n"

    created = Transition("memory/requests/new.md", None, "new\n")
    assert _step(ws, created).outcome == "moved" and (ws.root / "memory/requests/new.md").read_text() == "new\n"
    assert _step(ws, Transition("memory/requests/new.md", "new\n", None)).outcome == "moved"
    assert not (ws.root / "memory/requests/new.md").exists()

    step = _step(ws, Transition("../outside.md", None, "x"))
    assert step.outcome == "unreadable" and step.detail


def test_a_locked_file_is_not_stepped(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    rel = "memory/decisions/locked.md"
    _put(ws, rel, BEFORE.encode())
    (ws.root / rel).chmod(0o444)
    assert _step(ws, Transition(rel, BEFORE, AFTER)).outcome == "locked"
    assert (ws.root / rel).read_text(encoding="utf-8") == BEFORE
