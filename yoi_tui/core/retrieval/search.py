"""The retrieval tools of SPEC 5: ``knowledge_search``, ``memory_search`` and reading one record.

This is a hot path (benchmarked at 10,000 and 50,000 records against ripgrep). The search index
(``search_index.py``, ``.yoi/state/search-v1.sqlite``) names the files that may hold every query
term after bringing itself up to date with the files on disk; only those are read (without it —
no ``.yoi/``, read-only, ``use_index=False`` — every file is). Each file is read with raw ``os``
calls, matched on its lower-cased text, and only files whose raw text holds every query term (and
the ``kind`` asked for) get their YAML frontmatter parsed. Results come in sorted-path order; the
scan stops at the limit. The index never decides a hit, so answers are those of the plain scan.

Matching: the query is split on whitespace; every term must occur, case-insensitively, somewhere in
the file (frontmatter included). The excerpt is the lines around the first matching line, looked
for in the body first (a line holding every term, else one holding any term) and only then in the
frontmatter; with no query it is the start of the body.

Every hit counts as one explicit invoke (SPEC 6): ``via="slug"`` when looked up by ``slug=``,
``via="search"`` otherwise. Files that cannot be read or parsed are skipped (the linter reports
them); pass ``problems=[]`` to collect a one-line reason for each.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..errors import YoiError
from ..store.kinds import MEMORY_KINDS, RecordKind, is_valid_slug, path_for
from ..store.reader import decode_text, read_bytes, read_record
from ..store.record_listing import md_dir_entries
from ..store.records import Record, parse_record_text
from ..store.workspace import DECISIONS_REL, KNOWLEDGE_REL, REQUESTS_REL, SUMMARY_REL, Workspace

_MEMORY_KIND_VALUES = tuple(k.value for k in MEMORY_KINDS)


class SearchError(YoiError):
    """A search was asked for with a bad argument (unknown kind, bad limit or slug)."""


@dataclass(slots=True)
class KnowledgeHit:
    """A knowledge record found by ``knowledge_search``."""

    slug: str
    kind: str
    description: str
    model_invokation: bool
    excerpt: str
    path: str = ""
    line: int | None = None
    replaced_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields of SPEC 5: slug, kind, description, model_invokation, excerpt."""
        data: dict[str, Any] = {"slug": self.slug, "kind": self.kind, "description": self.description,
                                "model_invokation": self.model_invokation, "excerpt": self.excerpt}
        if self.replaced_by:
            data["replaced_by"] = self.replaced_by
        return data


@dataclass(slots=True)
class MemoryHit:
    """A summary, decision or request found by ``memory_search``."""

    slug: str
    kind: str
    description: str | None
    status: str | None
    excerpt: str
    path: str = ""
    line: int | None = None
    replaced_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """slug, kind, excerpt; ``status``/``description``/``replaced_by`` only where the record has one."""
        data: dict[str, Any] = {"slug": self.slug, "kind": self.kind}
        if self.description is not None:
            data["description"] = self.description
        if self.status is not None:
            data["status"] = self.status
        if self.replaced_by:
            data["replaced_by"] = self.replaced_by
        data["excerpt"] = self.excerpt
        return data


# --------------------------------------------------------------------------- reading files


def _entry_is_readable(ws: Workspace, entry: os.DirEntry[str]) -> bool:
    """Regular files, and symlinks to regular files inside the workspace (never FIFOs or folders)."""
    try:
        if entry.is_file(follow_symlinks=False):
            return True
        if not entry.is_symlink():
            return False
        target = os.path.realpath(entry.path)
        return ws.contains(Path(target)) and stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


def _mode_is_readable(ws: Workspace, path: str, mode: int) -> bool:
    """``_entry_is_readable`` from an ``lstat`` mode already taken (the search index lists with one)."""
    if stat.S_ISREG(mode):
        return True
    if not stat.S_ISLNK(mode):
        return False
    try:
        target = os.path.realpath(path)
        return ws.contains(Path(target)) and stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


def iter_folder_bytes(ws: Workspace, folder: Path, prefix: str,
                      problems: list[str] | None = None) -> Iterator[tuple[str, str, bytes]]:
    """``(slug, rel, bytes)`` of every readable ``*.md`` in ``folder``, in sorted order."""
    try:
        entries = sorted(md_dir_entries(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        if problems is not None:
            problems.append(f"{prefix}: cannot list folder: {exc.strerror or exc}")
        return
    yield from iter_entries_bytes(ws, [(prefix + e.name, e) for e in entries], problems)


def iter_entries_bytes(ws: Workspace, entries: Iterable[tuple[str, os.DirEntry[str]]],
                       problems: list[str] | None = None) -> Iterator[tuple[str, str, bytes]]:
    """``(slug, rel, bytes)`` of the given folder entries that are readable record files."""
    for rel, entry in entries:
        if not _entry_is_readable(ws, entry):
            if problems is not None:
                problems.append(f"{rel}: not a regular file inside the workspace; skipped")
            continue
        data, reason = read_bytes(entry.path)
        if data is None:
            if problems is not None:
                problems.append(f"{rel}: {reason}; skipped")
            continue
        yield entry.name[:-3], rel, data


def _read_one(ws: Workspace, path: Path, rel: str, problems: list[str] | None) -> bytes | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None  # no such record: not a problem, just no hit
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(path)
        if not ws.contains(Path(target)) or not os.path.isfile(target):
            if problems is not None:
                problems.append(f"{rel}: symlink out of the workspace or to a non-file; skipped")
            return None
    elif not stat.S_ISREG(st.st_mode):
        if problems is not None:
            problems.append(f"{rel}: not a regular file; skipped")
        return None
    data, reason = read_bytes(str(path))
    if data is None and problems is not None:
        problems.append(f"{rel}: {reason}; skipped")
    return data


# --------------------------------------------------------------------------- matching

# The only characters whose str.lower() contains ASCII letters: U+0130 (İ -> i̇) and U+212A
# (Kelvin sign -> k). A file holding neither can be matched against ASCII terms on its raw bytes.
def _lowers_to_ascii(data: bytes) -> bool:
    """True when ``data`` may hold U+0130 or U+212A (then the decoded text decides).

    Checked cheaply: ``isascii`` and one-byte searches (memchr) run in well under a microsecond per
    record, while a multi-byte needle is searched for only when its lead byte is present.
    """
    if data.isascii():
        return False
    return (b"\xc4" in data and b"\xc4\xb0" in data) or (b"\xe2" in data and b"\xe2\x84\xaa" in data)


def query_terms(query: str | None) -> list[str]:
    """Lower-cased whitespace-separated terms (duplicates dropped, order kept)."""
    return list(dict.fromkeys((query or "").lower().split()))


class _Matcher:
    """Every term, case-insensitively, decided on raw bytes where that is exact (see above)."""

    def __init__(self, terms: list[str], kind: str | None = None) -> None:
        self.terms = terms
        self.byte_terms = [t.encode("ascii") for t in terms] if all(t.isascii() for t in terms) else None
        self.byte_kind = kind.encode("utf-8") if kind else None

    def may_match(self, data: bytes) -> bool:
        """False only when the file surely does not match (no decoding, no YAML)."""
        if self.byte_kind is not None and self.byte_kind not in data:
            return False  # the kind's value must appear somewhere in the raw text
        if not self.terms or self.byte_terms is None:
            return True
        low = data.lower()  # ASCII-only lowering, in C
        for term in self.byte_terms:
            if term not in low:
                return _lowers_to_ascii(data)
        return True

    def matches(self, text: str) -> bool:
        if not self.terms:
            return True
        low = text.lower()
        return all(term in low for term in self.terms)


def excerpt_for(record: Record, terms: list[str], context_lines: int) -> tuple[str, int | None]:
    """The lines around the first matching line (body first) and that line's 1-based number."""
    lines = record.text.split("\n")
    if record.newline == "\r\n":
        lines = [line.rstrip("\r") for line in lines]
    body_start = max(record.body_line - 1, 0)
    fm_start, fm_end = 1, max(body_start - 1, 1)  # frontmatter lines, between the two fences
    found: tuple[int, int, int] | None = None  # (index, lower bound, upper bound)
    if terms:
        lowered = [line.lower() for line in lines]
        for lo, hi in ((body_start, len(lines)), (fm_start, fm_end)):
            for wanted in (all, any):
                index = next((i for i in range(lo, hi) if wanted(t in lowered[i] for t in terms)), None)
                if index is not None:
                    found = (index, lo, hi)
                    break
            if found:
                break
    if found is None:
        index = next((i for i in range(body_start, len(lines)) if lines[i].strip()), None)
        if index is None:
            return "", None
        start, stop = index, min(len(lines), index + 2 * context_lines + 1)
        return "\n".join(lines[start:stop]).rstrip(), (index + 1 if terms else None)
    index, lo, hi = found
    start, stop = max(lo, index - context_lines), min(hi, index + context_lines + 1)
    window = lines[start:stop]
    while window and not window[0].strip() and start < index:  # trim blank edges, keep the match
        window.pop(0)
        start += 1
    while window and not window[-1].strip() and stop - 1 > index:
        window.pop()
        stop -= 1
    return "\n".join(window), index + 1


def _decode(data: bytes, rel: str, problems: list[str] | None) -> str | None:
    text, reason = decode_text(data)
    if text is None and problems is not None:
        problems.append(f"{rel}: {reason}; skipped")
    return text


def _check_limit(ws: Workspace, limit: int | None) -> int:
    if limit is None:
        return ws.config.search.limit
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise SearchError(f"limit must be a whole number >= 1, got {limit!r}")
    return limit


def _context_lines(ws: Workspace, context_lines: int | None) -> int:
    if context_lines is None:
        return ws.config.search.context_lines
    if isinstance(context_lines, bool) or not isinstance(context_lines, int) or context_lines < 0:
        raise SearchError(f"context_lines must be a whole number >= 0, got {context_lines!r}")
    return context_lines


def _record(ws: Workspace, events: list[tuple[str, str, str]], session_id: str | None) -> None:
    """Record the hits as invokes; the usage module is imported only when there is one to record."""
    if events:
        from ..usage.log import record_quietly

        record_quietly(ws, events, session_id)


def _check_slug(slug: str) -> None:
    if not isinstance(slug, str) or not slug:
        raise SearchError(f"slug must be a non-empty string, got {slug!r}")


# --------------------------------------------------------------------------- the index


def _indexed(ws: Workspace, folders: list[tuple[Path, str]], summary: Path | None, terms: list[str],
             problems: list[str] | None) -> Iterator[tuple[str, str, str, bytes]] | None:
    """``(rel, slug, rel, bytes)`` of the files the search index says may match, in sorted-path order.

    None when the index cannot be used (no ``.yoi/``, read-only, an unlistable folder, an SQLite
    error): the caller scans every file instead. Candidates come from the database as the files
    are read (the search stops at its limit); the index is closed when the reading ends.
    """
    import sqlite3

    from .search_index import open_index

    try:
        index = open_index(ws)
        if index is None:
            return None
        try:
            found = index.refresh(folders, summary)
        except BaseException:
            index.conn.close()
            raise
        if found is None:
            index.conn.close()
            return None
    except sqlite3.Error:
        return None
    return _read_chosen(ws, _candidates_then_close(index, found, terms), problems)


def _candidates_then_close(index: Any, found: dict[str, tuple[str, int]], terms: list[str]
                           ) -> Iterator[tuple[str, tuple[str, int]]]:
    """The index's candidates; should the database fail half-way, every later file (a plain scan
    of the rest: the same answers, only slower). Closes the index at the end."""
    import sqlite3

    last = ""
    try:
        for rel, entry in index.candidates(found, terms):
            last = rel
            yield rel, entry
    except sqlite3.Error:
        yield from ((rel, entry) for rel, entry in sorted(found.items()) if rel > last)
    finally:
        index.conn.close()


def _read_chosen(ws: Workspace, chosen: Iterable[tuple[str, tuple[str, int]]],
                 problems: list[str] | None) -> Iterator[tuple[str, str, str, bytes]]:
    """Read the chosen files as the plain scan would (same checks, same problem messages)."""
    for rel, (path, mode) in chosen:
        if rel == SUMMARY_REL:
            data = _read_one(ws, Path(path), rel, problems)
            if data is not None:
                yield rel, "summary", rel, data
            continue
        if not _mode_is_readable(ws, path, mode):
            if problems is not None:
                problems.append(f"{rel}: not a regular file inside the workspace; skipped")
            continue
        data, reason = read_bytes(path)
        if data is None:
            if problems is not None:
                problems.append(f"{rel}: {reason}; skipped")
            continue
        yield rel, rel.rsplit("/", 1)[-1][:-3], rel, data


# --------------------------------------------------------------------------- the tools


def knowledge_search(ws: Workspace, query: str = "", *, slug: str | None = None, kind: str | None = None,
                     limit: int | None = None, include_replaced: bool = False, record: bool = True,
                     context_lines: int | None = None, session_id: str | None = None,
                     problems: list[str] | None = None, use_index: bool = True) -> list[KnowledgeHit]:
    """Knowledge records holding every query term (SPEC 5), in sorted-path order.

    ``slug`` looks up that one record (exact file name); ``kind`` keeps records of that knowledge
    kind; ``limit`` defaults to ``[search] limit``; replaced records only with ``include_replaced``.
    ``use_index=False`` reads every file (the plain scan the index must agree with).
    """
    terms = query_terms(query)
    max_hits = _check_limit(ws, limit)
    around = _context_lines(ws, context_lines)
    if slug is not None:
        _check_slug(slug)
        if not is_valid_slug(slug):
            return []
        data = _read_one(ws, ws.knowledge_dir / f"{slug}.md", f"{KNOWLEDGE_REL}{slug}.md", problems)
        candidates: Iterator[tuple[str, str, bytes]] = iter(
            [(slug, f"{KNOWLEDGE_REL}{slug}.md", data)] if data is not None else [])
    else:
        indexed = _indexed(ws, [(ws.knowledge_dir, KNOWLEDGE_REL)], None, terms, problems) if use_index else None
        candidates = (item[1:] for item in indexed) if indexed is not None else \
            iter_folder_bytes(ws, ws.knowledge_dir, KNOWLEDGE_REL, problems)
    matcher = _Matcher(terms, kind)
    hits: list[KnowledgeHit] = []
    for name, rel, data in candidates:
        if not matcher.may_match(data):
            continue
        text = _decode(data, rel, problems)
        if text is None or not matcher.matches(text):
            continue
        parsed, diags = parse_record_text(text, kind=RecordKind.KNOWLEDGE, path=ws.root / rel, rel=rel)
        if parsed is None:
            if problems is not None:
                problems.append(f"{rel}: {diags[0].message if diags else 'unreadable'}; skipped (run yoi lint)")
            continue
        if kind is not None and parsed.knowledge_kind != kind:
            continue
        if parsed.is_replaced and not include_replaced:
            continue
        excerpt, line = excerpt_for(parsed, terms, around)
        hits.append(KnowledgeHit(slug=name, kind=parsed.knowledge_kind or "", description=parsed.description,
                                 model_invokation=parsed.model_invokation, excerpt=excerpt, path=rel, line=line,
                                 replaced_by=parsed.replaced_by))
        if len(hits) >= max_hits:
            break
    if record:
        via = "slug" if slug is not None else "search"
        _record(ws, [(h.slug, "knowledge", via) for h in hits], session_id)
    return hits


def _memory_candidates(ws: Workspace, slug: str | None, kind: str | None, problems: list[str] | None,
                       terms: list[str] | None = None) -> Iterator[tuple[RecordKind, str, str, bytes]]:
    """``(kind, slug, rel, bytes)`` of memory records in sorted-path order.

    With ``terms`` (and no slug), only the files the search index names as possible matches.
    """
    kinds = [RecordKind(kind)] if kind else list(MEMORY_KINDS)
    data: bytes | None
    # Sorted paths: memory/decisions/ < memory/requests/ < memory/summary.md.
    order = {RecordKind.DECISION: 0, RecordKind.REQUEST: 1, RecordKind.SUMMARY: 2}
    if slug is None and terms is not None:
        folders = [(ws.decisions_dir if k is RecordKind.DECISION else ws.requests_dir,
                    DECISIONS_REL if k is RecordKind.DECISION else REQUESTS_REL)
                   for k in sorted(kinds, key=order.__getitem__) if k is not RecordKind.SUMMARY]
        summary = ws.summary_path if RecordKind.SUMMARY in kinds else None
        indexed = _indexed(ws, folders, summary, terms, problems)
        if indexed is not None:
            for rel, name, _rel, data in indexed:
                record_kind = RecordKind.SUMMARY if rel == SUMMARY_REL else \
                    RecordKind.DECISION if rel.startswith(DECISIONS_REL) else RecordKind.REQUEST
                yield record_kind, name, rel, data
            return
    for record_kind in sorted(kinds, key=order.__getitem__):
        if record_kind is RecordKind.SUMMARY:
            if slug is not None and slug != "summary":
                continue
            data = _read_one(ws, ws.summary_path, SUMMARY_REL, problems)
            if data is not None:
                yield record_kind, "summary", SUMMARY_REL, data
            continue
        folder_rel = DECISIONS_REL if record_kind is RecordKind.DECISION else REQUESTS_REL
        if slug is not None:
            if not is_valid_slug(slug):
                continue
            rel = f"{folder_rel}{slug}.md"
            data = _read_one(ws, path_for(ws, record_kind, slug), rel, problems)
            if data is not None:
                yield record_kind, slug, rel, data
            continue
        folder = ws.decisions_dir if record_kind is RecordKind.DECISION else ws.requests_dir
        for name, rel, data in iter_folder_bytes(ws, folder, folder_rel, problems):
            yield record_kind, name, rel, data


def memory_search(ws: Workspace, query: str = "", *, slug: str | None = None, kind: str | None = None,
                  limit: int | None = None, include_replaced: bool = False, record: bool = True,
                  context_lines: int | None = None, session_id: str | None = None,
                  problems: list[str] | None = None, use_index: bool = True) -> list[MemoryHit]:
    """Summary, decisions and requests holding every query term (SPEC 5), in sorted-path order.

    ``kind`` is ``summary``, ``decision`` or ``request``; ``slug`` is exact (``summary`` names the
    summary; a decision and a request may share a slug, and then both are returned).
    """
    if kind is not None and kind not in _MEMORY_KIND_VALUES:
        raise SearchError(f"memory kind must be one of {', '.join(_MEMORY_KIND_VALUES)}, got {kind!r}")
    if slug is not None:
        _check_slug(slug)
    terms = query_terms(query)
    max_hits = _check_limit(ws, limit)
    around = _context_lines(ws, context_lines)
    matcher = _Matcher(terms)
    hits: list[MemoryHit] = []
    for record_kind, name, rel, data in _memory_candidates(ws, slug, kind, problems,
                                                           terms if use_index else None):
        if not matcher.may_match(data):
            continue
        text = _decode(data, rel, problems)
        if text is None or not matcher.matches(text):
            continue
        parsed, diags = parse_record_text(text, kind=record_kind, path=ws.root / rel, rel=rel)
        if parsed is None:
            if problems is not None:
                problems.append(f"{rel}: {diags[0].message if diags else 'unreadable'}; skipped (run yoi lint)")
            continue
        if parsed.is_replaced and not include_replaced:
            continue
        excerpt, line = excerpt_for(parsed, terms, around)
        description = parsed.meta.get("description")
        hits.append(MemoryHit(slug=name, kind=record_kind.value,
                              description=description if isinstance(description, str) else None,
                              status=parsed.status, excerpt=excerpt, path=rel, line=line,
                              replaced_by=parsed.replaced_by))
        if len(hits) >= max_hits:
            break
    if record:
        via = "slug" if slug is not None else "search"
        _record(ws, [(h.slug, h.kind, via) for h in hits], session_id)
    return hits


# --------------------------------------------------------------------------- one record


@dataclass(slots=True)
class RecordView:
    """One record as the read-only record tool returns it."""

    slug: str
    kind: str
    path: str
    meta: dict[str, Any]
    body: str

    def to_json(self) -> dict[str, Any]:
        return {"slug": self.slug, "kind": self.kind, "path": self.path, "meta": self.meta, "body": self.body}


def json_safe(value: Any) -> Any:
    """Frontmatter values as JSON types (timestamps as ISO 8601 strings)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def get_record(ws: Workspace, slug: str, kind: str, *, record: bool = True,
               session_id: str | None = None) -> RecordView:
    """The frontmatter and body of one record by kind and slug (replaced records too: asked by name).

    Raises ``SearchError`` when the kind is unknown, the slug invalid, or the record missing or
    unreadable. A successful read counts as one invoke with ``via="slug"``.
    """
    kinds = tuple(k.value for k in RecordKind)
    if kind not in kinds:
        raise SearchError(f"kind must be one of {', '.join(kinds)}, got {kind!r}")
    record_kind = RecordKind(kind)
    if record_kind is RecordKind.SUMMARY:
        slug = "summary"
    elif not isinstance(slug, str) or not is_valid_slug(slug):
        raise SearchError(f"bad slug {slug!r}: lower-case words joined by '-', at most 64 characters")
    path = path_for(ws, record_kind, slug)
    if not os.path.lexists(path):
        raise SearchError(f"no {kind} record named {slug!r}", path=ws.rel(path))
    result = read_record(ws, path)
    if result.record is None:
        reason = result.diagnostics[0].message if result.diagnostics else "unreadable"
        raise SearchError(f"cannot read record: {reason}", path=ws.rel(path))
    parsed = result.record
    if record:
        _record(ws, [(slug, kind, "slug")], session_id)
    return RecordView(slug=slug, kind=kind, path=parsed.rel, meta=json_safe(parsed.meta), body=parsed.body)
