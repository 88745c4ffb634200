"""Resident context (SPEC 5): summary body + ``#slug — description`` index inside markers, the
``inject`` event with its token cost, and ``yoi context``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.retrieval.resident_context import INDEX_INTRO, build_resident_context, resident_context
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.text.markers import CONTEXT_BEGIN, CONTEXT_END, strip_injected
from yoi_tui.core.usage.log import estimate_tokens, load_events

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
            # Knowledge whose model_invokation is off is not there at all: no description, no slug.
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

    # No flag (the default is off), or a description YAML would have to fold: neither is parsed.
    (ws.knowledge_dir / "plain.md").write_text("---\nkind: fact\ndescription: Plain.\n---\nno flag here\n",
                                               encoding="utf-8")
    (ws.knowledge_dir / "folded.md").write_text("---\nkind: fact\ndescription: >\n  Folded.\n---\nbody\n",
                                                encoding="utf-8")
    seen: list[str] = []
    real = lists_mod.parse_record_text

    def counting(text: str, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["rel"])
        return real(text, **kwargs)

    monkeypatch.setattr(lists_mod, "parse_record_text", counting)
    text = build_resident_context(ws, cache=False).text
    assert "plain" not in text and "Folded" not in text
    assert "knowledge/plain.md" not in seen and "knowledge/folded.md" not in seen and seen


FLAGS = [(invocable, replaced, user) for invocable in (True, False) for replaced in (True, False)
         for user in (True, False)]


def test_only_live_model_invokation_records_are_resident_for_every_flag_combination(tmp_path: Path) -> None:
    """SPEC 5 / the seed: a description is in the model's context only when model_invokation is on
    (and the record is not replaced); user_invocable changes nothing here. Nothing of the others —
    neither description nor slug — appears."""
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/target.md", knowledge_meta(description="The replacement target."))
    for invocable, replaced, user in FLAGS:
        slug = f"rec-{'inv' if invocable else 'noinv'}-{'rep' if replaced else 'live'}-{'user' if user else 'nouser'}"
        meta = knowledge_meta(description=f"Described {slug} here.", model_invokation=invocable,
                              user_invocable=user, **({"replaced_by": "target"} if replaced else {}))
        write_record(ws, f"knowledge/{slug}.md", meta)
    for cache in (True, False, True):  # cold, uncached and warm agree
        built = build_resident_context(ws, cache=cache)
        assert built.slugs == ["rec-inv-live-nouser", "rec-inv-live-user"]
        for invocable, replaced, user in FLAGS:
            slug = f"rec-{'inv' if invocable else 'noinv'}-{'rep' if replaced else 'live'}-{'user' if user else 'nouser'}"
            shown = invocable and not replaced
            assert (f"#{slug} — Described {slug} here." in built.text) is shown
            assert (slug in built.text) is shown
        assert "target" not in built.text and "replacement" not in built.text


def test_the_block_stays_within_its_budget_and_says_what_was_left_out(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[context]\nmax_tokens = 300\n", encoding="utf-8")
    ws = Workspace(ws.root)
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, SUMMARY)
    for n in range(40):
        day = 1 + n % 28
        write_record(ws, f"knowledge/resident-{n:02d}.md",
                     {**knowledge_meta(description=f"Resident number {n} — read it when the topic {n} comes up.",
                                       model_invokation=True),
                      "updated_at": f"2026-10-{day:02d}T09:00:00+00:00"})
    built = build_resident_context(ws)
    assert built.tokens <= 300
    assert "FastAPI + Postgres" in built.text  # the summary first
    shown = built.slugs
    assert 0 < len(shown) < 40 and shown == sorted(shown)
    # The most recently updated ones were picked (ties: by slug).
    order = sorted(range(40), key=lambda n: (-(1 + n % 28), f"resident-{n:02d}"))
    assert shown == sorted(f"resident-{n:02d}" for n in order[:len(shown)])
    assert built.text.rstrip().splitlines()[-2] == (
        f"({40 - len(shown)} more knowledge records with model_invokation are not listed here for room: "
        "find them with the knowledge_search tool, or `yoi search knowledge QUERY`.)")
    # A bigger budget holds them all, with no closing line; the default holds what fits in 4,000.
    ws.config_path.write_text("[context]\nmax_tokens = 100000\n", encoding="utf-8")
    assert len(build_resident_context(Workspace(ws.root)).slugs) == 40
    assert "not listed here" not in build_resident_context(Workspace(ws.root)).text


def test_a_summary_over_the_budget_is_cut_with_a_note(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[context]\nmax_tokens = 200\n", encoding="utf-8")
    ws = Workspace(ws.root)
    body = "\n".join(f"Line {n} of a long summary that a person wrote." for n in range(200))
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, "\n" + body + "\n")
    built = build_resident_context(ws)
    assert built.tokens <= 200
    assert "Line 0 of" in built.text and "Line 199" not in built.text
    assert "read it with the memory_search tool, slug=summary" in built.text


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


def test_a_long_running_process_rebuilds_the_block_only_after_a_change(ws: Workspace,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """In the command server the block is kept while nothing it is built from changed (the kernel
    says so), so a served SessionStart lists no folder and reads no file at any workspace size."""
    from yoi_tui.core.retrieval import resident_context as context_mod

    builds: list[str] = []
    real = context_mod._build

    def counting(ws: Workspace, *, cache: bool) -> object:
        builds.append(str(ws.root))
        return real(ws, cache=cache)

    monkeypatch.setattr(context_mod, "_build", counting)
    # The files were written just now: a block built from racily clean files is never kept (issue
    # 27, a second same-size write in the same tick); this test is about the feed, so no racy window.
    monkeypatch.setattr(context_mod, "_RACY_NS", -(10**12))
    context_mod.watch_for_changes()
    try:
        first = build_resident_context(Workspace(ws.root))
        assert build_resident_context(Workspace(ws.root)).text == first.text
        assert len(builds) == 1
        path = ws.knowledge_dir / "money.md"
        path.write_text(path.read_text().replace("Money rules.", "Money RULES."), encoding="utf-8")
        assert "#money — Money RULES." in build_resident_context(Workspace(ws.root)).text
        assert len(builds) == 2
        ws.config_path.write_text("[context]\nmax_tokens = 100000\n", encoding="utf-8")
        build_resident_context(Workspace(ws.root))
        ws.summary_path.write_text(ws.summary_path.read_text().replace("Invoicing", "Billing"), encoding="utf-8")
        assert "Billing" in build_resident_context(Workspace(ws.root)).text
        assert len(builds) == 4
    finally:
        context_mod.watch_for_changes(False)
