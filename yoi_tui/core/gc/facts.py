"""What GC's rules look at, computed once per run.

* ``UsageFacts`` — per-record usage from ``core.usage.log`` (invokes, frequency, the protection flag)
  and the **token clock** as a timeline, so a record's age can be measured in input tokens like
  everything else in usage (SPEC 6): the clock at a wall-clock moment is the sum of the ``tokens``
  events whose UUIDv7 id was minted at or before it. A record written before usage was recorded
  has the whole clock as its age; a workspace with no usage has age 0 everywhere (nothing is
  "unused" until there is a clock to be unused on).
* ``References`` — who points at whom: ``#slug`` in record bodies (knowledge), ``replaced_by`` (same
  kind), and ``#slug`` in ``memory/workflow/`` files (read, never written). A record that fails to
  parse is scanned as raw text, so a broken file still protects what it names. GC deletes a record
  only when every file pointing at it is deleted in the same run: no reference is left dangling.
* ``named_paths`` / ``missing_paths`` — repository paths a record names in code spans
  (```src/x.py```, ```yoi_tui/core/a.py```) and which of them no longer exist under the workspace root.
"""

from __future__ import annotations

import bisect
import os
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import YoiError
from ..retrieval.slugrefs import iter_prose_lines, referenced_slugs
from ..store.kinds import RecordKind, folder_for, path_for
from ..store.reader import read_exact
from ..store.records import Record, RecordHead, as_timestamp
from ..store.safe_read import NotRegularFile, read_regular_bytes
from ..store.workspace import Workspace
from ..usage.log import RecordStat, compute_stats, load_events

MAX_WORKFLOW_BYTES = 1024 * 1024


# --------------------------------------------------------------------------- usage


def _uuid7_ms(event_id: str) -> int:
    """Milliseconds since the epoch encoded in a UUIDv7 (its top 48 bits)."""
    return uuid.UUID(event_id).int >> 80


@dataclass
class UsageFacts:
    """Usage per record and the token clock's timeline."""

    stats: dict[tuple[str, str], RecordStat]
    clock: int
    tick_ms: list[int] = field(default_factory=list)  # when each ``tokens`` event happened (ms)
    tick_clock: list[int] = field(default_factory=list)  # the clock just after it
    protect_threshold: float = 1.0
    problems: list[Diagnostic] = field(default_factory=list)

    @classmethod
    def load(cls, ws: Workspace) -> UsageFacts:
        # One read of the event log for both the stats and the timeline: ``compute_stats`` is the
        # arithmetic ``usage_report`` runs; records never invoked simply have no stat (0 invokes).
        events, problems = load_events(ws)
        cfg = ws.config.usage
        stats, summary = compute_stats(
            events, window=cfg.window, floor=cfg.denominator_floor, protect_threshold=cfg.protect_threshold,
            candidate_min_invokes=cfg.candidate_min_invokes, candidate_min_sessions=cfg.candidate_min_sessions,
            candidate_threshold=cfg.candidate_threshold)
        tick_ms: list[int] = []
        tick_clock: list[int] = []
        clock = 0
        for event in events:
            if event["type"] == "tokens" and event["input_tokens"] > 0:
                clock += event["input_tokens"]
                tick_ms.append(_uuid7_ms(event["id"]))
                tick_clock.append(clock)
        return cls(stats={(s.kind, s.slug): s for s in stats}, clock=summary.clock, tick_ms=tick_ms,
                   tick_clock=tick_clock, protect_threshold=cfg.protect_threshold, problems=problems)

    def stat(self, kind: RecordKind, slug: str) -> RecordStat | None:
        return self.stats.get((kind.value, slug))

    def invokes(self, kind: RecordKind, slug: str) -> int:
        stat = self.stat(kind, slug)
        return stat.invokes if stat else 0

    def frequency(self, kind: RecordKind, slug: str) -> float:
        stat = self.stat(kind, slug)
        return stat.frequency if stat else 0.0

    def protected(self, kind: RecordKind, slug: str) -> bool:
        return self.frequency(kind, slug) >= self.protect_threshold

    def clock_at(self, moment: datetime) -> int:
        """The token clock at ``moment`` (tokens recorded at or before it)."""
        ms = int(moment.timestamp() * 1000)
        position = bisect.bisect_right(self.tick_ms, ms)
        return self.tick_clock[position - 1] if position else 0

    def age_tokens(self, value: Any) -> int | None:
        """Input tokens consumed since the timestamp ``value`` (None: not a timestamp)."""
        moment = as_timestamp(value)
        if moment is None:
            return None
        return self.clock - self.clock_at(moment)


# --------------------------------------------------------------------------- references

_REPLACED_BY_RE = re.compile(r"^replaced_by:[ \t]*['\"]?([a-z0-9]+(?:-[a-z0-9]+)*)['\"]?[ \t]*\r?$", re.MULTILINE)


class RelNames:
    """``memory/decisions/<slug>.md`` etc. by string work only (called for every reference found)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.prefixes = {k: ws.rel(folder_for(ws, k)) + "/" for k in RecordKind if k is not RecordKind.SUMMARY}

    def of(self, kind: RecordKind, slug: str) -> str:
        if kind is RecordKind.SUMMARY:
            return self.ws.rel(path_for(self.ws, kind, slug))
        return f"{self.prefixes[kind]}{slug}.md"


@dataclass
class References:
    """``referrers[target rel]`` = the files that point at it (record rels and workflow files)."""

    referrers: dict[str, set[str]] = field(default_factory=dict)

    def add(self, source: str, target: str) -> None:
        if source != target:  # a record naming itself does not keep itself alive
            self.referrers.setdefault(target, set()).add(source)

    def live(self, target: str, gone: Iterable[str] = ()) -> list[str]:
        """Files still pointing at ``target`` once the files in ``gone`` are deleted (sorted)."""
        gone_set = gone if isinstance(gone, (set, frozenset)) else set(gone)  # no copy: called per candidate
        return sorted(r for r in self.referrers.get(target, ()) if r not in gone_set)


def _targets_of_text(names: RelNames, kind: RecordKind | None, body: str, replaced_by: str | None,
                     slugs_of: Callable[[str], list[str]] = referenced_slugs) -> list[str]:
    return _targets(names, kind, slugs_of(body), replaced_by)


def _targets(names: RelNames, kind: RecordKind | None, slugs: list[str], replaced_by: str | None) -> list[str]:
    targets = [names.of(RecordKind.KNOWLEDGE, slug) for slug in slugs]
    if replaced_by and kind is not None and kind is not RecordKind.SUMMARY:
        targets.append(names.of(kind, replaced_by))
    return targets


def build_references(ws: Workspace, records: Sequence[Record | RecordHead], unparsed: list[tuple[RecordKind, str]],
                     notes: list[str], *, refs_of: Callable[[Record | RecordHead], list[str]]) -> References:
    """The reference graph of the records of ``ws`` (the run's scratch copy).

    ``unparsed``: (kind, rel) of record files that could not be parsed; their raw text is scanned.
    Workflows are added by ``scan_workflows`` from the real workspace (the scratch copy has none).
    ``refs_of`` gives the ``#slug``s a record's body names (GC takes them while reading, and
    keeps heads, not bodies).
    """
    refs = References()
    names = RelNames(ws)
    for record in records:
        for target in _targets(names, record.kind, refs_of(record), record.replaced_by):
            refs.add(record.rel, target)
    for kind, rel in unparsed:
        try:
            text = read_exact(ws.root / rel) or ""
        except YoiError as exc:
            notes.append(f"{rel}: cannot be read ({exc.message}); records it may name are kept")
            text = ""
        match = _REPLACED_BY_RE.search(text)
        for target in _targets_of_text(names, kind, text, match.group(1) if match else None):
            refs.add(rel, target)
    return refs


def scan_workflows(real: Workspace, refs: References, notes: list[str]) -> None:
    """Add ``#slug`` references made by files in the real ``memory/workflow/`` (never written by GC)."""
    folder = real.workflow_dir
    if not folder.is_dir():
        return
    names = RelNames(real)
    for current, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = Path(current) / name
            rel = real.rel(path)
            try:
                if path.stat().st_size > MAX_WORKFLOW_BYTES:
                    notes.append(f"{rel}: over 1 MiB, not scanned for #slug references")
                    continue
                text = read_regular_bytes(path).decode("utf-8", "replace")
            except NotRegularFile as exc:
                notes.append(f"{rel}: {exc.message}; not scanned for references")
                continue
            except OSError as exc:
                notes.append(f"{rel}: cannot be read ({exc.strerror or exc}); not scanned for references")
                continue
            for slug in referenced_slugs(text):
                refs.add(rel, names.of(RecordKind.KNOWLEDGE, slug))


# --------------------------------------------------------------------------- repository paths

_CODE_SPAN_RE = re.compile(r"(`+)([^`\n]+?)\1(?!`)")
_PATH_RE = re.compile(r"^(?:\./)?[A-Za-z0-9_@+.-]+(?:/[A-Za-z0-9_@+.-]+)*/?$")
_EXT_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")
_SUFFIX_RE = re.compile(r"(?:::[\w\[\].-]+|:\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$")
# Folders that belong to yoi, not to the project's code; a workspace holding only these has no code
# to compare paths against.
_MEMORY_ENTRIES = {"memory", "knowledge", ".yoi", ".git", ".gitignore", ".gitattributes"}


def named_paths(body: str) -> list[str]:
    """Repository paths named in inline code spans of ``body`` (not fenced blocks), in order, unique.

    A path has at least one ``/``, no spaces, no ``..`` and is relative; its last part has a file
    extension (``src/x.py``) or it ends with ``/`` (``client/``). A trailing ``:12``, ``:12:5``,
    ``#L12`` or ``::test_name`` is dropped. URLs, commands and prose in backticks are not paths.
    """
    found: list[str] = []
    if "`" not in body:  # no code span anywhere: skip the line walk
        return found
    # Without a run of three backticks or tildes there is no fenced block: every line is prose.
    fenced = "```" in body or "~~~" in body
    lines = (line for _, _, line in iter_prose_lines(body)) if fenced else iter(body.split("\n"))
    for line in lines:
        if "`" in line:
            paths_in_line(line, found)
    return found


def paths_in_line(line: str, found: list[str]) -> None:
    """Append to ``found`` the repository paths named in the inline code spans of one prose line
    (``named_paths``'s rules), each once."""
    for match in _CODE_SPAN_RE.finditer(line):
        candidate = _SUFFIX_RE.sub("", match.group(2).strip())
        if "/" not in candidate.removeprefix("./") or not _PATH_RE.match(candidate):
            continue
        parts = candidate.rstrip("/").split("/")
        if any(part in ("..", ".") for part in parts[1 if parts[0] == "." else 0:]) or parts[0] == "..":
            continue
        if not candidate.endswith("/") and not _EXT_RE.search(parts[-1]):
            continue
        candidate = candidate[2:] if candidate.startswith("./") else candidate
        if candidate not in found:
            found.append(candidate)


def root_has_code(root: Path) -> bool:
    """True when the workspace root holds more than yoi's own folders (a repository to check against)."""
    try:
        return any(entry not in _MEMORY_ENTRIES for entry in os.listdir(root))
    except OSError:
        return False


class PathChecker:
    """Which named paths no longer exist under the workspace root (answers cached per run)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.has_code = root_has_code(root)
        self._exists: dict[str, bool] = {}

    def exists(self, rel: str) -> bool:
        cached = self._exists.get(rel)
        if cached is None:
            cached = self._exists[rel] = os.path.lexists(self.root / rel)
        return cached

    def missing(self, paths: Iterable[str]) -> list[str]:
        """The paths that do not exist. A path whose top folder is absent counts only when the root
        holds code at all (a memory-only workspace has nothing to compare with)."""
        gone: list[str] = []
        for rel in paths:
            if self.exists(rel):
                continue
            top = rel.split("/", 1)[0]
            if self.exists(top) or self.has_code:
                gone.append(rel)
        return gone


__all__ = ["PathChecker", "References", "UsageFacts", "RelNames", "build_references", "named_paths",
           "root_has_code", "scan_workflows"]
