"""The consolidation occupancy lock (SPEC 9): ``memory/_staging/consolidation.lock``.

One writer run at a time (Phase 2, GC, ``yoi revert``) holds this lock. The file records who holds
it — ``{pod_id, pid, host, started_at, heartbeat_at, consumed, run_id, purpose}`` — so a crashed
run can be recognised and taken over, and so the staging ids a Phase 2 run consumes are visible to
anyone looking (``consumed`` is fixed by a snapshot at the start of the run).

Rules:

* the lock file is created exclusively (written to a temporary file, then hard-linked into place,
  so it is never seen half-written and never silently replaces another holder's file);
* it is **stale** when its pid is gone on this host, or its heartbeat is older than the lease
  (``phase2.lock_lease_seconds``); a stale lock is taken over and the takeover is reported;
* a live lock is never waited for: the second run fails at once with ``LockBusy``;
* the check-and-take is guarded by a ``filelock`` in the git-ignored ``.yoi/state/locks/`` so two
  processes starting together cannot both decide the lock is free;
* every update (heartbeat, consumed ids) and the release first checks that the file still carries
  this holder's ``run_id``: a holder whose lock was taken over learns it (``LockLost``) instead of
  deleting the new holder's lock.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import filelock

from ..crashpoints import faultpoint
from ..errors import YoiError
from ..store.atomic import fsync_dir, make_temp, pid_alive
from ..store.ids import new_id
from ..store.safe_read import NotRegularFile, load_state_json
from ..store.workspace import Workspace

LOCK_NAME = "consolidation.lock"
GUARD_TIMEOUT = 15.0
_NO_HARD_LINKS = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV, errno.ENOSYS)


class LockBusy(YoiError):
    """Another live run holds the consolidation lock."""

    def __init__(self, message: str, info: LockInfo, *, path: Path | str | None = None) -> None:
        super().__init__(message, path=path)
        self.info = info


class LockLost(YoiError):
    """This run's lock was taken over (its heartbeat went stale); it must not apply anything."""


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _iso(moment: datetime) -> str:
    return moment.isoformat()


@dataclass
class LockInfo:
    """The content of the lock file."""

    pod_id: str
    pid: int
    host: str
    started_at: str
    heartbeat_at: str
    consumed: list[str] = field(default_factory=list)
    run_id: str = ""
    purpose: str = "phase2"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> LockInfo:
        if not isinstance(data, dict):
            raise ValueError("lock file is not a JSON object")
        try:
            consumed = data.get("consumed") or []
            if not isinstance(consumed, list):
                raise ValueError("consumed is not a list")
            pid = data["pid"]
            if type(pid) is not int or not 0 <= pid < 1 << 31:
                raise TypeError(f"pid {pid!r} is not a process id")
            return cls(pod_id=str(data["pod_id"]), pid=pid, host=str(data["host"]),
                       started_at=str(data["started_at"]), heartbeat_at=str(data["heartbeat_at"]),
                       consumed=[str(c) for c in consumed], run_id=str(data.get("run_id") or ""),
                       purpose=str(data.get("purpose") or "phase2"))
        except KeyError as exc:
            raise ValueError(f"lock file lacks a field: {exc}") from exc
        except TypeError as exc:
            raise ValueError(f"lock file has a mistyped field: {exc}") from exc

    def heartbeat_age(self, now: datetime | None = None) -> float | None:
        """Seconds since the last heartbeat (None when the timestamp cannot be read)."""
        try:
            beat = datetime.fromisoformat(self.heartbeat_at)
        except ValueError:
            return None
        if beat.tzinfo is None:
            return None
        return ((now or datetime.now(UTC)) - beat).total_seconds()

    def describe(self) -> str:
        return (f"{self.purpose} run {self.run_id or '?'} (pod {self.pod_id}, pid {self.pid} on {self.host}, "
                f"started {self.started_at}, heartbeat {self.heartbeat_at})")


@dataclass
class Takeover:
    """A stale lock this run replaced, and why it was judged stale."""

    previous: LockInfo | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"previous": self.previous.to_json() if self.previous else None, "reason": self.reason}

    def describe(self) -> str:
        who = self.previous.describe() if self.previous else "an unreadable lock file"
        return f"took over a stale lock: {who}; {self.reason}"


def staleness(info: LockInfo, lease_seconds: float, *, host: str | None = None,
              now: datetime | None = None) -> str | None:
    """Why ``info`` is stale (None: the holder is live)."""
    host = host or socket.gethostname()
    if info.host == host and not pid_alive(info.pid):
        return f"pid {info.pid} is gone on {host}"
    age = info.heartbeat_age(now)
    if age is None:
        return f"heartbeat {info.heartbeat_at!r} cannot be read"
    if age > lease_seconds:
        return f"heartbeat is {age:.0f}s old (lease {lease_seconds:.0f}s)"
    return None


def lock_path(ws: Workspace) -> Path:
    return ws.staging_dir / LOCK_NAME


def guard_path(ws: Workspace) -> Path:
    return ws.state_dir / "locks" / f"{LOCK_NAME}.guard"


def read_lock(ws: Workspace) -> LockInfo | None:
    """The current lock file's content (None: no lock).

    A file yoi could not have written (not JSON, too deep, missing or mistyped fields, unreadable
    bytes) raises ``ValueError`` — a holder writes it atomically, so it is taken over. Something
    that is not a file at all (a FIFO, folder, socket, device, symlink) raises ``NotRegularFile``:
    it is never opened for blocking, never removed, and the run refuses to start, naming it."""
    path = lock_path(ws)
    try:
        data = load_state_json(path)
    except NotRegularFile as exc:
        raise NotRegularFile(f"{exc.message} (the consolidation lock belongs here: remove it to run)",
                             path=path) from None
    except OSError as exc:
        raise ValueError(f"cannot read lock file: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ValueError(f"lock file is not JSON: {exc}") from exc
    if data is None:
        return None
    return LockInfo.from_json(data)


def _cannot_write(folder: Path, exc: OSError) -> YoiError:
    """A failure to write the lock (a full disk, no inodes left, a read-only file system): an
    environment error naming the file (exit 2), never taken for ``LockBusy`` (exit 1)."""
    return YoiError(f"cannot write the consolidation lock: {exc.strerror or exc}", path=folder / LOCK_NAME)


def _write_temp(folder: Path, info: LockInfo) -> Path:
    try:
        fd, path = make_temp(folder, LOCK_NAME)
    except OSError as exc:
        raise _cannot_write(folder, exc) from exc
    name = str(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(info.to_json(), indent=2) + "\n")
            handle.flush()
            faultpoint("lock:written")
            os.fsync(handle.fileno())
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(name)
        if isinstance(exc, OSError):
            raise _cannot_write(folder, exc) from exc
        raise
    return Path(name)


class ConsolidationLock:
    """The occupancy lock of one run. Use ``acquire()``/``release()`` or ``with``.

    ``purpose`` names the kind of run ("phase2", "gc", "revert") in the lock file and messages.
    """

    def __init__(self, ws: Workspace, *, purpose: str = "phase2", lease_seconds: float | None = None,
                 pod_id: str | None = None, run_id: str | None = None) -> None:
        self.ws = ws
        self.purpose = purpose
        self.lease_seconds = float(lease_seconds if lease_seconds is not None else ws.config.phase2.lock_lease_seconds)
        self.host = socket.gethostname()
        self.pod_id = pod_id or os.environ.get("YOI_POD_ID") or f"{self.host}-{os.getpid()}"
        self.run_id = run_id or new_id()
        self.path = lock_path(ws)
        self.info: LockInfo | None = None
        self.takeover: Takeover | None = None
        self._keepalive: threading.Thread | None = None
        self._stop = threading.Event()
        self.lost = False

    # ------------------------------------------------------------------ guard

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        guard = guard_path(self.ws)
        try:
            guard.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise YoiError(f"cannot create the lock folder: {exc.strerror or exc}", path=guard.parent) from exc
        if os.path.lexists(guard) and not os.path.isfile(guard) or os.path.islink(guard):
            raise YoiError("is not a file (the lock guard belongs here: remove it to run)", path=guard)
        taken = filelock.FileLock(str(guard), timeout=GUARD_TIMEOUT)
        try:
            taken.acquire()
        except filelock.Timeout as exc:
            raise YoiError(f"could not take the lock guard within {GUARD_TIMEOUT:.0f}s", path=guard) from exc
        except OSError as exc:
            raise YoiError(f"cannot take the lock guard: {exc.strerror or exc}", path=guard) from exc
        try:
            yield
        finally:
            taken.release()

    # ------------------------------------------------------------------ acquire / release

    def acquire(self, consumed: Iterable[str] = ()) -> ConsolidationLock:
        """Take the lock (taking over a stale one). Raises ``LockBusy`` when a live run holds it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise YoiError(f"cannot create the staging folder: {exc.strerror or exc}", path=self.path.parent) from exc
        with self._guard():
            try:
                current = read_lock(self.ws)
                unreadable: str | None = None
            except ValueError as exc:
                current, unreadable = None, str(exc)
            if current is not None:
                reason = staleness(current, self.lease_seconds, host=self.host)
                if reason is None:
                    raise LockBusy(
                        f"another {current.purpose} run holds the consolidation lock: {current.describe()}; "
                        "it was not waited for — try again when it has finished", current, path=self.path)
                self.takeover = Takeover(current, reason)
            elif unreadable is not None:
                # We write the lock atomically, so an unreadable file was not written by a yoi holder.
                self.takeover = Takeover(None, unreadable)
            if self.takeover is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            now = _iso(_now())
            info = LockInfo(pod_id=self.pod_id, pid=os.getpid(), host=self.host, started_at=now,
                            heartbeat_at=now, consumed=list(consumed), run_id=self.run_id, purpose=self.purpose)
            self._create_exclusive(info)
            self.info = info
        return self

    def _create_exclusive(self, info: LockInfo) -> None:
        tmp = _write_temp(self.path.parent, info)
        try:
            try:
                os.link(tmp, self.path)  # fails if the file exists: never replaces another holder
            except FileExistsError as exc:
                raise LockBusy("the consolidation lock appeared while it was being taken", info,
                               path=self.path) from exc
            except OSError as exc:
                if exc.errno not in _NO_HARD_LINKS:
                    raise _cannot_write(self.path.parent, exc) from exc
                # File systems without hard links: an exclusive create is still atomic for existence.
                try:
                    fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                except FileExistsError as exists:
                    raise LockBusy("the consolidation lock appeared while it was being taken", info,
                                   path=self.path) from exists
                except OSError as failed:
                    raise _cannot_write(self.path.parent, failed) from failed
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as handle:
                        handle.write(json.dumps(info.to_json(), indent=2) + "\n")
                        handle.flush()
                        os.fsync(handle.fileno())
                except OSError as failed:  # a half-written lock of ours: remove it, say why
                    with contextlib.suppress(OSError):
                        self.path.unlink()
                    raise _cannot_write(self.path.parent, failed) from failed
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        fsync_dir(self.path.parent)

    def _rewrite(self, **changes: Any) -> None:
        """Update our lock file under the guard; raise ``LockLost`` when it is no longer ours."""
        if self.info is None:
            raise LockLost("the consolidation lock is not held", path=self.path)
        with self._guard():
            try:
                current = read_lock(self.ws)
            except ValueError:
                current = None
            if current is None or current.run_id != self.run_id:
                self.lost = True
                raise LockLost("the consolidation lock was taken over by another run "
                               f"({current.describe() if current else 'lock file gone'})", path=self.path)
            info = LockInfo(**{**self.info.to_json(), **changes})
            tmp = _write_temp(self.path.parent, info)
            try:
                os.replace(tmp, self.path)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                raise _cannot_write(self.path.parent, exc) from exc
            self.info = info

    def set_consumed(self, consumed: Iterable[str]) -> None:
        """Record the staging snapshot this run consumes (and beat the heartbeat)."""
        self._rewrite(consumed=list(consumed), heartbeat_at=_iso(_now()))

    def heartbeat(self) -> None:
        self._rewrite(heartbeat_at=_iso(_now()))

    def verify(self) -> None:
        """Raise ``LockLost`` unless the lock file is still ours (beats the heartbeat too)."""
        self.heartbeat()

    def release(self) -> None:
        """Remove the lock file if it is still ours; never touches another holder's lock."""
        self.stop_keepalive()
        if self.info is None:
            return
        with contextlib.suppress(YoiError), self._guard():
            try:
                current = read_lock(self.ws)
            except ValueError:
                current = None
            if current is not None and current.run_id == self.run_id:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                fsync_dir(self.path.parent)
        self.info = None

    # ------------------------------------------------------------------ keep-alive

    def start_keepalive(self, interval: float | None = None) -> None:
        """Beat the heartbeat from a daemon thread (long runs: an llm engine, an app review)."""
        if self._keepalive is not None:
            return
        period = interval if interval is not None else max(1.0, self.lease_seconds / 4)
        self._stop.clear()

        def beat() -> None:
            while not self._stop.wait(period):
                try:
                    self.heartbeat()
                except LockLost:
                    return
                except (OSError, YoiError):
                    continue  # a transient failure; the next beat tries again

        self._keepalive = threading.Thread(target=beat, name="yoi-lock-heartbeat", daemon=True)
        self._keepalive.start()

    def stop_keepalive(self) -> None:
        if self._keepalive is None:
            return
        self._stop.set()
        self._keepalive.join(timeout=5)
        self._keepalive = None

    def __enter__(self) -> ConsolidationLock:
        return self.acquire() if self.info is None else self

    def __exit__(self, *exc: object) -> None:
        self.release()


__all__ = ["LOCK_NAME", "ConsolidationLock", "LockBusy", "LockInfo", "LockLost", "Takeover", "lock_path",
           "pid_alive", "read_lock", "staleness"]
