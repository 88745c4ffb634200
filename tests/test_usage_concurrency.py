"""Many writers at once: 8 processes append 500 events each, to one shared session file and to
separate files. Every line must parse and no event may be lost or torn."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import make_ws

from yoi_tui.core.usage.log import load_events

PROCESSES = 8
EVENTS = 500

WRITER = textwrap.dedent("""
    import os, sys, time
    from yoi_tui.core.store.workspace import Workspace
    from yoi_tui.core.usage.log import UsageLog

    root, session, proc, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    log = UsageLog(Workspace(root), session)
    while not os.path.exists(go):  # start together so the appends really overlap
        time.sleep(0.001)
    for i in range(count):
        if i % 5 == 4:
            # a multi-kilobyte line: crosses page boundaries, the case most likely to tear
            slugs = [f"p{proc}-{i}"] + [f"filler-{proc}-{i}-{k:03d}" for k in range(200)]
            log.record_inject(slugs, i)
        else:
            log.record_invoke(f"p{proc}-{i}", "knowledge", "search")
""")


def _run_writers(root: Path, sessions: list[str], go: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(root), sessions[p], str(p), str(EVENTS), str(go)],
                              stderr=subprocess.PIPE, text=True)
             for p in range(PROCESSES)]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err


def _marker(event: dict) -> str:
    return event["slug"] if event["type"] == "invoke" else event["slugs"][0]


@pytest.mark.parametrize("shared", [True, False], ids=["one-session-file", "separate-files"])
def test_concurrent_appends_lose_nothing(tmp_path: Path, shared: bool) -> None:
    ws = make_ws(tmp_path)
    sessions = ["shared"] * PROCESSES if shared else [f"proc-{p}" for p in range(PROCESSES)]
    _run_writers(ws.root, sessions, tmp_path / "go")

    files = sorted(ws.usage_dir.glob("*.jsonl"))
    assert len(files) == (1 if shared else PROCESSES)
    lines = [line for f in files for line in f.read_bytes().split(b"\n")]
    assert lines.count(b"") == len(files)  # only the empty string after each file's final newline
    parsed = [json.loads(line) for line in lines if line]  # every line parses
    assert len(parsed) == PROCESSES * EVENTS

    events, problems = load_events(ws)
    assert problems == []
    assert len(events) == PROCESSES * EVENTS
    assert len({e["id"] for e in events}) == PROCESSES * EVENTS
    expected = {f"p{p}-{i}" for p in range(PROCESSES) for i in range(EVENTS)}
    assert {_marker(e) for e in events} == expected
    # each process's own events keep their order (UUIDv7 ids are monotonic within a process)
    for p in range(PROCESSES):
        mine = [int(_marker(e).split("-")[1]) for e in events if _marker(e).startswith(f"p{p}-")]
        assert mine == list(range(EVENTS))
