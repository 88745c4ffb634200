"""The apply/save race: a save landing while a run applies its change set is never lost.

* yoi's own save (``writer.save_text``, the app's ctrl+s) and a run's apply take the same
  per-workspace write lock around check + rename, so one of them sees the other's bytes;
* a program outside yoi writing between apply's check and its rename is detected
  (``changeset.replace_checked``): reported as a conflict, its bytes on disk, never journalled as
  applied.

The real-process tests pause ``yoi phase2`` at a crash point (a file barrier, no sleeps); the
property test drives random interleavings of an apply (in a thread, paused at a random step) and a
save of a random kind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phase2_fixtures import stage_realistic, start_yoi, wait_for
from support import decision_meta, make_ws, write_record

from yoi_tui.core.errors import RecordChangedError
from yoi_tui.core.runs.changeset import Scratch, apply
from yoi_tui.core.store.atomic import TEMP_PREFIX
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.store.writer import save_text

RECORDS = ["memory/decisions/alpha.md", "memory/decisions/beta.md", "memory/decisions/gamma.md"]


def _outside_in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:  # an editor writing the file in place
        handle.write(text)


def _outside_rename(path: Path, text: str) -> None:
    temp = path.with_name(f"{path.name}~")  # an editor saving by rename (vim, VS Code)
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


# --------------------------------------------------------------------------- real processes


def _paused_phase2(tmp_path: Path, point: str, env: dict[str, str] | None = None) -> tuple[Workspace, object, Path]:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"},
                 "\n# Project memory summary\n\nIntro by a person.\n")
    # An existing record the run updates (Phase 2 no longer rewrites the summary: its listings are
    # computed), so the apply replaces one file in place.
    write_record(ws, "memory/decisions/use-sqlite-for-the-response-cache.md", decision_meta(),
                 "\n# Use SQLite for the response cache\n")
    stage_realistic(ws)
    barrier = tmp_path / "barrier"
    proc = start_yoi("phase2", "--workspace", str(ws.root), "--flush", "--json",
                     env={"YOI_PAUSE_AT": point, "YOI_PAUSE_FILE": str(barrier), **(env or {})})
    assert wait_for(Path(f"{barrier}.reached")), "phase2 never reached the pause point"
    return ws, proc, barrier


def _target_being_replaced(ws: Workspace) -> Path:
    """At ``apply:renaming``, the file whose replacement is about to happen (its new bytes in a temp file)."""
    temps = list(ws.memory_dir.rglob(f"{TEMP_PREFIX}*.tmp"))
    assert len(temps) == 1, temps
    # .yoi-tmp-<pid>-<name>.<random>.tmp
    name = temps[0].name[len(TEMP_PREFIX):].split("-", 1)[1].removesuffix(".tmp").rsplit(".", 1)[0]
    return temps[0].with_name(name)


@pytest.mark.parametrize("exchange", [True, False], ids=["swap", "link-fallback"])
@pytest.mark.parametrize("outside", [_outside_in_place, _outside_rename], ids=["in-place", "rename"])
def test_outside_write_between_check_and_rename_is_a_conflict_with_its_bytes_kept(
        tmp_path: Path, outside: object, exchange: bool) -> None:
    ws, proc, barrier = _paused_phase2(tmp_path, "apply:renaming", {} if exchange else {"YOI_NO_RENAME_EXCHANGE": "1"})
    target = _target_being_replaced(ws)
    assert target.exists(), target
    edit = "---\nstatus: open\n---\n\n# Edited by a person while yoi was applying\n"
    outside(target, edit)  # type: ignore[operator]
    barrier.write_text("go")
    out, err = proc.communicate(timeout=120)  # type: ignore[attr-defined]
    assert "Traceback" not in err
    assert target.read_text(encoding="utf-8") == edit  # the person's bytes are on disk
    rel = target.relative_to(ws.root).as_posix()
    journal = json.loads(next((ws.state_dir / "runs").glob("*.json")).read_text())
    state = {c["path"]: (c["state"], c["detail"]) for c in journal["changes"]}
    assert state[rel][0] == "conflict", state[rel]  # never journalled as applied
    assert "while the run was writing it" in state[rel][1]
    assert proc.returncode == 1, (out, err)  # type: ignore[attr-defined]
    assert not list(ws.root.rglob(f"{TEMP_PREFIX}*"))


def test_app_save_during_apply_waits_for_the_write_lock_and_is_never_lost(tmp_path: Path) -> None:
    ws, proc, barrier = _paused_phase2(tmp_path, "apply:checked")  # apply holds the write lock here
    summary = ws.summary_path
    opened = summary.read_text(encoding="utf-8")  # what the editor loaded before the run
    outcome: list[object] = []

    def app_save() -> None:
        try:
            save_text(summary, opened + "\nA line typed in the app.\n", expected_before=opened)
            outcome.append("saved")
        except RecordChangedError as exc:
            outcome.append(exc)

    saver = threading.Thread(target=app_save)
    saver.start()
    barrier.write_text("go")
    proc.communicate(timeout=120)  # type: ignore[attr-defined]
    saver.join(timeout=60)
    text = summary.read_text(encoding="utf-8")
    # Either the save landed first (and apply left the file alone as a conflict), or the apply
    # landed first and the save was refused with a message — never written and then overwritten.
    assert outcome == ["saved"] and "A line typed in the app." in text or isinstance(outcome[0], RecordChangedError)


def test_app_save_paused_between_its_check_and_rename_holds_off_the_apply(tmp_path: Path) -> None:
    """The app's save (a real process) is paused after its check, before its rename. Without the
    shared write lock an apply would now check, write and journal the file as applied, and the save
    would then land over it: the run's change silently gone while its journal says applied."""
    ws, changeset = _changeset_ws(tmp_path, RECORDS[:1])
    path = ws.root / RECORDS[0]
    opened = path.read_text(encoding="utf-8")
    barrier = tmp_path / "save-barrier"
    saver = start_python(
        "import sys; from pathlib import Path; from yoi_tui.core.store.writer import save_text; "
        "p = Path(sys.argv[1]); save_text(p, sys.argv[2], expected_before=sys.argv[3])",
        str(path), opened + "\nThe person's save.\n", opened,
        env={"YOI_PAUSE_AT": "write:renaming", "YOI_PAUSE_FILE": str(barrier)})
    assert wait_for(Path(f"{barrier}.reached")), "the save never reached its rename"
    results: dict[str, object] = {}
    applier = threading.Thread(target=lambda: results.setdefault("apply", apply(ws, changeset)))  # type: ignore[arg-type]
    applier.start()
    applier.join(timeout=3)  # with the lock it cannot finish now; without it, it would have
    barrier.write_text("go")
    assert saver.wait(timeout=60) == 0
    applier.join(timeout=60)
    result = results["apply"]
    assert path.read_text(encoding="utf-8") == opened + "\nThe person's save.\n"
    assert [c.path for c, _why in result.conflicts] == [RECORDS[0]]  # type: ignore[attr-defined]
    assert not result.applied  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- property test


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _changeset_ws(root: Path, changed: list[str]) -> tuple[Workspace, object]:
    ws = make_ws(root)
    for rel in RECORDS:
        write_record(ws, rel, decision_meta(), f"\n# {Path(rel).stem}\n\nAs the run read it.\n")
    with Scratch(ws) as scratch:
        for rel in changed:
            scratch.write(rel, (ws.root / rel).read_text() + "\nAdded by the run.\n")
        changeset = scratch.changeset(run_id=f"run-{os.getpid()}-{threading.get_ident()}", purpose="phase2",
                                      engine="rules")
    return ws, changeset


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(point=st.sampled_from(["apply:journal", "apply:checked", "apply:renaming", "apply:file",
                              "apply:journal-applied"]),
       kind=st.sampled_from(["app", "in-place", "rename"]),
       changed=st.lists(st.sampled_from(RECORDS), min_size=1, max_size=3, unique=True),
       target=st.sampled_from(RECORDS),
       save_first=st.booleans(),
       exchange=st.booleans())
def test_random_interleavings_of_a_save_and_an_apply_never_lose_the_save(
        point: str, kind: str, changed: list[str], target: str, save_first: bool, exchange: bool) -> None:
    root = Path(tempfile.mkdtemp(prefix="yoi-race-"))
    try:
        ws, changeset = _changeset_ws(root, changed)
        path = ws.root / target
        opened = path.read_text(encoding="utf-8")
        saved = opened + "\nThe person's save.\n"
        barrier = root / "barrier"
        results: dict[str, object] = {}

        def run_apply() -> None:
            results["apply"] = apply(ws, changeset)  # type: ignore[arg-type]

        def run_save() -> None:
            try:
                if kind == "app":
                    save_text(path, saved, expected_before=opened)
                elif kind == "in-place":
                    _outside_in_place(path, saved)
                else:
                    _outside_rename(path, saved)
                results["save"] = "saved"
            except RecordChangedError as exc:
                results["save"] = exc

        # exchange=False: the link-aside-then-rename path of systems without an atomic swap.
        fallback = {} if exchange else {"YOI_NO_RENAME_EXCHANGE": "1"}
        with _env(YOI_PAUSE_AT=point, YOI_PAUSE_FILE=str(barrier), **fallback):
            applier = threading.Thread(target=run_apply)
            applier.start()
            reached = Path(f"{barrier}.reached")
            assert wait_for_either(reached, applier)
            saver = threading.Thread(target=run_save)
            saver.start()
            if save_first and kind != "app":
                saver.join(timeout=30)
            barrier.write_text("go")
            applier.join(timeout=60)
            saver.join(timeout=60)
        assert not applier.is_alive() and not saver.is_alive()
        final = path.read_text(encoding="utf-8")
        if results["save"] == "saved":
            assert final == saved, (point, kind, changed, target)  # the save is on disk, not overwritten
        else:
            assert kind == "app" and isinstance(results["save"], RecordChangedError)  # refused, said so
        result = results["apply"]
        applied = {c.path for c in result.applied}  # type: ignore[attr-defined]
        if target in applied and results["save"] == "saved":
            assert final == saved  # applied before the save, which then landed on top
            # yoi's own save checks under the write lock: after the apply it is refused, so an
            # applied file and a successful app save mean the run's change was silently lost.
            assert kind != "app", (point, changed, target)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def start_python(code: str, *args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code, *args], env={**os.environ, **env})


def wait_for_either(reached: Path, thread: threading.Thread) -> bool:
    """The pause point was reached, or the apply finished without passing it (nothing to pause)."""
    event = threading.Event()
    while not reached.exists() and thread.is_alive():
        event.wait(0.005)
    return True
