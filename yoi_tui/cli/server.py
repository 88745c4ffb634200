"""The command server: one background process per installed ``yoi`` and user that runs served
commands (``server_client.SERVED``) in-process, with the code imported and the search index kept
fresh by kernel notification instead of per-call ``lstat`` passes.

Started by ``server_client.start_server`` as ``python -m yoi_tui.cli.server SOCKET``. It answers
exactly what the command would print in its own process — each request carries the caller's argv,
working folder, environment and umask, which are put in place before the command runs, and its
stdout, stderr and exit status go back — one request at a time. It stops:

* after ``IDLE_SECONDS`` without a request;
* when its socket is removed or replaced (another server took over, the folder was cleaned);
* when a file of the ``yoi_tui`` package changes (an upgrade, an edit to a development checkout):
  the request that notices gets "declined" and runs in its own process with the new code;
* on SIGTERM / SIGINT.

Only the same user may talk to it: the socket folder is private (``server_client.private_dir``) and
each connection's peer credentials are checked. When the search index cannot be watched (no
inotify, a network or FUSE file system) the command simply checks every file as it would alone.
"""

from __future__ import annotations

import io
import marshal
import os
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from ..core.crashpoints import crashpoint
from ..core.process_state import reset_per_request
from . import server_client

_DECLINED: tuple[int, list[tuple[bool, str]]] = (-1, [])
_READ_TIMEOUT = 10.0
_CHECK_EVERY = 30.0  # seconds between checks that the socket is still ours when idle
_FLUSH_AFTER = 1.0  # seconds without a request before deferred cache files are written


class _RequestStream(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` of the server: writes go to the current request's output,
    in the order they were made, tagged with the stream (logging handlers that captured the stream
    object still write to the right request)."""

    def __init__(self, is_stderr: bool) -> None:
        super().__init__()
        self.is_stderr = is_stderr
        self.target: list[tuple[bool, str]] | None = None

    def write(self, text: str) -> int:
        if self.target is not None and text:
            if self.target and self.target[-1][0] == self.is_stderr:
                self.target[-1] = (self.is_stderr, self.target[-1][1] + text)
            else:
                self.target.append((self.is_stderr, text))
        return len(text)

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


class Server:
    def __init__(self, path: str, listener: socket.socket) -> None:
        self.path = path
        self.listener = listener
        self.inode = os.stat(path).st_ino
        self.stdout = _RequestStream(is_stderr=False)
        self.stderr = _RequestStream(is_stderr=True)
        self.code_feed = _watch_package()
        self.stopping = False
        self.busy = False
        self.started_at = time.time()
        self.calls = 0
        self.last_call_at: float | None = None
        self.code_changed = False  # a yoi file changed: decline, then stop

    def serve(self) -> None:
        from ..core.freshness.record_feed import file_watch_budget
        from ..core.lint import resident
        from ..core.retrieval import resident_context as context
        from ..core.retrieval.search_index import watch_for_changes

        file_watch_budget()  # from the environment the server started in (YOI_FILE_WATCHES)
        watch_for_changes()
        context.watch_for_changes()
        resident.enable()
        sys.stdout = self.stdout  # type: ignore[assignment]
        sys.stderr = self.stderr  # type: ignore[assignment]
        idle = _idle_seconds()
        check_every = min(_CHECK_EVERY, idle)
        last_request = last_check = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            idle_left = idle - (now - last_request)
            if idle_left <= 0:
                return
            if now - last_check >= check_every:
                last_check = now
                if not self._still_ours():
                    return
            wait = min(idle_left, check_every)
            if resident.has_pending():  # a lint's cache file, written once requests pause
                wait = min(wait, _FLUSH_AFTER - (now - last_request))
            self.listener.settimeout(max(wait, 0.01))  # never 0: that would make accept non-blocking
            try:
                conn, _ = self.listener.accept()
            except (TimeoutError, BlockingIOError):
                if resident.has_pending() and time.monotonic() - last_request >= _FLUSH_AFTER * 0.99:
                    resident.flush()
                continue
            except InterruptedError:
                continue
            except OSError:
                return
            self.busy = True
            calls = self.calls
            try:
                with conn:
                    self._handle(conn)
            finally:
                self.busy = False
            if self.calls != calls:  # a status query does not keep an idle server alive
                last_request = time.monotonic()

    def status(self) -> dict[str, object]:
        """What ``yoi server status`` shows of this server."""
        return {"pid": os.getpid(), "started_at": self.started_at, "calls": self.calls,
                "last_call_at": self.last_call_at, "python": sys.executable,
                "package": str(Path(__file__).resolve().parent.parent), "workspaces": _kept_workspaces()}

    def _still_ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _handle(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            return
        conn.settimeout(_READ_TIMEOUT)
        try:
            conn.sendall(server_client.GREETING)  # taken now (a caller that gave up has gone: no harm)
        except OSError:
            return
        try:
            request = server_client._receive(conn)
        except OSError:
            return
        with _Beating(conn):
            reply = self._answer(request, _peer_pid(conn))
        conn.settimeout(_READ_TIMEOUT)
        data = marshal.dumps(reply)
        try:
            conn.sendall(len(data).to_bytes(8, "big") + data)
        except OSError:
            pass  # the caller went away (Ctrl-C): nothing to tell
        if reply == _DECLINED and self.code_changed:
            self.stopping = True

    def _answer(self, request: bytes | None, caller: int | None = None) -> tuple[int, list[tuple[bool, str]]]:
        if request is None:
            return _DECLINED
        try:
            protocol, argv, cwd, environ, umask, stdin = marshal.loads(request)
        except (EOFError, ValueError, TypeError):
            return _DECLINED
        if protocol != server_client.PROTOCOL or not isinstance(argv, list) \
                or not (stdin is None or isinstance(stdin, str)):
            return _DECLINED
        if argv == [server_client.STATUS_REQUEST]:  # `yoi server status`
            import json

            return 0, [(False, json.dumps(self.status()))]
        self.calls += 1
        self.last_call_at = time.time()
        if self.code_feed is not None and self.code_feed.changed():
            self.code_changed = True
            return _DECLINED
        try:
            os.chdir(cwd)
        except OSError:
            return _DECLINED
        os.environ.clear()
        os.environ.update(environ)
        os.umask(umask)
        reset_per_request()  # core/process_state.py: what a command of its own process would start with
        if os.environ.get("YOI_PAUSE_AT") == "server:request":
            crashpoint("server:request")  # the tests' barrier: a server busy with this request
        output: list[tuple[bool, str]] = []
        self.stdout.target = self.stderr.target = output
        sys.stdin = io.StringIO(stdin or "")  # what the caller read from its own standard input
        _set_caller(caller)
        try:
            code = _run(argv)
        except Exception:  # noqa: BLE001 - an unexpected error: let the command run alone and show it
            import traceback

            traceback.print_exc(file=sys.__stderr__)  # the server's log (server_client.start_server)
            return _DECLINED
        finally:
            self.stdout.target = self.stderr.target = None
            sys.stdin = sys.__stdin__
            _set_caller(None)
            os.chdir("/")  # hold no caller's folder (it may be removed or unmounted)
        return code, output


class _Beating:
    """Sends ``server_client.BEAT`` on ``conn`` every ``BEAT_SECONDS`` from a thread while a call
    runs, so the caller can tell a slow answer (beats keep coming) from a server that stopped
    (SIGSTOP, wedged: silence, and the caller runs the command itself). The thread is stopped and
    joined before the reply is sent: beats never interleave with it."""

    def __init__(self, conn: socket.socket) -> None:
        import threading

        self.conn = conn
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="yoi-server-beat", daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(server_client.BEAT_SECONDS):
            try:
                self.conn.send(server_client.BEAT)
            except OSError:
                return  # the caller went away (it gave up, or Ctrl-C): the reply will fail too

    def __enter__(self) -> _Beating:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def _kept_workspaces() -> dict[str, list[str]]:
    """Workspace root -> what this server keeps for it ("search", "lint"), most recent last."""
    kept: dict[str, list[str]] = {}
    search_index = sys.modules.get("yoi_tui.core.retrieval.search_index")
    for key in getattr(search_index, "_STEADY", {}):
        kept.setdefault(str(Path(key[0]).parent.parent.parent), []).append("search")
    resident = sys.modules.get("yoi_tui.core.lint.resident")
    for root in getattr(resident, "_states", {}):
        kept.setdefault(str(root), []).append("lint")
    context = sys.modules.get("yoi_tui.core.retrieval.resident_context")
    for root in getattr(context, "_MEMO", {}):
        kept.setdefault(str(root), []).append("context")
    shown = {root: sorted(set(what)) for root, what in kept.items()}
    record_feed = sys.modules.get("yoi_tui.core.freshness.record_feed")
    for root, feed in getattr(record_feed, "_feeds", {}).items():
        if not feed.closed:
            watched = (f"watched: folders and {feed.file_count():,} record file(s)" if feed.vouches_for_contents
                       else "watched: folders only (out of inotify watches: each call lstat-s every record)")
            shown.setdefault(str(root), []).append(watched)
    return shown


def _flush_quietly() -> None:
    lint = sys.modules.get("yoi_tui.core.lint.resident")
    if lint is not None:
        try:
            lint.flush()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a cache file is only ever a speed-up
            pass


def _idle_seconds() -> float:
    try:
        value = float(os.environ.get("YOI_SERVER_IDLE", ""))
    except ValueError:
        return server_client.IDLE_SECONDS
    return value if value > 0 else server_client.IDLE_SECONDS


def _run(argv: list[str]) -> int:
    from .main import run_command

    try:
        return run_command(argv)
    except SystemExit as exc:  # argparse: a usage error (its message is already on stderr)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)


def _set_caller(pid: int | None) -> None:
    """A served hook announces its session with the ancestors of the calling ``yoi`` process, not
    the server's (core/usage/agent_session)."""
    from ..core.usage import agent_session

    agent_session.served_caller = pid


def _peer_pid(conn: socket.socket) -> int | None:
    try:
        credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return None
    pid, _uid, _gid = struct.unpack("3i", credentials)
    return pid if pid > 0 else None


def _same_user(conn: socket.socket) -> bool:
    try:
        credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):  # no SO_PEERCRED (not Linux): the private folder is the guard
        return True
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return uid == os.getuid()


def _watch_package() -> object | None:
    """A change feed over the ``yoi_tui`` package's source files and the folder it is installed in
    (``site-packages``: a dependency installed, upgraded or removed changes its entries), so code
    the server has loaded never answers after it changed on disk. None: cannot watch."""
    from ..core.freshness.change_feed import ChangeFeed

    root = Path(__file__).resolve().parent.parent
    folders: list[tuple[str, frozenset[str] | None]] = [(str(root.parent), None)]
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        folders.append((folder, frozenset(name for name in files if not name.endswith(".pyc"))))
    feed = ChangeFeed.open(folders, mounts=False)  # every package folder is watched: the folder check covers a mount
    if feed is not None:
        feed.changed()
    return feed


def _listen(path: str) -> socket.socket | None:
    """Bind ``path`` under the start lock; None when another server holds it or binding fails."""
    import fcntl

    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return None
    # The lock stays held (its descriptor open) for the server's life: a second start exits here.
    # It holds the server's process id, for whoever wants to stop it.
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            os.unlink(path)  # a server that died without cleaning up
        except FileNotFoundError:
            pass
        old = os.umask(0o177)
        try:
            listener.bind(path)
        finally:
            os.umask(old)
        listener.listen(64)
    except OSError as exc:
        listener.close()
        print(f"yoi server: cannot listen on {path}: {exc}", file=sys.stderr)
        try:  # the clients then do not start a server per call for a while
            with open(path + ".failed", "w", encoding="utf-8") as marker:
                marker.write(f"{exc}\n")
        except OSError:
            pass
        return None
    return listener


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m yoi_tui.cli.server SOCKET (started by yoi itself)", file=sys.stderr)
        return 2
    path = argv[0]
    if not server_client.private_dir(os.path.dirname(path)):
        return 2
    listener = _listen(path)
    if listener is None:
        return 0
    try:
        os.unlink(path + ".failed")
    except OSError:
        pass
    server = Server(path, listener)

    def stop(_signum: int, _frame: object) -> None:
        server.stopping = True
        if not server.busy:  # waiting in accept(): leave now; a request in hand is finished first
            raise InterruptedError

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    import gc

    gc.set_threshold(100_000, 100, 100)  # as main._fewer_full_collections (full walks: 30 % of a lint at 50k)
    try:
        server.serve()
    except InterruptedError:
        pass
    finally:
        _flush_quietly()
        if server._still_ours():
            try:
                os.unlink(path)
            except OSError:
                pass
        listener.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
