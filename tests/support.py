"""Shared test helpers: build real workspaces in tmp_path and run the real ``yoi`` CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from yoi_tui.core.store.workspace import Workspace, init_workspace
from yoi_tui.core.store.writer import new_record_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
SRC = [{"session_id": "s1", "range": [0, 3]}]


def make_ws(tmp_path: Path) -> Workspace:
    ws, _ = init_workspace(tmp_path / "proj")
    return ws


def decision_meta(**extra: Any) -> dict[str, Any]:
    return {"created_at": T0, "updated_at": T0, "sources": SRC, "status": "open", **extra}


def request_meta(**extra: Any) -> dict[str, Any]:
    return {"created_at": T0, "updated_at": T0, "sources": SRC, **extra}


def knowledge_meta(**extra: Any) -> dict[str, Any]:
    return {"kind": "fact", "description": "What it is and when to read it.", "model_invokation": False,
            "user_invocable": True, "last_sources": SRC, "created_at": T0, "updated_at": T0, **extra}


def write_record(ws: Workspace, rel: str, meta: dict[str, Any], body: str = "\nBody.\n") -> Path:
    path = ws.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_record_text(meta, body), encoding="utf-8")
    return path


def run_yoi(*args: str, cwd: Path | None = None, input: str | None = None,
            env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (as a user would), returning its output."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, env=full_env, timeout=timeout)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, creating its folders: an edit as any editor makes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def count_lint_reads(monkeypatch: Any) -> list[str]:
    """The rel of every file the lint cache reads and parses from now on (``lint.cache.read_record``
    and ``read_listed_record_stat``, its short way for regular files), in order."""
    from yoi_tui.core.lint import cache as lint_cache

    reads: list[str] = []
    real, real_listed = lint_cache.read_record, lint_cache.read_listed_record_stat

    def counting(ws: Workspace, path: Path, **kwargs: object):  # type: ignore[no-untyped-def]
        reads.append(ws.rel(path))
        return real(ws, path, **kwargs)

    def counting_listed(ws: Workspace, path: str, rel: str, kind: Any):  # type: ignore[no-untyped-def]
        reads.append(rel)
        return real_listed(ws, path, rel, kind)

    monkeypatch.setattr(lint_cache, "read_record", counting)
    monkeypatch.setattr(lint_cache, "read_listed_record_stat", counting_listed)
    return reads


RECORD_EDITS = ("append-ref", "rename", "delete", "twin", "slug-twin", "replace", "break", "touch")


def edit_record(rng: Any, root: Path, path: Path, op: str, tag: str) -> None:
    """One of ``RECORD_EDITS`` on the record file ``path`` of the workspace at ``root``, as people
    and tools make them: a reference added (one dangling), a rename, a deletion, a near-duplicate
    twin, a decision replaced, broken YAML, a touch. ``tag`` makes new file names unique."""
    text = path.read_text(encoding="utf-8")
    if op == "append-ref":
        target = rng.choice(sorted((root / "knowledge").glob("*.md"))).stem
        write_text(path, text + f"\nSee #{target} and #no-such-{rng.randint(1, 9)}.\n")
    elif op == "rename" and path.name != "summary.md":
        path.rename(path.with_name(f"renamed-{tag}.md"))
    elif op == "delete" and path.name != "summary.md":
        path.unlink()
    elif op in ("twin", "slug-twin") and path.name != "summary.md":
        shutil.copy(path, path.with_name(path.stem + ("s" if op == "twin" else "x") + ".md"))
    elif op == "replace" and path.parent.name == "decisions":
        other = rng.choice(sorted(path.parent.glob("*.md"))).stem
        write_text(path, text.replace("status: open", f"status: replaced\nreplaced_by: {other}")
                   .replace("status: resolved", f"status: replaced\nreplaced_by: {other}"))
    elif op == "break":
        write_text(path, text.replace("---\n", "---\n\tbad: [\n", 1))
    else:
        os.utime(path)


def stop_command_servers(runtime: Path) -> None:
    """Stop every command server whose lock file is under ``runtime`` (an ``XDG_RUNTIME_DIR`` a test
    gave its ``yoi`` calls), and wait until each has gone: no test leaves a process behind."""
    for lock in (runtime / "yoi").glob("*.lock"):
        stop_command_server(lock)


# conftest.py sets this to a value of its own in the test session's environment: every process a
# test starts inherits it, unless the test gave that process an environment of its own.
SESSION_MARK = "PYTEST_YOI_SESSION"


def servers_of_this_session(folders: list[Path], temp_root: Path | None, since: float) -> list[Path]:
    """The lock files, in ``folders``, of the command servers this test session started: written
    after ``since``, by a process that carries this session's ``SESSION_MARK`` in its environment,
    or runs from an interpreter or package under ``temp_root`` (a test's own venv), or serves a
    workspace under it. Any ``yoi`` may have started them (each installation names its socket after
    itself); a server of anyone else is not listed."""
    found = []
    for folder in folders:
        for lock in sorted(folder.glob("*.lock")):
            try:
                if lock.stat().st_mtime < since:
                    continue
            except OSError:
                continue
            pid = server_pid(lock)
            if pid is not None and process_running(pid) and _started_by_this_session(pid, lock, temp_root):
                found.append(lock)
    return found


def _started_by_this_session(pid: int, lock: Path, temp_root: Path | None) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        environ = []
    if f"{SESSION_MARK}={os.environ.get(SESSION_MARK)}".encode() in environ:
        return True
    if temp_root is None:
        return False
    paths = []
    try:
        paths += os.fsdecode(Path(f"/proc/{pid}/cmdline").read_bytes()).split("\0")
    except OSError:
        pass
    from yoi_tui.cli import server_client

    answer = server_client.ask([server_client.STATUS_REQUEST], path=str(lock)[: -len(".lock")])
    if answer is not None and answer[0] == 0:
        import json

        try:
            status = json.loads("".join(text for _, text in answer[1]))
            paths += [str(status.get("python", "")), str(status.get("package", "")), *status.get("workspaces", {})]
        except (ValueError, AttributeError, TypeError):
            pass
    return any(_under(path, temp_root) for path in paths if os.path.isabs(path))


def _under(path: str, root: Path) -> bool:
    """True when ``path`` is in ``root``; a venv's ``python`` is a symlink out of it: not followed."""
    folder, name = os.path.split(os.path.normpath(path))
    where = os.path.join(os.path.realpath(folder), name)
    return any(where.startswith(os.path.join(top, "")) for top in {os.path.abspath(root), os.path.realpath(root)})


def server_pid(lock: Path) -> int | None:
    """The process id a command server wrote into its lock file (None: none there)."""
    try:
        return int(lock.read_text().strip() or 0) or None
    except (OSError, ValueError):
        return None


def stop_command_server(lock: Path) -> None:
    """SIGTERM the server of ``lock`` and wait (up to 20 s) until it has gone."""
    import signal
    import time

    pid = server_pid(lock)
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process_running(pid):
        time.sleep(0.05)


def process_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return False
    return stat.split(") ", 1)[1][:1] != "Z"  # a zombie has exited


def wait_for_background(ws: Workspace, deadline_s: float = 120.0) -> dict:
    """The hooks' background work once no job is pending or running (a liveness wait, not a timing
    check: the deadline only keeps a broken worker from hanging the suite)."""
    end = time.monotonic() + deadline_s
    while True:
        from yoi_tui.core.hooks import jobs as hook_jobs

        found = hook_jobs.status(ws)
        fresh = [j for j in found["pending"] if j["waiting"]]
        if not fresh and not found["worker_running"] and not list(hook_jobs.folder_of(ws).glob("*.running")):
            return found
        assert time.monotonic() < end, f"background work did not finish: {found}"
        time.sleep(0.05)
