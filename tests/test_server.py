"""The command server (``cli/server.py``, ``cli/server_client.py``): a served ``yoi search`` answers
exactly what the command answers in its own process, after any change to the files, and the server
goes away when it should.

Every test runs real processes: the first ``yoi search`` runs itself and starts the server; a probe
then runs ``yoi`` with its in-process runner replaced by one that fails, so its answer can only have
come from the server (and it also reports whether argparse or the core were imported).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import (
    decision_meta,
    knowledge_meta,
    make_ws,
    process_running,
    run_yoi,
    server_pid,
    stop_command_servers,
    write_record,
)

from yoi_tui.core.store.workspace import Workspace

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify and SO_PEERCRED: Linux")

_PROBE = """
import json, sys
import yoi_tui.cli.main as cli

def ran_here(argv):
    raise SystemExit("ran in its own process")

cli.run_command = ran_here
code = cli.main(sys.argv[1:])
sys.stderr.write("\\n" + json.dumps([code, "argparse" in sys.modules,
                                     any(name.startswith("yoi_tui.core") for name in sys.modules)]))
"""


@pytest.fixture
def server_env() -> Iterator[dict[str, str]]:
    """Environment for a server of its own (a short private runtime folder: socket paths are limited
    to 108 bytes); every server started under it is stopped afterwards."""
    run = Path(tempfile.mkdtemp(prefix="yoi-rt-", dir="/tmp"))
    run.chmod(0o700)
    # A loaded test machine may take a while to schedule the server: wait for it rather than have
    # a call run by itself (test_a_busy_server_is_not_waited_for sets its own).
    env = {"YOI_SERVER": "1", "XDG_RUNTIME_DIR": str(run), "YOI_SERVER_WAIT": "30"}
    yield env
    stop_command_servers(run)
    shutil.rmtree(run, ignore_errors=True)


def _wait_for(condition: object, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {what}")


def _running_server(env: dict[str, str]) -> int | None:
    locks = list((Path(env["XDG_RUNTIME_DIR"]) / "yoi").glob("*.lock"))
    return server_pid(locks[0]) if locks else None


def start_server(env: dict[str, str], ws: Workspace) -> int:
    """Run one search (which starts the server) and wait until the server answers."""
    first = run_yoi("search", "knowledge", "--workspace", str(ws.root), env=env)
    assert first.returncode == 0, first.stderr
    _wait_for(lambda: probe(env, "search", "knowledge", "--workspace", str(ws.root))[0] == 0, "server answering")
    pid = _running_server(env)
    assert pid is not None and process_running(pid)
    return pid


def probe(env: dict[str, str], *argv: str, cwd: Path | None = None) -> tuple[int | str, str, str]:
    """``yoi ARGV`` answered by the server: (exit code, stdout, stderr); the code is the text
    "ran in its own process" when the server did not answer."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **env}, timeout=120)
    err, _, marker = proc.stderr.rpartition("\n")
    if not marker.startswith("["):
        return "ran in its own process", proc.stdout, proc.stderr
    code, imported_argparse, imported_core = json.loads(marker)
    assert not imported_argparse and not imported_core, "a served call imported the command code"
    return code, proc.stdout, err


def local(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = run_yoi(*argv, cwd=cwd, env={**(env or {}), "YOI_SERVER": "0"})
    return proc.returncode, proc.stdout, proc.stderr


def _workspace(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    for number in range(12):
        write_record(ws, f"knowledge/topic-{number}.md", knowledge_meta(),
                     f"\nTopic {number} notes. {'quokka lives here. ' if number % 3 == 0 else ''}\n")
        write_record(ws, f"memory/decisions/choice-{number}.md", decision_meta(),
                     f"\nChoice {number}. {'quokka chosen.' if number % 4 == 0 else ''}\n")
    return ws


QUERIES = (("knowledge", "quokka"), ("memory", "quokka"), ("knowledge", "topic", "notes"), ("memory", "zebra"),
           ("knowledge", "--json", "quokka"), ("memory", "--kind", "decision", "--limit", "2", "choice"))


def test_second_search_is_served_with_the_same_answer(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    for query in QUERIES:
        argv = ("search", *query, "--workspace", str(ws.root))
        assert probe(server_env, *argv) == local(*argv), query


def test_served_search_sees_every_change_made_by_any_program(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    rng = random.Random(1515)
    outside = tmp_path / "outside.md"
    outside.write_text("---\nkind: fact\n---\nzebra outside the workspace\n", encoding="utf-8")

    def edits() -> Iterator[str]:
        for step in range(24):
            folder = ws.knowledge_dir if step % 2 else ws.decisions_dir
            files = sorted(folder.glob("*.md"))
            target = rng.choice(files)
            action = rng.choice(("append", "same-size", "atomic-save", "rename", "delete", "create", "symlink"))
            if action == "append":
                with target.open("a", encoding="utf-8") as handle:
                    handle.write("\nzebra quokka appended\n")
            elif action == "same-size":  # same size and mtime: only the kernel's event tells
                info = target.stat()
                text = target.read_text(encoding="utf-8")
                target.write_text(text.replace("Topic", "Zebra").replace("Choice", "Zebra"), encoding="utf-8")
                os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
            elif action == "atomic-save":  # how editors save: a new file renamed over the old one
                temporary = target.with_suffix(".tmp")
                temporary.write_text(target.read_text(encoding="utf-8") + "\nzebra saved\n", encoding="utf-8")
                os.replace(temporary, target)
            elif action == "rename":
                target.rename(folder / f"renamed-{step}.md")
            elif action == "delete" and len(files) > 2:
                target.unlink()
            elif action == "symlink":
                (folder / f"link-{step}.md").symlink_to(outside)
            else:
                meta = knowledge_meta() if folder == ws.knowledge_dir else decision_meta()
                write_record(ws, f"{folder.relative_to(ws.root).as_posix()}/new-{step}.md", meta,
                             "\nzebra quokka new\n")
            yield f"step {step}: {action} {target.name}"

    for what in edits():
        for query in (("knowledge", "zebra"), ("memory", "zebra"), ("memory", "quokka")):
            argv = ("search", *query, "--workspace", str(ws.root))
            assert probe(server_env, *argv) == local(*argv), (what, query)


def test_caller_folder_environment_and_errors_go_with_the_request(tmp_path: Path,
                                                                 server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    inside = ws.knowledge_dir
    # the workspace is found from the caller's folder, as the command would
    assert probe(server_env, "search", "knowledge", "quokka", cwd=inside) == local("search", "knowledge", "quokka",
                                                                                   cwd=inside)
    # an agent's session id comes from the caller's environment: its hits are recorded as invokes
    session = {**server_env, "YOI_SESSION_ID": "served-session-1"}
    code, out, _ = probe(session, "search", "knowledge", "quokka", cwd=inside)
    assert code == 0 and out
    recorded = (ws.usage_dir / "served-session-1.jsonl").read_text(encoding="utf-8")
    assert '"slug":"topic-0"' in recorded
    # expected errors: exit status and message as the command gives them
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    assert probe(server_env, "search", "knowledge", "x", cwd=nowhere) == local("search", "knowledge", "x", cwd=nowhere)
    bad = ("search", "everything", "x", "--workspace", str(ws.root))
    code, _, err = probe(server_env, *bad)
    assert (code, err) == local(*bad)[::2] and code == 2 and "invalid choice" in err


def test_concurrent_callers_each_get_their_own_answer(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    argvs = [("search", *query, "--workspace", str(ws.root)) for query in QUERIES]
    procs = [subprocess.Popen([sys.executable, "-c", _PROBE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, **server_env}) for argv in argvs]
    for argv, proc in zip(argvs, procs, strict=True):
        out, err = proc.communicate(timeout=120)
        assert out == local(*argv)[1], argv
        assert json.loads(err.rpartition("\n")[2])[0] == 0


def test_help_is_not_served(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    assert probe(server_env, "search", "--help")[0] == "ran in its own process"


def test_a_change_to_yoi_itself_retires_the_server(tmp_path: Path, server_env: dict[str, str]) -> None:
    import yoi_tui.cli.server_client as client_module

    ws = _workspace(tmp_path)
    pid = start_server(server_env, ws)
    source = Path(client_module.__file__)
    info = source.stat()
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))  # an attribute event, content unchanged
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    assert probe(server_env, *argv)[0] == "ran in its own process"  # declined: runs with the new code
    _wait_for(lambda: not process_running(pid), "the old server exited")
    assert run_yoi(*argv, env=server_env).returncode == 0  # starts a new one
    _wait_for(lambda: probe(server_env, *argv)[0] == 0, "a new server answering")
    assert _running_server(server_env) != pid


def test_idle_server_stops_and_removes_its_socket(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    env = {**server_env, "YOI_SERVER_IDLE": "1"}
    assert run_yoi("search", "knowledge", "x", "--workspace", str(ws.root), env=env).returncode == 0
    folder = Path(env["XDG_RUNTIME_DIR"]) / "yoi"
    _wait_for(lambda: list(folder.glob("*.lock")) and _running_server(env), "server started")
    pid = _running_server(env)
    assert pid is not None
    _wait_for(lambda: not process_running(pid), "idle server exited")
    assert not list(folder.glob("*.sock"))


def test_terminated_server_removes_its_socket(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    pid = start_server(server_env, ws)
    os.kill(pid, signal.SIGTERM)
    _wait_for(lambda: not process_running(pid), "server exited")
    assert not list((Path(server_env["XDG_RUNTIME_DIR"]) / "yoi").glob("*.sock"))
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    assert probe(server_env, *argv)[0] == "ran in its own process"


def test_no_server_where_the_socket_folder_is_not_private(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    folder = Path(server_env["XDG_RUNTIME_DIR"]) / "yoi"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    assert run_yoi(*argv, env=server_env).returncode == 0
    time.sleep(1.0)
    assert not list(folder.iterdir())
    assert probe(server_env, *argv)[0] == "ran in its own process"


def test_turned_off_by_environment(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    env = {**server_env, "YOI_SERVER": "off"}
    assert run_yoi("search", "knowledge", "quokka", "--workspace", str(ws.root), env=env).returncode == 0
    time.sleep(1.0)
    assert not (Path(env["XDG_RUNTIME_DIR"]) / "yoi").exists()


def test_warnings_and_hits_come_in_the_order_the_command_wrote_them(tmp_path: Path,
                                                                   server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    (ws.knowledge_dir / "latin1.md").write_bytes("---\nkind: fact\n---\nquokka caf\xe9\n".encode("latin-1"))
    start_server(server_env, ws)
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    merged = subprocess.run([sys.executable, "-c", _PROBE, *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, **server_env}, timeout=120).stdout
    text, _, marker = merged.rpartition("\n")
    assert json.loads(marker)[0] == 0
    warning = text.index("yoi: warning:")
    assert "latin1.md" in text[warning:].splitlines()[0]
    assert warning < text.index("#topic-0")  # as the command writes them: problems first, then hits
    code, out, err = local(*argv)
    assert code == 0 and text == err + out


def test_served_lint_answers_as_the_command_and_writes_its_cache_when_idle(tmp_path: Path,
                                                                          server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    write_record(ws, "knowledge/dangling.md", knowledge_meta(), "\nSee #nowhere.\n")
    start_server(server_env, ws)
    argv = ("lint", "--workspace", str(ws.root))
    cache_file = ws.state_dir / "cache" / "lint-v1.json"
    for step in range(6):
        code, out, err = probe(server_env, *argv)
        assert (code, out, err) == local(*argv), step
        assert code == 1 and "dangling-ref" in out
        target = ws.knowledge_dir / f"topic-{step}.md"
        target.write_text(target.read_text(encoding="utf-8") + f"\nSee #topic-{step + 1} and #gone-{step}.\n",
                          encoding="utf-8")
    cache_file.unlink(missing_ok=True)
    assert probe(server_env, *argv) == local(*argv)
    # the per-file cache a one-shot lint reads is written once the server has been idle a moment
    _wait_for(cache_file.exists, "the deferred lint cache written")
    one_file = ("lint", "--format", "json", "knowledge/topic-1.md")
    answer = probe(server_env, *one_file, cwd=ws.root)
    assert answer == local(*one_file, cwd=ws.root) and "gone-1" in answer[1]


def test_usage_errors_wrap_at_the_callers_terminal_width(tmp_path: Path, server_env: dict[str, str]) -> None:
    import fcntl
    import pty
    import struct
    import termios

    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    argv = ("search", "knowledge", "--limit", "many", "--workspace", str(ws.root))  # argparse: invalid int
    env = {k: v for k, v in {**os.environ, **server_env}.items() if k not in ("COLUMNS", "LINES")}
    master, terminal = pty.openpty()
    try:
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        served = subprocess.run([sys.executable, "-c", _PROBE, *argv], stdout=terminal, stderr=subprocess.PIPE,
                                text=True, env=env, timeout=120).stderr
        alone = subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *argv], stdout=terminal,
                               stderr=subprocess.PIPE, text=True, env={**env, "YOI_SERVER": "0"}, timeout=120).stderr
    finally:
        os.close(master)
        os.close(terminal)
    text, _, marker = served.rpartition("\n")
    assert json.loads(marker)[0] == 2
    assert text == alone and "invalid int value" in alone
    assert max(len(line) for line in alone.splitlines()) > 80  # wrapped at 200 columns, not 80


def test_a_busy_server_is_not_waited_for(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    barrier = tmp_path / "barrier"
    held = {**server_env, "YOI_PAUSE_AT": "server:request", "YOI_PAUSE_FILE": str(barrier)}
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    first = subprocess.Popen([sys.executable, "-c", _PROBE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, **held})
    _wait_for(Path(f"{barrier}.reached").exists, "the server holding the first call")
    impatient = {**server_env, "YOI_SERVER_WAIT": "0.2"}
    assert probe(impatient, *argv)[0] == "ran in its own process"  # not queued behind the first
    barrier.write_text("go", encoding="utf-8")
    out, err = first.communicate(timeout=120)
    assert json.loads(err.rpartition("\n")[2])[0] == 0 and out == local(*argv)[1]


def test_a_call_the_server_picked_up_and_then_stopped_on_runs_by_itself(tmp_path: Path,
                                                                        server_env: dict[str, str]) -> None:
    """SIGSTOP after pickup: the beats stop, and the caller gives up after STALL_SECONDS (it
    waited REPLY_TIMEOUT, 300 s, before), runs the command itself and answers correctly."""
    ws = _workspace(tmp_path)
    pid = start_server(server_env, ws)
    barrier = tmp_path / "barrier"
    held = {**server_env, "YOI_PAUSE_AT": "server:request", "YOI_PAUSE_FILE": str(barrier)}
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    call = subprocess.Popen([sys.executable, "-m", "yoi_tui.cli.main", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **held})
    try:
        _wait_for(Path(f"{barrier}.reached").exists, "the server holding the call")
        os.kill(pid, signal.SIGSTOP)
        out, err = call.communicate(timeout=60)
    finally:
        os.kill(pid, signal.SIGCONT)
        barrier.write_text("go", encoding="utf-8")
        if call.poll() is None:
            call.kill()
    assert (call.returncode, out) == local(*argv)[:2], err


def test_a_slow_call_of_a_live_server_is_waited_for(tmp_path: Path, server_env: dict[str, str]) -> None:
    """A server that keeps working past STALL_SECONDS (its beats go on) is not abandoned."""
    from yoi_tui.cli import server_client

    ws = _workspace(tmp_path)
    start_server(server_env, ws)
    barrier = tmp_path / "barrier"
    held = {**server_env, "YOI_PAUSE_AT": "server:request", "YOI_PAUSE_FILE": str(barrier)}
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    call = subprocess.Popen([sys.executable, "-c", _PROBE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **held})
    _wait_for(Path(f"{barrier}.reached").exists, "the server holding the call")
    time.sleep(server_client.STALL_SECONDS * 2)  # held longer than a stall; the beats go on
    assert call.poll() is None  # still waiting for the server, not given up
    barrier.write_text("go", encoding="utf-8")
    out, err = call.communicate(timeout=120)
    assert json.loads(err.rpartition("\n")[2])[0] == 0 and out == local(*argv)[1]


def test_a_server_that_cannot_listen_is_not_started_again_and_again(tmp_path: Path,
                                                                    server_env: dict[str, str]) -> None:
    from yoi_tui.cli import server_client

    ws = _workspace(tmp_path)
    folder = Path(server_env["XDG_RUNTIME_DIR"]) / "yoi"
    folder.mkdir(mode=0o700)
    old = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = server_env["XDG_RUNTIME_DIR"]
    try:
        socket_file = Path(server_client.socket_path() or "")
    finally:
        if old is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = old
    socket_file.mkdir()  # something that is not a socket where the socket goes: binding fails
    argv = ("search", "knowledge", "quokka", "--workspace", str(ws.root))
    assert run_yoi(*argv, env=server_env).returncode == 0
    failed = Path(f"{socket_file}.failed")
    _wait_for(failed.exists, "the failed start noted")
    assert "cannot listen" in Path(f"{socket_file}.log").read_text(encoding="utf-8")
    noted = failed.stat().st_mtime_ns
    for _ in range(2):
        assert run_yoi(*argv, env=server_env).returncode == 0  # answered alone, as before
    time.sleep(1.0)
    assert failed.stat().st_mtime_ns == noted  # no new server tried to start


def _served_hook(env: dict[str, str], payload: dict[str, object]) -> tuple[int | str, str, str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, "hook", "claude-code"], input=json.dumps(payload),
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    err, _, marker = proc.stderr.rpartition("\n")
    if not marker.startswith("["):
        return "ran in its own process", proc.stdout, proc.stderr
    return json.loads(marker)[0], proc.stdout, err


def test_hooks_and_context_are_served_with_the_same_answer_after_changes(tmp_path: Path,
                                                                         server_env: dict[str, str]) -> None:
    """SessionStart, UserPromptSubmit and ``yoi context`` are answered by the server (the hook's
    event travels with the request), the same as in their own process, after every kind of change
    to what the block is built from."""
    from yoi_tui.core.usage.log import estimate_tokens, load_events

    ws = _workspace(tmp_path)
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, "\nA quokka project.\n")
    write_record(ws, "knowledge/resident.md", knowledge_meta(description="Read me first.", model_invokation=True),
                 "\nResident body.\n")
    start_server(server_env, ws)
    start = {"hook_event_name": "SessionStart", "session_id": "served-1", "cwd": str(ws.root)}

    def same_as_alone() -> str:
        code, out, err = _served_hook(server_env, start)
        assert code == 0, err
        alone = run_yoi("hook", "claude-code", input=json.dumps(start), env={"YOI_SERVER": "0"})
        assert out == alone.stdout
        assert probe(server_env, "context", "-w", str(ws.root), "--no-record")[1] == \
            local("context", "-w", str(ws.root), "--no-record")[1]
        return out

    first = same_as_alone()
    assert "#resident — Read me first." in first and "A quokka project." in first
    assert same_as_alone() == first  # unchanged: the kept block
    knowledge = ws.knowledge_dir / "resident.md"
    knowledge.write_text(knowledge.read_text().replace("Read me first.", "Read me FIRST."), encoding="utf-8")
    assert "#resident — Read me FIRST." in same_as_alone()
    write_record(ws, "knowledge/another.md", knowledge_meta(description="Another one.", model_invokation=True))
    assert "#another — Another one." in same_as_alone()
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-03T09:00:00+00:00"}, "\nA zebra project.\n")
    zebra = same_as_alone()
    assert "A zebra project." in zebra
    ws.config_path.write_text("[context]\nmax_tokens = 100\n", encoding="utf-8")
    small = same_as_alone()
    assert estimate_tokens(small.rstrip("\n") + "\n") <= 100 < estimate_tokens(zebra)
    # The served hook announced the session with the caller's ancestors, not the server's.
    announced = json.loads((ws.state_dir / "agent-sessions" / "served-1.json").read_text())
    assert announced["ancestors"][0][0] == os.getpid()
    # A prompt's #slug expansion is served too, and recorded under the hook's session.
    code, out, _ = _served_hook(server_env, {"hook_event_name": "UserPromptSubmit", "session_id": "served-1",
                                             "cwd": str(ws.root), "prompt": "see #resident"})
    assert code == 0 and "Resident body." in out
    events = [e for e in load_events(ws)[0] if e["session_id"] == "served-1"]
    assert {e["type"] for e in events} == {"inject", "invoke"}


def test_server_status_shows_and_stop_stops_the_servers(tmp_path: Path, server_env: dict[str, str]) -> None:
    ws = _workspace(tmp_path)
    none = run_yoi("server", "status", env=server_env)
    assert none.returncode == 0 and "no yoi server is running" in none.stdout
    pid = start_server(server_env, ws)
    assert probe(server_env, "lint", "--workspace", str(ws.root))[0] == 0
    assert probe(server_env, "search", "knowledge", "quokka", "--workspace", str(ws.root))[0] == 0
    status = run_yoi("server", "status", "--json", env=server_env)
    assert status.returncode == 0, status.stderr
    [entry] = json.loads(status.stdout)
    assert entry["pid"] == pid and entry["answering"] and entry["this_yoi"]
    assert list(entry["workspaces"]) == [str(ws.root)] and "lint" in entry["workspaces"][str(ws.root)]
    assert entry["rss_bytes"] > 0 and entry["started_at"] <= time.time() and entry["calls"] >= 2
    text = run_yoi("server", "status", env=server_env).stdout
    assert f"server pid {pid} since " in text and f"workspace {ws.root}: lint" in text
    os.kill(pid, signal.SIGSTOP)  # a stopped server is shown (not answering) and still stopped
    try:
        stopped = json.loads(run_yoi("server", "status", "--json", env=server_env).stdout)
        assert [(e["pid"], e["answering"]) for e in stopped] == [(pid, False)]
        stop = run_yoi("server", "stop", env=server_env)
    finally:
        if process_running(pid):
            os.kill(pid, signal.SIGCONT)
    assert stop.returncode == 0 and f"stopped server pid {pid}" in stop.stdout, stop.stderr
    assert not process_running(pid)
    assert "no yoi server is running" in run_yoi("server", "status", env=server_env).stdout


def test_lint_help_says_that_a_server_exists_and_how_to_turn_it_off() -> None:
    text = " ".join(run_yoi("lint", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "background server" in text and "YOI_SERVER=0" in text and "yoi server status" in text
