"""``yoi phase2`` and ``yoi revert`` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

from phase2_fixtures import stage_realistic, start_yoi, tree_bytes, wait_for
from support import decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.runs.consolidation_lock import lock_path


def _yoi(ws_root: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_yoi(args[0], "--workspace", str(ws_root), *args[1:], env=env)


def test_dry_run_prints_the_diff_and_changes_nothing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)
    before = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    result = _yoi(ws.root, "phase2", "--flush", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "--- /dev/null\n+++ b/memory/decisions/use-sqlite-for-the-response-cache.md\n" in result.stdout
    assert "+## Failure and fix" in result.stdout
    assert "phase2 (dry run, rules): would add 4" in result.stderr and "nothing was written" in result.stderr
    assert tree_bytes(ws.root, "memory", "knowledge", ".yoi") == before
    as_json = json.loads(_yoi(ws.root, "phase2", "--flush", "--dry-run", "--json").stdout)
    files = as_json["rounds"][0]["files"]
    assert as_json["rounds"][0]["status"] == "dry-run" and all(f["diff"].startswith("--- ") for f in files)


def test_dry_run_under_the_trigger_shows_what_a_flush_would_do(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)  # under the default trigger (5 files / 200 kB)
    before = tree_bytes(ws.root, "memory", "knowledge", ".yoi")
    plain = _yoi(ws.root, "phase2", "--dry-run")
    assert plain.returncode == 0, plain.stderr
    assert "under the trigger" in plain.stderr and "what `yoi phase2 --flush` would do" in plain.stderr
    assert "use --flush" not in plain.stdout + plain.stderr
    flushed = _yoi(ws.root, "phase2", "--flush", "--dry-run").stdout
    files = [line for line in plain.stdout.splitlines() if line.startswith("+++ ")]
    assert files and files == [line for line in flushed.splitlines() if line.startswith("+++ ")]
    assert "phase2 (dry run, rules): would add 4" in plain.stderr
    assert tree_bytes(ws.root, "memory", "knowledge", ".yoi") == before


def test_apply_prints_the_run_and_revert_restores_exact_bytes(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    # An existing record with CRLF line ends that the run will modify.
    path = write_record(ws, "memory/decisions/use-sqlite-for-the-response-cache.md", decision_meta(),
                        "\n# Use SQLite for the response cache\n\nOld line.\n")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    ids = stage_realistic(ws)
    before = tree_bytes(ws.root)
    result = _yoi(ws.root, "phase2", "--flush")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("phase2 run ") and "added 3, modified 1, deleted 0; staging consumed 3, kept 0; " \
                                                "conflicts 0" in first
    assert "  M memory/decisions/use-sqlite-for-the-response-cache.md" in result.stdout
    run_id = first.split()[2]
    assert f"revert with: yoi revert {run_id}" in result.stdout
    assert b"\r\nOld line.\r\n" in path.read_bytes() and b"\r\n## Chosen\r\n" in path.read_bytes()
    listed = _yoi(ws.root, "revert", "--list")
    assert run_id in listed.stdout and "applied" in listed.stdout
    reverted = _yoi(ws.root, "revert", run_id[:13])
    assert reverted.returncode == 0, reverted.stderr
    assert "4 file(s) restored, 3 staging file(s) put back" in reverted.stdout
    assert tree_bytes(ws.root) == before
    assert sorted(p.stem for p in ws.staging_dir.glob("*.json")) == sorted(ids)


def test_json_output_of_an_applied_run(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ids = stage_realistic(ws)
    result = _yoi(ws.root, "phase2", "--flush", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (round_data,) = data["rounds"]
    assert round_data["status"] == "applied" and data["exit"] == 0
    assert sorted(round_data["staging_deleted"]) == sorted(ids)
    assert round_data["applied_counts"] == {"add": 4, "modify": 0, "delete": 0}
    assert Path(round_data["journal"]).is_file()


def test_a_record_edited_between_run_and_apply_is_not_overwritten(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "memory/decisions/use-sqlite-for-the-response-cache.md", decision_meta(),
                        "\n# Use SQLite for the response cache\n")
    stage_realistic(ws)
    barrier = tmp_path / "go"
    proc = start_yoi("phase2", "--workspace", str(ws.root), "--flush",
                     env={"YOI_PAUSE_AT": "phase2:computed", "YOI_PAUSE_FILE": str(barrier)})
    assert wait_for(Path(f"{barrier}.reached"))
    edited = path.read_text() + "\nA person edited this while Phase 2 was running.\n"
    path.write_text(edited)  # the change set was computed against the old text
    barrier.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (out, err)
    assert "conflicts 1" in out
    assert "conflict: memory/decisions/use-sqlite-for-the-response-cache.md — file changed on disk" in out
    assert path.read_text() == edited
    assert (ws.requests_dir / "add-a-no-cache-flag-cli-py.md").exists()  # the rest was applied
    # The staging behind the conflicting record is kept for the next run, which merges into the edit.
    assert list(ws.staging_dir.glob("*.json"))
    again = _yoi(ws.root, "phase2", "--flush")
    assert again.returncode == 0, again.stderr
    text = path.read_text()
    assert "A person edited this while Phase 2 was running." in text and "SQLite with WAL journal mode" in text
    assert not list(ws.staging_dir.glob("*.json"))
    assert not lock_path(ws).exists()


def test_revert_refuses_a_file_changed_since_and_exits_1(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)
    assert _yoi(ws.root, "phase2", "--flush").returncode == 0
    request = ws.root / "memory/requests/add-a-no-cache-flag-cli-py.md"
    request.write_text(request.read_text() + "a person's line\n")
    result = _yoi(ws.root, "revert", "last")
    assert result.returncode == 1
    assert "refused memory/requests/add-a-no-cache-flag-cli-py.md: changed since the run applied it" in result.stdout
    assert "a person's line" in request.read_text()


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    unknown = _yoi(ws.root, "revert", "nope")
    assert unknown.returncode == 2 and "no applied runs" in unknown.stderr and "Traceback" not in unknown.stderr
    missing = _yoi(ws.root, "revert")
    assert missing.returncode == 2 and "name the run" in missing.stderr
    nothing = _yoi(ws.root, "phase2")
    assert nothing.returncode == 0 and "nothing to do: 0 staging file(s)" in nothing.stdout
    for command in ("phase2", "revert"):
        helped = run_yoi(command, "--help")
        assert helped.returncode == 0 and "example" in helped.stdout


def test_llm_engine_without_a_key_is_an_environment_error(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ids = stage_realistic(ws)
    result = run_yoi("phase2", "--workspace", str(ws.root), "--flush", "--engine", "llm",
                     env={"ANTHROPIC_API_KEY": ""})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "ANTHROPIC_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.stem for p in ws.staging_dir.glob("*.json")) == sorted(ids)
    assert not lock_path(ws).exists()


def test_revert_list_names_each_file_and_its_state(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    stage_realistic(ws)
    assert _yoi(ws.root, "phase2", "--flush").returncode == 0
    listed = _yoi(ws.root, "revert", "--list")
    assert listed.returncode == 0
    head, *files = listed.stdout.splitlines()
    assert " applied " in head and head.endswith("4 applied")
    assert "    A memory/decisions/use-sqlite-for-the-response-cache.md  applied" in files and len(files) == 4
    as_json = json.loads(_yoi(ws.root, "revert", "--list", "--json").stdout)
    assert {c["state"] for c in as_json[0]["changes"]} == {"applied"} and as_json[0]["files"] == 4
