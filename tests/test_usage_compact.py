"""``yoi usage compact``: closed sessions fold into one file per month and every metric stays exactly
what it was (compared before/after through the real CLI)."""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from support import decision_meta, knowledge_meta, make_ws, request_meta, run_yoi, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events

NOW = datetime.now(UTC)


def _id(moment: datetime, rng: random.Random) -> str:
    ms = int(moment.timestamp() * 1000)
    value = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62) | rng.getrandbits(62)
    return str(uuid.UUID(int=value))


def _write_sessions(ws: Workspace) -> None:
    """Eight sessions over three months (six closed long ago, two recent), with invokes spread over
    sessions so frequencies, collapsing and the candidate report all matter."""
    rng = random.Random(7)
    slugs = [("use-sqlite", "decision"), ("add-dark-mode", "request"), ("run-tests", "knowledge")]
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta())
    write_record(ws, "memory/requests/add-dark-mode.md", request_meta())
    write_record(ws, "knowledge/run-tests.md", knowledge_meta())
    for n in range(8):
        start = NOW - timedelta(days=100 - n * 12) if n < 6 else NOW - timedelta(days=2 - n % 2)
        lines = []
        moment = start
        for step in range(12):
            moment += timedelta(minutes=7)
            if step % 3 == 0:
                event = {"type": "tokens", "input_tokens": 40_000 + step * 1_000 + n}
            elif step % 3 == 1:
                slug, kind = slugs[(n + step) % 3]
                event = {"type": "invoke", "slug": slug, "record_kind": kind, "via": "search"}
            else:
                event = {"type": "inject", "slugs": ["run-tests"], "tokens": 120}
            lines.append(json.dumps({"id": _id(moment, rng), **event}, separators=(",", ":")))
        (ws.usage_dir / f"sess-{n}.jsonl").write_text("\n".join(lines) + "\n")


def _metrics(root: Path) -> tuple[dict, dict]:
    every = run_yoi("usage", "--json", "--all", "--workspace", str(root))
    candidates = run_yoi("usage", "--json", "--candidates", "--workspace", str(root))
    assert every.returncode == 0 and candidates.returncode == 0, every.stderr + candidates.stderr
    return json.loads(every.stdout), json.loads(candidates.stdout)


def test_compact_folds_closed_sessions_and_keeps_every_metric_exactly(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _write_sessions(ws)
    before = _metrics(ws.root)
    assert before[0]["sessions"] == 8 and before[1]["records"]  # a non-trivial candidate report
    dry = run_yoi("usage", "compact", "--dry-run", "--workspace", str(ws.root))
    assert dry.returncode == 0 and "would fold 6 session file(s)" in dry.stdout
    assert len(list(ws.usage_dir.glob("*.jsonl"))) == 8
    done = run_yoi("usage", "compact", "--json", "--workspace", str(ws.root))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert sorted(result["sessions"]) == [f"sess-{n}" for n in range(6)] and result["events"] == 72
    names = sorted(p.name for p in ws.usage_dir.glob("*.jsonl"))
    assert names == sorted(["sess-6.jsonl", "sess-7.jsonl", *(f"_month-{m}.jsonl" for m in result["months"])])
    assert len(result["months"]) <= 4
    assert _metrics(ws.root) == before  # exactly the same numbers
    again = run_yoi("usage", "compact", "--workspace", str(ws.root))
    assert "nothing to compact" in again.stdout


def test_an_interrupted_compaction_counts_nothing_twice(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _write_sessions(ws)
    saved = (ws.usage_dir / "sess-0.jsonl").read_bytes()
    before = _metrics(ws.root)
    assert run_yoi("usage", "compact", "--workspace", str(ws.root)).returncode == 0
    # As if the process died after writing the month file but before removing this session file
    # (or two clones compacted the same session and git's union merge kept both copies).
    (ws.usage_dir / "sess-0.jsonl").write_bytes(saved)
    assert _metrics(ws.root) == before
    assert load_events(ws)[1] == []  # no "duplicate event" warnings either
    assert run_yoi("usage", "compact", "--workspace", str(ws.root)).returncode == 0
    assert not (ws.usage_dir / "sess-0.jsonl").exists() and _metrics(ws.root) == before


def test_a_malformed_session_file_is_left_alone(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _write_sessions(ws)
    bad = ws.usage_dir / "sess-1.jsonl"
    bad.write_text(bad.read_text() + "{not json\n")
    done = run_yoi("usage", "compact", "--workspace", str(ws.root))
    assert done.returncode == 0 and "sess-1.jsonl: has a malformed line" in done.stderr
    assert bad.exists() and "folded 5 session file(s)" in done.stdout


def test_in_a_shared_workspace_a_clone_compacts_only_its_own_sessions(tmp_path: Path) -> None:
    """No modify/delete on usage files (issue 30): a clone folds only the sessions it began, so a
    session another clone resumes (appends to) is never deleted under it."""
    from git_support import clone, commit_all, git, git_env, make_remote

    from yoi_tui.core.store.workspace import Workspace
    from yoi_tui.core.usage.compact import compact
    from yoi_tui.core.usage.log import record_tokens

    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a, b = clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)
    record_tokens(Workspace(a), 100, session_id="sess-a")
    record_tokens(Workspace(b), 200, session_id="sess-b")
    for repo in (a, b, a):
        commit_all(repo, "usage", env)
        git(repo, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", env=env)
        git(repo, "push", "-q", "origin", "HEAD:main", env=env)
    result = compact(Workspace(a), older_than_days=0)
    assert result.sessions == ["sess-a"] and "sess-b.jsonl" in result.skipped
    assert (a / ".yoi/usage/sess-b.jsonl").exists()
    commit_all(a, "compact", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    record_tokens(Workspace(b), 300, session_id="sess-b")  # b resumes its session
    commit_all(b, "resumed", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert git(b, "diff", "--name-only", "--diff-filter=U", env=env).stdout == ""
    assert compact(Workspace(b), older_than_days=0).sessions == ["sess-b"]
    assert sum(e.get("input_tokens", 0) for e in load_events(Workspace(b))[0]) == 600  # every event kept


def test_month_files_are_smaller_than_the_session_files_they_replace(tmp_path: Path) -> None:
    """Compacted size <= raw size (issue 30 measured 1.44x when each event line carried its session)."""
    ws = make_ws(tmp_path)
    _write_sessions(ws)
    raw = sum((ws.usage_dir / f"sess-{n}.jsonl").stat().st_size for n in range(6))  # the six closed ones
    before = _metrics(ws.root)
    assert run_yoi("usage", "compact", "--workspace", str(ws.root)).returncode == 0
    compacted = sum(p.stat().st_size for p in ws.usage_dir.glob("_month-*.jsonl"))
    assert 0 < compacted < raw * 0.75  # 0.47x here (1.22x before): a line per session, short events
    assert _metrics(ws.root) == before


def test_a_month_file_in_the_first_format_is_still_read_and_added_to(tmp_path: Path) -> None:
    """Month files already committed (an event object a line, with its session_id) keep counting, and
    compacting more sessions into that month keeps their lines as they were."""
    ws = make_ws(tmp_path)
    _write_sessions(ws)
    before = _metrics(ws.root)
    first = ws.usage_dir / "sess-0.jsonl"
    month = _month_of(first)
    old_lines = [json.dumps({**json.loads(line), "session_id": "sess-0"}, separators=(",", ":"))
                 for line in first.read_text().splitlines()]
    old = ws.usage_dir / f"_month-{month}.jsonl"
    old.write_text("\n".join(old_lines) + "\n")
    first.unlink()
    assert _metrics(ws.root) == before  # the first format, read as before
    assert run_yoi("usage", "compact", "--workspace", str(ws.root)).returncode == 0
    assert _metrics(ws.root) == before
    kept = old.read_text().splitlines()
    assert all(line in kept for line in old_lines) and load_events(ws)[1] == []


def _month_of(path: Path) -> str:
    first_id = json.loads(path.read_text().splitlines()[0])["id"]
    ms = uuid.UUID(first_id).int >> 80
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m")


def test_clones_compacting_into_one_month_file_never_double_a_line(tmp_path: Path) -> None:
    """Two clones fold their own sessions into a month file whose lines an earlier union merge left
    out of time order; git's union merge of the two keeps every line once. (Re-sorting the file on
    each compaction made both sides move the same lines, and the union brought them back twice: 5
    of 30 lines in a 4-clone campaign of bench/team.py.)"""
    from git_support import clone, commit_all, git, git_env, make_remote

    from yoi_tui.core.usage.compact import compact
    from yoi_tui.core.usage.log import mark_own_session
    from yoi_tui.core.usage.month_file import encode_session

    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a, b = clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)
    rng = random.Random(3)
    start = datetime(2026, 1, 10, tzinfo=UTC)
    ids = {name: _id(start + timedelta(hours=n), rng) for n, name in enumerate("xyazb")}

    def line(session: str) -> str:
        event = {"id": ids[session], "type": "tokens", "input_tokens": 7}
        return json.dumps(encode_session(f"sess-{session}", [event]), separators=(",", ":"))

    month = ".yoi/usage/_month-2026-01.jsonl"
    (a / month).write_text("".join(line(s) + "\n" for s in "xzy"))  # y after z: a union merge's order
    commit_all(a, "month file", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", env=env)
    for repo, session in ((a, "a"), (b, "b")):
        ws = Workspace(repo)
        (ws.usage_dir / f"sess-{session}.jsonl").write_text(
            json.dumps({"id": ids[session], "type": "tokens", "input_tokens": 7}, separators=(",", ":")) + "\n")
        mark_own_session(ws, f"sess-{session}")
        assert compact(ws, older_than_days=0).sessions == [f"sess-{session}"]
        commit_all(repo, f"compact {session}", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", env=env)
    lines = (b / month).read_text().splitlines()
    assert sorted(lines) == sorted(line(s) for s in "xyzab")  # each line once
    events, problems = load_events(Workspace(b))
    assert len(events) == 5 and problems == []
