"""Cleaning of normalised entries: injected text removed, secrets redacted, indices kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from yoi_tui.core.sessions import Entry, clean_entries, clean_text, load_session, native
from yoi_tui.core.text.markers import CONTEXT_BEGIN, CONTEXT_END, KNOWLEDGE_END, knowledge_begin

_LOCAL = Path(__file__).parent / "data" / "samples"
_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "samples"
SAMPLES = _LOCAL if _LOCAL.is_dir() else _SHARED
ALL = sorted(p.name for p in SAMPLES.glob("*.jsonl"))

CC_FOUR = "claude-code_v2.0.27_agentcmd_full-session-four.jsonl"
CC_AGTRACE = "claude-code_v2.0.28_agtrace_claude_session.jsonl"
CC_SUBAGENT = "claude-code_v2.1.38_spotter_subagent_agent-afc096d.jsonl"
CC_TOOL_HEAVY = "claude-code_v2.1.38_spotter_tool_heavy.jsonl"
CODEX_066 = "codex_0.66.0_agtrace_codex_session.jsonl"
CODEX_104 = "codex_0.104.0-alpha.1_localpush_rollout-2026-02-23T20-34-25_redacted.jsonl"


def _dump(entries: list[Entry]) -> str:
    return json.dumps([e.model_dump() for e in entries], ensure_ascii=False)


@pytest.mark.parametrize("name", ALL)
def test_cleaning_keeps_indices_and_never_adds_entries(name: str) -> None:
    raw = load_session(SAMPLES / name).entries
    cleaned = clean_entries(raw)
    assert 0 < len(cleaned) <= len(raw)
    assert [e.index for e in cleaned] == sorted({e.index for e in cleaned})
    for entry in cleaned:
        original = raw[entry.index]
        assert (entry.role, entry.kind, entry.tool_name, entry.is_error) == (
            original.role,
            original.kind,
            original.tool_name,
            original.is_error,
        )
    # Tool calls and results are never dropped, even with empty text.
    tools = [e.index for e in raw if e.kind in ("tool_call", "tool_result", "rejected")]
    assert tools == [e.index for e in cleaned if e.kind in ("tool_call", "tool_result", "rejected")]


@pytest.mark.parametrize("name", ALL)
def test_cleaning_removes_harness_text_from_samples(name: str) -> None:
    cleaned = clean_entries(load_session(SAMPLES / name).entries)
    blob = _dump(cleaned)
    for marker in (
        "<system-reminder>",
        "<environment_context>",
        "<local-command-caveat>",
        "Caveat: The messages below were generated",
        "\\u001b[",
    ):
        assert marker not in blob
    assert not any(e.kind in ("meta", "context", "developer", "usage", "compact_summary") for e in cleaned)


@pytest.mark.parametrize("name", ALL)
def test_cleaning_is_idempotent(name: str) -> None:
    once = clean_entries(load_session(SAMPLES / name).entries)
    assert clean_entries(once) == once


def test_system_reminders_in_read_results_are_cut_but_file_content_stays() -> None:
    raw = load_session(SAMPLES / CC_SUBAGENT).entries
    with_reminder = [e for e in raw if "<system-reminder>" in e.text]
    assert len(with_reminder) == 29
    cleaned = {e.index: e for e in clean_entries(raw)}
    for entry in with_reminder:
        after = cleaned[entry.index].text
        assert after == entry.text.split("<system-reminder>")[0].rstrip()
        assert "malware" not in after
    repo = next(cleaned[e.index] for e in with_reminder if "defmodule Spotter.Repo do" in e.text)
    assert repo.text.startswith("     1→defmodule Spotter.Repo do")


def test_codex_context_and_usage_entries_are_dropped() -> None:
    raw = load_session(SAMPLES / CODEX_066).entries
    cleaned = clean_entries(raw)
    dropped = sorted({e.index for e in raw} - {e.index for e in cleaned})
    assert [raw[i].kind for i in dropped] == ["context"] + ["usage"] * 7
    assert [e.text for e in cleaned if e.role == "user"] == [
        "add myapp directory and create myapp/hoge.py which shows result of print(1+1).",
        "cd to myapp and run python hoge.py",
    ]
    assert len(clean_entries(load_session(SAMPLES / CODEX_104).entries)) == 23  # 4 developer + 6 usage gone


def test_claude_meta_caveats_dropped_commands_kept() -> None:
    cleaned = clean_entries(load_session(SAMPLES / CC_TOOL_HEAVY).entries)
    assert [(e.kind, e.text) for e in cleaned if e.role != "tool" and e.kind != "tool_call"][:8] == [
        ("message", "start phoenix in background"),
        ("message", "Phoenix server is starting in the background.\n\nLet me check the MCP servers status."),
        ("interrupt", "[Request interrupted by user]"),
        ("command", "/mcp"),
        ("command_output", "Reconnected to tidewave."),
        ("command", "/mcp"),
        ("command_output", "MCP dialog dismissed"),
        (
            "message",
            "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
            "websearch xterm.js tmux interactions",
        ),
    ]


def test_vitest_colour_codes_are_stripped() -> None:
    raw = load_session(SAMPLES / CC_FOUR).entries
    failure = next(e for e in raw if e.is_error)
    assert "\x1b[" in failure.text
    after = next(e for e in clean_entries(raw) if e.index == failure.index)
    assert "\x1b" not in after.text and "Failed Tests 1" in after.text


def test_yoi_blocks_are_removed(tmp_path: Path) -> None:
    context = f"{CONTEXT_BEGIN}\n# summary\nWe use uv.\n#uv-usage — how to run\n{CONTEXT_END}"
    knowledge = f"{knowledge_begin('uv-usage')}\nRun `uv sync` first.\n{KNOWLEDGE_END}"
    entries = [
        Entry(index=0, role="system", text=context),
        Entry(index=1, role="user", text=f"please fix #uv-usage\n\n{knowledge}\n\nthanks"),
        Entry(index=2, role="tool", tool_name="shell", text=f"$ yoi context\n{context}"),
    ]
    path = tmp_path / "n.jsonl"
    native.write_log(path, "s", entries)
    cleaned = clean_entries(load_session(path).entries)
    assert [(e.index, e.text) for e in cleaned] == [
        (1, "please fix #uv-usage\n\nthanks"),
        (2, "$ yoi context"),
    ]


def test_harness_blocks_inside_text() -> None:
    agents = "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nAlways run make lint.\n</INSTRUCTIONS>"
    env = "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"
    older = "<user_instructions>\nPrefer pnpm.\n</user_instructions>"
    reminder = "<system-reminder>\nContents of /repo/CLAUDE.md (project instructions):\nUse tabs.\n</system-reminder>"
    text = f"{agents}\n\n{env}\n\n{older}\n\nadd a login page\n{reminder}"
    assert clean_text(text) == "add a login page"
    ide = "# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\nrename foo to bar\n"
    assert clean_text(ide) == "rename foo to bar"
    assert clean_text("plain words stay as they are  ") == "plain words stay as they are  "


def test_entry_emptied_by_cleaning_is_dropped_others_keep_indices() -> None:
    entries = [
        Entry(index=0, role="user", text="<system-reminder>only a reminder</system-reminder>"),
        Entry(index=1, role="user", text="real question"),
        Entry(index=2, role="assistant", kind="tool_call", tool_name="Bash", tool_input={"command": "true"}),
        Entry(index=3, role="tool", kind="tool_result", tool_name="Bash", text="", is_error=False),
        Entry(index=4, role="assistant", kind="usage", input_tokens=10),
    ]
    assert [e.index for e in clean_entries(entries)] == [1, 2, 3]


# -- planted secrets ------------------------------------------------------------------------------

OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-dCbA_12345"
GITHUB = "ghp_" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
AWS_ID = "AKIA" + "Q3EGRT7YH2BXN4KM"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
PEM_BODY = "MIIEpAIBAAKCAQEAx9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZYYXXWWVVUU"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY[::-1]}\n-----END RSA PRIVATE KEY-----"
PASSWORD = "Tr0ub4dor&3x"
BEARER = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
URL_PASS = "pg" + "Pa55w0rdXYZ"
SECRETS = [OPENAI, ANTHROPIC, GITHUB, AWS_ID, SLACK, PEM_BODY, PEM_BODY[::-1], PASSWORD, BEARER, URL_PASS]


def _plant_claude(lines: list[dict]) -> list[dict]:
    """Put secrets into a prompt, a tool input, a tool result and an assistant reply."""
    for line in lines:
        message = line.get("message") or {}
        content = message.get("content")
        if line.get("type") == "user" and content == "cd to myapp and run python hoge.py":
            message["content"] = f"use my key {OPENAI} and password={PASSWORD} to run it"
        if line.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_use" and block["name"] == "Bash":
                    block["input"]["command"] = (
                        f"export GITHUB_TOKEN={GITHUB} && curl -H 'Authorization: Bearer {BEARER}' x"
                    )
                if block.get("type") == "text" and block["text"].startswith("Done!"):
                    block["text"] += f"\nAlso found {AWS_ID} in config and {SLACK} in .env."
        if line.get("type") == "user" and isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result" and block.get("content") == "2":
                    block["content"] = f"2\n{PEM}\npostgres://app:{URL_PASS}@db:5432/app\n{ANTHROPIC}"
    return lines


def _plant_codex(lines: list[dict]) -> list[dict]:
    for line in lines:
        payload = line.get("payload") or {}
        if payload.get("type") == "user_message" and payload["message"].startswith("cd to myapp"):
            payload["message"] += f" (my token: {BEARER}, key {OPENAI})"
        if payload.get("type") == "function_call" and "python3" in payload["arguments"]:
            args = json.loads(payload["arguments"])
            args["command"] = f"ANTHROPIC_API_KEY={ANTHROPIC} python3 hoge.py --password {PASSWORD}"
            payload["arguments"] = json.dumps(args)
        if payload.get("type") == "custom_tool_call":
            payload["input"] += f"\n+DB_URL = 'postgres://app:{URL_PASS}@db/app'\n+KEY = '{GITHUB}'\n+{PEM}"
        if payload.get("type") == "function_call_output" and "Exit code: 0" in payload["output"]:
            payload["output"] += f"{AWS_ID}\n{SLACK}\n"
    return lines


@pytest.mark.parametrize(("name", "plant"), [(CC_AGTRACE, _plant_claude), (CODEX_066, _plant_codex)])
def test_planted_secrets_never_survive_cleaning(
    name: str, plant: Callable[[list[dict]], list[dict]], tmp_path: Path
) -> None:
    lines = [json.loads(raw) for raw in (SAMPLES / name).read_text(encoding="utf-8").splitlines()]
    target = tmp_path / name
    target.write_text("".join(json.dumps(obj) + "\n" for obj in plant(lines)), encoding="utf-8")
    raw = load_session(target)
    assert raw.problems == []
    raw_blob = _dump(raw.entries)
    planted = [secret for secret in SECRETS if secret in raw_blob]
    assert len(planted) == len(SECRETS), "every secret must reach the parsed entries"
    cleaned = clean_entries(raw.entries)
    blob = _dump(cleaned)
    for secret in SECRETS:
        assert secret not in blob
    assert blob.count("[REDACTED:") >= len(SECRETS) - 1  # the PEM body lines go as one block
    assert len(cleaned) == len(clean_entries(load_session(SAMPLES / name).entries))
