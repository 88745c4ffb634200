"""Import ↔ export round trip (issue 25): ``yoi export skills`` then ``yoi import`` proposes nothing;
``yoi import`` then ``yoi export skills`` gives back the skill it read, fields yoi has no meaning for
(``allowed-tools``, ``argument-hint``, ``license``, ``metadata``, Cursor ``globs``) included."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.export.skills import apply_export, plan_export
from yoi_tui.core.importer.foreign import read_frontmatter
from yoi_tui.core.importer.runner import run_import
from yoi_tui.core.store.workspace import Workspace, init_workspace

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
_SLUG = st.lists(_WORD, min_size=1, max_size=3).map("-".join)
_SENTENCE = st.lists(st.one_of(_WORD, _WORD.map(lambda w: f"#{w}-tag")), min_size=1, max_size=8).map(" ".join)
_TEXT = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "Zs", "P")), min_size=1,
                max_size=40).map(lambda t: " ".join(t.split())).filter(bool)


@st.composite
def _skills(draw: st.DrawFn) -> dict[str, Any]:
    model, user = draw(st.sampled_from([(True, True), (True, False), (False, True)]))
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["allowed-tools"] = draw(st.sampled_from(["Read Grep", "Bash(git:*) Read", "Edit"]))
    if draw(st.booleans()):
        fields["argument-hint"] = draw(st.sampled_from(["[file]", "<issue-number>", "[pr] [branch]"]))
    if draw(st.booleans()):
        fields["license"] = draw(st.sampled_from(["MIT", "Apache-2.0", "Proprietary. LICENSE.txt has terms"]))
    if draw(st.booleans()):
        fields["metadata"] = draw(st.dictionaries(_WORD, _TEXT, min_size=1, max_size=3))
    paragraphs = draw(st.lists(_SENTENCE, min_size=1, max_size=3))
    return {"name": draw(_SLUG), "description": draw(_TEXT), "model": model, "user": user, "fields": fields,
            "body": "\n\n".join(paragraphs)}


def _skill_text(skill: dict[str, Any]) -> str:
    lines = ["---", f"name: {skill['name']}", f"description: {json.dumps(skill['description'], ensure_ascii=False)}"]
    if not skill["model"]:
        lines.append("disable-model-invocation: true")
    if not skill["user"]:
        lines.append("user-invocable: false")
    for key, value in skill["fields"].items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines += [f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()]
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join([*lines, "---", "", skill["body"], ""])


def _unspanned(text: str) -> str:
    """A body with yoi's code spans around `#tags` that name no record taken off (the one change an
    import makes on purpose: such a tag must not read as a reference)."""
    return re.sub(r"`(#[\w-]+)`", r"\1", re.sub(r"<!--.*?-->", "", text)).strip()


def _exported(root: Path, name: str) -> tuple[dict[str, Any], str]:
    return read_frontmatter((root / ".claude" / "skills" / name / "SKILL.md").read_text(encoding="utf-8"))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_skills())
def test_property_import_then_export_gives_the_skill_back(skill: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = init_workspace(Path(tmp))
        original = ws.root / "vendor" / "skills" / skill["name"] / "SKILL.md"
        original.parent.mkdir(parents=True)
        original.write_text(_skill_text(skill), encoding="utf-8")
        report = run_import(ws, [original])
        assert report.status == "applied", report.to_json()
        apply_export(plan_export(ws))
        meta, body = _exported(ws.root, skill["name"])
        want, want_body = read_frontmatter(original.read_text(encoding="utf-8"))
        yoi_keys = {"generated-by", "yoi-kind", "yoi-record", "yoi-hash"}
        metadata = {k: v for k, v in (meta.pop("metadata") or {}).items() if k not in yoi_keys}
        assert metadata == want.pop("metadata", {})
        assert meta == want  # name, description, both switches, every other field as it was
        assert _unspanned(body) == want_body.strip()
        # ... and importing the export (and the original again) proposes nothing.
        again = run_import(ws, [ws.root / ".claude", ws.root / ".agents", original])
        assert again.plan.changeset.changes == [], again.to_json()


@st.composite
def _records(draw: st.DrawFn) -> list[dict[str, Any]]:
    slugs = draw(st.lists(_SLUG, min_size=1, max_size=4, unique=True))
    records = []
    for slug in slugs:
        model, user = draw(st.sampled_from([(True, True), (True, False), (False, True)]))
        refs = [f"See #{other}." for other in slugs if other != slug and draw(st.booleans())]
        body = "\n\n".join([f"# {slug.replace('-', ' ').title()}", *draw(st.lists(_SENTENCE, min_size=1, max_size=3)),
                            *refs])
        records.append({"slug": slug, "description": draw(_TEXT), "model": model, "user": user, "body": body,
                        "kind": draw(st.sampled_from(["fact", "howto", "rule", "policy"]))})
    return records


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_records())
def test_property_export_then_import_proposes_nothing(records: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = init_workspace(Path(tmp))
        for item in records:
            body = re.sub(r"(?<![\w`])(#[a-z]+-tag)", r"`\1`", item["body"])  # as yoi writes tags it cannot resolve
            write_record(ws, f"knowledge/{item['slug']}.md",
                         knowledge_meta(kind=item["kind"], description=item["description"],
                                        model_invokation=item["model"], user_invocable=item["user"]),
                         "\n" + body + "\n")
        apply_export(plan_export(ws))
        report = run_import(Workspace(ws.root), [ws.root])
        assert report.plan.changeset.changes == [], report.to_json()
        assert not report.plan.skipped


def test_a_cursor_rule_with_a_tag_exported_and_imported_again_is_one_record(tmp_path: Path) -> None:
    """The issue's case: a `#tag-me` put into a code span by the import came back as
    commit-style-2.md and commit-style-3.md."""
    ws = make_ws(tmp_path)
    rules = ws.root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "commit-style.mdc").write_text("---\ndescription: How commits are written\nglobs: src/**/*.py\n"
                                            "alwaysApply: false\n---\nTag WIP commits #tag-me so they are squashed.\n",
                                            encoding="utf-8")

    def yoi(*args: str):  # type: ignore[no-untyped-def]
        return run_yoi(args[0], "--workspace", str(ws.root), *args[1:])

    assert yoi("import").returncode == 0
    assert yoi("export", "skills").returncode == 0
    meta, _body = _exported(ws.root, "commit-style")
    assert meta["paths"] == ["src/**/*.py"]  # the rule's globs, written back
    again = yoi("import", "--json")
    data = json.loads(again.stdout)
    assert again.returncode == 0 and data["created"] == [] and data["merged"] == [], data
    assert sorted(p.name for p in ws.knowledge_dir.glob("*.md")) == ["commit-style.md"]
    lint = yoi("lint", "--format", "json")
    assert not [d for d in json.loads(lint.stdout) if d["rule"] == "similar-slugs"]


def test_fields_with_no_yoi_meaning_are_kept_in_the_record(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    skill = ws.root / "vendor" / "pdf" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools: Bash(pdftk:*) Read\n"
                     "argument-hint: \"[file.pdf]\"\nlicense: MIT\nmetadata:\n  author: ops\n---\nUse pdftk.\n",
                     encoding="utf-8")
    run_import(ws, [skill])
    text = (ws.knowledge_dir / "pdf.md").read_text(encoding="utf-8")
    meta, _ = read_frontmatter(text)
    assert meta["skill_fields"] == {"allowed-tools": "Bash(pdftk:*) Read", "argument-hint": "[file.pdf]",
                                    "license": "MIT", "metadata": {"author": "ops"}}
    apply_export(plan_export(ws))
    agents, _ = read_frontmatter((ws.root / ".agents/skills/pdf/SKILL.md").read_text(encoding="utf-8"))
    # The spec-only copy keeps to the spec's keys: no Claude Code argument-hint there.
    assert agents["allowed-tools"] == "Bash(pdftk:*) Read" and agents["license"] == "MIT"
    assert "argument-hint" not in agents and agents["metadata"]["author"] == "ops"
