"""What the app shows, without Textual: the record store, grouping, fuzzy filter, ``#slug`` ranking.

The app's screens are thin over this module, so everything here is tested with plain pytest:

- ``RecordStore``: every record of a workspace read once (or only listed, for a fast first paint),
  with each file's signature (the one ``freshness.signature.Signature``) so polling can tell what
  changed on disk and re-read only that; a file whose ctime alone moved (a hard link made, as GC's and
  Phase 2's scratch copies do for every record) is compared with the text it was parsed from instead.
- ``group_entries``: records grouped by kind, decisions split by status (SPEC 12).
- ``filter_entries``: the ``/`` filter — substring first, then rapidfuzz over slug and description;
  a query starting with ``?`` searches the full text instead (``full_text_entries``).
- ``slug_span``/``rank_slugs``/``slug_candidates``: the composer's ``#`` completion.
"""

from __future__ import annotations

import bisect
import heapq
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate
from operator import methodcaller
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from ..core.diagnostics import Diagnostic
from ..core.freshness.signature import Signature, signature_of
from ..core.store.kinds import RecordKind, kind_for_path, slug_of
from ..core.store.meta_fields import DECISION_STATUSES
from ..core.store.reader import decode_record_bytes, read_bytes, read_record
from ..core.store.record_listing import iter_record_paths, md_dir_entries, record_folders
from ..core.store.records import Record
from ..core.store.workspace import SUMMARY_REL, Workspace

KIND_ORDER = (RecordKind.SUMMARY, RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)
Stat = Signature  # the one file signature (``core.freshness.signature``), of what the path names
Known = Mapping[str, tuple[Stat | None, str | None]]  # rel -> (signature, the text parsed then) of a poll


@dataclass(slots=True)  # the app holds one per record (50,000 in the bench's large workspace)
class RecordEntry:
    """One record file as the app knows it. ``record`` is None when unparsed or not loaded yet."""

    kind: RecordKind
    slug: str
    rel: str
    path: Path
    record: Record | None = None
    stat: Stat | None = None
    loaded: bool = False
    problems: list[Diagnostic] = field(default_factory=list)  # reading problems (file-unreadable, ...)

    @property
    def status(self) -> str | None:
        return self.record.status if self.record else None

    @property
    def description(self) -> str:
        return self.record.description if self.record else ""

    @property
    def is_replaced(self) -> bool:
        return bool(self.record and self.record.is_replaced)

    @property
    def replaced_by(self) -> str | None:
        return self.record.replaced_by if self.record else None


def _stat(path: Path | str) -> Stat | None:
    try:
        return signature_of(os.stat(path))  # followed: the app shows what a symlinked record reads
    except OSError:
        return None


def _only_ctime_moved(old: Stat, new: Stat) -> bool:
    """The same size, mtime, inode and mode: a link made or removed (GC's and Phase 2's scratch
    copies hard-link every record), a chmod back and forth — or a write that kept them all."""
    return old._replace(ctime_ns=new.ctime_ns) == new


def _reads_as(path: Path, rel: str, text: str) -> bool:
    """The file still holds ``text`` (the same-bytes check, on the text the entry was parsed from)."""
    data, _reason = read_bytes(str(path))
    return data is not None and decode_record_bytes(data, rel)[0] == text


def _entry_for(ws: Workspace, path: Path) -> RecordEntry | None:
    kind = kind_for_path(ws, path)
    if kind is None:
        return None
    slug = "summary" if kind is RecordKind.SUMMARY else slug_of(path)
    return RecordEntry(kind, slug, ws.rel(path), path)


def read_entry(ws: Workspace, path: Path) -> RecordEntry | None:
    """Read and parse one record file into an entry (None: not a record path)."""
    entry = _entry_for(ws, path)
    if entry is None:
        return None
    entry.stat = _stat(path)  # before reading: a write racing the read shows up as a change next poll
    result = read_record(ws, path)
    if result.record is not None and result.record.path == entry.path:
        entry.path = result.record.path  # one Path per record, not two equal ones
    entry.record = result.record
    entry.problems = list(result.diagnostics)
    entry.loaded = True
    return entry


def scan_stats(ws: Workspace) -> dict[str, Stat]:
    """The signature of every record path (followed through a symlink), by workspace-relative path —
    the change poll's snapshot.

    Runs every few seconds, so it works on ``os.scandir`` entries and plain strings (a few ms per
    thousand files) instead of the generic path helpers.
    """
    stats: dict[str, Stat] = {}
    summary = _stat(ws.summary_path)
    if summary is not None:
        stats[SUMMARY_REL] = summary
    for prefix, _kind, folder in record_folders(ws):
        try:
            found = md_dir_entries(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in found:
            try:
                st = entry.stat()
            except OSError:
                continue
            stats[prefix + entry.name] = signature_of(st)
    return stats


@dataclass
class StoreChanges:
    """What a poll found: entries re-read (new or modified), paths gone, and entries whose
    signature moved with their text unchanged (``restamped``: only their signature is updated)."""

    updated: list[RecordEntry] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    restamped: dict[str, Stat] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.updated or self.removed)

    @property
    def rels(self) -> list[str]:
        return sorted([e.rel for e in self.updated] + self.removed)


class RecordStore:
    """Every record of one workspace, by relative path. Mutated only by its owner (the UI thread)."""

    def __init__(self, ws: Workspace, entries: Iterable[RecordEntry] = (), *, loaded: bool = True) -> None:
        self.ws = ws
        self.entries: dict[str, RecordEntry] = {e.rel: e for e in entries}
        self.loaded = loaded
        self._candidates: SlugCandidates | None = None  # kept until ``apply`` changes the store

    @classmethod
    def from_names(cls, ws: Workspace) -> RecordStore:
        """Only the file names (a folder listing): enough to paint the tree before anything is parsed.

        Built from ``os.scandir`` names with string joins: at 10,000 records the generic path helpers
        cost a third of a second, which the first paint cannot afford.
        """
        entries: list[RecordEntry] = []
        if os.path.lexists(ws.summary_path):
            entries.append(RecordEntry(RecordKind.SUMMARY, "summary", SUMMARY_REL, ws.summary_path))
        for prefix, kind, folder_path in record_folders(ws):
            try:
                names = sorted(e.name for e in md_dir_entries(folder_path))
            except (FileNotFoundError, NotADirectoryError):
                continue
            folder = ws.root / prefix
            entries.extend(RecordEntry(kind, name[:-3], prefix + name, folder / name) for name in names)
        return cls(ws, entries, loaded=False)

    @classmethod
    def load(cls, ws: Workspace, kinds: Iterable[RecordKind] | None = None) -> RecordStore:
        """Read and parse every record once (only those of ``kinds`` when given)."""
        wanted = set(kinds) if kinds is not None else None
        paths = iter_record_paths(ws)
        if wanted is not None:
            paths = [p for p in paths if kind_for_path(ws, p) in wanted]
        entries = [e for path in paths if (e := read_entry(ws, path)) is not None]
        return cls(ws, entries, loaded=True)

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, rel: str) -> RecordEntry | None:
        return self.entries.get(rel)

    def find(self, kind: RecordKind, slug: str) -> RecordEntry | None:
        for entry in self.entries.values():
            if entry.kind is kind and entry.slug == slug:
                return entry
        return None

    def stats(self) -> dict[str, tuple[Stat | None, str | None]]:
        """What a poll compares against: each entry's signature and the text it was parsed from."""
        return {rel: (e.stat, e.record.text if e.record is not None else None) for rel, e in self.entries.items()}

    @staticmethod
    def changes_since(ws: Workspace, known: Known) -> StoreChanges:
        """Re-read what changed on disk since ``known`` (a ``stats()`` copy); safe in a thread.

        A file whose signature moved only in its ctime and that still reads as the text the entry
        was parsed from is not parsed again (after a GC or Phase 2 dry run that is every record)."""
        current = scan_stats(ws)
        changes = StoreChanges(removed=sorted(set(known) - set(current)))
        for rel, stat in sorted(current.items()):
            old_stat, old_text = known.get(rel, (None, None))
            if old_stat == stat:
                continue
            path = ws.root / rel
            if (old_stat is not None and old_text is not None and _only_ctime_moved(old_stat, stat)
                    and _reads_as(path, rel, old_text) and _stat(path) == stat):
                changes.restamped[rel] = stat
                continue
            entry = read_entry(ws, path)
            if entry is not None:
                changes.updated.append(entry)
        return changes

    def apply(self, changes: StoreChanges) -> None:
        for rel, stat in changes.restamped.items():
            entry = self.entries.get(rel)
            if entry is not None:
                entry.stat = stat
        if changes:
            self._candidates = None
        for rel in changes.removed:
            self.entries.pop(rel, None)
        for entry in changes.updated:
            self.entries[entry.rel] = entry

    def knowledge_candidates(self) -> SlugCandidates:
        """``(slug, description)`` of every user-invocable, not replaced knowledge record, by slug.

        Collected once and kept until ``apply`` changes the store: the composer asks on every
        keystroke, and collecting and sorting 10,000 entries cost 33 ms at 50,000 records.
        """
        if self._candidates is None:
            found = [(e.slug, e.description) for e in self.entries.values()
                     if e.kind is RecordKind.KNOWLEDGE and e.record is not None
                     and e.record.user_invocable and not e.is_replaced]
            self._candidates = SlugCandidates(sorted(found))
        return self._candidates

    def counts(self) -> dict[RecordKind, int]:
        counts = dict.fromkeys(KIND_ORDER, 0)
        for entry in self.entries.values():
            counts[entry.kind] += 1
        return counts


# --------------------------------------------------------------------------- grouping


@dataclass
class Group:
    """A node of the record tree: a kind, or a decision status under the decisions group."""

    key: str
    label: str
    entries: list[RecordEntry] = field(default_factory=list)
    children: list[Group] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.entries) + sum(child.count for child in self.children)


_KIND_LABELS = {RecordKind.SUMMARY: "Summary", RecordKind.DECISION: "Decisions",
                RecordKind.REQUEST: "Requests", RecordKind.KNOWLEDGE: "Knowledge"}


def decision_bucket(entry: RecordEntry) -> str:
    """The status group of a decision: open/resolved/replaced, 'other' (bad status) or 'loading'."""
    if not entry.loaded:
        return "loading"
    status = entry.status
    if status in DECISION_STATUSES:
        return str(status)
    return "other"


_DECISION_BUCKETS = (("open", "open"), ("resolved", "resolved"), ("replaced", "replaced"),
                     ("other", "other status"), ("loading", "loading…"))


def group_entries(entries: Iterable[RecordEntry]) -> list[Group]:
    """Summary, Decisions (by status), Requests, Knowledge — each kind shown even when empty."""
    by_kind: dict[RecordKind, list[RecordEntry]] = {kind: [] for kind in KIND_ORDER}
    for entry in entries:
        by_kind[entry.kind].append(entry)
    groups: list[Group] = []
    for kind in KIND_ORDER:
        group = Group(kind.value, _KIND_LABELS[kind])
        if kind is RecordKind.DECISION:
            buckets: dict[str, list[RecordEntry]] = {key: [] for key, _ in _DECISION_BUCKETS}
            for entry in by_kind[kind]:
                buckets[decision_bucket(entry)].append(entry)
            for key, label in _DECISION_BUCKETS:
                if buckets[key] or key in ("open", "resolved"):
                    group.children.append(Group(f"decision:{key}", label, buckets[key]))
        else:
            group.entries = by_kind[kind]
        groups.append(group)
    return groups


# --------------------------------------------------------------------------- the / filter

FILTER_FUZZY_CUTOFF = 75.0


def filter_entries(query: str, entries: Iterable[RecordEntry]) -> list[tuple[RecordEntry, float]]:
    """Entries matching ``query`` over slug and description, best first (score 0-200).

    Every whitespace-separated term found as a substring ranks first (slug hits above description
    hits); otherwise rapidfuzz's partial ratio on the slug catches typos ("redsi" → drop-redis-cache).
    An empty query keeps everything in the given order.
    """
    items = list(entries)
    if query.lstrip().startswith(FULL_TEXT_PREFIX):
        return full_text_entries(query.lstrip()[len(FULL_TEXT_PREFIX):], items)
    terms = query.lower().split()
    if not terms:
        return [(entry, 0.0) for entry in items]
    scored: dict[int, float] = {}
    for position, entry in enumerate(items):
        slug = entry.slug.lower()
        haystack = f"{slug} {entry.description.lower()}"
        if all(term in haystack for term in terms):
            in_slug = sum(term in slug for term in terms)
            prefix = 20.0 if slug.startswith(terms[0]) else 0.0
            scored[position] = 100.0 + 60.0 * in_slug / len(terms) + prefix
    joined = " ".join(terms)
    slugs = {position: entry.slug for position, entry in enumerate(items) if position not in scored}
    for _slug, score, position in process.extract(joined, slugs, scorer=fuzz.partial_ratio, limit=None,
                                                  score_cutoff=FILTER_FUZZY_CUTOFF):
        scored[position] = float(score) * 0.9
    ranked = sorted(scored.items(), key=lambda item: (-item[1], items[item[0]].slug))
    return [(items[position], score) for position, score in ranked]


FULL_TEXT_PREFIX = "?"


def full_text_entries(query: str, entries: Iterable[RecordEntry]) -> list[tuple[RecordEntry, float]]:
    """Entries whose whole file text holds every term (case-insensitive), like the search tools.

    The records are already in memory, so this scans them rather than re-reading files through
    ``core.retrieval.search`` (which would also count each hit as an invoke). Score: number of occurrences.
    """
    terms = query.lower().split()
    items = list(entries)
    if not terms:
        return [(entry, 0.0) for entry in items]
    found: list[tuple[RecordEntry, float]] = []
    for entry in items:
        if entry.record is None:
            continue
        text = entry.record.text.lower()
        if all(term in text for term in terms):
            found.append((entry, float(sum(text.count(term) for term in terms))))
    found.sort(key=lambda item: (-item[1], item[0].slug))
    return found


# --------------------------------------------------------------------------- # completion

# The slug being typed right before the cursor. The look-behind mirrors the reference parser
# (``slugrefs``): a '#' after a word character, '/', '#', '&' or ']' is not a reference.
_TOKEN_BEFORE_CURSOR = re.compile(r"(?<![\w/#&\]])#([\w-]*)$")
_SLUG_CHARS = re.compile(r"[\w-]")


def slug_span(text: str, cursor: int) -> tuple[int, int] | None:
    """``(start, end)`` of the ``#slug`` token the cursor is in or right after (start is the '#')."""
    line_start = text.rfind("\n", 0, cursor) + 1
    match = _TOKEN_BEFORE_CURSOR.search(text, line_start, cursor)
    if match is None:
        return None
    end = cursor
    while end < len(text) and _SLUG_CHARS.match(text[end]):
        end += 1
    return match.start(), end


@dataclass(frozen=True)
class SlugMatch:
    """A completion candidate: the slug, its description, the score, and matched slug positions."""

    slug: str
    description: str
    score: float
    positions: tuple[int, ...] = ()


def _subsequence(query: str, slug: str) -> tuple[int, ...] | None:
    positions: list[int] = []
    start = 0
    for char in query:
        found = slug.find(char, start)
        if found < 0:
            return None
        positions.append(found)
        start = found + 1
    return tuple(positions)


class _Prepared:
    """What ``rank_slugs`` searches, built once per candidate set (``SlugCandidates`` keeps it).

    A keystroke's lookups are C-speed searches of a joined string, binary searches of the sorted
    slugs, and sets of the slugs holding a letter (each built on first use, then kept), so its work
    grows with the slugs that can match rather than with all of them.
    """

    __slots__ = ("by_name", "by_name_keys", "desc_ends", "descs", "ends", "joined", "joined_descs", "letters",
                 "plain", "slugs")

    def __init__(self, pairs: tuple[tuple[str, str], ...]) -> None:
        self.slugs = [slug for slug, _desc in pairs]
        self.joined = _SEP.join(self.slugs)  # a match of a query without a NUL stays in one slug
        # No slug from a file name holds a NUL; any other may (a newline, say): only a NUL in a
        # slug would let the joined searches mistake it for two.
        self.plain = self.joined.count(_SEP) == max(len(self.slugs) - 1, 0)
        self.ends = _ends(self.slugs)
        self.descs = [desc.lower() for _slug, desc in pairs]
        self.joined_descs = _SEP.join(self.descs)
        self.desc_ends = _ends(self.descs)
        order = sorted(range(len(self.slugs)), key=self.slugs.__getitem__)  # stable: equal slugs keep their order
        self.by_name = [self.slugs[number] for number in order]
        # a prefix's slugs are a range of by_name, and sorted by these keys they are that tier's ranking
        self.by_name_keys = [(len(self.slugs[number]), self.slugs[number], number) for number in order]
        self.letters: dict[str, frozenset[int]] = {}

    def slug_of(self, offset: int) -> int:
        """The number of the slug that ``offset`` in ``joined`` falls in."""
        return bisect.bisect_left(self.ends, offset)

    def holding(self, letter: str) -> frozenset[int]:
        """Numbers of the slugs holding ``letter`` (a character other than a NUL)."""
        found = self.letters.get(letter)
        if found is None:
            hits = re.finditer(re.escape(letter), self.joined)
            found = self.letters[letter] = frozenset(map(partial(bisect.bisect_left, self.ends), map(_MATCH_START, hits)))
        return found

    def prefixed(self, query: str) -> range:
        """The positions in ``by_name`` of the slugs starting with ``query`` (a range: they sort together)."""
        low = bisect.bisect_left(self.by_name, query)
        if ord(query[-1]) == 0x10FFFF:  # no next code point to bound the range with
            high = low
            while high < len(self.by_name) and self.by_name[high].startswith(query):
                high += 1
        else:
            high = bisect.bisect_left(self.by_name, query[:-1] + chr(ord(query[-1]) + 1), low)
        return range(low, high)

    def described(self, query: str) -> set[int]:
        """Numbers of the slugs whose lower-cased description holds ``query``."""
        if _SEP in query:  # a match in the joined text could span two descriptions
            return {number for number, desc in enumerate(self.descs) if query in desc}
        hits = re.finditer(re.escape(query), self.joined_descs)
        return set(map(partial(bisect.bisect_left, self.desc_ends), map(_MATCH_START, hits)))


_SEP = "\0"  # between the slugs (and the descriptions) joined: a file name cannot hold one


def _ends(texts: list[str]) -> list[int]:
    """Where each text ends in ``_SEP.join(texts)``: ``bisect_left`` of these maps an offset to its text."""
    return [end - 1 for end in accumulate(len(text) + 1 for text in texts)]


_MATCH_START = methodcaller("start")


def _substring_score(slug: str, found: int) -> float:
    """A slug holding the query at ``found``: its start first, then a word's start, shorter first."""
    if found == 0:
        return 300.0 - len(slug) / 100
    return 250.0 + (20.0 if slug[found - 1] == "-" else 0.0) - len(slug) / 100


def _subsequence_score(positions: tuple[int, ...]) -> float:
    """A slug holding the query's letters in order at ``positions``: closer together is better."""
    return 200.0 - (positions[-1] - positions[0])


class SlugCandidates(tuple[tuple[str, str], ...]):
    """``(slug, description)`` pairs, with what ``rank_slugs`` needs of them prepared once.

    An immutable tuple, so what is prepared (slugs joined and sorted, lower-cased descriptions,
    the slugs holding each letter) can never disagree with the pairs.
    """

    _prepared: _Prepared | None = None

    def prepared(self) -> _Prepared:
        if self._prepared is None:
            self._prepared = _Prepared(self)
        return self._prepared


def rank_slugs(query: str, candidates: Iterable[tuple[str, str]], *, limit: int = 50) -> list[SlugMatch]:
    """Candidates for ``#query``: prefix, substring, subsequence, then fuzzy and description matches.

    Tiers, best first: the slug starts with the query; holds it (a hit at a word start, "#redis" in
    drop-redis-cache, beats one inside a word); holds its letters in order (closer together is
    better); rapidfuzz ``partial_ratio`` >= 70; the description holds a query of 3+ letters.
    Each tier runs in C over the slugs the earlier ones did not take (prefixes by binary search of
    the sorted slugs, substring hits from one search of all slugs joined, subsequences by one
    regex, fuzzy scores by ``process.extract`` over the slugs sharing a letter with the query), so
    a keystroke over 10,000 slugs costs well under a millisecond.
    """
    query = query.lower()
    pool = candidates if isinstance(candidates, SlugCandidates) else SlugCandidates(candidates)
    if not query:
        return [SlugMatch(slug, desc, 0.0) for slug, desc in pool[:limit]]
    prepared = pool.prepared()
    slugs, joined = prepared.slugs, prepared.joined
    # (-score, slug, number, positions or the substring offset), SlugMatch built for the top only.
    scored: list[tuple[float, str, int, Any]] = []
    taken: set[int] = set()
    if not prepared.plain:  # a NUL in a slug (not from a file name): the tiers slug by slug
        for number, slug in enumerate(slugs):
            found = slug.find(query)
            if found >= 0:
                scored.append((-_substring_score(slug, found), slug, number, found))
            elif (subsequence := _subsequence(query, slug)) is not None:
                scored.append((-_subsequence_score(subsequence), slug, number, subsequence))
            else:
                continue
            taken.add(number)
    elif _SEP not in query:  # (no slug holds a NUL: one in the query matches none of these tiers)
        # Slugs starting with the query outscore every other match (300 - length/100 against at most
        # 270): when there are `limit` of them, the shortest are the answer, and the far more numerous
        # slugs holding the query elsewhere ("c" is in most) need not be looked at.
        prefixed = prepared.prefixed(query)
        if len(prefixed) >= limit:
            shortest = sorted(prepared.by_name_keys[prefixed.start:prefixed.stop])[:limit]
            return [SlugMatch(slug, pool[number][1], _substring_score(slug, 0), tuple(range(len(query))))
                    for _length, slug, number in shortest]
        for hit in re.finditer(re.escape(query), joined):
            number = prepared.slug_of(hit.start())
            if number in taken:
                continue
            taken.add(number)
            slug = slugs[number]
            found = hit.start() - (prepared.ends[number] - len(slug))  # the first hit in this slug
            scored.append((-_substring_score(slug, found), slug, number, found))
        if len(scored) < limit:  # a lower tier scores below every hit above: only needed to fill the list
            # Letters in order: with lazy gaps, the leftmost match is the greedy first-occurrence walk.
            pattern = re.compile(f"[^{_SEP}]*?".join(f"({re.escape(c)})" for c in query))
            holding_all = frozenset.intersection(*map(prepared.holding, set(query)))
            if len(holding_all) * 16 < len(slugs):  # rare letters: search only the slugs holding them all
                searched = ((number, pattern.search(slugs[number])) for number in sorted(holding_all - taken))
                hits = [(number, hit, 0) for number, hit in searched if hit is not None]
            else:
                hits = [(number, hit, prepared.ends[number] - len(slugs[number]))
                        for hit in pattern.finditer(joined) if (number := prepared.slug_of(hit.start())) not in taken]
            for number, hit, base in hits:
                if number in taken:  # several hits in one slug: the first is the leftmost
                    continue
                taken.add(number)
                subsequence = tuple(hit.start(g) - base for g in range(1, len(query) + 1))
                scored.append((-_subsequence_score(subsequence), slugs[number], number, subsequence))
    if len(scored) < limit:
        # A partial_ratio of 70 needs a common character (a window sharing none scores 0): only the
        # slugs holding a letter of the query are scored.
        if prepared.plain or _SEP not in query:
            held = frozenset().union(*map(prepared.holding, set(query) - {_SEP}))
            fuzzy_pool = sorted(held - taken)
        else:  # a NUL shared by the query and a slug: every slug is scored
            fuzzy_pool = [number for number in range(len(slugs)) if number not in taken]
        fuzzy = process.extract(query, list(map(slugs.__getitem__, fuzzy_pool)), scorer=fuzz.partial_ratio,
                                score_cutoff=70, limit=None)
        for _slug, ratio, position in fuzzy:
            number = fuzzy_pool[position]
            taken.add(number)
            scored.append((-(100.0 + ratio / 2), slugs[number], number, ()))
        if len(query) >= 3 and len(scored) < limit:  # descriptions score below every slug match
            scored.extend((-90.0, slugs[number], number, ()) for number in sorted(prepared.described(query) - taken))
    top = heapq.nsmallest(limit, scored, key=lambda item: (item[0], item[1]))
    return [SlugMatch(slug, pool[number][1], -neg,
                      tuple(range(extra, extra + len(query))) if isinstance(extra, int) else extra)
            for neg, slug, number, extra in top]
