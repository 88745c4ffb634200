"""One record listing (issue 24): every consumer that lists "all the records" sees the same names.

Folders are named once (``store.kinds.RECORD_FOLDERS``) and one rule says which entries are
records (``store.record_listing``); what a consumer then makes of a link, a FIFO or a folder named
like a record is its own rule (lint reports it, search skips it), but it lists the same names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from support import decision_meta, knowledge_meta, make_ws, write_record

from yoi_tui.core.lint import stored
from yoi_tui.core.lint.index import folder_slugs
from yoi_tui.core.store import record_listing
from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.usage.log import _existing_records
from yoi_tui.model.browse import RecordStore, scan_stats

PACKAGE = Path(__file__).resolve().parent.parent / "yoi_tui"


def _odd_workspace(root: Path):  # type: ignore[no-untyped-def]
    ws = make_ws(root)
    write_record(ws, "knowledge/plain.md", knowledge_meta(), "\nPlain.\n")
    write_record(ws, "memory/decisions/choice.md", decision_meta(), "\nChoice.\n")
    (ws.knowledge_dir / "folder.md").mkdir()  # a folder named like a record
    (ws.knowledge_dir / "link.md").symlink_to(ws.knowledge_dir / "plain.md")
    os.mkfifo(ws.knowledge_dir / "pipe.md")
    (ws.knowledge_dir / ".hidden.md").write_text("---\n---\n", encoding="utf-8")
    (ws.knowledge_dir / "notes.txt").write_text("not a record\n", encoding="utf-8")
    (ws.decisions_dir / "sub").mkdir()
    (ws.decisions_dir / "sub" / "deep.md").write_text("---\n---\n", encoding="utf-8")  # not in a record folder
    ws.summary_path.write_text("# Summary\n", encoding="utf-8")
    return ws


def test_every_consumer_lists_the_same_records(tmp_path: Path) -> None:
    ws = _odd_workspace(tmp_path / "ws")
    expected = {"memory/summary.md", "memory/decisions/choice.md", "knowledge/plain.md", "knowledge/folder.md",
                "knowledge/link.md", "knowledge/pipe.md", "knowledge/.hidden.md"}
    root = str(ws.root) + os.sep
    assert {rel for rel, _path in record_listing.record_files(ws)} == expected
    assert {p[len(root):] for p in record_listing.iter_record_path_strings(ws)} == expected
    assert {rel for rel, _path, _sig in stored.record_signatures(ws)} == expected
    assert set(RecordStore.from_names(ws).entries) == expected
    assert set(scan_stats(ws)) == expected
    slugs = {f"{prefix}{slug}.md" for prefix, kind, folder in record_listing.record_folders(ws)
             for slug in (folder_slugs(Path(folder)) or ())}
    assert slugs == expected - {"memory/summary.md"}
    kinds = {RecordKind.DECISION.value: "memory/decisions/", RecordKind.KNOWLEDGE.value: "knowledge/"}
    assert {f"{kinds[kind]}{slug}.md" for kind, slug in _existing_records(ws) if kind != "summary"} == \
        expected - {"memory/summary.md"}


def test_no_other_module_filters_a_folder_listing_for_records() -> None:
    """The rule 'a name ending in .md' next to a folder listing lives in store/record_listing.py only."""
    offenders: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "record_listing.py":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if 'endswith(".md")' in line and any("scandir" in near for near in lines[max(0, number - 3): number + 1]):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number + 1}")
    assert offenders == []
    assert not re.search(r'"memory/decisions"', (PACKAGE / "core" / "freshness" / "record_feed.py").read_text())
