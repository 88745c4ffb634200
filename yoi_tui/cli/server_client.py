"""The ``yoi`` side of the command server: hand a command to a running server, or start one.

A whole ``yoi search`` process spends most of its time starting Python and importing the search
code, then ``lstat``-ing every record to be sure the index is fresh. The command server
(``cli/server.py``) is one background process per installed ``yoi`` and user that keeps the code
imported and the index fresh by kernel notification (``core/freshness/change_feed``), so a command
it answers costs a connect and one round trip. This module is what every ``yoi`` call runs first
for a served command, and it is kept to builtin modules (``_socket``, ``marshal``): anything else
it imported would be paid again on every call.

* ``ask(argv)`` returns ``(exit code, output)`` from the server — output as ``(is_stderr, text)``
  pieces in the order the command wrote them — or None — no server, a
  stale one, a refused or broken exchange — and the caller then runs the command itself, as before.
* ``start_server()`` starts one in the background (after a command ran itself), detached from the
  terminal and from the caller's pipes; it stops by itself after ``IDLE_SECONDS`` without a request.
* ``YOI_SERVER=0`` (or ``off``/``no``/``false``) turns both off: every command runs in its own
  process. The server is also never used where its socket folder is not private to this user.

The socket lives in ``$XDG_RUNTIME_DIR/yoi/`` or ``/tmp/yoi-<uid>/`` (a folder of mode 0700 owned
by this user, checked before every connect), named after the Python executable and the package's
location, so each virtual environment has its own server running its own code.
"""

from __future__ import annotations

import marshal
import os
import sys

PROTOCOL = 3  # 2: the caller's stdin travels with the request; 3: the server beats (BEAT) while it works
# Commands the server answers; every other runs in its own process. ``hook`` and ``context`` run on
# every agent session and prompt: served, the resident context is rebuilt only when a record, the
# summary or the config changed (core/retrieval/resident_context.py), so their cost does not grow with the
# workspace (docs/performance.md).
SERVED = frozenset({"search", "lint", "hook", "context"})
IDLE_SECONDS = 900.0  # $YOI_SERVER_IDLE (seconds) when the server starts
REPLY_TIMEOUT = 300.0  # a first search at 50,000 records builds the index (~30 s): never cut that off
# The server greets a connection as soon as it takes it; one busy with another caller's command
# (it answers one at a time) does not, and the caller runs its command itself instead of waiting.
HANDSHAKE_TIMEOUT = 0.25
GREETING = b"+"
# While it works on a call the server sends BEAT every BEAT_SECONDS from a thread of its own; a
# call that hears nothing for STALL_SECONDS (a server stopped with SIGSTOP, swapped out, wedged) is
# abandoned and runs by itself. A long call from a live server (the first search of a large
# workspace builds its index) keeps beating and is waited for, up to REPLY_TIMEOUT.
STATUS_REQUEST = "\0status"  # an argv no command has: the server answers with its status (JSON)
BEAT = b"."
BEAT_SECONDS = 0.5
STALL_SECONDS = 3.0
busy = False  # set when the last ask found a server busy (then there is no need to start one)
_DISABLED = ("0", "off", "no", "false")
_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS


def enabled() -> bool:
    return os.environ.get("YOI_SERVER", "").strip().lower() not in _DISABLED and hasattr(os, "getuid")


def runtime_dir() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base):
        return os.path.join(base, "yoi")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"yoi-{os.getuid()}")


def _fingerprint() -> str:
    """Which ``yoi``: this environment, Python and package folder. FNV-1a by hand: 12 us, where
    ``_blake2`` (or hashlib) adds a 0.35 ms import to every served call's ~20 ms (issue 24)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    value = 0xCBF29CE484222325
    for byte in f"{sys.prefix}\0{package}\0{sys.version}".encode("utf-8", "surrogateescape"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def socket_path() -> str | None:
    path = os.path.join(runtime_dir(), f"{_fingerprint()}.sock")
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


def private_dir(folder: str) -> bool:
    """True when ``folder`` is a real folder owned by this user that no one else may enter."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (info.st_mode & 0o170000) == 0o040000 and info.st_uid == os.getuid() and not info.st_mode & 0o077


def ask(argv: list[str], stdin: str | None = None, path: str | None = None) -> tuple[int, list[tuple[bool, str]]] | None:
    """Run ``argv`` in the server (``stdin``: what the command reads from its standard input, read
    by the caller; ``path``: the server listening there instead of this ``yoi``'s); None when it
    cannot answer (the caller runs it itself)."""
    path = path or socket_path()
    if path is None or not private_dir(os.path.dirname(path)):
        return None
    try:
        import _socket
    except ImportError:  # pragma: no cover - a Python built without sockets
        return None
    if not hasattr(_socket, "AF_UNIX"):  # pragma: no cover - Windows
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    environ = dict(os.environ)
    if "COLUMNS" not in environ:  # usage errors wrap at the caller's terminal width, not the server's
        try:
            environ["COLUMNS"] = str(os.get_terminal_size(sys.__stdout__.fileno()).columns)  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass
    # The caller's shell: what a once-per-session notice is keyed on (cli/team_notice.py).
    environ.setdefault("YOI_CALLER_PPID", str(os.getppid()))
    try:
        request = marshal.dumps((PROTOCOL, argv, os.getcwd(), environ, umask, stdin))
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (OSError, ValueError):  # the working folder was removed; out of descriptors
        return None
    global busy
    try:
        conn.settimeout(_wait_seconds())
        conn.connect(path)
        try:
            greeting = conn.recv(1)
        except TimeoutError:  # answering someone else (a long lint): do not queue behind it
            busy = True
            return None
        if greeting != GREETING:
            return None
        conn.settimeout(STALL_SECONDS)
        conn.sendall(len(request).to_bytes(8, "big") + request)
        reply = _receive_reply(conn)
    except TimeoutError:  # picked up, then silent: a stopped or wedged server; do not start another
        busy = True
        return None
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    if reply is None:
        return None
    try:
        code, output = marshal.loads(reply)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, int) or code < 0:  # the server declined (stale code, could not run it)
        return None
    return code, output


def _wait_seconds() -> float:
    """How long to wait for a busy server to take the call: ``$YOI_SERVER_WAIT`` seconds, else
    ``HANDSHAKE_TIMEOUT``."""
    try:
        value = float(os.environ.get("YOI_SERVER_WAIT", ""))
    except ValueError:
        return HANDSHAKE_TIMEOUT
    return value if value > 0 else HANDSHAKE_TIMEOUT


def _receive_reply(conn: object) -> bytes | None:
    """The reply to a call, skipping the server's beats: every ``recv`` waits at most
    ``STALL_SECONDS`` (the socket's timeout; ``TimeoutError`` then) and the whole at most
    ``REPLY_TIMEOUT``. The reply's first byte is its length's top byte, never ``BEAT``."""
    deadline = _now() + REPLY_TIMEOUT
    while True:
        first = conn.recv(1)  # type: ignore[attr-defined]
        if not first:
            return None
        if first != BEAT:
            break
        if _now() > deadline:
            raise TimeoutError
    rest = _read_exactly(conn, 7)
    if rest is None:
        return None
    return _read_exactly(conn, int.from_bytes(first + rest, "big"))


def _receive(conn: object) -> bytes | None:
    """One length-prefixed message; None when the peer closed early."""
    header = _read_exactly(conn, 8)
    if header is None:
        return None
    return _read_exactly(conn, int.from_bytes(header, "big"))


def _read_exactly(conn: object, size: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = conn.recv(min(remaining, 1 << 20))  # type: ignore[attr-defined]
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


FAILED_RETRY_SECONDS = 3600.0


def _now() -> float:
    import time

    return time.time()


def start_server() -> None:
    """Start a server in the background unless one is running or starting (it holds a lock).

    Never raises: a server that cannot start only means every command runs in its own process."""
    path = socket_path()
    if path is None or busy:
        return
    try:  # a server that could not listen here lately: do not start one per call
        if os.stat(path + ".failed").st_mtime > _now() - FAILED_RETRY_SECONDS:
            return
    except OSError:
        pass
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return
    if not private_dir(folder):
        return
    devnull = os.devnull
    try:
        os.posix_spawn(
            sys.executable, [sys.executable, "-m", "yoi_tui.cli.server", path], os.environ,
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
                          # its own errors (a crash report) go to a log beside the socket
                          (os.POSIX_SPAWN_OPEN, 2, path + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)],
            setsid=True)
    except (OSError, AttributeError, NotImplementedError):
        return
