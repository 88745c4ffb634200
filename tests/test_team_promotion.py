"""Knowledge promotion whatever the push order (issue 30, item 3): whether a record becomes knowledge
is counted from the merged usage files (sessions, invokes), not read off the token clock a clone had
reached, so a record promoted in one push order is promoted in every other. Real repositories, real
`yoi` processes (docs/team.md#one-content-whatever-the-push-order)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from git_support import clone, commit_all, git, git_env, make_remote, yoi
from phase2_fixtures import stage
from support import decision_meta, write_record

from yoi_tui.core.store.staging import Request
from yoi_tui.core.store.workspace import Workspace

ORIGIN = "memory/decisions/use-sqlite-for-the-cache.md"
SLUG = "use-sqlite-for-the-cache"

# Each clone's one session: who reads the decision, how many input tokens it burns, what it stages.
TURNS = {
    "a": ("sa", True, 100_000, "Add a dark mode"),
    "b": ("sb", True, 100_000, "Export invoices as CSV"),
    "c": ("sc", False, 5_000_000, "Speed up the test suite"),  # long, never reads the decision
}


def _ok(done) -> None:  # type: ignore[no-untyped-def]
    assert done.returncode == 0, done.stdout + done.stderr


def _masked(text: str) -> str:
    return re.sub(r"(?m)^(created_at|updated_at): .*$", r"\1: *", text)


def _campaign(root: Path, order: str) -> tuple[dict[str, str], list[str]]:
    """Three clones take one turn each in ``order`` (pull, work, Phase 2, push), then all pull.
    Returns the knowledge records (timestamps masked) and the candidate report at the remote."""
    root.mkdir()
    env = git_env(root / "home")
    remote = make_remote(root, env)
    setup = clone(remote, root / "setup", env)
    write_record(Workspace(setup), ORIGIN, decision_meta(sources=[{"session_id": "s0", "range": [0, 4]}]),
                 "\n# Use SQLite for the cache\n\n## Chosen\nSQLite.\n\n## Rationale\nOne file, in the stdlib.\n")
    commit_all(setup, "a decision", env)
    git(setup, "push", "-q", "origin", "HEAD:main", env=env)
    clones = {name: clone(remote, root / name, env) for name in TURNS}
    for name in order:
        path = clones[name]
        git(path, "pull", "-q", "--ff-only", "origin", "main", env=env)
        session, reads, tokens, intent = TURNS[name]
        if reads:
            _ok(yoi(path, "search", "memory", "--slug", SLUG, "--session", session, env=env))
        _ok(yoi(path, "usage", "record-tokens", str(tokens), "--session", session, env=env))
        stage(Workspace(path), session, 0, 9, requests=[Request(intent=intent, target="app.py", summary=intent + ".")])
        _ok(yoi(path, "phase2", "--flush", env=env))
        commit_all(path, f"{name}'s turn", env)
        git(path, "push", "-q", "origin", "HEAD:main", env=env)
    for path in clones.values():
        git(path, "pull", "-q", "--ff-only", "origin", "main", env=env)
    last = clones[order[-1]]
    knowledge = {p.name: _masked(p.read_text(encoding="utf-8")) for p in sorted((last / "knowledge").glob("*.md"))}
    report = json.loads(yoi(last, "usage", "--candidates", "--json", env=env).stdout)
    return knowledge, [f"{r['kind']}/{r['slug']}" for r in report["records"]]


def test_two_push_orders_promote_the_same_knowledge(tmp_path: Path) -> None:
    """b's run is the one that sees the second session reading the decision. Pushed a, b, c, it runs
    before c's 5M-token session reached it; pushed a, c, b, after. Read off the token clock (2
    invokes over 0.2M tokens, then over 5.2M: 10 and 0.38 per Mtoken against a threshold of 1), the
    decision became knowledge in the first order only, and no later run would ever promote it in the
    second (the frequency only falls). Counted, both orders promote it, to the same bytes."""
    first, first_report = _campaign(tmp_path / "abc", "abc")
    second, second_report = _campaign(tmp_path / "acb", "acb")
    assert f"{SLUG}.md" in first
    assert "Derived from the decision `use-sqlite-for-the-cache`." in first[f"{SLUG}.md"]
    assert first == second
    assert first_report == second_report == [f"decision/{SLUG}"]


def test_knowledge_a_person_deleted_is_not_promoted_again(tmp_path: Path) -> None:
    """Counted, the decision stays on the candidate report for good; deleted knowledge must then stay
    deleted: read from git, in the clone that deleted it (not committed yet) and in another that
    pulled the deletion."""
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a, b = clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)
    write_record(Workspace(a), ORIGIN, decision_meta(sources=[{"session_id": "s0", "range": [0, 4]}]),
                 "\n# Use SQLite for the cache\n\n## Chosen\nSQLite.\n")
    for session in ("sa", "sb"):
        _ok(yoi(a, "search", "memory", "--slug", SLUG, "--session", session, env=env))
    stage(Workspace(a), "sa", 0, 9, requests=[Request(intent="Add a dark mode", target="app.py", summary="Dark.")])
    _ok(yoi(a, "phase2", "--flush", env=env))
    knowledge = a / "knowledge" / f"{SLUG}.md"
    assert knowledge.is_file()
    commit_all(a, "promoted", env)
    knowledge.unlink()  # a person deletes it (not committed yet)
    stage(Workspace(a), "sa", 10, 19, requests=[Request(intent="Export CSV", target="app.py", summary="CSV.")])
    done = yoi(a, "phase2", "--flush", "--json", env=env)
    _ok(done)
    assert not knowledge.exists()
    assert f"knowledge/{SLUG}.md was deleted (git)" in done.stdout
    commit_all(a, "knowledge deleted", env)
    git(a, "push", "-q", "origin", "HEAD:main", env=env)
    git(b, "pull", "-q", "--ff-only", "origin", "main", env=env)
    _ok(yoi(b, "search", "memory", "--slug", SLUG, "--session", "sc", env=env))
    stage(Workspace(b), "sc", 0, 9, requests=[Request(intent="Speed up tests", target="tests/", summary="Fast.")])
    _ok(yoi(b, "phase2", "--flush", env=env))
    assert not (b / "knowledge" / f"{SLUG}.md").exists()
    report = json.loads(yoi(b, "usage", "--candidates", "--json", env=env).stdout)
    assert [r["slug"] for r in report["records"]] == [SLUG]  # still a candidate: only not promoted again
