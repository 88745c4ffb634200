"""Phase 2's fields mode (``llm.write_mode``): the model fills a record's fields in one ``write_record``
call, yoi renders the record — frontmatter by the record writer, sources from the cited staging
items, an update merged into the existing body — and lints it like any other write: findings go
back to the model, refused writes are counted and bounded, the run stops cleanly at the limit.
The model is scripted at the model boundary (pydantic-ai ``FunctionModel``); everything else is real."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from llm_fixtures import Script, call, done, json_call, json_done
from phase2_fixtures import stage, tree_bytes
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models.function import FunctionModel
from support import decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase2.record_fields import fields_model, staged_items
from yoi_tui.core.phase2.run_context import Phase2Context
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.phase2.tools import Phase2Tools as FileTools
from yoi_tui.core.runs.changeset import Scratch
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.runs.file_tools import ToolRefusal
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Attempt, Decision, Request, list_staging, read_staging
from yoi_tui.core.store.workspace import Workspace

REL = "memory/decisions/use-sqlite-for-the-cache.md"
SECRET = "ghp_ABCDEFabcdef1234567890ABCDEFabcdef12"


def _ws(tmp_path: Path, extra: str = "") -> tuple[Workspace, str]:
    """Structured tool steps (a model without native tool calls): ``write_mode`` auto picks fields."""
    ws = make_ws(tmp_path)
    ws.config_path.write_text(f'[llm]\ntool_mode = "structured"\n{extra}')
    staging_id = stage(ws, "sess-llm", 4, 40,
                       decisions=[Decision(title="Use SQLite for the cache", options=["SQLite", "JSON"],
                                           chosen="SQLite", rationale="transactions", range=(6, 9))],
                       attempts=[Attempt(trial="pytest", result="database is locked", outcome="failure",
                                         range=(12, 14)),
                                 Attempt(trial="WAL mode", result="tests pass", outcome="success", range=(15, 18))],
                       requests=[Request(intent="cache API responses", target="client/api.py",
                                         summary="answer repeated calls from a local cache", range=(30, 33))])
    return ws, staging_id


def _decision(**fields: Any) -> ModelResponse:
    args: dict[str, Any] = {"kind": "decision", "items": ["decision-1", "attempt-1", "attempt-2"],
                            "title": "Use SQLite for the cache", "status": "resolved", "chosen": "SQLite",
                            "options": ["SQLite", "JSON files"], "rationale": "Transactional writes; see #caching.",
                            "failure_and_fix": ["pytest failed: database is locked; WAL mode fixed it"]}
    return json_call("write_record", **{**args, **fields})


def _errors(ws: Workspace) -> list[Any]:
    return [d for d in lint_workspace(ws).diagnostics if d.is_error]


def test_fields_become_a_lint_clean_record_with_the_cited_items_sources(tmp_path: Path) -> None:
    ws, staging_id = _ws(tmp_path)
    script = Script([_decision(), json_done("Recorded the SQLite decision.")], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    (round_report,) = report.rounds
    assert round_report.status == "applied" and report.exit_code == 0, round_report.message
    assert _errors(ws) == []
    record = read_record(ws, ws.root / REL).record
    assert record is not None and record.status == "resolved"
    # Sources: the cited items' own entries, copied from staging (not the whole staging range).
    assert record.meta["sources"] == [{"session_id": "sess-llm", "range": [6, 9]},
                                      {"session_id": "sess-llm", "range": [12, 14]},
                                      {"session_id": "sess-llm", "range": [15, 18]}]
    assert isinstance(record.meta["created_at"], datetime) and record.meta["updated_at"] == record.meta["created_at"]
    assert record.body == ("\n# Use SQLite for the cache\n\n## Chosen\nSQLite\n\n## Options\n- SQLite\n- JSON files\n"
                           "\n## Rationale\nTransactional writes; see `#caching`.\n"  # names no knowledge: not a ref
                           "\n## Failure and fix\n- pytest failed: database is locked; WAL mode fixed it\n")
    # The prompt names the items by id; the model never saw a source to copy.
    assert "- decision-1: title: Use SQLite for the cache" in script.prompts[0]
    assert "- request-1: intent: cache API responses" in script.prompts[0]
    assert "session_id" not in script.prompts[0]
    assert script.prompts[1].startswith(f"write_record returned:\nwrote {REL}")
    assert round_report.changeset.get(REL).why == [staging_id]  # type: ignore[union-attr]


def test_the_schema_offers_only_real_item_ids_and_records(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    write_record(ws, "memory/requests/cache-api-responses.md", {"created_at": "2026-11-02T09:00:00+00:00",
                                                                 "updated_at": "2026-11-02T09:00:00+00:00",
                                                                 "sources": []}, "\n# Cache API responses\n")
    instructions: list[str] = []
    steps = [_decision(items=["decision-7"]), _decision(), json_done()]

    def respond(messages: Any, info: Any) -> ModelResponse:
        instructions.append(info.instructions or "")
        return steps.pop(0)

    report = run_phase2(ws, engine="llm", flush=True, model=FunctionModel(respond))
    assert report.rounds[0].status == "applied"
    # Prompted mode: the step schema is in the instructions. The ids and paths are enums of it.
    schema = re.sub(r"\s", "", instructions[0])
    assert '"enum":["decision-1","request-1","attempt-1","attempt-2"]' in schema
    assert '"update":{"anyOf":[{"const":"memory/requests/cache-api-responses.md"' in schema
    assert '"const":"list_files"' not in schema  # the first step is a write
    assert '"const":"list_files"' in re.sub(r"\s", "", instructions[-1])
    # An id the schema does not offer is refused before any tool runs (a retry, not a failed write).
    assert len(instructions) == 3 and (ws.root / REL).is_file()


def test_lint_findings_go_back_to_the_model_and_the_fixed_call_is_written(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    script = Script([_decision(chosen=f"SQLite, with the token {SECRET}"), _decision(), json_done()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    (round_report,) = report.rounds
    assert round_report.status == "applied", round_report.message
    refusal = script.prompts[1]
    assert refusal.startswith(f"write_record refused:\nlint refused the write of {REL}:") and "- secret" in refusal
    assert "2 failed write(s) left" in refusal
    assert SECRET not in (ws.root / REL).read_text() and _errors(ws) == []
    assert "llm: 1 write(s) refused by the linter and fixed" in round_report.changeset.notes  # type: ignore[union-attr]


def test_refused_writes_are_bounded_then_the_run_stops_cleanly_with_staging_kept(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    before = tree_bytes(ws.root)
    bad = _decision(summary=f"the token is {SECRET}")
    script = Script([bad, bad, bad, _decision()], structured=True)
    result = run_phase2(ws, engine="llm", flush=True, model=script.model())
    (round_report,) = result.rounds
    assert round_report.status == "aborted" and result.exit_code == 1
    assert "failed 3 times" in (round_report.message or "") and "nothing it wrote is kept" in (round_report.message or "")
    assert script.calls == 3  # stopped at the limit, the fourth call never asked for
    assert tree_bytes(ws.root) == before and len(list_staging(ws)) == 1
    assert not lock_path(ws).exists()


def test_an_update_merges_into_the_record_keeping_every_line_and_source(tmp_path: Path) -> None:
    ws, staging_id = _ws(tmp_path)
    old_body = "\n# Use SQLite for the cache\n\nA person wrote this line.\n\n## Chosen\nSQLite\n"
    write_record(ws, REL, decision_meta(status="open"), old_body)
    old = read_record(ws, ws.root / REL).record
    assert old is not None
    # The update names the record by path; a second write with the same title lands in it too.
    script = Script([_decision(update=REL, title="SQLite for caching", rationale="one file"),
                     _decision(kind="decision", items=["request-1"], title="Use SQLite for the cache", chosen="",
                               status=None, options=[], rationale="", failure_and_fix=[],
                               discussion=["readers and the writer work at once"]),
                     json_done()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    record = read_record(ws, ws.root / REL).record
    assert record is not None and _errors(ws) == []
    lines = iter(record.body.splitlines())
    assert all(line in lines for line in old_body.splitlines())  # every old line kept, in its order
    for line in ("Also titled: SQLite for caching", "- JSON files", "one file", "- readers and the writer work at once",
                 "- pytest failed: database is locked; WAL mode fixed it"):
        assert line in record.body
    assert record.status == "resolved"  # a choice was made
    assert record.meta["created_at"] == old.meta["created_at"]
    assert record.meta["sources"] == [*old.meta["sources"], {"session_id": "sess-llm", "range": [6, 9]},
                                      {"session_id": "sess-llm", "range": [12, 14]},
                                      {"session_id": "sess-llm", "range": [15, 18]},
                                      {"session_id": "sess-llm", "range": [30, 33]}]
    assert report.rounds[0].changeset.paths() == [REL]  # type: ignore[union-attr]
    assert report.rounds[0].changeset.get(REL).why == [staging_id]  # type: ignore[union-attr]


def test_an_update_of_a_replaced_record_lands_in_its_replacement(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    new = "memory/decisions/use-sqlite.md"
    write_record(ws, REL, decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# Use SQLite for the cache\n")
    write_record(ws, new, decision_meta(status="resolved"), "\n# Use SQLite\n")
    stub = (ws.root / REL).read_bytes()
    script = Script([_decision(update=REL), json_done()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert report.rounds[0].changeset.paths() == [new]  # type: ignore[union-attr]
    assert (ws.root / REL).read_bytes() == stub and "- JSON files" in (ws.root / new).read_text()
    assert _errors(ws) == []


def test_a_rejected_file_holds_back_only_the_items_it_came_from(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    request = json_call("write_record", kind="request", items=["request-1"], title="Cache API responses",
                        summary="Answer repeated calls from a local cache.")
    script = Script([_decision(), request, json_done()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model(), reject=[REL])
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert not (ws.root / REL).exists() and (ws.root / "memory/requests/cache-api-responses.md").is_file()
    rejected = run_yoi("phase2", "--rejections", "--json", "--workspace", str(ws.root))
    assert rejected.returncode == 0, rejected.stderr
    (rejection,) = json.loads(rejected.stdout)["rejections"]
    items = {(i["section"], i["item"]) for i in rejection["items"]}
    assert items == {("decisions", "Use SQLite for the cache"), ("attempts", "pytest"), ("attempts", "WAL mode")}


def test_the_run_ends_once_every_item_is_recorded_and_the_model_is_told_what_is_left(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    request = json_call("write_record", kind="request", items=["request-1"], title="Cache API responses",
                        summary="Answer repeated calls from a local cache.")
    script = Script([_decision(), request, json_call("list_files")], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert script.prompts[1].endswith("Not recorded yet: request-1; record what is worth keeping, then finish.")
    assert script.calls == 2  # no third request: nothing was left to record
    notes = report.rounds[0].changeset.notes  # type: ignore[union-attr]
    assert "llm: recorded every staging item (4) in 2 record(s)" in notes
    assert _errors(ws) == [] and len(report.rounds[0].changeset.paths()) == 2  # type: ignore[union-attr]


def test_a_repeated_write_ends_the_run_and_keeps_what_was_written(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path, "max_requests = 3\n")
    # At temperature 0 a small model repeats its write; the request limit would throw it away.
    script = Script([_decision(), _decision(), _decision(), _decision()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert script.calls == 2 and (ws.root / REL).is_file() and _errors(ws) == []
    notes = report.rounds[0].changeset.notes  # type: ignore[union-attr]
    assert any("repeated its last write_record call" in n for n in notes)
    # What it left out is said, for the review.
    assert "llm: not recorded (the model found them not worth a record): request-1 'cache API responses'" in notes


def test_staging_without_items_makes_no_model_call(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text('[llm]\ntool_mode = "structured"\n')
    stage(ws, "sess-empty", 0, 9)
    script = Script([], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied" and script.calls == 0
    assert "llm: the consumed staging holds no items; no model call was made" in \
        report.rounds[0].changeset.notes  # type: ignore[union-attr]
    assert not list_staging(ws)  # consumed, as the rules engine consumes it


def test_a_native_tool_calling_model_can_be_held_to_fields(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    ws.config_path.write_text('[llm]\nwrite_mode = "fields"\n')
    args = json.loads(_decision().parts[0].content)["arguments"]  # type: ignore[union-attr]
    script = Script([call("write_record", **args), done("Recorded it.")])
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert _errors(ws) == [] and (ws.root / REL).is_file()


# ------------------------------------------------------------------ the tool layer directly


@pytest.fixture
def tools(tmp_path: Path) -> Any:
    ws, _ = _ws(tmp_path)
    staging = [read_staging(p) for p in list_staging(ws)]
    candidates = [SimpleNamespace(kind="decision", slug="use-sqlite-for-the-cache", sessions=3, frequency=9.0)]
    with Scratch(ws) as scratch:
        ctx = Phase2Context(ws=ws, scratch=scratch, run_id="r", staging=staging, candidates=candidates,
                            now=datetime.now(UTC).replace(microsecond=0))
        yield FileTools(ctx, max_failed_writes=100), ctx


def test_items_are_numbered_per_section_in_staging_order(tools: Any) -> None:
    file_tools, ctx = tools
    assert list(staged_items(ctx.staging)) == ["decision-1", "request-1", "attempt-1", "attempt-2"]
    assert list(file_tools.items) == list(staged_items(ctx.staging))
    assert file_tools.items["attempt-2"].item.trial == "WAL mode"


def test_a_knowledge_record_needs_a_candidate_and_gets_last_sources(tools: Any) -> None:
    file_tools, ctx = tools
    model = fields_model(list(file_tools.items), [], ["decision/use-sqlite-for-the-cache"])
    fields = {"kind": "knowledge", "items": ["decision-1"], "title": "SQLite cache policy",
              "summary": "The cache is one SQLite file."}
    with pytest.raises(ToolRefusal, match="derived_from"):
        file_tools.write_fields(model(**fields))
    written = file_tools.write_fields(model(**fields, derived_from="decision/use-sqlite-for-the-cache",
                                            description="Where the cache lives; read before changing it."))
    assert written.startswith("wrote knowledge/sqlite-cache-policy.md")
    record = read_record(ctx.sws, ctx.sws.root / "knowledge/sqlite-cache-policy.md").record
    assert record is not None and record.meta["kind"] == "policy" and record.meta["model_invokation"] is False
    assert record.meta["last_sources"] == [{"session_id": "sess-llm", "range": [6, 9]}]
    assert record.meta["description"] == "Where the cache lives; read before changing it."
    with pytest.raises(Exception, match="decision/other"):
        model(**fields, derived_from="decision/other")  # not on the report: the schema refuses it
