"""knowledge_search / memory_search (SPEC 5): every option, on real files, plus the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import decision_meta, knowledge_meta, make_ws, request_meta, run_yoi, write_record

from yoi_tui.core.retrieval import search as search_mod
from yoi_tui.core.retrieval.search import SearchError, get_record, knowledge_search, memory_search
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import load_events

PYTEST_BODY = """
# Running the tests

Install the dev extras first.
Run `pytest -q` from the repository root.
Fixtures live in tests/conftest.py.

Never pass -x in CI: it hides later failures.
"""


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md",
                 knowledge_meta(kind="howto", description="How to run the test suite; read before running pytest.",
                                model_invokation=True), PYTEST_BODY)
    write_record(ws, "knowledge/money-in-cents.md",
                 knowledge_meta(kind="rule", description="Money amounts are integer cents."),
                 "\nStore every amount as an `int` of cents.\nNever use float for money.\n")
    write_record(ws, "knowledge/old-test-runner.md",
                 knowledge_meta(kind="howto", description="The old nose runner.", replaced_by="run-tests"),
                 "\nWe used nose to run the tests.\n")
    write_record(ws, "knowledge/tenant.md",
                 knowledge_meta(kind="term", description="A customer organisation (term)."),
                 "\nA tenant owns invoices. Tests create one per fixture.\n")
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"},
                 "\n# Project\n\nAn invoicing API. Tests run with pytest.\n")
    write_record(ws, "memory/decisions/use-postgres.md", decision_meta(status="resolved"),
                 "\n# Use Postgres\n\nSQLite was too slow for the invoice run.\n")
    write_record(ws, "memory/decisions/use-sqlite.md",
                 decision_meta(status="replaced", replaced_by="use-postgres"),
                 "\n# Use SQLite\n\nSimple to start with.\n")
    write_record(ws, "memory/requests/run-tests.md", request_meta(),
                 "\n# Always run the tests before pushing\n\nThe user asked twice.\n")
    return ws


def slugs(hits: list) -> list[str]:
    return [h.slug for h in hits]


# ----------------------------------------------------------------------------- knowledge_search


def test_terms_are_anded_and_case_insensitive(ws: Workspace) -> None:
    assert slugs(knowledge_search(ws, "PYTEST", record=False)) == ["run-tests"]
    assert slugs(knowledge_search(ws, "tests", record=False)) == ["run-tests", "tenant"]
    assert slugs(knowledge_search(ws, "tests fixture", record=False)) == ["run-tests", "tenant"]
    assert slugs(knowledge_search(ws, "tests   CONFTEST", record=False)) == ["run-tests"]
    assert knowledge_search(ws, "tests nonexistentword", record=False) == []


def test_frontmatter_is_searched(ws: Workspace) -> None:
    # "organisation" only occurs in tenant's description, "rule" only as money-in-cents' kind.
    assert slugs(knowledge_search(ws, "organisation", record=False)) == ["tenant"]
    assert slugs(knowledge_search(ws, "kind: rule", record=False)) == ["money-in-cents"]


def test_hit_fields_and_json(ws: Workspace) -> None:
    (hit,) = knowledge_search(ws, "conftest", record=False)
    assert hit.slug == "run-tests"
    assert hit.kind == "howto"
    assert hit.description == "How to run the test suite; read before running pytest."
    assert hit.model_invokation is True
    assert hit.to_json() == {"slug": "run-tests", "kind": "howto", "description": hit.description,
                             "model_invokation": True, "excerpt": hit.excerpt}
    assert hit.path == "knowledge/run-tests.md"


def test_excerpt_is_lines_around_first_body_match(ws: Workspace) -> None:
    (hit,) = knowledge_search(ws, "conftest", record=False, context_lines=1)
    assert hit.excerpt == ("Run `pytest -q` from the repository root.\n"
                           "Fixtures live in tests/conftest.py.")  # the blank line after is trimmed
    text = (ws.knowledge_dir / "run-tests.md").read_text().split("\n")
    assert text[hit.line - 1] == "Fixtures live in tests/conftest.py."
    (hit0,) = knowledge_search(ws, "conftest", record=False, context_lines=0)
    assert hit0.excerpt == "Fixtures live in tests/conftest.py."


def test_excerpt_prefers_a_line_with_every_term(ws: Workspace) -> None:
    (hit,) = knowledge_search(ws, "pytest root", record=False, context_lines=0)
    assert hit.excerpt == "Run `pytest -q` from the repository root."


def test_excerpt_falls_back_to_frontmatter_match(ws: Workspace) -> None:
    (hit,) = knowledge_search(ws, "organisation", record=False, context_lines=0)
    assert hit.excerpt == 'description: A customer organisation (term).'


def test_excerpt_without_query_is_body_start(ws: Workspace) -> None:
    (hit,) = knowledge_search(ws, slug="money-in-cents", record=False, context_lines=0)
    assert hit.excerpt == "Store every amount as an `int` of cents."
    assert hit.line is None


def test_context_lines_from_config(ws: Workspace) -> None:
    ws.config_path.write_text("[search]\ncontext_lines = 0\n", encoding="utf-8")
    ws = Workspace(ws.root)
    (hit,) = knowledge_search(ws, "conftest", record=False)
    assert hit.excerpt == "Fixtures live in tests/conftest.py."


def test_slug_is_exact(ws: Workspace) -> None:
    assert slugs(knowledge_search(ws, slug="tenant", record=False)) == ["tenant"]
    assert knowledge_search(ws, slug="tenan", record=False) == []
    assert knowledge_search(ws, slug="Tenant", record=False) == []
    assert knowledge_search(ws, slug="../memory/summary", record=False) == []
    # slug and query combine
    assert knowledge_search(ws, "pytest", slug="tenant", record=False) == []
    assert slugs(knowledge_search(ws, "invoices", slug="tenant", record=False)) == ["tenant"]


def test_kind_filter(ws: Workspace) -> None:
    assert slugs(knowledge_search(ws, kind="howto", record=False)) == ["run-tests"]
    assert slugs(knowledge_search(ws, "tests", kind="term", record=False)) == ["tenant"]
    assert knowledge_search(ws, kind="policy", record=False) == []


def test_replaced_only_on_request(ws: Workspace) -> None:
    assert "old-test-runner" not in slugs(knowledge_search(ws, "tests", record=False))
    assert knowledge_search(ws, slug="old-test-runner", record=False) == []
    hits = knowledge_search(ws, "tests", include_replaced=True, record=False)
    assert slugs(hits) == ["old-test-runner", "run-tests", "tenant"]
    assert hits[0].replaced_by == "run-tests"
    assert hits[0].to_json()["replaced_by"] == "run-tests"


def test_limit_argument_and_config(ws: Workspace) -> None:
    assert slugs(knowledge_search(ws, limit=2, record=False)) == ["money-in-cents", "run-tests"]
    ws.config_path.write_text("[search]\nlimit = 1\n", encoding="utf-8")
    assert slugs(knowledge_search(Workspace(ws.root), record=False)) == ["money-in-cents"]
    for bad in (0, -1, True, "3"):
        with pytest.raises(SearchError):
            knowledge_search(ws, limit=bad, record=False)  # type: ignore[arg-type]


def test_results_are_in_sorted_path_order(ws: Workspace) -> None:
    write_record(ws, "knowledge/aaa-first.md", knowledge_meta(), "\nzzz\n")
    write_record(ws, "knowledge/zzz-last.md", knowledge_meta(), "\nzzz\n")
    assert slugs(knowledge_search(ws, record=False)) == ["aaa-first", "money-in-cents", "run-tests", "tenant",
                                                         "zzz-last"]


def test_only_matching_files_have_their_yaml_parsed(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = search_mod.parse_record_text

    def counting(text: str, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(kwargs["rel"])
        return real(text, **kwargs)

    monkeypatch.setattr(search_mod, "parse_record_text", counting)
    knowledge_search(ws, "conftest", record=False)
    assert parsed == ["knowledge/run-tests.md"]
    parsed.clear()
    knowledge_search(ws, kind="term", record=False)
    assert parsed == ["knowledge/tenant.md"]  # the kind's value must be in the raw text


def test_bad_files_are_skipped_and_reported(ws: Workspace, tmp_path: Path) -> None:
    (ws.knowledge_dir / "broken.md").write_text("no frontmatter, mentions tests\n", encoding="utf-8")
    (ws.knowledge_dir / "latin1.md").write_bytes(b"---\nkind: fact\n---\ntests caf\xe9\n")
    (ws.knowledge_dir / "folder.md").mkdir()
    outside = tmp_path / "secret.md"
    outside.write_text("---\nkind: fact\n---\ntests secret\n", encoding="utf-8")
    (ws.knowledge_dir / "link-out.md").symlink_to(outside)
    os.mkfifo(ws.knowledge_dir / "fifo.md")  # opening a FIFO would block the scan forever
    problems: list[str] = []
    assert slugs(knowledge_search(ws, "tests", record=False, problems=problems)) == ["run-tests", "tenant"]
    text = "\n".join(problems)
    for name in ("broken.md", "latin1.md", "folder.md", "link-out.md", "fifo.md"):
        assert f"knowledge/{name}" in text


def test_symlink_inside_workspace_is_followed(ws: Workspace) -> None:
    target = ws.root / "shared-note.md"
    target.write_text((ws.knowledge_dir / "tenant.md").read_text(), encoding="utf-8")
    (ws.knowledge_dir / "tenant-alias.md").symlink_to(target)
    assert "tenant-alias" in slugs(knowledge_search(ws, "organisation", record=False))


def test_bom_and_crlf(ws: Workspace) -> None:
    text = (ws.knowledge_dir / "tenant.md").read_text().replace("\n", "\r\n")
    (ws.knowledge_dir / "crlf.md").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (hit,) = knowledge_search(ws, "owns invoices", slug="crlf", record=False, context_lines=0)
    assert hit.excerpt == "A tenant owns invoices. Tests create one per fixture."
    assert hit.description == "A customer organisation (term)."


def test_non_ascii_terms(ws: Workspace) -> None:
    write_record(ws, "knowledge/japanese.md", knowledge_meta(description="テナントの定義"), "\nテナントは請求書を持つ。\n")
    (hit,) = knowledge_search(ws, "請求書", record=False, context_lines=0)
    assert hit.slug == "japanese" and hit.excerpt == "テナントは請求書を持つ。"


def test_missing_knowledge_folder(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert knowledge_search(ws, "x", record=False) == []
    assert memory_search(ws, "x", record=False) == []


# ----------------------------------------------------------------------------- memory_search


def test_memory_search_kinds_status_and_order(ws: Workspace) -> None:
    hits = memory_search(ws, record=False)
    assert [(h.kind, h.slug) for h in hits] == [("decision", "use-postgres"), ("request", "run-tests"),
                                                ("summary", "summary")]
    assert hits[0].status == "resolved"
    assert hits[1].status is None and "status" not in hits[1].to_json()
    assert hits[0].to_json() == {"slug": "use-postgres", "kind": "decision", "status": "resolved",
                                 "excerpt": hits[0].excerpt}


def test_memory_kind_filter(ws: Workspace) -> None:
    assert [h.slug for h in memory_search(ws, kind="summary", record=False)] == ["summary"]
    assert [h.slug for h in memory_search(ws, kind="request", record=False)] == ["run-tests"]
    assert [h.slug for h in memory_search(ws, kind="decision", record=False)] == ["use-postgres"]
    with pytest.raises(SearchError, match="summary, decision, request"):
        memory_search(ws, kind="knowledge", record=False)


def test_memory_slug_and_replaced(ws: Workspace) -> None:
    assert memory_search(ws, slug="use-sqlite", record=False) == []
    (hit,) = memory_search(ws, slug="use-sqlite", include_replaced=True, record=False)
    assert hit.status == "replaced" and hit.replaced_by == "use-postgres"
    assert [h.kind for h in memory_search(ws, slug="summary", record=False)] == ["summary"]
    assert [h.kind for h in memory_search(ws, slug="run-tests", record=False)] == ["request"]


def test_memory_description_when_present(ws: Workspace) -> None:
    write_record(ws, "memory/decisions/with-desc.md", decision_meta(description="a described decision"),
                 "\nBody.\n")
    (hit,) = memory_search(ws, slug="with-desc", record=False)
    assert hit.description == "a described decision"
    assert hit.to_json()["description"] == "a described decision"


# ----------------------------------------------------------------------------- recording


def test_each_hit_records_one_invoke(ws: Workspace) -> None:
    knowledge_search(ws, "tests", session_id="s-search")
    knowledge_search(ws, slug="tenant", session_id="s-search")
    memory_search(ws, "postgres", session_id="s-search")
    knowledge_search(ws, "nothing-matches-this", session_id="s-search")
    knowledge_search(ws, "tests", record=False, session_id="s-search")
    events, problems = load_events(ws)
    assert problems == []
    assert [(e["slug"], e["record_kind"], e["via"], e["session_id"]) for e in events] == [
        ("run-tests", "knowledge", "search", "s-search"),
        ("tenant", "knowledge", "search", "s-search"),
        ("tenant", "knowledge", "slug", "s-search"),
        ("use-postgres", "decision", "search", "s-search"),
    ]


def test_unwritable_usage_folder_does_not_break_search(ws: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    ws.usage_dir.rmdir()
    ws.usage_dir.write_text("not a folder")  # appends fail on every platform and user
    assert slugs(knowledge_search(ws, "pytest", session_id="s1")) == ["run-tests"]
    assert "usage not recorded" in caplog.text


# ----------------------------------------------------------------------------- get_record


def test_get_record(ws: Workspace) -> None:
    view = get_record(ws, "tenant", "knowledge", session_id="s-read")
    assert view.path == "knowledge/tenant.md"
    assert view.meta["kind"] == "term"
    assert isinstance(view.meta["created_at"], str)  # JSON-safe
    assert view.body.startswith("\nA tenant owns invoices.")
    assert get_record(ws, "anything", "summary", record=False).slug == "summary"
    with pytest.raises(SearchError, match="no knowledge record"):
        get_record(ws, "nope", "knowledge")
    with pytest.raises(SearchError, match="bad slug"):
        get_record(ws, "../etc/passwd", "knowledge")
    with pytest.raises(SearchError, match="kind must be"):
        get_record(ws, "tenant", "wiki")
    events, _ = load_events(ws)
    assert [(e["slug"], e["via"]) for e in events] == [("tenant", "slug")]


# ----------------------------------------------------------------------------- CLI


def test_cli_search_json_and_text(ws: Workspace) -> None:
    done = run_yoi("search", "knowledge", "pytest", "root", "--json", "--workspace", str(ws.root),
                   "--session", "cli-1")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [h["slug"] for h in data] == ["run-tests"]
    assert set(data[0]) == {"slug", "kind", "description", "model_invokation", "excerpt"}
    done = run_yoi("search", "memory", "--kind", "decision", "--include-replaced", "--no-record",
                   cwd=ws.root / "memory")
    assert done.returncode == 0, done.stderr
    assert "memory/decisions/use-postgres.md" in done.stdout and "replaced by use-postgres" in done.stdout
    events, _ = load_events(ws)
    assert [(e["slug"], e["session_id"]) for e in events] == [("run-tests", "cli-1")]


def test_cli_search_errors_exit_2(ws: Workspace) -> None:
    done = run_yoi("search", "memory", "--kind", "knowledge", "-w", str(ws.root))
    assert done.returncode == 2 and "memory kind must be one of" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_yoi("search", "knowledge", "--limit", "0", "-w", str(ws.root))
    assert done.returncode == 2 and "limit" in done.stderr
    done = run_yoi("search", "knowledge", "x", "--session", "../evil", "-w", str(ws.root))
    assert done.returncode == 2 and "bad session id" in done.stderr


def test_cli_search_no_hits(ws: Workspace) -> None:
    done = run_yoi("search", "knowledge", "zebra", "-w", str(ws.root))
    assert done.returncode == 0 and done.stdout == "" and "no matching records" in done.stderr


def test_case_folding_matches_str_lower_exactly(ws: Workspace) -> None:
    # U+212A KELVIN SIGN lower-cases to ASCII "k": the raw-bytes fast path must not miss it
    write_record(ws, "knowledge/kelvin.md", knowledge_meta(), "\nTemperatures in \u212aELVIN.\n")
    write_record(ws, "knowledge/accents.md", knowledge_meta(), "\nÉCOLE and Straße.\n")
    assert slugs(knowledge_search(ws, "kelvin", record=False)) == ["kelvin"]
    assert slugs(knowledge_search(ws, "école", record=False)) == ["accents"]
    assert slugs(knowledge_search(ws, "STRASSE", record=False)) == []  # lower(), not casefold()
    assert slugs(knowledge_search(ws, "straße", record=False)) == ["accents"]


def test_non_matching_files_are_not_decoded(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[bytes] = []
    real = search_mod.decode_text
    monkeypatch.setattr(search_mod, "decode_text", lambda data: decoded.append(data) or real(data))
    knowledge_search(ws, "conftest", record=False)
    assert len(decoded) == 1


def test_big_files(ws: Workspace) -> None:
    from yoi_tui.core.store.reader import MAX_RECORD_BYTES

    head = (ws.knowledge_dir / "tenant.md").read_text()
    (ws.knowledge_dir / "long.md").write_text(head + "x" * 70_000 + "\nneedle at the end\n", encoding="utf-8")
    (ws.knowledge_dir / "huge.md").write_text(head + "x" * MAX_RECORD_BYTES + "\nneedle\n", encoding="utf-8")
    problems: list[str] = []
    assert slugs(knowledge_search(ws, "needle", record=False, problems=problems)) == ["long"]
    assert any("knowledge/huge.md: over 1 MiB" in p for p in problems)


def test_cli_query_words_may_follow_options(ws: Workspace) -> None:
    # argparse alone matched the empty QUERY before --kind, leaving "pytest" unrecognized (exit 2)
    before = run_yoi("search", "knowledge", "pytest", "root", "--json", "-w", str(ws.root))
    after = run_yoi("search", "knowledge", "--json", "pytest", "-w", str(ws.root), "root")
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and json.loads(after.stdout)
    done = run_yoi("search", "knowledge", "--json", "pytest", "--bogus", "-w", str(ws.root))
    assert done.returncode == 2 and "unrecognized arguments: --bogus" in done.stderr
