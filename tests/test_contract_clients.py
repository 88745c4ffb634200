"""Contract tests: the REAL Claude Code and Codex drive yoi's whole memory loop (issue 23).

Each test installs the pinned client from npm (``real_clients``), sets up a project the way a user
would (``git init``, ``yoi init``, ``yoi install <client> --yes``, two knowledge records), and runs
the client headless with a throw-away home against the scripted model server (``scripted_model``;
the model boundary is the only double). The prompt names ``#config-layout``; the scripted model
calls yoi's ``knowledge_search`` MCP tool, runs ``python3 check.py`` (fails), creates
``config.txt``, runs the check again (passes) and answers. Then, per client:

- the first model request carries yoi's resident context and the expanded ``#config-layout``;
- yoi's MCP tools are offered in that first request, and the call returned records;
- usage events and the token clock are under one session id, the client's;
- every yoi hook exited 0 and nothing of yoi's reached the user's console;
- ``yoi phase1`` on the transcript the client wrote finds the request and the failed-then-fixed
  attempt without a warning, and ``yoi phase2 --flush`` writes the request record.

A client that cannot run here (no npm, registry unreachable, binary refusing to start) is skipped
with the reason. They run in ``.ci/run`` (marker ``contract``); locally:
``pytest -m contract tests/test_contract_clients.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from real_clients import ClientUnavailable, client_binary, isolated_env
from scripted_model import (
    CHECK_COMMAND,
    CHECK_SCRIPT,
    FINAL_TEXT,
    FIX_FILE,
    FIX_TEXT,
    RefusingProxy,
    Request,
    ScriptedModel,
)
from support import REPO, knowledge_meta, run_yoi, write_record

from yoi_tui.core.store.workspace import find_workspace
from yoi_tui.core.text.markers import CONTEXT_BEGIN, knowledge_begin

pytestmark = pytest.mark.contract

PROMPT = "Make the check pass, see #config-layout"
SLUG_BODY = "config.txt holds the mode: SLUG-MARKER-4412."
RESIDENT_LINE = "#release-checklist — Steps to cut a release; read before tagging."
CLIENT_TIMEOUT = 240


def _binary(name: str) -> Path:
    try:
        return client_binary(name)
    except ClientUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel().start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def proxy() -> Iterator[RefusingProxy]:
    server = RefusingProxy().start()
    yield server
    server.close()


def _yoi_env() -> dict[str, str]:
    """What the hooks and the MCP server need to import this checkout (the .ci venv installs it)."""
    return {"PYTHONPATH": str(REPO)}


def _project(tmp_path: Path, client: str, home_env: dict[str, str]) -> Path:
    """A project as a user sets it up: git repository, ``yoi init``, ``yoi install <client> --yes``."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "check.py").write_text(CHECK_SCRIPT, encoding="utf-8")
    for args in (("init",), ("install", client, "--yes")):
        done = run_yoi(*args, cwd=project, env=home_env)
        assert done.returncode == 0, done.stderr
    ws = find_workspace(project)
    write_record(ws, "knowledge/release-checklist.md",
                 knowledge_meta(model_invokation=True, description="Steps to cut a release; read before tagging."),
                 "\nRun the check before tagging a release: RELEASE-MARKER-7731.\n")
    write_record(ws, "knowledge/config-layout.md", knowledge_meta(description="Where the config lives."),
                 f"\n{SLUG_BODY}\n")
    return project


def _first_agentic(model: ScriptedModel) -> Request:
    requests = model.agentic_requests()
    assert requests, f"the client sent no conversation request; got {[r.path for r in model.requests]}"
    return requests[0]


def _offered(request: Request) -> set[str]:
    """Tools the model is offered: the tool list, plus tools announced as deferred. Claude Code 2.1.x
    lists MCP tools in a system reminder (loaded through ToolSearch; a direct call works too); Codex
    0.169 lists MCP namespaces (``- mcp__yoi: …``) in a ``<tools>`` developer block, loaded through
    its client-side ``tool_search`` tool."""
    names = set(request.tools)
    text = request.text.replace("\\n", "\n")
    marker = "deferred tools are now available"
    if marker in text:
        listing = text.split(marker, 1)[1].split("</system-reminder>", 1)[0]
        names.update(part.strip() for part in listing.splitlines()[1:] if part.strip())
    if "Deferred tool namespaces:" in text and any(t.get("type") == "tool_search" for t in request.body.get("tools", [])):
        listing = text.split("Deferred tool namespaces:", 1)[1].split("</tools>", 1)[0]
        names.update(line[2:].split(":", 1)[0].strip() for line in listing.splitlines() if line.startswith("- "))
    return names


def _settle(project: Path, env: dict[str, str] | None = None, limit: float = 120.0) -> None:
    """Wait until the hooks' background work (``yoi status``, where it exists) has finished."""
    import time

    deadline = time.monotonic() + limit
    while True:
        done = run_yoi("status", "--json", cwd=project, env=env)
        try:
            state = json.loads(done.stdout)
        except ValueError:
            return  # no 'yoi status' here: the hooks did their work in the foreground
        if not state.get("pending") and not state.get("worker_running"):
            return
        assert time.monotonic() < deadline, f"the hooks' background work did not finish: {done.stdout}"
        time.sleep(0.5)


def _usage_sessions(project: Path) -> dict[str, list[dict[str, Any]]]:
    folder = project / ".yoi" / "usage"
    return {path.stem: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            for path in sorted(folder.glob("*.jsonl"))}


def _check_phase1_and_phase2(tmp_path: Path, transcript: Path) -> None:
    """``yoi phase1`` on (a copy of) the client's own transcript in a fresh workspace, then a flush."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert run_yoi("init", cwd=fresh).returncode == 0
    copy = tmp_path / transcript.name
    shutil.copy(transcript, copy)
    done = run_yoi("phase1", "--force", "--json", str(copy), cwd=fresh)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", f"phase1 warned on the client's transcript:\n{done.stderr}"
    staged = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((fresh / "memory" / "_staging").glob("*.json"))]
    requests = [r for s in staged for r in s["activity"]["requests"]]
    attempts = [a for s in staged for a in s["activity"]["attempts"]]
    # The request as a whole sentence, and what the agent said it did (issue 26's summaries).
    assert [r["summary"] for r in requests] == [f"{PROMPT}."], requests
    assert FIX_FILE in requests[0].get("done", ""), requests
    assert len(attempts) == 1, attempts
    assert CHECK_COMMAND in attempts[0]["trial"] and attempts[0]["outcome"] == "success", attempts
    assert FIX_FILE in attempts[0]["result"], attempts
    flushed = run_yoi("phase2", "--flush", cwd=fresh)
    assert flushed.returncode == 0, flushed.stderr
    records = sorted((fresh / "memory" / "requests").glob("*.md"))
    assert records and any("Make the check pass" in p.read_text(encoding="utf-8") for p in records), \
        (flushed.stdout, flushed.stderr)


def _check_first_request(model: ScriptedModel) -> Request:
    first = _first_agentic(model)
    assert CONTEXT_BEGIN in first.text and RESIDENT_LINE in first.text, "resident context missing"
    assert knowledge_begin("config-layout") in first.text.replace('\\"', '"') and SLUG_BODY in first.text, \
        "#config-layout was not expanded into the first request"
    return first


def _check_mcp_offered(first: Request, search_tool: str) -> None:
    assert search_tool in _offered(first), f"yoi's MCP tools not in the first request: {sorted(_offered(first))}"


def _check_one_session(project: Path, session_id: str) -> None:
    _settle(project)
    sessions = _usage_sessions(project)
    assert list(sessions) == [session_id], f"usage under several ids: {sorted(sessions)}"
    types = [e["type"] for e in sessions[session_id]]
    assert "tokens" in types and "inject" in types, types
    # The #slug expansion (hook) and the knowledge_search hits (the MCP call: the script runs no
    # `yoi search`) are invokes of the same session.
    vias = {e.get("via") for e in sessions[session_id] if e["type"] == "invoke"}
    assert {"expand", "search"} <= vias, f"invokes by: {vias}"
    clocks = sorted(p.stem for p in (project / ".yoi" / "state" / "token-clock").glob("*.json"))
    assert clocks == [session_id], clocks


# --- Claude Code -------------------------------------------------------------------------------------


class ClaudeRun:
    """One headless run of the real Claude Code (``claude -p``) in a fresh project."""

    def __init__(self, tmp_path: Path, model: ScriptedModel, proxy: RefusingProxy) -> None:
        self.model = model
        self.claude = _binary("claude-code")
        self.home = tmp_path / "home"
        self.env = isolated_env(self.home, proxy.url, {
            "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-ant-contract-test", **_yoi_env()})
        self.project = _project(tmp_path, "claude-code", {"HOME": str(self.home), **_yoi_env()})
        # As root Claude Code refuses --dangerously-skip-permissions: allow the tools by name instead.
        self.done = subprocess.run(
            [str(self.claude), "-p", PROMPT, "--output-format", "json", "--model", "claude-sonnet-4-5",
             "--allowedTools", "Bash Read Edit Write mcp__yoi"],
            cwd=self.project, env=self.env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
        assert self.done.returncode == 0, (self.done.stdout[-2000:], self.done.stderr[-2000:])
        self.result = json.loads(self.done.stdout)
        self.session_id = self.result["session_id"]
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{self.session_id}.jsonl"))
        assert found, "Claude Code wrote no transcript"
        self.transcript = found[0]
        self.lines = [json.loads(line) for line in self.transcript.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def claude_run(tmp_path_factory: pytest.TempPathFactory, proxy: RefusingProxy) -> Iterator[ClaudeRun]:
    server = ScriptedModel().start()
    try:
        yield ClaudeRun(tmp_path_factory.mktemp("claude"), server, proxy)
    finally:
        server.close()


def test_claude_code_runs_the_script_offline(claude_run: ClaudeRun) -> None:
    assert claude_run.result["result"] == FINAL_TEXT and claude_run.result["is_error"] is False
    assert (claude_run.project / FIX_FILE).read_text(encoding="utf-8") == FIX_TEXT
    assert len(claude_run.model.agentic_requests()) == 5


def test_claude_code_first_request_has_context_and_expansion(claude_run: ClaudeRun) -> None:
    _check_first_request(claude_run.model)


def test_claude_code_first_request_offers_yoi_mcp_tools(claude_run: ClaudeRun) -> None:
    _check_mcp_offered(_first_agentic(claude_run.model), "mcp__yoi__knowledge_search")
    results = [block for line in claude_run.lines if line.get("type") == "user"
               for block in (line["message"]["content"] if isinstance(line["message"]["content"], list) else [])
               if block.get("type") == "tool_result" and block.get("tool_use_id") == "toolu_0001"]
    assert results and "release-checklist" in json.dumps(results) and not results[0].get("is_error"), results


def test_claude_code_hooks_exit_zero_and_stay_off_the_console(claude_run: ClaudeRun) -> None:
    hooks = [line["attachment"] for line in claude_run.lines if line.get("type") == "attachment"
             and str(line["attachment"].get("type", "")).startswith("hook_")]
    assert {h.get("hookEvent") for h in hooks} >= {"SessionStart", "UserPromptSubmit"}, hooks
    assert all(h["type"] == "hook_success" and h.get("exitCode", 0) == 0 for h in hooks), hooks
    # A Stop hook that prints nothing leaves no attachment, only the summary of the Stop hooks run.
    summaries = [line for line in claude_run.lines if line.get("subtype") == "stop_hook_summary"]
    assert summaries and all(not s.get("hookErrors") and any("hook claude-code" in i.get("command", "")
                                                            for i in s.get("hookInfos", [])) for s in summaries), summaries
    _settle(claude_run.project)
    status = run_yoi("status", "--json", cwd=claude_run.project)
    assert status.returncode != 1, status.stdout  # 1: a background job failed (2: no 'yoi status' yet)
    assert "yoi" not in claude_run.done.stderr, claude_run.done.stderr


def test_claude_code_usage_and_token_clock_under_one_session(claude_run: ClaudeRun) -> None:
    _check_one_session(claude_run.project, claude_run.session_id)


def test_claude_code_transcript_feeds_phase1_and_phase2(claude_run: ClaudeRun, tmp_path: Path) -> None:
    _check_phase1_and_phase2(tmp_path, claude_run.transcript)


# --- Codex -------------------------------------------------------------------------------------------

CODEX_MODEL = "gpt-5.5"  # a model 0.169 knows (else it warns "Model metadata ... not found")


class CodexRun:
    """One headless run of the real Codex (``codex exec --json``) in a fresh, trusted project."""

    def __init__(self, tmp_path: Path, model: ScriptedModel, proxy: RefusingProxy) -> None:
        self.model = model
        self.codex = _binary("codex")
        self.home = tmp_path / "home"
        self.env = isolated_env(self.home, proxy.url, {
            **_yoi_env(), "PATH": f"{self.codex.parent}:{isolated_env(self.home, proxy.url)['PATH']}"})
        project = tmp_path / "proj"
        # The user's own Codex config: the model provider (a project config cannot set it) and the
        # folder trusted (Codex asks that on first start; without it Codex ignores .codex/).
        (self.home / ".codex" / "config.toml").write_text(
            f'model = "{CODEX_MODEL}"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
            f'sandbox_mode = "danger-full-access"\n\n[model_providers.scripted]\nname = "scripted"\n'
            f'base_url = "{model.url}/v1"\nwire_api = "responses"\nrequires_openai_auth = false\n\n'
            f'[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n', encoding="utf-8")
        self.project = _project(tmp_path, "codex", self.env)
        assert self.project == project
        self.check = run_yoi("install", "codex", "--check", cwd=self.project, env=self.env)
        self.done = subprocess.run([str(self.codex), "exec", "--json", PROMPT], cwd=self.project, env=self.env,
                                   capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL)
        assert self.done.returncode == 0, (self.done.stdout[-2000:], self.done.stderr[-2000:])
        self.events = [json.loads(line) for line in self.done.stdout.splitlines() if line.startswith("{")]
        self.session_id = next(e["thread_id"] for e in self.events if e.get("type") == "thread.started")
        found = sorted((self.home / ".codex" / "sessions").glob(f"*/*/*/rollout-*-{self.session_id}.jsonl"))
        assert found, "Codex wrote no rollout"
        self.transcript = found[0]
        self.lines = [json.loads(line) for line in self.transcript.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def codex_run(tmp_path_factory: pytest.TempPathFactory, proxy: RefusingProxy) -> Iterator[CodexRun]:
    server = ScriptedModel().start()
    try:
        yield CodexRun(tmp_path_factory.mktemp("codex"), server, proxy)
    finally:
        server.close()


def test_codex_install_trusts_its_hooks_and_check_agrees(codex_run: CodexRun) -> None:
    config = (codex_run.home / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert "trusted_hash" in config, "yoi install codex did not trust its hooks"
    assert codex_run.check.returncode == 0, codex_run.check.stdout + codex_run.check.stderr
    project_config = (codex_run.project / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert "codex_hooks" not in project_config  # hooks are on by default in 0.169: no deprecated flag


def test_codex_check_reports_hooks_codex_would_skip(codex_run: CodexRun) -> None:
    config = codex_run.home / ".codex" / "config.toml"
    trusted = config.read_text(encoding="utf-8")
    try:
        config.write_text(trusted.split("\n[hooks.state.")[0] + "\n", encoding="utf-8")  # as if declined
        check = run_yoi("install", "codex", "--check", cwd=codex_run.project, env=codex_run.env)
        assert check.returncode == 1 and "Codex will skip 4 of yoi's hooks" in check.stdout, check.stdout
    finally:
        config.write_text(trusted, encoding="utf-8")


def test_codex_runs_the_script_offline(codex_run: CodexRun) -> None:
    messages = [e["item"] for e in codex_run.events if e.get("type") == "item.completed"]
    assert [m["text"] for m in messages if m.get("type") == "agent_message"] == [FINAL_TEXT]
    assert not [m for m in messages if m.get("type") == "error"], "Codex reported errors (deprecated config?)"
    assert (codex_run.project / FIX_FILE).read_text(encoding="utf-8") == FIX_TEXT
    searched = any(line.get("type") == "response_item" and line["payload"].get("type") == "tool_search_call"
                   for line in codex_run.lines)  # loading the deferred yoi namespace is one request more
    assert len(codex_run.model.agentic_requests()) == 5 + searched


def test_codex_first_request_has_context_and_expansion(codex_run: CodexRun) -> None:
    _check_first_request(codex_run.model)


def test_codex_first_request_offers_yoi_mcp_tools(codex_run: CodexRun) -> None:
    first = _first_agentic(codex_run.model)
    assert any("yoi" in name for name in _offered(first)), \
        f"yoi's MCP tools not in the first request: {sorted(_offered(first))}"
    calls = {line["payload"].get("call_id") for line in codex_run.lines if line.get("type") == "response_item"
             and line["payload"].get("name") == "knowledge_search"}
    outputs = [line["payload"] for line in codex_run.lines if line.get("type") == "response_item"
               and line["payload"].get("type") == "function_call_output" and line["payload"].get("call_id") in calls]
    assert outputs and "release-checklist" in json.dumps(outputs[0]), outputs[:1]


def test_codex_hooks_ran_and_stay_off_the_console(codex_run: CodexRun) -> None:
    # Codex logs what a hook added as a developer message marked hooks.additional_context; a hook
    # that failed or printed would show on exec's stderr (Codex reports hook failures there).
    added = [line["payload"] for line in codex_run.lines if line.get("type") == "response_item"
             and "hooks.additional_context" in json.dumps(line["payload"].get("internal_chat_message_metadata_passthrough"))]
    assert len(added) == 2, added  # SessionStart's resident context, UserPromptSubmit's #config-layout
    noisy = [line for line in codex_run.done.stderr.splitlines() if "yoi hook" in line or "hook" in line.lower()]
    assert not noisy, noisy
    _settle(codex_run.project, codex_run.env)
    status = run_yoi("status", "--json", cwd=codex_run.project, env=codex_run.env)
    assert status.returncode != 1, status.stdout  # 1: a background job failed (2: no 'yoi status' yet)


def test_codex_usage_and_token_clock_under_one_session(codex_run: CodexRun) -> None:
    _check_one_session(codex_run.project, codex_run.session_id)


def test_codex_rollout_feeds_phase1_and_phase2(codex_run: CodexRun, tmp_path: Path) -> None:
    _check_phase1_and_phase2(tmp_path, codex_run.transcript)
