"""What a GC merge writes (issue 25): the keeper by content, Markdown blocks merged whole, status only
when the reason says so, no merge across slugs that name different things, and no similar-slugs
warning between a stub and its replacement."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REPO, decision_meta, make_ws, request_meta, write_record

from yoi_tui.core.gc import run_gc
from yoi_tui.core.gc.merge_content import Holding, choose_keeper, md_blocks, merge_blocks
from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.slug_names import naming_difference
from yoi_tui.core.store.workspace import Workspace

# --------------------------------------------------------------------------- merge_blocks

HARD_WRAPPED_KEEPER = """
# Retry webhooks with exponential backoff

5 attempts: 1 min, 5 min, 30 min, 2 h, 12 h. After that the
delivery is marked failed and the tenant is e-mailed.

## Rationale
Providers throttle bursts of retries; growing delays keep us under their limits.
"""

HARD_WRAPPED_OTHER = """
# Retry webhook deliveries

A second note on webhook retries, written in another session;
probably the same subject. After that the
delivery is marked failed.
"""


def _paragraphs(body: str) -> list[str]:
    return [p.strip() for p in body.split("\n\n") if p.strip()]


def test_a_hard_wrapped_paragraph_is_never_split() -> None:
    merged = merge_blocks(HARD_WRAPPED_KEEPER, HARD_WRAPPED_OTHER)
    paragraphs = _paragraphs(merged)
    assert ("5 attempts: 1 min, 5 min, 30 min, 2 h, 12 h. After that the\n"
            "delivery is marked failed and the tenant is e-mailed.") in paragraphs
    assert ("A second note on webhook retries, written in another session;\nprobably the same subject. After that the\n"
            "delivery is marked failed.") in paragraphs
    assert merge_blocks(merged, HARD_WRAPPED_OTHER) == merged  # idempotent


def test_lists_and_code_blocks_move_whole() -> None:
    keeper = "\n# T\n\n## Options\n- one\n- two\n\nAfter the list.\n"
    other = ("\n# T\n\n## Options\n- two\n- three, which is long\n  and wrapped\n\n```\ncode\n\nmore code\n```\n")
    merged = merge_blocks(keeper, other)
    assert merged == ("\n# T\n\n## Options\n- one\n- two\n- three, which is long\n  and wrapped\n\nAfter the list.\n"
                      "\n```\ncode\n\nmore code\n```\n")


def test_a_block_the_keeper_holds_rewrapped_is_not_repeated() -> None:
    keeper = "\n# T\n\nOne two three\nfour five.\n"
    assert merge_blocks(keeper, "\n# T\n\nOne two\nthree four five.\n") == keeper


_WORDS = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
_LINE = st.lists(_WORDS, min_size=1, max_size=5).map(" ".join)


@st.composite
def _blocks(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["para", "list", "code", "quote"]))
    lines = draw(st.lists(_LINE, min_size=1, max_size=3))
    if kind == "para":
        return "\n".join(lines)
    if kind == "list":
        return "\n".join(f"- {line}" for line in lines)
    if kind == "quote":
        return "\n".join(f"> {line}" for line in lines)
    return "```\n" + "\n".join(lines) + "\n```"


@st.composite
def _bodies(draw: st.DrawFn) -> str:
    sections = draw(st.lists(st.sampled_from(["## A", "## B", "## C"]), max_size=3, unique=True))
    parts = ["", "# Title", ""]
    for heading in [None, *sections]:
        if heading:
            parts.extend([heading, ""])
        for block in draw(st.lists(_blocks(), max_size=3)):
            parts.extend([block, ""])
    return "\n".join(parts)


def _block_texts(body: str) -> list[str]:
    lines = body.split("\n")
    return [" ".join(" ".join(lines[b.start:b.end]).split()) for b in md_blocks(lines)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_bodies(), _bodies())
def test_property_no_line_lost_none_doubled_blocks_whole(keeper: str, other: str) -> None:
    merged = merge_blocks(keeper, other)
    merged_lines = merged.split("\n")
    # Every line of the keeper stays, in order.
    it = iter(merged_lines)
    assert all(any(line == m for m in it) for line in keeper.split("\n") if line.strip())
    # Every block of the other record is in the result: whole (its lines consecutive), or held by a
    # keeper block already; list items may join a keeper list one by one.
    merged_text = "\n".join(merged_lines)
    for block in _block_texts(other):
        if block.startswith("Title"):
            continue
        assert block in " ".join(merged_text.split()) or all(
            item.strip() in merged_text for item in block.split("- ") if item.strip())
    # Nothing the keeper did not have twice appears twice.
    for line in {line for line in merged_lines if line.strip() and not line.startswith("#") and line != "```"}:
        assert merged_lines.count(line) <= max(keeper.split("\n").count(line), 1) + other.split("\n").count(line)
    assert merge_blocks(merged, other) == merged  # idempotent


# --------------------------------------------------------------------------- keeper and slugs


def test_the_keeper_is_the_preferred_slug_whatever_the_records_hold() -> None:
    """Issue 30: by names alone — two clones that pulled different sessions count different
    sources and text, and must still keep the same record."""
    weak = Holding("retry-webhook-with-backoff", 1, 120, 2.0)
    strong = Holding("retry-webhooks-with-backoff", 9, 3000, 1.0)
    assert choose_keeper([weak, strong])[0] is weak
    assert choose_keeper([strong, weak])[0] is weak
    assert choose_keeper([Holding("zzz", 0, 1, 0.0), strong, weak])[0].slug == "zzz"  # shortest
    assert choose_keeper([Holding("b", 5, 5, 1.0), Holding("a", 1, 1, 9.0)])[0].slug == "a"  # then alphabetical


def test_slugs_that_name_different_things() -> None:
    for first, second in (("fix-hoge-py", "fix-piyo-py"), ("support-v1", "support-v2"), ("issue-12", "issue-13"),
                          ("update-readme-md", "update-readme-rst"), ("fix-login-page", "fix-logout-page")):
        assert naming_difference(first, second) is not None, (first, second)
    for first, second in (("use-sqlite-for-the-cache", "use-sqlite-for-the-caches"), ("setup-ci", "set-up-ci"),
                          ("pick-a-color", "pick-a-colour"), ("add-dark-mode", "add-a-dark-mode")):
        assert naming_difference(first, second) is None, (first, second)


def test_requests_about_different_files_are_not_merged(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.root / ".yoi/config.toml").write_text("[records]\nsimilar_slug_ratio = 80\n", encoding="utf-8")
    ws = Workspace(ws.root)
    for name in ("hoge", "piyo", "fuga"):
        write_record(ws, f"memory/requests/fix-the-parser-in-{name}-py.md", request_meta(),
                     f"\n# Fix the parser in {name}.py\n")
    report = run_gc(ws, dry_run=True)
    assert [o for o in report.operations if o.op == "merge"] == []
    assert not [d for d in lint_workspace(ws).diagnostics if d.rule == "similar-slugs"]


# --------------------------------------------------------------------------- a GC merge on disk


def test_a_merge_keeps_the_preferred_record_its_paragraphs_and_its_status(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/retry-webhooks-with-backoff.md", decision_meta(status="open"),
                 HARD_WRAPPED_OTHER)
    write_record(ws, "memory/decisions/retry-webhook-with-backoff.md", decision_meta(status="resolved"),
                 HARD_WRAPPED_KEEPER)
    report = run_gc(ws)
    merge = next(o for o in report.proposed if o.op == "merge")
    assert merge.path == "memory/decisions/retry-webhook-with-backoff.md"
    assert "because its slug is preferred" in merge.reason
    assert "status" not in merge.reason  # resolved stays resolved: nothing to say
    kept = read_record(ws, ws.decisions_dir / "retry-webhook-with-backoff.md").record
    assert kept is not None and kept.status == "resolved"
    assert "After that the\ndelivery is marked failed and the tenant is e-mailed." in kept.body
    assert "probably the same subject. After that the\ndelivery is marked failed." in kept.body
    # The stub and its replacement are not near-duplicates any more: the merge is done.
    assert not [d for d in lint_workspace(ws).diagnostics if d.rule == "similar-slugs"]
    assert not [d for d in lint_workspace(ws, cache=True).diagnostics if d.rule == "similar-slugs"]


def test_a_status_change_is_said_in_the_reason(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/pick-a-db.md", decision_meta(status="open"), "\n# Pick a DB\n\nLonger text here.\n")
    write_record(ws, "memory/decisions/pick-a-dbs.md", decision_meta(status="resolved"), "\n# Pick a DB\n")
    merge = next(o for o in run_gc(ws).proposed if o.op == "merge")
    assert merge.path == "memory/decisions/pick-a-db.md"
    assert "status open → resolved (`pick-a-dbs` records the choice as made)" in merge.reason


def test_two_clones_pick_the_same_keeper_whatever_their_usage_and_file_times(tmp_path: Path) -> None:
    from yoi_tui.core.usage.log import record_invoke, record_tokens

    picks = []
    for name in ("one", "two"):
        ws = make_ws(tmp_path / name)
        write_record(ws, "memory/decisions/pick-a-db.md", decision_meta(), "\n# Pick a DB\n")
        # Clone two had pulled more sessions about the other wording: more sources, more text.
        more = [{"session_id": f"s{i}", "range": [0, 4]} for i in range(3 if name == "two" else 1)]
        write_record(ws, "memory/decisions/pick-a-dbs.md", decision_meta(sources=more),
                     "\n# Pick a DB\n\nMore.\n" + ("\nEven more.\n" if name == "two" else ""))
        if name == "two":
            record_invoke(ws, "pick-a-db", "decision", "search", session_id="other")  # used, not protected
            record_tokens(ws, 3_000_000, session_id="other")
            os.utime(ws.decisions_dir / "pick-a-dbs.md", (1, 1))
        picks.append(next(o.path for o in run_gc(ws, dry_run=True).proposed if o.op == "merge"))
    assert picks == ["memory/decisions/pick-a-db.md"] * 2  # the preferred slug, by names alone (issue 30)


# --------------------------------------------------------------------------- docs/gc.md's example


def test_docs_gc_holds_the_generated_merge_example() -> None:
    spec = importlib.util.spec_from_file_location("gc_merge_example", REPO / "scripts" / "gc_merge_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.PAGE.read_text(encoding="utf-8")
    assert module.with_section(text) == text, "docs/gc.md is stale: run python scripts/gc_merge_example.py"
    section = module.render()
    assert "After that the\ndelivery is marked failed and the tenant is e-mailed." in section.split("After:")[1]


def test_phase2_does_not_update_a_record_about_another_file(tmp_path: Path) -> None:
    from phase2_fixtures import stage

    from yoi_tui.core.phase2.runner import run_phase2
    from yoi_tui.core.store.staging import Request

    ws = make_ws(tmp_path)
    (ws.root / ".yoi/config.toml").write_text("[records]\nsimilar_slug_ratio = 80\n", encoding="utf-8")
    ws = Workspace(ws.root)
    write_record(ws, "memory/requests/fix-the-parser-in-hoge-py.md", request_meta(), "\n# Fix the parser in hoge.py\n")
    stage(ws, "0197d5-session", 0, 4, requests=[Request(intent="Fix the parser in piyo.py", target="piyo.py",
                                                       summary="It drops the last token.", title="Fix the parser in piyo.py")])
    run_phase2(ws, flush=True)
    assert (ws.requests_dir / "fix-the-parser-in-piyo-py.md").exists()
    assert "piyo" not in (ws.requests_dir / "fix-the-parser-in-hoge-py.md").read_text()
