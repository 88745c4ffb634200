"""The record merge driver (`yoi merge-driver %O %A %B %P`) and its registration by `yoi init`.

Real git repositories in tmp_path (a bare remote, clones, `git pull` merging through the driver that
`yoi init` registered), plus the driver called directly as a subprocess for the cases git reaches
only through rename detection.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from git_support import clone, commit_all, git, git_env, make_remote, yoi

from yoi_tui.core.store.merge import merge_bodies, merge_lines, merge_records, union_sources


def _record(meta: str, body: str) -> str:
    return f"---\n{meta.strip()}\n---\n{body}"


def _meta(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


DECISION_BASE = _record("""
created_at: 2026-11-02T09:00:00+00:00
updated_at: 2026-11-02T09:00:00+00:00
sources:
  - session_id: s1
    range: [0, 3]
status: open
""", "\n# Use SQLite for the cache\n\n## Options\n- SQLite\n- Redis\n")


def _two_clones(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    b = clone(remote, tmp_path / "b", env)
    return a, b, env


def _write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _push(repo: Path, env: dict[str, str], message: str) -> None:
    commit_all(repo, message, env)
    git(repo, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", env=env)
    git(repo, "push", "-q", "origin", "HEAD:main", env=env)


def test_init_registers_driver_and_rerun_in_fresh_clone_changes_no_tracked_file(tmp_path: Path) -> None:
    env = git_env(tmp_path / "home")
    remote = make_remote(tmp_path, env)
    fresh = clone(remote, tmp_path / "fresh", env, init=False)
    assert git(fresh, "config", "--get", "merge.yoi.driver", env=env, check=False).returncode != 0
    attributes = (fresh / ".gitattributes").read_text()
    assert "memory/decisions/*.md merge=yoi" in attributes and ".yoi/usage/*.jsonl merge=union" in attributes
    assert "memory/_staging/" in (fresh / ".gitignore").read_text().splitlines()
    done = yoi(fresh, "init", env=env)
    assert done.returncode == 0, done.stderr
    assert git(fresh, "status", "--porcelain", env=env).stdout == ""  # no tracked file changed
    driver = git(fresh, "config", "--get", "merge.yoi.driver", env=env).stdout.strip()
    assert driver.endswith("merge-driver %O %A %B %P")
    again = yoi(fresh, "init", env=env)
    assert "nothing changed" in again.stdout
    # Staging never enters git: `git add -A` leaves it out.
    (fresh / "memory/_staging/0190-x.json").write_text("{}\n")
    git(fresh, "add", "-A", env=env)
    assert "_staging" not in git(fresh, "diff", "--cached", "--name-only", env=env).stdout


def test_same_record_updated_in_two_clones_merges_without_a_person(tmp_path: Path) -> None:
    a, b, env = _two_clones(tmp_path)
    rel = "memory/decisions/use-sqlite-for-the-cache.md"
    _write(a, rel, DECISION_BASE)
    _push(a, env, "add decision")
    git(b, "pull", "-q", "--no-rebase", "origin", "main", env=env)
    _write(a, rel, DECISION_BASE.replace("updated_at: 2026-11-02T09:00:00+00:00", "updated_at: 2026-11-03T10:00:00+00:00")
           .replace("status: open", "  - session_id: s2\n    range: [4, 9]\nstatus: resolved")
           + "\n## Chosen\nSQLite\n")
    _push(a, env, "a: resolve")
    _write(b, rel, DECISION_BASE.replace("updated_at: 2026-11-02T09:00:00+00:00", "updated_at: 2026-11-02T12:00:00+00:00")
           .replace("status: open", "  - session_id: s3\n    range: [0, 2]\nstatus: open")
           .replace("- Redis\n", "- Redis\n- a flat JSON file\n"))
    commit_all(b, "b: another option", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    merged = (b / rel).read_text()
    meta = _meta(merged)
    assert [s["session_id"] for s in meta["sources"]] == ["s1", "s2", "s3"]
    assert str(meta["updated_at"]).startswith("2026-11-03 10:00")  # latest, never moved back
    assert meta["status"] == "resolved"
    assert "- a flat JSON file" in merged and "## Chosen\nSQLite" in merged
    lint = yoi(b, "lint", env=env)
    assert lint.returncode == 0, lint.stdout


def test_add_add_through_the_synthetic_base_keeps_both_sides(tmp_path: Path) -> None:
    a, b, env = _two_clones(tmp_path)
    rel = "memory/requests/add-dark-mode.md"
    _write(a, rel, _record("""
created_at: 2026-11-02T09:00:00+00:00
updated_at: 2026-11-02T09:00:00+00:00
sources:
  - session_id: sa
    range: [0, 5]
""", "\n# Add dark mode\n\n## Summary\nThe user wants a dark theme.\n"))
    _push(a, env, "a: request")
    _write(b, rel, _record("""
created_at: 2026-11-01T08:00:00+00:00
updated_at: 2026-11-01T08:00:00+00:00
sources:
  - session_id: sb
    range: [3, 7]
""", "\n# Add dark mode\n\n## Summary\nThe user wants a dark color theme.\n"))
    commit_all(b, "b: same request", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    merged = (b / rel).read_text()
    meta = _meta(merged)
    assert {s["session_id"] for s in meta["sources"]} == {"sa", "sb"}
    assert str(meta["created_at"]).startswith("2026-11-01 08:00")
    assert str(meta["updated_at"]).startswith("2026-11-02 09:00")
    assert "dark theme." in merged and "dark color theme." in merged  # both sides' lines
    assert merged.count("# Add dark mode") == 1
    assert yoi(b, "lint", env=env).returncode == 0


def test_a_conflicting_key_is_left_to_a_person_and_lint_reports_it(tmp_path: Path) -> None:
    a, b, env = _two_clones(tmp_path)
    rel = "memory/decisions/use-sqlite-for-the-cache.md"
    for repo in (a,):
        _write(repo, rel, DECISION_BASE)
        for slug in ("use-redis", "use-files"):
            _write(repo, f"memory/decisions/{slug}.md", DECISION_BASE.replace("SQLite for the cache", slug))
    _push(a, env, "base")
    git(b, "pull", "-q", "--no-rebase", "origin", "main", env=env)
    _write(a, rel, DECISION_BASE.replace("status: open", "status: replaced\nreplaced_by: use-redis\nowner: alice"))
    _push(a, env, "a: replaced by redis")
    _write(b, rel, DECISION_BASE.replace("status: open", "status: replaced\nreplaced_by: use-files\nowner: bob"))
    commit_all(b, "b: replaced by files", env)
    pulled = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", env=env, check=False)
    assert pulled.returncode != 0
    assert rel in git(b, "diff", "--name-only", "--diff-filter=U", env=env).stdout
    text = (b / rel).read_text()
    # replaced_by is decided by the names (two GCs' keepers: the preferred slug); an unknown key both
    # sides set differently is a person's.
    assert "replaced_by: use-files\n" in text and "use-redis" not in text
    assert "<<<<<<< ours\nowner: bob\n=======\nowner: alice\n>>>>>>> theirs\n" in text
    assert "status: replaced" in text  # the rest of the frontmatter merged
    lint = yoi(b, "lint", "--format", "json", env=env)
    assert lint.returncode == 1
    assert '"conflict-markers"' in lint.stdout


def test_driver_refuses_two_records_of_different_kinds(tmp_path: Path) -> None:
    knowledge = _record("""
kind: fact
description: What the cache is.
model_invokation: false
user_invocable: true
last_sources: []
created_at: 2026-11-02T09:00:00+00:00
updated_at: 2026-11-02T09:00:00+00:00
""", "\nThe cache.\n")
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text(DECISION_BASE)
    ours.write_text(DECISION_BASE.replace("- Redis", "- Redis\n- Memcached"))
    theirs.write_text(knowledge)
    env = git_env(tmp_path / "home")
    done = yoi(tmp_path, "merge-driver", str(base), str(ours), str(theirs), "memory/decisions/cache.md", env=env)
    assert done.returncode == 1
    assert "refused" in done.stderr and "knowledge" in done.stderr
    text = ours.read_text()
    assert text.startswith("<<<<<<< ours\n") and "Memcached" in text and "The cache." in text


def test_driver_falls_back_to_a_line_merge_for_unreadable_sides(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("not a record\n")
    ours.write_text("not a record\nours\n")
    theirs.write_text("theirs\nnot a record\n")
    done = yoi(tmp_path, "merge-driver", str(base), str(ours), str(theirs), "memory/decisions/x.md",
               env=git_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert ours.read_text() == "theirs\nnot a record\nours\n"


def test_synthetic_base_never_reads_a_missing_key_as_deleted() -> None:
    ours = _record("created_at: 2026-11-02T09:00:00+00:00\nupdated_at: 2026-11-02T09:00:00+00:00\n"
                   "sources: []\nstatus: open", "\n# T\n")
    theirs = _record("created_at: 2026-11-02T09:00:00+00:00\nupdated_at: 2026-11-02T09:00:00+00:00\n"
                     "sources: []\nstatus: open\nnote: kept", "\n# T\n")
    result = merge_records("", theirs, ours, path="memory/decisions/t.md")
    assert result is not None and result.clean
    assert "note: kept" in result.text
    result = merge_records("", ours, theirs, path="memory/decisions/t.md")
    assert result is not None and "note: kept" in result.text
    # With a real base the same absence is a deletion by ours.
    result = merge_records(theirs, ours, theirs, path="memory/decisions/t.md")
    assert result is not None and "note:" not in result.text


def test_sources_union_is_capped_like_gc_trims_and_honours_a_trim() -> None:
    def src(i: int) -> dict:
        return {"session_id": f"s{i:02d}", "range": [0, 1]}

    base = [src(i) for i in range(5)]
    trimmed = base[2:]  # GC in one clone kept the latest 3
    added = [*base, src(7), src(6)]
    merged = union_sources(base, trimmed, added, sources_max=4)
    assert [s["session_id"] for s in merged] == ["s03", "s04", "s06", "s07"]
    # The same result whichever side is "ours".
    assert union_sources(base, added, trimmed, sources_max=4) == merged


def test_status_order_and_timestamps() -> None:
    base = _record("created_at: 2026-11-02T09:00:00+00:00\nupdated_at: 2026-11-02T09:00:00+00:00\n"
                   "sources: []\nstatus: open", "\n# T\n")
    resolved = base.replace("status: open", "status: resolved").replace("updated_at: 2026-11-02T09", "updated_at: 2026-11-04T09")
    replaced = base.replace("status: open", "status: replaced").replace("updated_at: 2026-11-02T09", "updated_at: 2026-11-03T09")
    for ours, theirs in ((resolved, replaced), (replaced, resolved)):
        result = merge_records(base, ours, theirs, path="memory/decisions/t.md")
        assert result is not None and result.clean
        meta = _meta(result.text)
        assert meta["status"] == "replaced"
        assert str(meta["updated_at"]).startswith("2026-11-04")


def test_body_merge_keeps_both_sides_and_honours_deletions() -> None:
    base = "\n# T\n\n## Notes\n- one\n- two\n"
    ours = "\n# T\n\n## Notes\n- one\n- two\n- three\n"
    theirs = "\n# T\n\n## Notes\n- two\n\n## Failure and fix\n- Failed: x.\n"
    merged = merge_bodies(base, ours, theirs)
    assert "- one" not in merged  # removed by theirs, untouched by ours
    assert "- three" in merged and "## Failure and fix\n- Failed: x." in merged
    assert merge_bodies(base, theirs, ours) .count("- three") == 1


def test_summary_keeps_the_later_rewrite_range_and_both_written_sections() -> None:
    base = _record("updated_at: 2026-11-02T09:00:00+00:00\nlast_rewritten_from_range: [0, 10]",
                   "\n# Project\n\nAn API.\n")
    ours = _record("updated_at: 2026-11-03T09:00:00+00:00\nlast_rewritten_from_range: [0, 40]",
                   "\n# Project\n\nAn API.\n\n## Conventions\n- tabs are banned\n")
    theirs = _record("updated_at: 2026-11-02T12:00:00+00:00\nlast_rewritten_from_range: [0, 25]",
                     "\n# Project\n\nAn API in FastAPI.\n")
    result = merge_records(base, ours, theirs, path="memory/summary.md")
    assert result is not None and result.clean
    meta = _meta(result.text)
    assert meta["last_rewritten_from_range"] == [0, 40]
    assert "An API in FastAPI." in result.text and "## Conventions\n- tabs are banned" in result.text
    assert "\nAn API.\n" not in result.text  # theirs edited that line; ours left it alone


def test_two_gcs_merging_into_different_keepers_agree_on_the_preferred_one() -> None:
    stub = DECISION_BASE.replace("status: open", "status: replaced\nreplaced_by: {keeper}")
    base = DECISION_BASE
    ours = stub.format(keeper="use-sqlite-caches")
    theirs = stub.format(keeper="use-sqlite")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = merge_records(base, a, b, path="memory/decisions/use-sqlite-for-the-cache.md")
        assert result is not None and result.clean, result and result.conflicts
        assert _meta(result.text)["replaced_by"] == "use-sqlite"  # the shorter slug, whichever side


def test_a_line_both_sides_added_in_different_places_is_kept_once() -> None:
    base = ["# T", "", "a", "b", "c"]
    ours = ["# T", "", "new line", "a", "b", "c"]
    theirs = ["# T", "", "a", "b", "c", "new line"]
    for x, y in ((ours, theirs), (theirs, ours)):
        merged = merge_lines(base, x, y)
        assert merged.count("new line") == 1 and [line for line in merged if line != "new line"] == base
    # A line the base already had twice stays twice; blank lines are not touched.
    assert merge_lines(["x", "", "x"], ["x", "", "x", "y"], ["z", "x", "", "x"]).count("x") == 2


def test_driver_command_runs_without_an_installed_yoi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """yoi run as ``python -m`` from a checkout (no ``yoi`` beside the interpreter, none on PATH):
    the registered driver is this Python running the CLI module, a command git can run, not a bare
    ``yoi`` that fails every merge into a conflict."""
    import shlex
    import subprocess
    import sys

    from yoi_tui.core.store import team

    lonely = tmp_path / "bin" / "python3"
    lonely.parent.mkdir()
    lonely.symlink_to(sys.executable)
    monkeypatch.setattr(team.sys, "executable", str(lonely))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    command = team.driver_command()
    assert command.startswith(f"{shlex.quote(str(lonely))} -m yoi_tui.cli.main merge-driver ")
    argv = shlex.split(command.replace(" %O %A %B %P", " --help"))
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": str(tmp_path / "empty")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0 and "merge-driver" in done.stdout, done.stderr
