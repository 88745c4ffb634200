"""GC's ``llm`` engine with a scripted model (pydantic-ai ``FunctionModel``): the rules run first, the
model rewrites or splits only what they report, every write is linted, protected records keep their
text, refusals are retried, too many failures abort with nothing kept."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from llm_fixtures import Script, call, done
from phase2_fixtures import tree_bytes
from support import decision_meta, knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.gc import run_gc
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.runs.changeset import revert
from yoi_tui.core.runs.consolidation_lock import lock_path
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import record_invoke, record_tokens

OUTDATED = "memory/decisions/cache-layout.md"
BIG = "knowledge/release-guide.md"
REPLACED = "memory/decisions/use-json-files.md"
NEW_CACHE_BODY = "\n# Cache layout\n\nThe cache lived in `client/old_cache.py` (since removed); it is now `client/cache.py`.\n"

def _workspace(tmp_path: Path, *, protected_big: bool = False) -> Workspace:
    ws = make_ws(tmp_path)
    (ws.root / "client").mkdir()
    (ws.root / "client/cache.py").write_text("")
    write_record(ws, OUTDATED, decision_meta(status="resolved"),
                 "\n# Cache layout\n\nThe cache lives in `client/old_cache.py`.\n")
    guide = "\n# Release guide\n\n## Tagging\n" + "Tag the release commit. " * 200 + \
            "\n\n## Publishing\n" + "Upload the wheels. " * 200 + "\n"
    write_record(ws, BIG, knowledge_meta(description="How to release; read before tagging."), guide)
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(status="resolved"), "\n# Use SQLite\n")
    write_record(ws, REPLACED, decision_meta(status="replaced", replaced_by="use-sqlite"), "\n# JSON files\n")
    if protected_big:
        for _ in range(3):
            record_invoke(ws, "release-guide", "knowledge", "slug", session_id="reader")
        record_tokens(ws, 100_000, session_id="reader")
    return ws


def _errors(ws: Workspace) -> list[Any]:
    return [d for d in lint_workspace(ws).diagnostics if d.is_error]


def test_no_target_means_no_model_call(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/use-sqlite.md", decision_meta(status="resolved"))
    write_record(ws, REPLACED, decision_meta(status="replaced", replaced_by="use-sqlite"))
    script = Script([])
    report = run_gc(ws, engine="llm", model=script.model())
    assert script.calls == 0 and report.status == "applied" and report.engine == "llm"
    assert [o.id for o in report.proposed] == [f"drop:{REPLACED}"]
    assert "llm: nothing for the model to rewrite; no model call" in report.changeset.notes  # type: ignore[union-attr]


def test_an_outdated_record_is_rewritten_with_the_models_reason(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    before = read_record(ws, ws.root / OUTDATED).record
    script = Script([call("rewrite_record", path=OUTDATED, body=NEW_CACHE_BODY,
                          reason="client/old_cache.py was removed; say where the cache lives now"),
                     call("rewrite_record", path=BIG, body="\n# Release guide\n\nTag, then upload the wheels.\n",
                          reason="densified the repeated steps"),
                     done()])
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "applied" and report.exit_code == 0, report.to_json()
    assert "## Records to rewrite or split" in script.prompts[0] and "`client/old_cache.py`" in script.prompts[0]
    assert f"### {REPLACED}" not in script.prompts[0]  # the rules dropped it; not the model's
    rewrite = next(o for o in report.proposed if o.path == OUTDATED)
    assert rewrite.op == "rewrite" and rewrite.categories == ["outdated"] and rewrite.paths == [OUTDATED]
    assert rewrite.reason == "client/old_cache.py was removed; say where the cache lives now"
    assert not [o for o in report.operations if o.path == OUTDATED and o.state == "reported"]
    change = report.changeset.get(OUTDATED)  # type: ignore[union-attr]
    assert change is not None and change.category == ["outdated"] and change.reason.startswith("rewritten: ")
    after = read_record(ws, ws.root / OUTDATED).record
    assert after is not None and before is not None
    assert after.body == NEW_CACHE_BODY and after.meta["sources"] == before.meta["sources"]
    assert after.meta["updated_at"] != before.meta["updated_at"] and after.status == "resolved"
    assert not (ws.root / REPLACED).exists()  # the rules' drop is applied too
    assert _errors(ws) == []
    events = [json.loads(line) for p in ws.usage_dir.glob("*.jsonl") for line in p.read_text().splitlines()]
    assert any(e["type"] == "tokens" and e["input_tokens"] == 3200 for e in events)
    assert report.usage == {"input_tokens": 3200, "output_tokens": 120}


def test_a_refused_write_goes_back_to_the_model_and_is_fixed(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    script = Script([call("rewrite_record", path=OUTDATED, body="\nSee #no-such-knowledge.\n", reason="x"),
                     call("rewrite_record", path="memory/decisions/use-sqlite.md", body="\nHi.\n", reason="y"),
                     call("rewrite_record", path=OUTDATED, body=NEW_CACHE_BODY, reason="fixed the path"),
                     done()])
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "applied"
    assert any("dangling-ref" in f and "NOT written" in f for f in script.feedback)
    assert any("is not one of the records to rewrite or split" in f for f in script.feedback)
    assert read_record(ws, ws.root / OUTDATED).record.body == NEW_CACHE_BODY  # type: ignore[union-attr]
    assert "llm: 2 write(s) refused by the linter or the rules and fixed" in report.changeset.notes  # type: ignore[union-attr]


def test_too_many_failed_writes_abort_and_keep_nothing(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    before = tree_bytes(ws.root, "memory", "knowledge")
    script = Script([call("rewrite_record", path=OUTDATED, body="\n#nope\n", reason="x") for _ in range(3)])
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "aborted" and report.exit_code == 1
    assert "failed 3 times" in (report.message or "")
    assert tree_bytes(ws.root, "memory", "knowledge") == before  # the rules' drop is not kept either
    assert not lock_path(ws).exists() and not list((ws.state_dir / "runs").glob("*.json"))


def test_split_a_protected_record_then_rewrite_it(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, protected_big=True)
    publishing = "\n# Publishing a release\n\n" + "Upload the wheels. " * 200 + "\n"
    tagging = "\n# Release guide\n\n## Tagging\n" + "Tag the release commit. " * 200 + "\n"
    script = Script([
        call("rewrite_record", path=BIG, body="\n# Release guide\n\nTag and upload.\n", reason="shorter"),
        call("split_record", path=BIG, new_slug="publishing-a-release", body=publishing,
             reason="publishing is its own subject", description="How to publish wheels; read before uploading."),
        call("rewrite_record", path=BIG, body=tagging, reason="kept tagging; publishing moved out"),
        done()])
    before = tree_bytes(ws.root)
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "applied", report.to_json()
    assert any("is protected (used often) and may not be heavily compressed" in f for f in script.feedback)
    split = next(o for o in report.proposed if o.path == BIG)
    assert split.op == "split" and split.categories == ["noisy"]
    assert split.paths == [BIG, "knowledge/publishing-a-release.md"]
    assert split.details["split_into"] == ["publishing-a-release"]
    new = read_record(ws, ws.knowledge_dir / "publishing-a-release.md").record
    original = read_record(ws, ws.root / BIG).record
    assert new is not None and original is not None
    assert new.meta["last_sources"] == original.meta["last_sources"]
    assert new.description == "How to publish wheels; read before uploading." and not new.model_invokation
    # The model did not name the new record: GC adds the pointer so it stays reachable.
    assert original.body.endswith("\nSee also #publishing-a-release.\n")
    assert _errors(ws) == []
    result = revert(ws, report.run_id or "")
    assert result.ok and tree_bytes(ws.root) == before


def test_locked_and_invented_and_escaping_writes_are_refused(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    os.chmod(ws.root / BIG, 0o444)  # locked: the rules report it as locked, so it is no target
    script = Script([call("rewrite_record", path=BIG, body="\nShort.\n", reason="x"),
                     call("split_record", path=OUTDATED, new_slug="Bad Slug", body="\nx\n", reason="y"),
                     call("read_file", path="../outside.md"),
                     call("rewrite_record", path=OUTDATED, body=NEW_CACHE_BODY, reason="fixed the path"),
                     done()])
    report = run_gc(ws, engine="llm", model=script.model())
    assert report.status == "applied"
    assert any("knowledge/release-guide.md is not one of the records" in f for f in script.feedback)
    assert any("'Bad Slug' is not a valid slug" in f for f in script.feedback)
    assert any("contains '..'" in f for f in script.feedback)
    assert [o.state for o in report.operations if o.path == BIG] == ["locked"]


def test_cli_llm_without_an_api_key_is_an_environment_error(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    before = tree_bytes(ws.root, "memory", "knowledge")
    result = run_yoi("gc", "--workspace", str(ws.root), "--engine", "llm", env={"ANTHROPIC_API_KEY": ""})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "ANTHROPIC_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert tree_bytes(ws.root, "memory", "knowledge") == before and not lock_path(ws).exists()
    # Nothing for the model to do: no key is needed.
    empty = make_ws(tmp_path / "empty")
    quiet = run_yoi("gc", "--workspace", str(empty.root), "--engine", "llm", env={"ANTHROPIC_API_KEY": ""})
    assert quiet.returncode == 0 and "no change proposed" in quiet.stdout


def test_a_file_a_rules_operation_changes_is_left_for_the_next_run(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.root / "client").mkdir()
    write_record(ws, "memory/decisions/use-sqlite-for-the-cache.md", decision_meta(),
                 "\n# Use SQLite for the cache\n\nWas in `client/old_cache.py`.\n")
    write_record(ws, "memory/decisions/use-sqlite-for-the-caches.md", decision_meta(), "\n# Use SQLite\n")
    script = Script([])
    report = run_gc(ws, engine="llm", model=script.model())
    assert script.calls == 0  # the merge keeper is outdated, but the merge owns the file in this run
    assert [o.op for o in report.proposed] == ["merge"]
    assert [(o.op, o.state) for o in report.findings] == [("rewrite", "reported")]


def test_a_record_written_back_unchanged_stays_a_reported_finding(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    original = read_record(ws, ws.root / OUTDATED).record
    assert original is not None
    script = Script([call("rewrite_record", path=OUTDATED, body=original.body, reason="nothing to change")])
    report = run_gc(ws, engine="llm", model=script.model())
    assert [(o.op, o.state) for o in report.operations if o.path == OUTDATED] == [("rewrite", "reported")]
    assert report.changeset is not None and report.changeset.get(OUTDATED) is None
