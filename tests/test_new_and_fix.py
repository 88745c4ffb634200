"""``yoi new`` and ``yoi lint --fix`` end to end (real subprocesses, real files)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import make_ws, run_yoi, write_text

from yoi_tui.core.lint.fix import plan_fix
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.templates import record_template

HAND_WRITTEN = {
    # The four records of issue 28's newcomer, as a person writes them from memory.
    "knowledge/fact-api-limits.md": "---\nkind: fact\ndescription: Rate limits. Read when changing throttling.\n"
                                    "model_invocation: true\ncreated_at: 2026-01-05\n---\n# Rate limits\n\n60 a minute.\n",
    "knowledge/howto-claude.md": "---\nkind: howto\ndescription: Spelled as Claude Code does.\n"
                                 "disable-model-invocation: true\nuser-invocable: false\n---\n# Claude\n\nText.\n",
    "memory/decisions/use-sqlite.md": "---\nstatus: open\nupdatedAt: \"2026-01-05T10:00:00\"\n---\n# Use SQLite\n\nWhy.\n",
    "memory/requests/dark-mode.md": "---\ncreated_at: 2026-01-05T10:00:00+00:00\n---\n# Dark mode\n\nPlease.\n",
}


@pytest.mark.parametrize("kind", ["decision", "request", "knowledge"])
def test_new_writes_a_lint_clean_record_from_the_apps_template(tmp_path: Path, kind: str) -> None:
    ws = make_ws(tmp_path)
    made = run_yoi("new", kind, "howto-cut-a-release", "--title", "Cut a release", "--json", "-w", str(ws.root))
    assert made.returncode == 0, made.stderr
    rel = json.loads(made.stdout)["path"]
    text = (ws.root / rel).read_text(encoding="utf-8")
    assert text.splitlines()[len(text.split("---\n")[1].splitlines()) + 2] == "# Cut a release"
    # The app's template, key for key (only the timestamps differ).
    record = read_record(ws, ws.root / rel).record
    assert record is not None
    template = record_template(record.kind, "howto-cut-a-release", now=record.meta["created_at"],
                               knowledge_kind="howto", title="Cut a release")
    assert text == template
    lint = run_yoi("lint", "-w", str(ws.root))
    assert lint.returncode == 0 and lint.stdout == "", lint.stdout + lint.stderr


def test_new_refuses_an_existing_file_a_bad_slug_and_a_wrong_kind(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    assert run_yoi("new", "decision", "use-sqlite", "-w", str(ws.root)).returncode == 0
    path = ws.root / "memory/decisions/use-sqlite.md"
    path.write_text("mine\n", encoding="utf-8")
    again = run_yoi("new", "decision", "use-sqlite", "-w", str(ws.root))
    assert again.returncode == 2 and "already exists" in again.stderr
    assert path.read_text(encoding="utf-8") == "mine\n"
    bad = run_yoi("new", "request", "Dark_Mode", "-w", str(ws.root))
    assert bad.returncode == 2 and "try 'dark-mode'" in bad.stderr and "Traceback" not in bad.stderr
    assert not (ws.root / "memory/requests/Dark_Mode.md").exists()
    wrong = run_yoi("new", "knowledge", "x-thing", "--kind", "recipe", "-w", str(ws.root))
    assert wrong.returncode == 2 and "records.knowledge_kinds" in wrong.stderr


def test_lint_fix_makes_the_hand_written_records_clean_and_shows_the_diff(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    for rel, text in HAND_WRITTEN.items():
        write_text(ws.root / rel, text)
    before = run_yoi("lint", "-w", str(ws.root))
    assert before.returncode == 1
    assert "`yoi lint --fix` renames it" in before.stdout
    dry = run_yoi("lint", "--fix", "--dry-run", "-w", str(ws.root))
    assert "+model_invokation: true" in dry.stdout and dry.returncode == 1
    assert all((ws.root / rel).read_text(encoding="utf-8") == text for rel, text in HAND_WRITTEN.items())
    fixed = run_yoi("lint", "--fix", "-w", str(ws.root))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "\n-model_invocation: true\n" in fixed.stdout and "\n+model_invokation: true\n" in fixed.stdout
    assert "fixed " in fixed.stderr and "0 error(s), 0 warning(s)" in fixed.stderr
    limits = (ws.root / "knowledge/fact-api-limits.md").read_text(encoding="utf-8")
    assert "model_invokation: true\n" in limits and "created_at: 2026-01-05T00:00:00+00:00\n" in limits
    assert "updated_at: 2026-01-05T00:00:00+00:00\n" in limits and limits.endswith("\n# Rate limits\n\n60 a minute.\n")
    claude = (ws.root / "knowledge/howto-claude.md").read_text(encoding="utf-8")
    assert "model_invokation: false\n" in claude and "user_invocable: false\n" in claude  # values kept / inverted
    decision = (ws.root / "memory/decisions/use-sqlite.md").read_text(encoding="utf-8")
    assert "updated_at: 2026-01-05T10:00:00+00:00\n" in decision and "created_at: 2026-01-05T10:00:00+00:00\n" in decision
    assert "status: open\n" in decision  # a person's decision: never invented
    assert run_yoi("lint", "-w", str(ws.root)).returncode == 0
    again = run_yoi("lint", "--fix", "--json", "-w", str(ws.root))
    assert json.loads(again.stdout) == {"fixed": [], "diagnostics": []}


def test_lint_fix_leaves_what_has_no_single_answer(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    text = ("---\nkind: fact\ndescription: Two spellings.\ndisable-model-invocation: true\nmodel_invocation: true\n"
            "user_invocable: true\nlast_sources: []\ncreated_at: 2026-01-05T10:00:00+00:00\n"
            "updated_at: 2026-01-05T10:00:00+00:00\n---\n# Two\n")
    write_text(ws.root / "knowledge/fact-two.md", text)
    write_text(ws.root / "memory/decisions/no-status.md",
               "---\ncreated_at: 2026-01-05T10:00:00+00:00\nupdated_at: 2026-01-05T10:00:00+00:00\nsources: []\n---\n# X\n")
    result = run_yoi("lint", "--fix", "--json", "-w", str(ws.root))
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["fixed"] == []
    assert (ws.root / "knowledge/fact-two.md").read_text(encoding="utf-8") == text
    hints = {d["hint"] for d in out["diagnostics"] if d["path"] == "knowledge/fact-two.md"}
    assert "more than one key here stands for 'model_invokation': keep one and name it 'model_invokation'" in hints
    assert any(d["rule"] == "missing-field" and "'status'" in d["message"] for d in out["diagnostics"])


def test_lint_fix_keeps_every_other_byte_and_the_newline_style(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    text = ("---\r\nkind: fact   # a comment kept\r\ndescription: 'quoted, kept'\r\nmodel_invocation: false\r\n"
            "user_invocable: true\r\nlast_sources: []\r\ncreated_at: 2026-01-05T10:00:00+00:00\r\n"
            "updated_at: 2026-01-05T10:00:00+00:00\r\nx_owner: team\r\n---\r\n# Body\r\n")
    path = ws.root / "knowledge/fact-crlf.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    record = read_record(ws, path).record
    assert record is not None
    repair = plan_fix(ws, record)
    assert repair is not None and repair.changes == ["renamed 'model_invocation' to 'model_invokation'"]
    assert repair.after == text.replace("model_invocation:", "model_invokation:")


def test_lint_fix_refuses_a_locked_record_and_says_so(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = ws.root / "memory/requests/dark-mode.md"
    write_text(path, HAND_WRITTEN["memory/requests/dark-mode.md"])
    os.chmod(path, 0o444)
    try:
        result = run_yoi("lint", "--fix", "-w", str(ws.root))
    finally:
        os.chmod(path, 0o644)
    assert result.returncode == 2 and "dark-mode.md" in result.stderr and "Traceback" not in result.stderr
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN["memory/requests/dark-mode.md"]
