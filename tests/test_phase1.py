"""Phase 1 end to end: samples → staging, pointers, threshold, chunking, crash safety, redaction."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import make_ws, run_yoi

from yoi_tui.core.phase1.pointer import read_pointer
from yoi_tui.core.phase1.runner import run_phase1
from yoi_tui.core.sessions.model import Entry
from yoi_tui.core.sessions.native import append_entries, write_log
from yoi_tui.core.store.staging import Activity, list_staging, read_staging
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.text.markers import CONTEXT_BEGIN, CONTEXT_END

SAMPLES = Path(__file__).resolve().parent / "data" / "samples"


def _staging(ws: Workspace) -> list:
    return [read_staging(p) for p in list_staging(ws)]


def _native(path: Path, session: str, texts: list[tuple[str, str]], *, tokens: int = 0) -> Path:
    entries = [Entry(index=i, role=role, text=text, kind="message", input_tokens=tokens if role == "assistant" else None)
               for i, (role, text) in enumerate(texts)]
    write_log(path, session, entries)
    return path


def test_samples_end_to_end_give_recognisable_staging(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    result = run_yoi("phase1", "--workspace", str(ws.root), *map(str, sorted(SAMPLES.glob("*.jsonl"))))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    staged = _staging(ws)
    assert len(staged) == 7  # the redacted Codex rollout holds nothing readable
    by_session = {s.source.session_id: s for s in staged}
    codex = by_session["019b04ae-b1c6-7c72-a134-a4c2de66058c"].activity
    # One story per failure: `python hoge.py` failed twice, `python3 hoge.py` (the same check) passed.
    [attempt] = codex.attempts
    assert (attempt.trial, attempt.outcome) == ("`python hoge.py`", "success")
    assert "failed (2 times)" in attempt.result and "target shim binary not found" in attempt.result
    assert "ran `python3 hoge.py` instead" in attempt.result and attempt.range == (14, 24)
    assert [(r.intent, r.target) for r in codex.requests] == [
        ("add", "myapp directory (myapp/hoge.py)"), ("run", "to myapp (hoge.py)")]
    claude = by_session["7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"].activity
    assert [a.outcome for a in claude.attempts] == ["success"]
    plan = by_session["8a2518dd-ff41-4d5f-83a1-407b03598cc6"].activity
    # The AskUserQuestion answer and the revised plan are decisions; the corrections refine request 2.
    assert [d.chosen for d in plan.decisions][0] == "Right of ⌘J kbd"
    assert plan.decisions[1].rationale.startswith("the user rejected the first plan: Completely outside")
    assert [r.title for r in plan.requests] == ["Move the + button to it's own button", "Give the button a background"]
    for staging in staged:
        assert staging.extractor.engine == "rules"
        assert staging.source.range[0] <= staging.source.range[1]
    assert "wrote memory/_staging/" in result.stdout


def test_rerun_writes_nothing_and_growth_processes_only_the_new_range(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    log = _native(tmp_path / "s.jsonl", "sess-1", [("user", "add a cache to the parser in parser.py"),
                                                   ("assistant", "Done.")])
    first = run_phase1(ws, [log], force=True)
    assert first[0].status == "written" and len(_staging(ws)) == 1
    again = run_phase1(ws, [log], force=True)
    assert again[0].status == "nothing-new" and len(_staging(ws)) == 1
    append_entries(log, [Entry(index=2, role="user", text="fix the flaky test in test_io.py", kind="message"),
                         Entry(index=3, role="assistant", text="Fixed.", kind="message")])
    grown = run_phase1(ws, [log], force=True)
    assert grown[0].processed == (2, 3)
    newest = _staging(ws)[-1]
    assert newest.source.range == (2, 3)
    assert [r.target for r in newest.activity.requests] == ["the flaky test (test_io.py)"]
    assert read_pointer(ws, "sess-1") == 3


def test_threshold_gates_unless_forced(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[phase1]\ntoken_threshold = 5000\n")
    ws = Workspace(ws.root)
    log = _native(tmp_path / "s.jsonl", "sess-t", [("user", "add logging to server.py"), ("assistant", "ok")],
                  tokens=1000)
    below = run_phase1(ws, [log])
    assert below[0].status == "below-threshold" and "1000" in below[0].message
    assert _staging(ws) == [] and read_pointer(ws, "sess-t") == -1
    forced = run_phase1(ws, [log], force=True)
    assert forced[0].status == "written"


def test_all_empty_result_writes_no_file_but_moves_the_pointer(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    log = _native(tmp_path / "s.jsonl", "sess-e", [("user", "ok"), ("assistant", "Sure.")])
    result = run_phase1(ws, [log], force=True)
    assert result[0].status == "empty"
    assert _staging(ws) == []
    assert read_pointer(ws, "sess-e") == 1


def test_long_session_is_chunked_never_failed(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[phase1]\nchunk_tokens = 600\n")
    ws = Workspace(ws.root)
    texts = []
    for i in range(60):
        texts.append(("user", f"add feature number {i} to module_{i}.py " + "detail " * 40))
        texts.append(("assistant", "Done. " + "explanation " * 40))
    log = _native(tmp_path / "long.jsonl", "sess-long", texts)
    result = run_phase1(ws, [log], force=True)
    staged = _staging(ws)
    assert result[0].status == "written" and len(staged) > 3
    ranges = sorted(s.source.range for s in staged)
    assert ranges[0][0] == 0 and ranges[-1][1] == 119
    for (_, end), (start, _) in zip(ranges, ranges[1:], strict=False):
        assert start == end + 1
    assert sum(len(s.activity.requests) for s in staged) == 60


def test_crash_between_staging_and_pointer_reprocesses(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    log = _native(tmp_path / "s.jsonl", "sess-c", [("user", "add retries to fetch.py"), ("assistant", "Added.")])
    points = tmp_path / "points.log"
    probe = make_ws(tmp_path / "probe")
    run_yoi("phase1", "--force", "--workspace", str(probe.root), str(log), env={"YOI_CRASHPOINT_LOG": str(points)})
    at = next(line.split()[0] for line in points.read_text().splitlines() if line.endswith("phase1:staging-written"))
    crashed = run_yoi("phase1", "--force", "--workspace", str(ws.root), str(log), env={"YOI_CRASH_AT": at})
    assert crashed.returncode != 0  # killed right after the staging file became durable
    assert len(_staging(ws)) == 1
    assert read_pointer(ws, "sess-c") == -1
    rerun = run_yoi("phase1", "--force", "--workspace", str(ws.root), str(log))
    assert rerun.returncode == 0
    staged = _staging(ws)
    assert len(staged) == 2 and staged[0].source.range == staged[1].source.range == (0, 1)
    assert read_pointer(ws, "sess-c") == 1


def test_planted_secrets_never_reach_staging(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    secrets = ["sk-proj-AbCdEf1234567890AbCdEf1234567890", "ghp_ABCDEFabcdef1234567890ABCDEFabcdef12",
               "AKIAIOSFODNN7EXAMPLE", "hunter2-Very-Secret"]
    source = SAMPLES / "codex_0.66.0_agtrace_codex_session.jsonl"
    planted = tmp_path / "planted.jsonl"
    text = source.read_text()
    text = text.replace("cd to myapp and run python hoge.py",
                        f"cd to myapp and run python hoge.py with OPENAI_API_KEY={secrets[0]} "
                        f"token: {secrets[1]} aws {secrets[2]} password={secrets[3]}")
    planted.write_text(text)
    result = run_yoi("phase1", "--force", "--workspace", str(ws.root), str(planted))
    assert result.returncode == 0, result.stderr
    staged_text = "".join(p.read_text() for p in list_staging(ws))
    assert "hoge.py" in staged_text
    for secret in secrets:
        assert secret not in staged_text


def test_yoi_injected_context_is_not_learned(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    injected = f"{CONTEXT_BEGIN}\nadd a postgres backend to storage.py\n{CONTEXT_END}\nfix the typo in README.md"
    log = _native(tmp_path / "s.jsonl", "sess-i", [("user", injected), ("assistant", "Fixed.")])
    run_phase1(ws, [log], force=True)
    [staging] = _staging(ws)
    assert [r.target for r in staging.activity.requests] == ["the typo (README.md)"]
    assert "postgres" not in staging.model_dump_json()


def test_bad_log_is_reported_and_others_still_run(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\x00\x01\x02 not a log")
    good = tmp_path / "good.jsonl"
    shutil.copy(SAMPLES / "claude-code_v2.0.28_agtrace_claude_session.jsonl", good)
    result = run_yoi("phase1", "--force", "--workspace", str(ws.root), str(bad), str(good))
    assert result.returncode == 2
    assert str(bad) in result.stderr and "Traceback" not in result.stderr
    assert len(_staging(ws)) == 1


def test_json_output(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    result = run_yoi("phase1", "--force", "--json", "--workspace", str(ws.root),
                     str(SAMPLES / "codex_0.66.0_agtrace_codex_session.jsonl"))
    [item] = json.loads(result.stdout)
    assert item["status"] == "written" and item["format"] == "codex"
    assert item["staging"][0]["counts"] == {"decisions": 0, "discussions": 0, "attempts": 1, "requests": 2}


def test_activity_schema_is_strict_and_has_no_free_form_dicts() -> None:
    with pytest.raises(ValueError):
        Activity.model_validate({"decisions": [], "source": {"session_id": "x"}})
    schema = json.dumps(Activity.model_json_schema())
    assert '"additionalProperties": true' not in schema
    for definition in Activity.model_json_schema()["$defs"].values():
        assert definition.get("additionalProperties") is False
