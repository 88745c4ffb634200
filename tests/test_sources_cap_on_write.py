"""Every Phase 2 write caps a record's sources as it adds (issue 30: order-independent content).

The merge driver and GC's trim keep the last ``records.sources_max`` sources in canonical order. A
Phase 2 write that appended past the cap left one more source in a push order whose last change to the
record was no merge (10 clones x 20 rounds: 4 hot-topic records differed right after the last round).
Both engines' writers now cap with the same rule, so every state of a record is the top N of the
sources it has seen and merging two states gives the top N of their union.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from llm_fixtures import Script, call, done
from phase2_fixtures import stage
from support import T0, make_ws, write_record

from yoi_tui.core.phase2.run_context import Phase2Context
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.phase2.tools import Phase2Tools
from yoi_tui.core.runs.changeset import Scratch
from yoi_tui.core.store.canonical import capped_sources
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Decision, read_staging
from yoi_tui.core.store.workspace import Workspace

REL = "memory/decisions/use-sqlite-for-the-cache.md"
DECISION = Decision(title="Use SQLite for the cache", options=["SQLite", "JSON"], chosen="SQLite",
                    rationale="transactions")


def _sources(n: int, *, offset: int = 0) -> list[dict[str, object]]:
    return [{"session_id": f"s{i + offset:03d}", "range": [0, 9]} for i in range(n)]


def _at_cap(tmp_path: Path, limit: int) -> Workspace:
    ws = make_ws(tmp_path)
    config = ws.root / ".yoi" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("# sources_max = 20", f"sources_max = {limit}"),
                      encoding="utf-8")
    ws = Workspace(ws.root)
    assert ws.config.records.sources_max == limit
    write_record(ws, REL, {"created_at": T0, "updated_at": T0, "sources": _sources(limit, offset=10),
                           "status": "resolved"}, "\n# Use SQLite for the cache\n\nSQLite, for transactions.\n")
    return ws


def _written_sources(ws: Workspace) -> list[object]:
    record = read_record(ws, ws.root / REL).record
    assert record is not None
    return list(record.meta["sources"])


def test_the_rules_engine_keeps_the_latest_n_when_it_adds_a_source(tmp_path: Path) -> None:
    ws = _at_cap(tmp_path, 5)
    stage(ws, "s900", 0, 9, decisions=[DECISION])
    run_phase2(ws, flush=True)
    expected = capped_sources([*_sources(5, offset=10), {"session_id": "s900", "range": [0, 9]}], 5)
    assert _written_sources(ws) == expected
    assert len(expected) == 5 and expected[-1]["session_id"] == "s900"


def test_an_older_session_consumed_late_does_not_push_the_record_over_the_cap(tmp_path: Path) -> None:
    ws = _at_cap(tmp_path, 5)
    stage(ws, "s000", 0, 9, decisions=[DECISION])  # sorts before every source the record holds
    run_phase2(ws, flush=True)
    assert _written_sources(ws) == _sources(5, offset=10)


def test_the_model_tools_keep_the_latest_n_when_they_add_a_source(tmp_path: Path) -> None:
    ws = _at_cap(tmp_path, 5)
    staging_id = stage(ws, "s900", 0, 9, decisions=[DECISION])
    with Scratch(ws) as scratch:
        ctx = Phase2Context(ws=ws, scratch=scratch, run_id="r", staging=[read_staging(p) for p in ws.staging_dir.glob("*.json")],
                            candidates=[], now=datetime.now(UTC).replace(microsecond=0))
        tools = Phase2Tools(ctx, max_failed_writes=100)
        before = scratch.read(REL)
        tools.read_file(REL)
        assert tools.edit_file(REL, "for transactions.", "for transactional writes.", [staging_id]).startswith("wrote")
        after = scratch.read(REL)
    assert before != after
    assert after.count("session_id:") == 5 and "session_id: s900" in after and "session_id: s010" not in after


def test_llm_run_writes_capped_sources(tmp_path: Path) -> None:
    ws = _at_cap(tmp_path, 5)
    staging_id = stage(ws, "s900", 0, 9, decisions=[DECISION])
    text = (ws.root / REL).read_text(encoding="utf-8").replace("for transactions.", "for transactional writes.")
    script = Script([call("read_file", path=REL), call("write_file", path=REL, content=text, staging_ids=[staging_id]),
                     done()])
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.exit_code == 0, script.feedback
    assert len(_written_sources(ws)) == 5 and _written_sources(ws)[-1] == {"session_id": "s900", "range": [0, 9]}
