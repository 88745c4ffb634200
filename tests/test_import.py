"""``yoi import``: foreign agent knowledge → knowledge records as a reviewed, journalled, revertible change set;
and every record yoi writes reads the same through python-frontmatter."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import frontmatter
import pytest
from support import EXAMPLES, knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.workspace import Workspace, find_workspace
from yoi_tui.core.store.writer import render_record


def _foreign_project(root: Path) -> None:
    (root / ".cursor" / "rules").mkdir(parents=True)
    (root / ".cursor" / "rules" / "Python Style.mdc").write_text(
        "---\ndescription: Type hints on every function; read before writing Python.\nglobs: src/**/*.py, tests/*.py\n"
        "alwaysApply: true\n---\n\nAlways add type hints.\n")
    skill = root / ".claude" / "skills" / "deploy-app"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy-app\ndescription: Deploy to staging; use when asked to "
                                    "deploy.\ndisable-model-invocation: true\n---\n\n# Deploy\n\nRun make deploy "
                                    "(see #42 and #not-a-record).\n")
    (root / ".claude" / "commands").mkdir(parents=True)
    (root / ".claude" / "commands" / "review.md").write_text("Review the diff for missing tests.\n")
    (root / "AGENTS.md").write_text("# Agents\n\n## Running tests\n\nUse `pytest -q`.\n\n```\n## not a heading\n```\n\n"
                                    "## Code style\n\nruff check must pass.\n")


def _knowledge(ws: Workspace) -> dict[str, dict]:
    out = {}
    for path in sorted(ws.knowledge_dir.glob("*.md")):
        record = read_record(ws, path).record
        assert record is not None
        out[record.slug] = record.meta | {"body": record.body}
    return out


def test_dry_run_shows_the_records_and_writes_nothing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _foreign_project(ws.root)
    done = run_yoi("import", "--dry-run", cwd=ws.root)
    assert done.returncode == 0, done.stderr
    for slug in ("python-style", "deploy-app", "review", "running-tests", "code-style"):
        assert f"would create knowledge/{slug}.md" in done.stdout
        assert f"+++ b/knowledge/{slug}.md" in done.stdout
    assert list(ws.knowledge_dir.glob("*.md")) == [] and not (ws.state_dir / "runs").exists()


def test_import_maps_fields_lints_and_reverts(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _foreign_project(ws.root)
    done = run_yoi("import", "--json", cwd=ws.root)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "applied" and len(report["created"]) == 5
    records = _knowledge(ws)
    rule = records["python-style"]
    assert rule["model_invokation"] is True and rule["paths"] == ["src/**/*.py", "tests/*.py"]
    assert rule["description"] == "Type hints on every function; read before writing Python."
    assert rule["imported_from"] == ".cursor/rules/Python Style.mdc" and rule["last_sources"] == []
    deploy = records["deploy-app"]
    assert deploy["model_invokation"] is False and deploy["user_invocable"] is True
    assert "`#not-a-record`" in deploy["body"] and "#42" in deploy["body"]  # a tag is not a dangling ref
    assert records["review"]["model_invokation"] is False
    assert records["running-tests"]["body"] == "\nUse `pytest -q`.\n\n```\n## not a heading\n```\n"
    assert records["code-style"]["model_invokation"] is True
    lint = run_yoi("lint", cwd=ws.root)
    assert lint.returncode == 0, lint.stdout
    # re-import: nothing new
    again = json.loads(run_yoi("import", "--json", cwd=ws.root).stdout)
    assert again["status"] == "nothing-to-do" and len(again["unchanged"]) == 5
    reverted = run_yoi("revert", report["run_id"], cwd=ws.root)
    assert reverted.returncode == 0, reverted.stderr
    assert list(ws.knowledge_dir.glob("*.md")) == []


def test_an_existing_record_is_never_overwritten_a_merge_is_proposed(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    mine = write_record(ws, "knowledge/code-style.md", knowledge_meta(), "\nOur own words.\n")
    original = mine.read_text()
    (ws.root / "AGENTS.md").write_text("## Code style\n\nruff check must pass.\n")
    done = run_yoi("import", "--dry-run", cwd=ws.root)
    assert "would merge into knowledge/code-style.md" in done.stdout and mine.read_text() == original
    assert run_yoi("import", cwd=ws.root).returncode == 0
    text = mine.read_text()
    assert text.startswith(original.rstrip("\n")) and "## Imported from AGENTS.md#code-style" in text
    assert text.endswith("ruff check must pass.\n")


def test_bad_foreign_files_are_reported_not_fatal(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.md").write_text("not a note")
    (vault / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (vault / "Sync Strategy.md").write_text("---\ntitle: Sync Strategy\ntype: note\ntags: [sync]\n"
                                           "permalink: specs/sync-strategy\n---\n\n- [decision] Pull before push #sync\n")
    (vault / "toml.md").write_text('+++\ntitle = "Toml Note"\n+++\nFrom a TOML header.\n')
    (vault / "json.md").write_text('{\n"title": "Json Note"\n}\nFrom a JSON header.\n')
    done = run_yoi("import", str(vault), cwd=ws.root)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "skipped broken.md: frontmatter does not parse" in done.stderr
    assert sorted(p.stem for p in ws.knowledge_dir.glob("*.md")) == ["json-note", "sync-strategy", "toml-note"]
    assert "`#sync`" in (ws.knowledge_dir / "sync-strategy.md").read_text()


SAMPLE_METAS = [
    knowledge_meta(),
    knowledge_meta(description="Colon: quotes ' and \" and # hash; 日本語 too", paths=["*.py", "src/**"]),
    {"created_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "updated_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
     "sources": [{"session_id": "s1", "range": [0, 3]}, {"session_id": "s2", "range": [4, 9]}], "status": "open"},
    knowledge_meta(description="yes", kind="no", last_sources=[], imported_from="AGENTS.md#x"),
]


@pytest.mark.parametrize("meta", SAMPLE_METAS)
def test_records_yoi_writes_load_with_python_frontmatter(tmp_path: Path, meta: dict) -> None:
    ws = make_ws(tmp_path)
    path = write_record(ws, "knowledge/sample.md", meta, "\nBody with --- inside.\n")
    record = read_record(ws, path).record
    assert record is not None
    post = frontmatter.load(path)
    assert post.metadata == record.meta
    rewritten = render_record(record, {"description": "New: value", "updated_at": meta["updated_at"]})
    path.write_text(rewritten)
    assert frontmatter.load(path).metadata == read_record(ws, path).record.meta


def test_every_example_record_loads_the_same_with_python_frontmatter() -> None:
    ws = find_workspace(explicit=EXAMPLES / "workspace")
    paths = sorted((EXAMPLES / "workspace").rglob("*.md"))
    assert len(paths) > 5
    for path in paths:
        record = read_record(ws, path).record
        assert record is not None, path
        assert frontmatter.load(path).metadata == record.meta, path


def test_imported_records_load_the_same_with_python_frontmatter(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    _foreign_project(ws.root)
    assert run_yoi("import", cwd=ws.root).returncode == 0
    for path in ws.knowledge_dir.glob("*.md"):
        assert frontmatter.load(path).metadata == read_record(ws, path).record.meta
