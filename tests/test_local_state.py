"""Broken local state (``.yoi/``, ``memory/_staging/``) never hangs a command, never shows a
traceback, and gives the documented exit code (issue 27).

Every case runs the real ``yoi`` in a subprocess with a timeout: a FIFO that a plain ``open()``
would wait on for ever fails the test as "hung" instead of hanging the suite. Full disks are a real
small tmpfs when the tests run as root, and ``YOI_FAIL_AT`` (``core/crashpoints.py``) elsewhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_corpus import _base
from phase2_fixtures import stage, stage_realistic, tree_bytes

from yoi_tui.core.lint.cache import CACHE_NAME as LINT_CACHE
from yoi_tui.core.retrieval.listing_cache import CACHE_NAME as LISTINGS_CACHE
from yoi_tui.core.store.meta_cache import CACHE_NAME as FRONTMATTER_CACHE
from yoi_tui.core.store.staging import Request
from yoi_tui.core.store.workspace import Workspace

TIMEOUT = 30
ENV_ERRNOS = ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EISDIR", "ENOTDIR", "EMFILE")


def _yoi(ws: Workspace, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "yoi_tui.cli.main", *args, "--workspace", str(ws.root)]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, "YOI_SERVER": "0", **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"yoi {' '.join(args)} hung (no exit within {TIMEOUT}s)")
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _ws(tmp_path: Path) -> Workspace:
    ws = _base(tmp_path / "ws")
    stage(ws, "s-good", 0, 3, requests=[Request(intent="Add retries", target="fetch.py", summary="three")])
    return ws


# --------------------------------------------------------------------------- hangs


def test_a_fifo_named_like_a_run_journal_does_not_hang_phase2(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    runs = ws.state_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    os.mkfifo(runs / "01a00000-0000-7000-8000-000000000000.json")  # consumed.py read every journal
    result = _yoi(ws, "phase2", "--flush")
    assert result.returncode == 0, result.stderr
    assert not list(ws.staging_dir.glob("*.json"))  # the run went on and consumed its staging


def test_a_fifo_pending_journal_is_quarantined_and_the_run_goes_on(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    runs = ws.state_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    name = "01a00000-0000-7000-8000-000000000000.pending.json"
    os.mkfifo(runs / name)
    result = _yoi(ws, "phase2", "--flush")
    assert result.returncode == 0, result.stderr
    assert str(runs / name) in result.stderr and "FIFO" in result.stderr
    assert (runs / "quarantine" / name).exists() and not (runs / name).exists()
    assert not list(ws.staging_dir.glob("*.json"))


def _not_a_file(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
        (path / "keep").write_text("x")
    else:
        path.symlink_to(path.parent / "elsewhere.json")
        (path.parent / "elsewhere.json").write_text("{}")


@pytest.mark.parametrize("kind", ["fifo", "folder", "symlink"])
@pytest.mark.parametrize("command", ["phase2", "gc"])
def test_a_consolidation_lock_that_is_not_a_file_is_named_with_exit_2(tmp_path: Path, kind: str, command: str) -> None:
    ws = _ws(tmp_path)
    lock = ws.staging_dir / "consolidation.lock"
    _not_a_file(lock, kind)
    before = tree_bytes(ws.root)
    result = _yoi(ws, command, *(["--flush"] if command == "phase2" else []))
    assert result.returncode == 2, result.stderr
    assert str(lock) in result.stderr and "not a file" in result.stderr
    assert os.path.lexists(lock)  # never removed: nobody's write made it
    assert tree_bytes(ws.root) == before


@pytest.mark.parametrize(("name", "command"), [(LINT_CACHE, ["lint", "--format", "json"]),
                                              (FRONTMATTER_CACHE, ["gc", "--dry-run"])])
def test_a_fifo_cache_is_named_ignored_and_rebuilt(tmp_path: Path, name: str, command: list[str]) -> None:
    ws = _ws(tmp_path)
    clean = _yoi(ws, *command)
    cache = ws.state_dir / "cache" / name
    cache.unlink(missing_ok=True)
    os.mkfifo(cache)
    result = _yoi(ws, *command)
    assert (result.returncode, result.stdout) == (clean.returncode, clean.stdout)
    assert str(cache) in result.stderr and "FIFO" in result.stderr
    assert cache.is_file()  # the next write replaced it


def test_a_fifo_listings_cache_does_not_hang_context(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    clean = _yoi(ws, "context")
    cache = ws.state_dir / "cache" / LISTINGS_CACHE
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.unlink(missing_ok=True)
    os.mkfifo(cache)
    result = _yoi(ws, "context")
    assert (result.returncode, result.stdout) == (clean.returncode, clean.stdout)
    assert str(cache) in result.stderr


@pytest.mark.parametrize("name", [LINT_CACHE, LISTINGS_CACHE])
def test_a_deeply_nested_cache_is_rebuilt_without_a_traceback(tmp_path: Path, name: str) -> None:
    ws = _ws(tmp_path)
    clean_lint, clean_context = _yoi(ws, "lint"), _yoi(ws, "context")
    cache = ws.state_dir / "cache" / name
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text('{"version": 1, "files": ' + "[" * 200_000 + "]" * 200_000 + "}")
    lint, context = _yoi(ws, "lint"), _yoi(ws, "context")
    assert (lint.returncode, lint.stdout) == (clean_lint.returncode, clean_lint.stdout)
    assert (context.returncode, context.stdout) == (clean_context.returncode, clean_context.stdout)


# --------------------------------------------------------------------------- corrupt journals and locks


def _pending(ws: Workspace, journal: object, run_id: str = "01a00000-0000-7000-8000-000000000001") -> Path:
    runs = ws.state_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / f"{run_id}.pending.json"
    path.write_text(json.dumps(journal))
    return path


def _journal(*changes: dict[str, object], run_id: str = "01a00000-0000-7000-8000-000000000001") -> dict[str, object]:
    return {"version": 1, "run_id": run_id, "purpose": "phase2", "engine": "rules", "status": "applying",
            "created_at": "2026-11-02T09:00:00+00:00", "held": {}, "notes": [], "changes": list(changes),
            "inputs": []}


GOOD_CHANGE = {"path": "knowledge/new-note.md", "op": "add", "before": None, "after": "planted\n",
               "why": [], "category": [], "reason": None, "derived": False, "state": "pending", "detail": None}


@pytest.mark.parametrize("broken", [
    pytest.param({k: v for k, v in GOOD_CHANGE.items() if k != "state"}, id="change-without-state"),
    pytest.param({**GOOD_CHANGE, "state": 3}, id="state-not-a-string"),
    pytest.param({**GOOD_CHANGE, "path": ["a"]}, id="path-not-a-string"),
    pytest.param({**GOOD_CHANGE, "op": "explode"}, id="unknown-op"),
    pytest.param("not an object", id="change-not-an-object"),
])
@pytest.mark.parametrize("command", ["phase2", "gc"])
def test_a_pending_journal_with_a_missing_or_mistyped_field_is_quarantined(tmp_path: Path, broken: object,
                                                                           command: str) -> None:
    ws = _ws(tmp_path)
    pending = _pending(ws, _journal(broken))  # type: ignore[arg-type]
    result = _yoi(ws, command, *(["--flush"] if command == "phase2" else []))
    assert result.returncode == 0, result.stderr
    assert str(pending) in result.stderr and "not a run journal" in result.stderr
    assert (pending.parent / "quarantine" / pending.name).is_file()
    assert not (ws.root / "knowledge" / "new-note.md").exists()


@pytest.mark.parametrize("path", ["../outside.md", "/tmp/{tmp}/abs.md", "knowledge/../../outside.md"])
def test_a_pending_journal_naming_a_path_outside_the_workspace_is_never_rolled_forward(tmp_path: Path,
                                                                                      path: str) -> None:
    ws = _ws(tmp_path)
    path = path.replace("/tmp/{tmp}", str(tmp_path))
    outside = ws.root.parent / "outside.md"
    good = {**GOOD_CHANGE}
    pending = _pending(ws, _journal(good, {**GOOD_CHANGE, "path": path}))
    result = _yoi(ws, "phase2", "--flush")
    assert result.returncode == 0, result.stderr
    assert "outside the workspace" in result.stderr and str(pending) in result.stderr
    assert not outside.exists() and not (tmp_path / "abs.md").exists()
    assert not (ws.root / "knowledge" / "new-note.md").exists()  # not even the inside part
    assert (pending.parent / "quarantine" / pending.name).is_file()


def test_a_pending_journal_whose_run_id_is_not_its_name_is_quarantined(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    pending = _pending(ws, _journal(GOOD_CHANGE, run_id="../../../escaped"),
                       run_id="01a00000-0000-7000-8000-000000000001")
    result = _yoi(ws, "gc")
    assert result.returncode == 0, result.stderr
    assert (pending.parent / "quarantine" / pending.name).is_file()
    assert not (ws.root.parent / "escaped.json").exists()


def test_a_deeply_nested_lock_file_is_taken_over(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    (ws.staging_dir / "consolidation.lock").write_text("[" * 100_000 + "]" * 100_000)
    result = _yoi(ws, "phase2", "--flush")
    assert result.returncode == 0, result.stderr
    assert "took over a stale lock" in result.stderr
    assert not (ws.staging_dir / "consolidation.lock").exists()


# --------------------------------------------------------------------------- full disk


@pytest.mark.parametrize("code", ENV_ERRNOS)
def test_a_failing_lock_write_is_an_environment_error_not_busy(tmp_path: Path, code: str) -> None:
    ws = _ws(tmp_path)
    for command in (["phase2", "--flush"], ["gc"], ["import"]):
        result = _yoi(ws, *command, env={"YOI_FAIL_AT": f"lock:written={code}"})
        assert result.returncode == 2, (command, result.stderr)
        assert "consolidation.lock: cannot write the consolidation lock" in result.stderr
        assert not (ws.staging_dir / "consolidation.lock").exists()


@pytest.mark.parametrize("code", ENV_ERRNOS)
def test_a_failing_record_write_is_exit_2_and_keeps_the_staging(tmp_path: Path, code: str) -> None:
    ws = _base(tmp_path / "ws")
    stage_realistic(ws)
    records = tree_bytes(ws.root, "memory/decisions", "memory/requests", "knowledge")
    # write:renaming is every atomic write's last step: the journal, then each record
    result = _yoi(ws, "phase2", "--flush", env={"YOI_FAIL_AT": f"write:renaming={code}"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot write" in result.stdout + result.stderr
    assert tree_bytes(ws.root, "memory/decisions", "memory/requests", "knowledge") == records
    assert list(ws.staging_dir.glob("*.json"))


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(not _is_root(), reason="mounting a small tmpfs needs root; the YOI_FAIL_AT tests cover the rest")
@pytest.mark.parametrize("left", ["0-bytes", "8-kib", "no-inodes"])
def test_a_really_full_disk_gives_exit_2_and_no_traceback(tmp_path: Path, left: str) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,nr_inodes=400", "tmpfs", str(mount)], check=True)
    try:
        ws = _base(mount / "ws")
        stage_realistic(ws)
        assert _yoi(ws, "phase2", "--flush").returncode == 0
        stage_realistic(ws)
        (ws.root / "CLAUDE.md").write_text("# Notes\n\n## Build\n\nRun make before committing.\n")
        _fill(mount, left)
        for command in (["phase2", "--flush"], ["gc"], ["import"], ["revert", "last"]):
            result = _yoi(ws, *command)
            assert result.returncode in (0, 2), (command, result.returncode, result.stdout + result.stderr)
            if result.returncode == 2:
                assert str(ws.root) in result.stderr, (command, result.stderr)
        for command in (["lint"], ["search", "memory", "retries"], ["context"]):
            assert _yoi(ws, *command).returncode in (0, 1), command
        # Nothing half-written: no temp file left, every staging file and record still whole.
        assert not [p for p in ws.root.rglob("*") if p.name.startswith(".yoi-tmp-")]
        for staged in ws.staging_dir.glob("*.json"):
            json.loads(staged.read_text(encoding="utf-8"))
        lint = _yoi(ws, "lint", "--format", "json")
        assert not [d for d in json.loads(lint.stdout) if d["rule"] in ("file-unreadable", "frontmatter-invalid", "encoding")]
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, left: str) -> None:
    fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
    keep = 8192 if left == "8-kib" else 0
    try:
        for chunk in (65536, 4096, 1):
            try:
                while os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize > keep:
                    os.write(fd, b"x" * chunk)
            except OSError:
                pass
    finally:
        os.close(fd)
    if left == "no-inodes":
        number = 0
        try:
            while True:
                (mount / f"inode-{number}").touch()
                number += 1
        except OSError:
            pass
