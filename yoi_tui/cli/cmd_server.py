"""``yoi server status`` / ``yoi server stop``: the background command servers of this user.

Each installed ``yoi`` (each virtual environment) has its own server (``cli/server.py``), a socket
and a ``.lock`` holding its process id in the private runtime folder. ``status`` lists the running
ones — process id, since when, memory, which workspaces it keeps state for, how many calls it
answered — asking each over its socket (a busy or stopped server still shows what ``/proc`` tells).
``stop`` ends them (SIGTERM; a stopped one is continued first) and waits until each has gone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from . import server_client
from .common import EXIT_OK, EXIT_USAGE, json_parent, print_json

STOP_WAIT_SECONDS = 10.0


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "server", parents=[*parents, json_parent()],
        help="show or stop the background server that answers yoi search / yoi lint",
        description="yoi search and yoi lint hand their work to a background server after the first call "
                    "(docs/server.md); YOI_SERVER=0 turns it off. 'status' lists this user's servers: process "
                    "id, since when, memory, the workspaces each keeps state for; 'stop' ends them (each writes "
                    "its deferred cache files first).",
        epilog="exit status: 0 done (also when no server runs); 2 a server could not be stopped.")
    parser.add_argument("action", choices=("status", "stop"), help="what to do")
    parser.set_defaults(handler=run)


def _lock_files() -> list[str]:
    folder = server_client.runtime_dir()
    if not server_client.private_dir(folder):
        return []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, name) for name in names if name.endswith(".sock.lock")]


def _held(lock: str) -> bool:
    """True when a server holds ``lock`` (it keeps an exclusive ``flock`` on it for its life)."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _pid(lock: str) -> int | None:
    try:
        with open(lock, "rb") as handle:  # our own private folder; the lock is a regular file we wrote
            text = handle.read(32).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


def _proc(pid: int) -> dict[str, Any]:
    """What /proc says of ``pid``: memory (VmRSS, bytes) and state (R, S, T = stopped, ...)."""
    info: dict[str, Any] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    info["rss_bytes"] = int(line.split()[1]) * 1024
                elif line.startswith("State:"):
                    info["state"] = line.split(None, 1)[1].strip()
    except (OSError, ValueError, IndexError):
        pass
    return info


def servers() -> list[dict[str, Any]]:
    """The running servers of this user, each as ``yoi server status --json`` shows it."""
    import json

    found: list[dict[str, Any]] = []
    for lock in _lock_files():
        if not _held(lock):
            continue
        pid = _pid(lock)
        socket = lock[: -len(".lock")]
        entry: dict[str, Any] = {"socket": socket, "pid": pid, "this_yoi": socket == server_client.socket_path()}
        try:
            entry["started_at"] = os.stat(lock).st_mtime  # the server writes its pid there as it starts
        except OSError:
            pass
        if pid is not None:
            entry.update(_proc(pid))
        answer = None if str(entry.get("state", "")).startswith("T") else server_client.ask(
            [server_client.STATUS_REQUEST], path=socket)
        if answer is not None and answer[0] == 0 and answer[1]:
            try:
                entry.update(json.loads(answer[1][0][1]))
                entry["answering"] = True
            except (ValueError, IndexError, TypeError):
                entry["answering"] = False
        else:
            entry["answering"] = False  # busy with a call, stopped, or wedged
        found.append(entry)
    return found


def _when(stamp: Any) -> str:
    if not isinstance(stamp, int | float):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def _print(entries: list[dict[str, Any]]) -> None:
    if not entries:
        print("no yoi server is running (the next yoi search or yoi lint starts one; YOI_SERVER=0 turns it off)")
        return
    for entry in entries:
        memory = entry.get("rss_bytes")
        state = "" if entry.get("answering") else f" — not answering now (state {entry.get('state', '?')})"
        size = f"{memory / 2**20:.0f} MiB" if isinstance(memory, int) else "memory ?"
        print(f"server pid {entry.get('pid')} since {_when(entry.get('started_at'))}, {size}, "
              f"{entry.get('calls', '?')} call(s){' (this yoi)' if entry.get('this_yoi') else ''}{state}")
        if entry.get("python"):
            print(f"  runs {entry['python']} with {entry.get('package')}")
        print(f"  socket {entry['socket']}")
        for root, kept in (entry.get("workspaces") or {}).items():
            print(f"  workspace {root}: {', '.join(kept)}")


def _stop(entries: list[dict[str, Any]]) -> list[str]:
    """SIGTERM every server (continued first if stopped) and wait for its lock to be released."""
    import signal

    for entry in entries:
        pid = entry.get("pid")
        if isinstance(pid, int) and pid > 0:
            for sig in (signal.SIGTERM, signal.SIGCONT):
                try:
                    os.kill(pid, sig)
                except OSError:
                    break
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    left = [entry["socket"] + ".lock" for entry in entries]
    while left and time.monotonic() < deadline:
        left = [lock for lock in left if _held(lock)]
        if left:
            time.sleep(0.05)
    return left


def run(args: argparse.Namespace) -> int:
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows
        print("yoi: there is no command server on this system", file=sys.stderr)
        return EXIT_OK
    entries = servers()
    if args.action == "status":
        if args.json:
            print_json(entries)
        else:
            _print(entries)
        return EXIT_OK
    left = _stop(entries)
    stopped = [entry for entry in entries if entry["socket"] + ".lock" not in left]
    if args.json:
        print_json({"stopped": [entry.get("pid") for entry in stopped],
                    "not_stopped": [entry.get("pid") for entry in entries if entry not in stopped]})
    else:
        for entry in stopped:
            print(f"stopped server pid {entry.get('pid')}")
        if not entries:
            print("no yoi server was running")
    for lock in left:
        print(f"yoi: {lock}: the server did not stop within {STOP_WAIT_SECONDS:.0f}s", file=sys.stderr)
    return EXIT_USAGE if left else EXIT_OK
