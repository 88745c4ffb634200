"""Running the linter: the whole workspace, a list of files, or one text being edited.

A whole-workspace run reads and parses every record once, builds the index from them, then applies
the per-record rules and the cross-record ``similar-slugs`` rule. A one-file run uses a lazy index
(folder listings plus the records the file points at), so its cost follows that file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..store.config import Config
from ..store.kinds import RecordKind, kind_for_path, slug_of
from ..store.reader import read_record
from ..store.record_listing import iter_record_paths
from ..store.records import Record
from ..store.workspace import Workspace
from .index import ListedEntries, WorkspaceIndex
from .rules import (
    RECORD_RULES,
    LintContext,
    similar_diagnostic,
    similar_in_listing,
    similar_pair_wanted,
    similar_slug_pairs,
    similar_to,
)
from .stored import unstored_findings

STATIC_RULES: tuple[str, ...] = (
    "frontmatter-invalid", "field-type", "missing-field", "bad-slug", "dangling-ref", "dangling-replaced-by",
    "bad-status", "description-too-long", "over-cap", "conflict-markers", "secret",
    "compressible", "sources-overflow", "similar-slugs", "unknown-field", "ref-to-replaced", "injection-pattern",
)
WRITE_TIME_RULES: tuple[str, ...] = ("workflow-write", "slug-exists", "invented-source", "injection-pattern")
FILE_RULES: tuple[str, ...] = ("file-unreadable", "encoding")


@dataclass
class LintReport:
    """Findings of one run, sorted by path and position, plus what was read."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    records: list[Record] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors


def _filtered(diags: list[Diagnostic], config: Config) -> list[Diagnostic]:
    from .stored import filter_disabled

    return filter_disabled(diags, config)


def lint_record(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext | None = None,
                *, with_similar: bool = True) -> list[Diagnostic]:
    """Every per-record rule on one parsed record (plus similar-slugs against the index)."""
    ctx = ctx or LintContext()
    found: list[Diagnostic] = []
    for rule in RECORD_RULES:
        found.extend(rule(record, index, config, ctx))
    if with_similar and record.kind is not RecordKind.SUMMARY:
        # Unsorted: which slugs are near-identical does not depend on their order (findings are sorted later).
        bucket = index.entries[record.kind]
        ratio = config.records.similar_slug_ratio
        similar = similar_in_listing(record.slug, bucket.listing, ratio) \
            if isinstance(bucket, ListedEntries) and not bucket.changed else similar_to(record.slug, list(bucket), ratio)
        for other, score in similar:
            if similar_pair_wanted(index, record.kind, record.slug, other):
                found.append(_similar(record.rel, record.kind, other, score))
    return found


_similar = similar_diagnostic


def load_records(ws: Workspace) -> tuple[list[Record], list[Diagnostic], WorkspaceIndex]:
    """Read every record once: the parsed records, reading problems, and the index built from them."""
    records: list[Record] = []
    diags: list[Diagnostic] = []
    unparsed: list[tuple[RecordKind, str, str]] = []
    for path in iter_record_paths(ws):
        result = read_record(ws, path)
        diags.extend(result.diagnostics)
        if result.record is not None:
            records.append(result.record)
        else:
            kind = kind_for_path(ws, path)
            if kind is not None:
                unparsed.append((kind, slug_of(path) if kind is not RecordKind.SUMMARY else "summary", ws.rel(path)))
    return records, diags, WorkspaceIndex.from_records(records, unparsed)


def lint_workspace(ws: Workspace, *, frequencies: Mapping[tuple[str, str], float] | None = None,
                   cache: bool = False) -> LintReport:
    """Lint every record of the workspace.

    ``cache=True`` keeps per-file results in ``.yoi/state/cache/`` and re-reads only changed files
    (``lint.cache``; same findings). ``records`` is then empty: no parsed record is kept in memory.
    """
    config = ws.config
    if cache:
        from .cache import lint_workspace_cached

        found, files = lint_workspace_cached(ws, frequencies=frequencies)
        return LintReport(_filtered(found + unstored_findings(ws), config), files=files)
    records, diags, index = load_records(ws)
    ctx = LintContext(frequencies)
    for record in records:
        diags.extend(lint_record(record, index, config, ctx, with_similar=False))
    rels = {(r.kind, r.slug): r.rel for r in records}
    for kind in (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE):
        for first, second, score in similar_slug_pairs(index.slugs(kind), config.records.similar_slug_ratio):
            if not similar_pair_wanted(index, kind, first, second):
                continue
            for slug, other in ((first, second), (second, first)):
                if (kind, slug) in rels:
                    diags.append(_similar(rels[(kind, slug)], kind, other, score))
    diags.extend(unstored_findings(ws))
    total = len(records) + sum(1 for d in diags if d.rule == "file-unreadable")
    return LintReport(_filtered(diags, config), files=total, records=records)


def lint_paths(ws: Workspace, paths: list[Path], *,
               frequencies: Mapping[tuple[str, str], float] | None = None,
               index: WorkspaceIndex | None = None) -> LintReport:
    """Lint the given record files against a lazy index of the workspace."""
    config = ws.config
    index = index or WorkspaceIndex.from_names(ws)
    ctx = LintContext(frequencies)
    report = LintReport()
    for path in paths:
        result = read_record(ws, path)
        report.files += 1
        report.diagnostics.extend(result.diagnostics)
        if result.record is not None:
            report.records.append(result.record)
            report.diagnostics.extend(lint_record(result.record, index, config, ctx))
    report.diagnostics = _filtered(report.diagnostics, config)
    return report


def lint_text(ws: Workspace, path: Path, text: str, index: WorkspaceIndex,
              *, frequencies: Mapping[tuple[str, str], float] | None = None) -> list[Diagnostic]:
    """Lint unsaved ``text`` as if it were the content of ``path`` (the editor's live lint)."""
    result = read_record(ws, Path(os.path.abspath(path)), text=text)
    diags = list(result.diagnostics)
    if result.record is not None:
        diags.extend(lint_record(result.record, index, ws.config, LintContext(frequencies)))
    return _filtered(diags, ws.config)
