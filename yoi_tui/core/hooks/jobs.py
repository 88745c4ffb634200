"""The work a hook hands to the background: Phase 1 (and a PreCompact's Phase 2 flush) run by a
detached worker process, so no hook blocks the agent (issue 23: Stop added 2-2.7 s to every turn).

A hook calls ``queue``: it writes one job file, ``.yoi/state/hook-jobs/<session>-<crc>.json`` (the CRC
of the transcript's path; atomic,
fsynced: the job survives the agent exiting right after, as PreCompact's flush must), and starts
``python -m yoi_tui.core.hooks.jobs WORKSPACE`` detached — its own session (``setsid``), stdin and
stdout on ``/dev/null``, stderr appended to ``worker.log`` — so it outlives the agent, and the
hook returns without waiting for it. A second event of the same session before the worker took
the first merges into the same file (``force``/``flush`` are or-ed).

The worker holds ``worker.lock`` (``flock``) while it runs, so two never run at once; a worker
that finds it held leaves at once (the holder takes the new job: it looks again after releasing
the lock). It claims a job by renaming it to ``<session>.json.<pid>.running``, runs Phase 1 on the
transcript (forced for PreCompact) and, for PreCompact, a Phase 2 flush — which takes the
consolidation lock as every Phase 2 does. Each outcome is appended to ``log.jsonl``. A job that
fails (an error, Phase 2 finding the consolidation lock busy, a crash or kill that left a
``.running`` file) goes back to ``<session>.json`` with its attempt count and error, and is retried
when the next hook starts a worker — not in a loop within one worker. ``status`` is what
``yoi status`` shows.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import YoiError
from ..store.workspace import Workspace

FOLDER = "hook-jobs"
LOG_KEEP = 200  # log.jsonl is cut to this many lines when it grows past twice as many
_SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"


def folder_of(ws: Workspace) -> Path:
    return ws.state_dir / FOLDER


def _key(session_id: str | None, transcript: Path) -> str:
    """A job's file name: one per session and transcript (a subagent's Stop names the session of
    its parent with a transcript of its own: it must not take the place of the parent's job)."""
    import zlib

    crc = f"{zlib.crc32(os.fsencode(str(transcript))):08x}"
    if session_id and all(c in _SAFE for c in session_id) and len(session_id) <= 100 and session_id[0] not in ".-":
        return f"{session_id}-{crc}"
    return f"log-{crc}"


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    from ..store.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(data, ensure_ascii=False) + "\n", mode=0o600)


def _merged(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    if old is None:
        return new
    return {**old, **new, "force": bool(old.get("force")) or bool(new.get("force")),
            "flush": bool(old.get("flush")) or bool(new.get("flush")),
            "attempts": int(old.get("attempts") or 0), "last_error": old.get("last_error"),
            "tried_at": old.get("tried_at")}


def queue(ws: Workspace, transcript: Path, session_id: str | None, *, force: bool, flush: bool,
          event: str) -> str:
    """Write the job and start a worker; returns the job's file name. Raises ``YoiError`` when the
    job cannot be written (the hook reports it; nothing was started)."""
    if not ws.yoi_dir.is_dir():
        raise YoiError("no .yoi/ folder: background work needs it (run yoi init)", path=ws.root)
    folder = folder_of(ws)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise YoiError(f"cannot create {FOLDER}/: {exc.strerror or exc}", path=folder) from exc
    key = _key(session_id, transcript)
    path = folder / f"{key}.json"
    job = {"transcript": str(transcript), "session_id": session_id, "event": event, "force": force,
           "flush": flush, "queued_at": time.time(), "attempts": 0, "last_error": None}
    _write_json(path, _merged(_read_json(path), job))
    start_worker(ws)
    return path.name


def start_worker(ws: Workspace) -> None:
    """Start a detached worker for ``ws`` (it leaves at once if one is running). Never raises."""
    folder = folder_of(ws)
    _trim_worker_log(folder)  # here, not in the worker: its stderr is that file
    try:
        os.posix_spawn(
            sys.executable, [sys.executable, "-m", "yoi_tui.core.hooks.jobs", str(ws.root)], _worker_env(),
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 2, str(folder / "worker.log"),
                           os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)],
            setsid=True)
    except (OSError, AttributeError, NotImplementedError):
        return


def _worker_env() -> dict[str, str]:
    # The worker imports yoi as this process did: the same interpreter, PYTHONPATH and working folder.
    return {**os.environ, "YOI_SERVER": "0"}  # its phases run here, never handed to a command server


# --------------------------------------------------------------------------- the worker


def _try_lock(folder: Path) -> int | None:
    import fcntl

    fd = os.open(folder / "worker.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def _pending(folder: Path, skip: set[str]) -> list[Path]:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and n[:-5] not in skip)
    except OSError:
        return []
    return [folder / n for n in names]


def _log(folder: Path, entry: dict[str, Any]) -> None:
    path = folder / "log.jsonl"
    line = json.dumps({"at": time.time(), **entry}, ensure_ascii=False) + "\n"
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if len(lines) > 2 * LOG_KEEP:
            _write_text(path, "".join(lines[-LOG_KEEP:]))
    except OSError:
        return


def _write_text(path: Path, text: str) -> None:
    from ..store.atomic import atomic_write_text

    try:
        atomic_write_text(path, text, mode=0o600)
    except YoiError:
        return


def _trim_worker_log(folder: Path, keep: int = 64 * 1024) -> None:
    """``worker.log`` (the workers' stderr, appended) keeps its last ``keep`` bytes."""
    path = folder / "worker.log"
    try:
        if path.stat().st_size > 4 * keep:
            _write_text(path, path.read_bytes()[-keep:].decode("utf-8", "replace"))
    except OSError:
        return


def _give_back(folder: Path, key: str, job: dict[str, Any], error: str) -> None:
    """Put a failed job back for the next trigger, merged with one queued meanwhile."""
    job = {**job, "attempts": int(job.get("attempts") or 0) + 1, "last_error": error, "tried_at": time.time()}
    path = folder / f"{key}.json"
    queued = _read_json(path)
    if queued is not None:  # a trigger came meanwhile: it still waits for its run
        job = {**_merged(job, queued), "attempts": job["attempts"], "last_error": error, "tried_at": job["tried_at"]}
    try:
        _write_json(path, job)
    except YoiError:
        pass


def _recover_running(folder: Path) -> None:
    """``.running`` files left by a worker that died mid-job (only one worker runs: the lock is ours)."""
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".running")]
    except OSError:
        return
    for name in names:
        path = folder / name
        job = _read_json(path) or {}
        key = name.split(".json.", 1)[0]
        if job:
            _give_back(folder, key, job, "the worker stopped before finishing (killed or crashed); retried")
            _log(folder, {"job": key, "status": "interrupted", "message": "worker stopped mid-job"})
        try:
            path.unlink()
        except OSError:
            pass


def run_job(ws: Workspace, job: dict[str, Any]) -> list[str]:
    """Phase 1 on the job's transcript, then (flush) a Phase 2 flush; the outcome lines. Raises
    ``YoiError`` (or anything else) when it failed."""
    from ..phase1.runner import run_phase1

    transcript = Path(str(job.get("transcript", "")))
    lines: list[str] = []
    failed: list[str] = []
    session = job.get("session_id")
    if isinstance(session, str) and transcript.is_file():
        # Under the hook's session id (the one its usage events and MCP calls use); Phase 1 below
        # then finds these entries counted (the clock is shared).
        from ..sessions.token_clock import advance_token_clock

        try:
            advance_token_clock(ws, session, transcript)
        except YoiError as exc:
            failed.append(f"token clock: {exc}")
    for r in run_phase1(ws, [transcript], force=bool(job.get("force"))):
        lines.append(f"phase1 {r.session_id}: {r.status} — {r.message}")
        if r.status == "error":
            failed.append(f"phase1: {r.message}")
    if job.get("flush") and not failed:
        from ..phase2.runner import run_phase2

        try:
            report = run_phase2(ws, flush=True)
        except YoiError as exc:  # e.g. the consolidation lock is held by another run
            raise YoiError(f"phase2: {exc}") from exc
        for rnd in report.rounds:
            message = getattr(rnd, "message", "") or ""
            lines.append(f"phase2: {rnd.status} {message}".rstrip())
            if rnd.status in ("aborted", "error", "failed"):
                failed.append(f"phase2: {rnd.status} {message}".rstrip())
    if failed:
        raise YoiError("; ".join(failed))
    return lines


def work(ws: Workspace) -> int:
    """The worker: every pending job once; returns how many ran (0 when another worker runs)."""
    folder = folder_of(ws)
    done = 0
    tried: set[str] = set()  # each job at most once per worker; a failure waits for the next trigger
    while True:
        fd = _try_lock(folder)
        if fd is None:
            return done
        try:
            _recover_running(folder)
            while True:
                jobs = _pending(folder, tried)
                if not jobs:
                    break
                path = jobs[0]
                key = path.name[:-5]
                tried.add(key)
                running = path.with_name(f"{path.name}.{os.getpid()}.running")
                try:
                    os.rename(path, running)
                except OSError:
                    continue
                job = _read_json(running) or {}
                if not Path(str(job.get("transcript", ""))).is_file():
                    # Nothing to read, now or at a retry (a subagent's log removed, a bad path).
                    _log(folder, {"job": key, "event": job.get("event"), "status": "skipped",
                                  "message": f"no transcript at {job.get('transcript')!r}"})
                    running.unlink(missing_ok=True)
                    continue
                try:
                    lines = run_job(ws, job)
                except Exception as exc:  # noqa: BLE001 - every failure is logged and retried, never lost
                    message = str(exc) if isinstance(exc, YoiError) else f"{type(exc).__name__}: {exc}"
                    _give_back(folder, key, job, message)
                    _log(folder, {"job": key, "event": job.get("event"), "status": "failed", "message": message})
                else:
                    _log(folder, {"job": key, "event": job.get("event"), "status": "done", "message": "; ".join(lines)})
                    done += 1
                try:
                    running.unlink()
                except OSError:
                    pass
        finally:
            _unlock(fd)
        # A hook may have queued a job after the last look, and its worker found the lock held.
        if not _pending(folder, tried):
            return done


# --------------------------------------------------------------------------- what yoi status shows


def status(ws: Workspace, *, recent: int = 10) -> dict[str, Any]:
    """Pending jobs, whether a worker runs, and the last outcomes (newest last)."""
    folder = folder_of(ws)
    pending = []
    for path in _pending(folder, set()):
        job = _read_json(path) or {}
        pending.append({"job": path.name[:-5], "event": job.get("event"), "transcript": job.get("transcript"),
                        "attempts": int(job.get("attempts") or 0), "last_error": job.get("last_error"),
                        "queued_at": job.get("queued_at"), "tried_at": job.get("tried_at"),
                        # queued by a trigger after its last failed run: a worker will take it
                        "waiting": not isinstance(job.get("tried_at"), int | float)
                        or float(job.get("queued_at") or 0) > float(job["tried_at"])})
    running = False
    if folder.is_dir():
        fd = _try_lock(folder)
        if fd is None:
            running = True
        else:
            _unlock(fd)
    log: list[dict[str, Any]] = []
    try:
        for line in (folder / "log.jsonl").read_text(encoding="utf-8").splitlines()[-recent:]:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                log.append(entry)
    except (OSError, UnicodeDecodeError):
        pass
    worker_output = ""
    try:
        worker_output = (folder / "worker.log").read_text(encoding="utf-8", errors="replace")[-2000:]
    except OSError:
        pass
    return {"pending": pending, "worker_running": running, "recent": log, "worker_output": worker_output}


def main(argv: list[str]) -> int:
    """``python -m yoi_tui.core.hooks.jobs WORKSPACE``: the detached worker."""
    from ..store.workspace import find_workspace

    try:
        ws = find_workspace(explicit=argv[0])
    except (YoiError, IndexError) as exc:
        print(f"yoi hook worker: {exc}", file=sys.stderr)
        return 2
    work(ws)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
