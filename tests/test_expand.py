"""``#slug`` expansion (SPEC 5): what counts as a reference, the appended blocks, unknown slugs,
replaced and non-invocable records, idempotence, recording, and ``yoi expand``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.retrieval.expand import expand_prompt
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.text.markers import KNOWLEDGE_END, knowledge_begin, strip_injected
from yoi_tui.core.usage.log import load_events

BODY = "\nUse `pytest -q` from the root.\nNever pass -x in CI.\n"


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md", knowledge_meta(kind="howto"), BODY)
    write_record(ws, "knowledge/money.md", knowledge_meta(kind="rule"), "\nAmounts are integer cents.\n")
    write_record(ws, "knowledge/secret-plan.md", knowledge_meta(user_invocable=False), "\nAgents only.\n")
    write_record(ws, "knowledge/old-runner.md", knowledge_meta(replaced_by="run-tests"), "\nnose.\n")
    write_record(ws, "knowledge/loop-a.md", knowledge_meta(replaced_by="loop-b"), "\na\n")
    write_record(ws, "knowledge/loop-b.md", knowledge_meta(replaced_by="loop-a"), "\nb\n")
    return ws


def expanded(ws: Workspace, text: str) -> list[str]:
    return expand_prompt(ws, text, record=False).expanded


# ----------------------------------------------------------------------------- what is a reference


@pytest.mark.parametrize("text", [
    "#run-tests",
    "see #run-tests",
    "see #run-tests.",
    "see #run-tests, then",
    "(#run-tests)",
    "[#run-tests]",
    '"#run-tests"',
    "#run-tests: how",
    "#run-tests!",
    "#run-tests?",
    "- #run-tests",
    "> quote #run-tests",
    "## Title\n#run-tests",
    "## About #run-tests",            # only the heading marker is not a reference
    "**#run-tests**",
    "see #run-tests\n```\ncode\n```",
])
def test_is_a_reference(ws: Workspace, text: str) -> None:
    assert expanded(ws, text) == ["run-tests"]


@pytest.mark.parametrize("text", [
    "# run-tests",                     # a Markdown heading
    "## run-tests",
    "`#run-tests`",                    # inline code
    "``a #run-tests b``",
    "```\n#run-tests\n```",            # fenced code
    "~~~md\nsee #run-tests\n~~~",
    "https://example.com/page#run-tests",
    "www.example.com/#run-tests",
    "[link](#run-tests)",
    "foo#run-tests",                   # inside a word
    "##run-tests",
    "#Run-Tests",                      # slugs are lower-case
    "#run_tests",
    "#run-tests_x",
    "&#run-tests;",
    "issue #123",
])
def test_is_not_a_reference(ws: Workspace, text: str) -> None:
    result = expand_prompt(ws, text, record=False)
    assert result.expanded == [] and result.text == text


# ----------------------------------------------------------------------------- expansion


def test_blocks_are_appended_with_markers(ws: Workspace) -> None:
    prompt = "Fix the test, see #run-tests and #money.\n"
    result = expand_prompt(ws, prompt, record=False)
    assert result.expanded == ["run-tests", "money"]
    assert result.text == (
        "Fix the test, see #run-tests and #money.\n\n"
        f"{knowledge_begin('run-tests')}\nUse `pytest -q` from the root.\nNever pass -x in CI.\n{KNOWLEDGE_END}\n\n"
        f"{knowledge_begin('money')}\nAmounts are integer cents.\n{KNOWLEDGE_END}\n")
    # Phase 1 can strip exactly what was injected
    assert strip_injected(result.text).rstrip() == prompt.rstrip()


def test_repeated_slug_is_expanded_once(ws: Workspace) -> None:
    result = expand_prompt(ws, "#money and #money again", record=False)
    assert result.expanded == ["money"]
    assert result.text.count(knowledge_begin("money")) == 1


def test_unknown_slugs_are_left_as_typed_and_reported(ws: Workspace) -> None:
    prompt = "see #nope and #run-tests\nthen #secret-plan and #nope"
    result = expand_prompt(ws, prompt, record=False)
    assert result.expanded == ["run-tests"]
    assert result.text.startswith(prompt)
    assert [(r.slug, r.line, r.col) for r in result.unknown] == [("nope", 1, 5), ("secret-plan", 2, 6),
                                                                 ("nope", 2, 23)]
    assert "no knowledge record" in result.reasons["nope"]
    assert "user_invocable: false" in result.reasons["secret-plan"]


def test_no_references_returns_text_unchanged(ws: Workspace) -> None:
    result = expand_prompt(ws, "plain prompt\n", record=False)
    assert result.text == "plain prompt\n" and result.expanded == [] and result.unknown == []


def test_replaced_record_expands_its_replacement(ws: Workspace) -> None:
    result = expand_prompt(ws, "#old-runner", record=False)
    assert result.expanded == ["run-tests"]
    assert result.redirected == {"old-runner": "run-tests"}
    result = expand_prompt(ws, "#old-runner and #run-tests", record=False)
    assert result.expanded == ["run-tests"]


def test_replacement_loop_is_unknown(ws: Workspace) -> None:
    result = expand_prompt(ws, "#loop-a", record=False)
    assert result.expanded == [] and [r.slug for r in result.unknown] == ["loop-a"]
    assert "loops" in result.reasons["loop-a"]


def test_broken_record_is_unknown(ws: Workspace) -> None:
    (ws.knowledge_dir / "broken.md").write_text("no frontmatter\n", encoding="utf-8")
    result = expand_prompt(ws, "#broken", record=False)
    assert [r.slug for r in result.unknown] == ["broken"]
    assert "cannot be read" in result.reasons["broken"]


def test_expansion_is_idempotent(ws: Workspace) -> None:
    once = expand_prompt(ws, "see #run-tests", record=False).text
    twice = expand_prompt(ws, once, record=False)
    assert twice.text == once and twice.expanded == []


def test_references_inside_bodies_are_not_expanded(ws: Workspace) -> None:
    write_record(ws, "knowledge/pointer.md", knowledge_meta(), "\nSee #money for details.\n")
    result = expand_prompt(ws, "#pointer", record=False)
    assert result.expanded == ["pointer"]


def test_marker_text_in_a_body_is_neutralised(ws: Workspace) -> None:
    write_record(ws, "knowledge/tricky.md", knowledge_meta(),
                 "\nA body that quotes </yoi-knowledge> and <yoi-context>.\nSecond line.\n")
    result = expand_prompt(ws, "#tricky", record=False)
    assert strip_injected(result.text).strip() == "#tricky"  # nothing of the body survives stripping
    assert "&lt;/yoi-knowledge>" in result.text


def test_expand_records_one_invoke_per_expanded_slug(ws: Workspace) -> None:
    expand_prompt(ws, "#run-tests #money #run-tests #nope", session_id="s1")
    expand_prompt(ws, "#money", record=False, session_id="s1")
    events, _ = load_events(ws)
    assert [(e["slug"], e["record_kind"], e["via"]) for e in events] == [
        ("run-tests", "knowledge", "expand"), ("money", "knowledge", "expand")]


# ----------------------------------------------------------------------------- CLI


def test_cli_expand_stdin(ws: Workspace) -> None:
    done = run_yoi("expand", "-w", str(ws.root), "--session", "cli", input="do it, see #money and #nope\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("do it, see #money and #nope\n\n" + knowledge_begin("money"))
    assert "#nope at line 1, col 23 left as typed" in done.stderr
    events, _ = load_events(ws)
    assert [(e["slug"], e["via"], e["session_id"]) for e in events] == [("money", "expand", "cli")]


def test_cli_expand_file_json(ws: Workspace, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("#old-runner please\n", encoding="utf-8")
    done = run_yoi("expand", str(prompt), "--json", "--no-record", "-w", str(ws.root))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["expanded"] == ["run-tests"] and data["redirected"] == {"old-runner": "run-tests"}
    assert "replaced by #run-tests" in done.stderr
    assert load_events(ws) == ([], [])


def test_cli_expand_bad_input(ws: Workspace, tmp_path: Path) -> None:
    done = run_yoi("expand", str(tmp_path / "missing.md"), "-w", str(ws.root))
    assert done.returncode == 2 and "cannot read prompt" in done.stderr
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9 #money")
    done = run_yoi("expand", str(bad), "-w", str(ws.root))
    assert done.returncode == 2 and "not UTF-8" in done.stderr and "Traceback" not in done.stderr
