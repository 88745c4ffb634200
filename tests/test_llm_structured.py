"""The llm engines with a model that has no native tool calls (``llm.tool_mode = "structured"``), and
the bounded, cleanly stopping runs: tool calls as one JSON object per step, the same tools, lint
feedback and limits as native tool calls; malformed answers retried, then a clean stop; the
capability probe choosing the mode; Phase 1's exit status when the model gives no valid answer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from llm_fixtures import Script, call, done, json_call, json_done
from openai_stub import openai_tool_stub
from phase2_fixtures import stage, tree_bytes
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage
from support import decision_meta, make_ws, run_yoi, write_record
from test_phase1_llm import _log
from test_phase2_llm import GOOD, MISSING_STATUS

from yoi_tui.core.gc import run_gc
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.phase1.llm_engine import LlmEngine
from yoi_tui.core.phase1.runner import run_session
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.runs.structured_steps import step_schema
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Decision, list_staging
from yoi_tui.core.store.workspace import Workspace

REL = "memory/decisions/use-sqlite-for-the-cache.md"


def _structured(ws: Workspace, extra: str = "") -> None:
    """Structured steps with the full-text write tools (the fields mode: test_phase2_fields.py)."""
    ws.config_path.write_text(f'[llm]\ntool_mode = "structured"\nwrite_mode = "text"\n{extra}')


def _ws(tmp_path: Path, extra: str = "") -> tuple[Workspace, str]:
    ws = make_ws(tmp_path)
    _structured(ws, extra)
    staging_id = stage(ws, "sess-llm", 4, 17, decisions=[Decision(
        title="Use SQLite for the cache", options=["SQLite", "JSON"], chosen="SQLite", rationale="transactions")])
    return ws, staging_id


def test_structured_steps_get_the_same_lint_feedback_as_native_tool_calls(tmp_path: Path) -> None:
    native_ws = make_ws(tmp_path / "native")
    native_id = stage(native_ws, "sess-llm", 4, 17, decisions=[Decision(
        title="Use SQLite for the cache", options=["SQLite", "JSON"], chosen="SQLite", rationale="transactions")])
    native = Script([call("write_file", path=REL, content=MISSING_STATUS, staging_ids=[native_id]), done()])
    run_phase2(native_ws, engine="llm", flush=True, model=native.model())

    ws, staging_id = _ws(tmp_path)
    script = Script([json_call("write_file", path=REL, content=MISSING_STATUS, staging_ids=[staging_id]),
                     json_call("write_file", path=REL, content=GOOD, staging_ids=[staging_id]),
                     json_done("Recorded the SQLite decision.")], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    (round_report,) = report.rounds
    assert round_report.status == "applied" and report.exit_code == 0
    # The protocol is in the instructions; each tool answer comes back as the next message.
    refusal = script.prompts[1]
    assert refusal.startswith("write_file refused:\nlint refused the write") and "missing-field" in refusal
    native_refusal = native.feedback[0].removeprefix("retried: ")
    assert native_refusal.split("\n")[0] in refusal  # the same message, word for word
    assert script.prompts[2].startswith("write_file returned:\nwrote memory/decisions/use-sqlite-for-the-cache.md")
    record = read_record(ws, ws.root / REL).record
    assert record is not None and record.meta["sources"] == [{"session_id": "sess-llm", "range": [4, 17]}]
    assert [d for d in lint_workspace(ws).diagnostics if d.is_error] == []
    assert "llm: Recorded the SQLite decision." in round_report.changeset.notes  # type: ignore[union-attr]
    assert round_report.usage == {"input_tokens": 3000, "output_tokens": 150}


def test_finishing_without_a_write_is_questioned_once_in_both_modes(tmp_path: Path) -> None:
    for structured in (False, True):
        ws, staging_id = _ws(tmp_path / str(structured))
        if not structured:
            ws.config_path.write_text("")
        finish = json_done if structured else done
        write = json_call if structured else call
        script = Script([finish("nothing to keep"), write("write_file", path=REL, content=GOOD, staging_ids=[staging_id]),
                         finish("recorded it")], structured=structured)
        report = run_phase2(ws, engine="llm", flush=True, model=script.model())
        assert report.rounds[0].status == "applied" and (ws.root / REL).is_file()
        assert any("You have written nothing" in p and "1 item(s)" in p for p in script.prompts)


def test_structured_writes_are_confined_and_counted_like_native_ones(tmp_path: Path) -> None:
    ws, staging_id = _ws(tmp_path)
    before = tree_bytes(ws.root)
    script = Script([json_call("write_file", path="../outside.md", content=GOOD),
                     json_call("write_file", path="memory/decisions/a.md", content=MISSING_STATUS),
                     json_call("write_file", path="memory/decisions/b.md", content=MISSING_STATUS)], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    (round_report,) = report.rounds
    assert round_report.status == "aborted" and report.exit_code == 1
    assert "failed 3 times" in (round_report.message or "")
    assert "contains '..'" in script.prompts[1]
    assert tree_bytes(ws.root) == before and not (tmp_path / "outside.md").exists()
    assert not lock_path(ws).exists()


def test_a_malformed_step_is_retried_then_the_run_goes_on(tmp_path: Path) -> None:
    ws, staging_id = _ws(tmp_path)
    garbage = ModelResponse(parts=[TextPart('```json\n{"tool": "write_file", "arguments": {"path": ')])
    unknown = json_call("delete_everything", path="memory")
    script = Script([garbage, unknown, json_call("write_file", path=REL, content=GOOD, staging_ids=[staging_id]),
                     json_done()], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=script.model())
    assert report.rounds[0].status == "applied", report.rounds[0].message
    assert any("Invalid JSON" in p for p in script.prompts)  # pydantic-ai's retry feedback
    assert any("unknown tool 'delete_everything'" in p for p in script.prompts)
    assert (ws.root / REL).is_file()


def test_a_model_that_never_answers_validly_stops_cleanly_with_staging_kept(tmp_path: Path) -> None:
    ws, _staging_id = _ws(tmp_path, "output_retries = 2\n")
    before = tree_bytes(ws.root)
    garbage = ModelResponse(parts=[TextPart("I will now write the file.\n" * 3)],
                            usage=RequestUsage(input_tokens=500, output_tokens=40))
    model = FunctionModel(lambda messages, info: garbage)
    report = run_phase2(ws, engine="llm", flush=True, model=model)
    (round_report,) = report.rounds
    assert round_report.status == "aborted" and report.exit_code == 1
    assert "the llm engine stopped" in (round_report.message or "") and "nothing it wrote is kept" in \
        (round_report.message or "")
    assert tree_bytes(ws.root) == before and len(list_staging(ws)) == 1  # staging kept, nothing applied
    assert not lock_path(ws).exists()
    tokens = [json.loads(line) for f in ws.usage_dir.glob("*.jsonl") for line in f.read_text().splitlines()]
    assert sum(e["input_tokens"] for e in tokens if e["type"] == "tokens") == 1500  # 1 try + 2 retries, recorded


def test_a_repeated_read_is_not_run_again_and_leaves_the_next_schema(tmp_path: Path) -> None:
    ws, staging_id = _ws(tmp_path)
    schemas: list[str] = []
    steps = [json_call("list_files", folder="memory"), json_call("list_files", folder="memory"),
             json_call("write_file", path=REL, content=GOOD, staging_ids=[staging_id]), json_done()]

    def respond(messages: Any, info: Any) -> ModelResponse:
        schemas.append(re.sub(r"\s", "", info.instructions or ""))  # prompted mode: the schema is in them
        return steps.pop(0)

    report = run_phase2(ws, engine="llm", flush=True, model=FunctionModel(respond))
    assert report.rounds[0].status == "applied" and (ws.root / REL).is_file()
    offered = ['"const":"list_files"' in schema for schema in schemas]
    assert offered == [True, True, False, True]


def test_the_request_limit_bounds_a_structured_run(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path, "max_requests = 3\n")
    looping = Script([json_call("memory_search", query=str(i)) for i in range(10)], structured=True)
    report = run_phase2(ws, engine="llm", flush=True, model=looping.model())
    assert report.rounds[0].status == "aborted" and "request_limit of 3" in (report.rounds[0].message or "")
    assert looping.calls == 3


def test_the_token_budget_bounds_a_native_run(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    ws.config_path.write_text("[llm]\ntoken_budget = 2000\n")
    looping = Script([call("list_files") for _ in range(10)])
    report = run_phase2(ws, engine="llm", flush=True, model=looping.model())
    assert report.rounds[0].status == "aborted" and "total_tokens_limit of 2000" in (report.rounds[0].message or "")
    assert looping.calls == 2


def test_step_schema_names_each_tool_with_its_own_arguments() -> None:
    from yoi_tui.core.phase2.llm_engine import build_toolset

    schema = step_schema(build_toolset(max_failed_writes=3).tools)
    options = {o["properties"]["tool"]["const"]: o["properties"]["arguments"] for o in schema["oneOf"]}
    assert set(options) == {"list_files", "read_file", "write_file", "edit_file", "knowledge_search",
                            "memory_search", "finish"}
    assert options["write_file"]["required"] == ["path", "content"]
    assert options["finish"]["required"] == ["summary"]


def test_gc_rewrites_through_structured_steps(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _structured(ws)
    rel = "memory/decisions/cache-layout.md"
    (ws.root / "client").mkdir()
    (ws.root / "client/cache.py").write_text("")
    write_record(ws, rel, decision_meta(status="resolved"), "\n# Cache layout\n\nThe cache lives in `client/old.py`.\n")
    body = "\n# Cache layout\n\nThe cache lived in `client/old.py` (since removed).\n"
    script = Script([json_call("rewrite_record", path=rel, body="\nSee #nothing-here.\n", reason="x"),
                     json_call("rewrite_record", path=rel, body=body, reason="the file was removed"),
                     json_done()], structured=True)
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "applied", report.to_json()
    assert "dangling-ref" in script.prompts[1]
    assert read_record(ws, ws.root / rel).record.body == body  # type: ignore[union-attr]
    assert next(o for o in report.proposed if o.path == rel).reason == "the file was removed"


# ------------------------------------------------------------------ the probe, through the CLI


def _server_config(ws: Workspace, url: str) -> None:
    ws.config_path.write_text(f'[llm]\nextract_model = "openai-chat:local"\nconsolidation_model = "openai-chat:local"\n'
                              f'base_url = "{url}"\n')


def test_auto_mode_uses_structured_steps_when_the_model_has_no_native_tool_calls(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    finish = {"tool": "finish", "arguments": {"summary": "nothing worth a record"}}
    with openai_tool_stub(finish, 50, 5, tools=False) as (url, requests):
        _server_config(ws, url)
        result = run_yoi("phase2", "--engine", "llm", "--flush", "--dry-run", "--json", "--workspace", str(ws.root))
    assert result.returncode == 0, result.stderr
    probe_schema, probe_tools, step, again = requests
    # Finishing with nothing written while the staging holds items is questioned once, then allowed.
    assert "You have written nothing" in again["body"]["messages"][-1]["content"]
    # With staging to fold in, the first step's schema has no finish: the model must act first.
    assert '"finish"' not in json.dumps(step["body"]["response_format"])
    assert '"finish"' in json.dumps(again["body"]["response_format"])
    assert "tools" in probe_tools["body"] and "tools" not in step["body"]
    assert step["body"]["response_format"]["type"] == "json_schema"
    # No native tool calls: the model fills a record's fields (write_record), its first step a write.
    assert '"write_record"' in json.dumps(step["body"]["response_format"])
    assert '"write_file"' not in json.dumps(step["body"]["response_format"])
    assert '"list_files"' not in json.dumps(step["body"]["response_format"])
    assert '"list_files"' in json.dumps(again["body"]["response_format"])
    assert step["body"]["temperature"] == 0
    cache = json.loads((ws.state_dir / "cache" / "llm-capabilities.json").read_text())
    assert list(cache["models"].values()) == [{"json_schema": True, "tools": False}]


def test_auto_mode_uses_native_tool_calls_when_the_model_makes_them(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    with openai_tool_stub({"folder": "memory"}, 50, 5, tools=True) as (url, requests):
        ws.config_path.write_text(f'[llm]\nconsolidation_model = "openai-chat:local"\nbase_url = "{url}"\n'
                                  "max_requests = 2\n")
        result = run_yoi("phase2", "--engine", "llm", "--flush", "--dry-run", "--json", "--workspace", str(ws.root))
    # The stub calls list_files forever: the request limit stops the run cleanly.
    assert result.returncode == 1, result.stderr
    assert [bool(r["body"].get("tools")) for r in requests[2:]] == [True, True]
    assert "request_limit of 2" in result.stdout + result.stderr


def test_phase1_no_valid_answer_is_a_stop_not_an_unreadable_log(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    with openai_tool_stub({"decisions": "not a list"}, 40, 4) as (url, requests):
        _server_config(ws, url)
        result = run_yoi("phase1", "--engine", "llm", "--force", "--json", "--workspace", str(ws.root),
                         str(_log(tmp_path)))
    assert result.returncode == 1, result.stderr
    [item] = json.loads(result.stdout)
    assert item["status"] == "stopped" and "gave no valid answer" in item["message"]
    assert "Traceback" not in result.stderr and "gave no valid answer" in result.stderr
    assert len(requests) == 2 + 3  # the probe, then one try and two retries (llm.output_retries)
    assert list_staging(ws) == []


def test_phase1_stop_keeps_the_staging_of_earlier_chunks_and_the_pointer_after_them(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[phase1]\nchunk_tokens = 501\n")
    from yoi_tui.core.sessions.model import Entry
    from yoi_tui.core.sessions.native import write_log

    entries = [Entry(index=i, role="user" if i % 2 == 0 else "assistant", kind="message",
                     text=f"use option {i} " + "x" * 1200) for i in range(6)]
    log = tmp_path / "long.jsonl"
    write_log(log, "sess-long", entries)
    answers: list[Any] = [{"decisions": [{"title": "Use option 0", "options": [], "chosen": "0", "rationale": "r"}],
                           "discussions": [], "attempts": [], "requests": []}]

    def respond(messages: Any, info: Any) -> ModelResponse:
        from pydantic_ai.messages import ToolCallPart

        answer = answers[0] if len(answers) == 1 and not getattr(respond, "used", False) else {"decisions": 3}
        respond.used = True  # type: ignore[attr-defined]
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])

    result = run_session(ws, log, LlmEngine(ws, model=FunctionModel(respond, model_name="flaky")), force=True)
    assert result.status == "stopped" and len(result.staging) == 1
    assert "the 1 staging file(s) written before it are kept" in result.message
    from yoi_tui.core.phase1.pointer import read_pointer

    assert read_pointer(ws, "sess-long") == result.staging[0].range[1]


def test_hosted_providers_are_known_and_explicit_modes_skip_the_probe(tmp_path: Path) -> None:
    from yoi_tui.core.runs.llm_probe import capabilities, output_mode, tool_mode
    from yoi_tui.core.store.config import LlmConfig

    # No server is reachable at this URL: anything that probed would raise.
    closed = "http://127.0.0.1:9/v1"
    assert capabilities(None, "openai:gpt-4.1", LlmConfig()).tools
    assert capabilities(None, "anthropic:claude-sonnet-4-5", LlmConfig()).tools
    explicit = LlmConfig(base_url=closed, output_mode="prompted", tool_mode="structured")
    assert output_mode(None, "openai-chat:local", explicit) == "prompted"
    assert tool_mode(None, "openai-chat:local", explicit) == ("structured", "prompted")
    assert tool_mode(None, "openai-chat:local", LlmConfig(base_url=closed, tool_mode="native")) == ("native", "tool")
    ws = make_ws(tmp_path)
    ws.config_path.write_text(f'[llm]\nextract_model = "openai-chat:local"\nbase_url = "{closed}"\n')
    result = run_yoi("phase1", "--engine", "llm", "--force", "--workspace", str(ws.root), str(_log(tmp_path)))
    assert result.returncode == 2 and "cannot reach the model server" in result.stderr
    assert "llm.output_mode" in result.stderr and "Traceback" not in result.stderr


def test_an_answer_cut_off_at_the_cap_is_retried_asking_for_a_shorter_one(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text('[llm]\noutput_mode = "prompted"\n')  # JSON text, as from a local server
    seen: list[str] = []
    good = {"decisions": [], "discussions": [], "attempts": [],
            "requests": [{"intent": "add", "target": "cache.py", "summary": "add a cache"}]}

    def respond(messages: Any, info: Any) -> ModelResponse:
        seen.append(str(messages[-1].parts[-1].content))
        if len(seen) == 1:  # a long answer the cap cut off
            return ModelResponse(parts=[TextPart('{"requests": [{"intent": "ad')], finish_reason="length")
        return ModelResponse(parts=[TextPart(json.dumps(good))])

    result = run_session(ws, _log(tmp_path), LlmEngine(ws, model=FunctionModel(respond, model_name="long")), force=True)
    assert result.status == "written" and len(seen) == 2
    assert seen[1].startswith("Your previous answer was cut off") and "[0] user: add a cache" in seen[1]

    # Structured steps: a cut-off step is asked again, shorter; always cut off, the run stops cleanly.
    ws2, staging_id = _ws(tmp_path / "p2")
    cut = ModelResponse(parts=[TextPart('{"tool": "write_file", "arguments": {"path": "memory/dec')],
                        finish_reason="length")
    script = Script([cut, json_call("write_file", path=REL, content=GOOD, staging_ids=[staging_id]), json_done()],
                    structured=True)
    assert run_phase2(ws2, engine="llm", flush=True, model=script.model()).rounds[0].status == "applied"
    assert any(p.startswith("Your previous answer was cut off") for p in script.prompts)
    ws3, _ = _ws(tmp_path / "p3")
    report = run_phase2(ws3, engine="llm", flush=True, model=FunctionModel(lambda m, i: cut))
    assert report.rounds[0].status == "aborted" and report.exit_code == 1 and len(list_staging(ws3)) == 1
