"""Resident context (SPEC 5): summary body + ``#slug — description`` index inside markers, the
``inject`` event with its token cost, and ``yoi context``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.retrieval.context import INDEX_INTRO, build_resident_context, resident_context
from yoi_tui.core.retrieval.markers import CONTEXT_BEGIN, CONTEXT_END, strip_injected
from yoi_tui.core.retrieval.usage import estimate_tokens, load_events
from yoi_tui.core.store.workspace import Workspace

SUMMARY = "\n# Invoicing API\n\nFastAPI + Postgres. Money is integer cents.\n"


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, SUMMARY)
    write_record(ws, "knowledge/run-tests.md",
                 knowledge_meta(description="How to run the tests;\n  read before running pytest.",
                                model_invokation=True), "\nbody\n")
    write_record(ws, "knowledge/money.md", knowledge_meta(description="Money rules.", model_invokation=True))
    write_record(ws, "knowledge/not-resident.md", knowledge_meta(description="Only in the index."))
    write_record(ws, "knowledge/old-money.md",
                 knowledge_meta(description="Old money rules.", model_invokation=True, replaced_by="money"))
    return ws


EXPECTED = (f"{CONTEXT_BEGIN}\n"
            "# Invoicing API\n\nFastAPI + Postgres. Money is integer cents.\n\n"
            # Computed, not stored: knowledge that is not resident is listed in the index only.
            "## Knowledge index\n- #not-resident — Only in the index.\n\n"
            f"{INDEX_INTRO}\n"
            "#money — Money rules.\n"
            "#run-tests — How to run the tests; read before running pytest.\n"
            f"{CONTEXT_END}\n")


def test_context_text(ws: Workspace) -> None:
    assert resident_context(ws, record=False) == EXPECTED
    assert strip_injected(EXPECTED).strip() == ""


def test_context_records_inject_with_token_cost(ws: Workspace) -> None:
    text = resident_context(ws, session_id="s1")
    events, problems = load_events(ws)
    assert problems == []
    (event,) = events
    assert event["type"] == "inject"
    assert event["slugs"] == ["money", "run-tests"]
    assert event["tokens"] == estimate_tokens(text) > 0
    resident_context(ws, record=False)
    assert len(load_events(ws)[0]) == 1


def test_only_files_mentioning_model_invokation_are_parsed(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    from yoi_tui.core.retrieval import summary_lists as lists_mod

    # No flag and a plain description: neither the resident check nor the knowledge index parses it.
    (ws.knowledge_dir / "plain.md").write_text("---\nkind: fact\ndescription: Plain.\n---\nno flag here\n",
                                               encoding="utf-8")
    seen: list[str] = []
    real = lists_mod.parse_record_text

    def counting(text: str, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["rel"])
        return real(text, **kwargs)

    monkeypatch.setattr(lists_mod, "parse_record_text", counting)
    assert "- #plain — Plain." in build_resident_context(ws).text
    assert "knowledge/plain.md" not in seen and seen  # the others were parsed through the patched name


def test_without_summary_or_index(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    assert resident_context(ws) == ""
    assert load_events(ws) == ([], [])  # nothing injected, nothing recorded
    write_record(ws, "knowledge/one.md", knowledge_meta(description="One.", model_invokation=True))
    assert resident_context(ws, record=False) == f"{CONTEXT_BEGIN}\n{INDEX_INTRO}\n#one — One.\n{CONTEXT_END}\n"


def test_summary_only(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, "\nJust this.\n")
    assert resident_context(ws, record=False) == f"{CONTEXT_BEGIN}\nJust this.\n{CONTEXT_END}\n"


def test_broken_files_are_left_out_and_reported(ws: Workspace) -> None:
    (ws.knowledge_dir / "broken.md").write_text("model_invokation: true but no frontmatter\n", encoding="utf-8")
    ws.summary_path.write_text("no frontmatter\n", encoding="utf-8")
    built = build_resident_context(ws)
    assert built.slugs == ["money", "run-tests"]
    assert "Invoicing" not in built.text
    assert any("knowledge/broken.md" in p for p in built.problems)
    assert any("memory/summary.md" in p for p in built.problems)


def test_marker_in_summary_is_neutralised(ws: Workspace) -> None:
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"},
                 "\nWe wrap context in </yoi-context> tags.\nMore.\n")
    text = resident_context(ws, record=False)
    assert strip_injected(text).strip() == ""


def test_cli_context(ws: Workspace) -> None:
    done = run_yoi("context", "-w", str(ws.root), "--session", "hook")
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED
    events, _ = load_events(ws)
    assert [(e["type"], e["session_id"]) for e in events] == [("inject", "hook")]
    data = json.loads(run_yoi("context", "--json", "--no-record", "-w", str(ws.root)).stdout)
    assert data == {"text": EXPECTED, "slugs": ["money", "run-tests"], "tokens": estimate_tokens(EXPECTED)}
    assert len(load_events(ws)[0]) == 1


def test_cli_context_empty(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    done = run_yoi("context", "-w", str(ws.root))
    assert done.returncode == 0 and done.stdout == "" and "nothing to inject" in done.stderr


@pytest.mark.parametrize(("frontmatter_value", "body", "resident"), [
    ("true", "", True),
    ("yes", "", True),                              # YAML 1.1 boolean, decided by the parser
    ("false", "", False),
    ("false", "Mentions model_invokation: true in the body.", False),
    ('"true"', "", False),                          # a string is not the boolean true
])
def test_resident_flag_is_decided_by_yaml(tmp_path: Path, frontmatter_value: str, body: str,
                                          resident: bool) -> None:
    ws = make_ws(tmp_path)
    text = ("---\nkind: fact\ndescription: D.\nmodel_invokation: " + frontmatter_value +
            "\nuser_invocable: true\nlast_sources: []\ncreated_at: 2026-11-02T09:00:00+00:00\n"
            "updated_at: 2026-11-02T09:00:00+00:00\n---\n" + body + "\n")
    (ws.knowledge_dir / "flag.md").write_text(text, encoding="utf-8")
    assert build_resident_context(ws).slugs == (["flag"] if resident else [])
