"""The warm lint cache: what a whole-workspace lint learned per file, kept in ``.yoi/state/cache/``.

A whole-workspace lint parses every record and runs every rule. Most of that depends on the file
alone, so it is kept per file, keyed by the file's ``lstat`` (size, mtime_ns, ctime_ns, inode,
mode): the read findings, the findings of the rules that need only the file (``LOCAL_RULES``), and
the facts the cross-record rules need (the index entry, the ``#slug`` references with their
positions, the ``replaced_by`` target and where its key is, the body length). A warm run stats
every file, re-reads only those whose signature changed, rebuilds the index from the facts, and
runs the cross-record rules (``dangling-ref``, ``ref-to-replaced``, ``dangling-replaced-by``,
``compressible`` with the current usage) on the facts. ``similar-slugs`` pairs are kept per kind
with the slug list; a changed slug set is compared incrementally (new slugs against all).

The findings are identical to an uncached run (``tests/test_lint_cache.py`` compares them over
edits, renames, deletions and config changes). Safety:

* the whole cache is dropped when the config, the linter's source files, or the versions of
  Python, PyYAML, pydantic or rapidfuzz differ (``fingerprint``);
* "racily clean" files, modified within ``RACY_NS`` of the run's start, are not stored: a second
  write in the same timestamp tick could otherwise keep the same signature;
* symlinks and anything that is not a regular file are never cached (always re-read);
* the cache is JSON (never pickle: ``.yoi/state`` could come from an untrusted checkout), written
  atomically; an unreadable, corrupt or foreign cache is ignored, and a cache that cannot be
  written is skipped silently: it only ever costs speed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..fork_pool import available_workers, run_forked, shrinking_chunks
from ..freshness.signature import Signature, same_bytes, signature_of
from ..store.config import Config
from ..store.json_cache import read_cache, write_cache
from ..store.kinds import RECORD_FOLDERS, RecordKind, kind_for_path, slug_of
from ..store.reader import listed_file_crc, read_listed_record_stat, read_record
from ..store.record_listing import record_files
from ..store.workspace import SUMMARY_REL, Workspace
from . import resident, stored
from .index import IndexEntry, WorkspaceIndex
from .rules import (
    LOCAL_RULES,
    LintContext,
    check_ref_list,
    check_replacement,
    compressible,
    ref_positions,
    replacement_target,
    similar_diagnostic,
    similar_pair_wanted,
    similar_slug_pairs,
    similar_to,
)
from .stored import (  # noqa: F401  (re-exported: the cache's public names before the split)
    CACHE_VERSION,
    RESULT_NAME,
    Sig,
    UsageFrequencies,
    _result_path,
    _save_result,
    file_signature,
    fingerprint,
)

CACHE_NAME = "lint-v1.json"
INCREMENTAL_MAX = 50  # edited files up to which only they are checked again (see _previous_result)
PARALLEL_MIN = 1000  # files to (re)read from which a lint uses every core
MAX_WORKERS = 4
MIN_CHUNK = 100  # files per job of a parallel lint, at the least
IDLE_CORES_ONLY = True  # tests turn this off to run the parallel path on any machine
FULL_RECOMPUTE_SHARE = 0.25  # more new slugs than this share of a kind: recompute its pairs from scratch
SIMILAR_KINDS = (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)
_KINDS = {kind.value: kind for kind in RecordKind}  # RecordKind(value) costs ~10 us; 100,000 per lint at 50k


def cache_path(ws: Workspace) -> Path:
    return ws.state_dir / "cache" / CACHE_NAME


@dataclass
class FileFacts:
    """What the cache keeps for one record path."""

    sig: Sig | None  # None: not cacheable (symlink, not a regular file, unreadable)
    diags: list[list[Any]] = field(default_factory=list)  # [line, col, rule, severity, message, hint]
    entry: list[Any] | None = None  # IndexEntry fields after kind/slug/rel, for a parsed record
    unparsed: bool = False  # a record path whose file could not be parsed (still in the index)
    refs: list[list[Any]] = field(default_factory=list)  # [slug, line, col]
    replaced: list[Any] | None = None  # [target, line, col]
    body: list[int] | None = None  # [length, body_line]
    crc: int | None = None  # CRC-32 of the bytes the facts come from (None: not read the short way)

    # The parsed record's fields by name. ``entry``, ``replaced`` and ``body`` stay lists: the cache's
    # JSON is positional (one codec: to_json / from_json), and a warm one-shot lint loads 50,000 of
    # them, where a named tuple each would add ~60 ms.
    @property
    def kind_value(self) -> str:
        return self.entry[0]  # type: ignore[index]  # asked of a parsed record's facts: entry is set

    @property
    def slug(self) -> str:
        return self.entry[1]  # type: ignore[index]  # asked of a parsed record's facts: entry is set

    @property
    def replaced_by(self) -> str | None:
        return self.entry[2]  # type: ignore[index]  # asked of a parsed record's facts: entry is set

    @property
    def replacement_target(self) -> str | None:
        """The ``replaced_by`` target the cross-record check resolves (``replaced[0]``)."""
        return self.replaced[0] if self.replaced is not None else None

    @property
    def body_length(self) -> int:
        return self.body[0]  # type: ignore[index]  # set with entry (a parsed record)

    @property
    def body_line(self) -> int:
        return self.body[1]  # type: ignore[index]  # set with entry (a parsed record)

    def to_json(self) -> list[Any]:
        sig = self.sig.to_json() if self.sig is not None else None
        return [sig, self.diags, self.entry, self.unparsed, self.refs, self.replaced, self.body, self.crc]

    @classmethod
    def from_json(cls, data: list[Any]) -> FileFacts:
        sig, diags, entry, unparsed, refs, replaced, body, crc = data
        return cls(Signature.from_json(sig), diags, entry, bool(unparsed), refs, replaced, body, crc)


_FOLDERS = RECORD_FOLDERS


def _kind_of_rel(rel: str) -> RecordKind | None:
    if rel == SUMMARY_REL:
        return RecordKind.SUMMARY
    for prefix, kind in _FOLDERS:
        if rel.startswith(prefix) and "/" not in rel[len(prefix):]:
            return kind
    return None


def _facts(ws: Workspace, path: str, rel: str, sig: Sig | None, config: Config,
           empty_index: WorkspaceIndex, ctx: LintContext, *, sign: bool = False) -> FileFacts:
    """What the cache keeps of one file. ``sign``: the file was listed but not ``lstat``-ed; its
    signature is the ``fstat`` of what is read (the same fields for a regular file, None otherwise)."""
    # A signature means the listing saw a regular file: read it the short way (read_listed_record_stat).
    kind = _kind_of_rel(rel) if sig is not None or sign else None
    crc = None
    if kind is None:
        result = read_record(ws, Path(path))
    else:
        result, st, crc = read_listed_record_stat(ws, path, rel, kind)
        if sign:
            sig = signature_of(st) if st is not None else None
    facts = FileFacts(sig=sig, crc=crc)
    found = list(result.diagnostics)
    record = result.record
    if record is not None:
        for rule in LOCAL_RULES:
            found.extend(rule(record, empty_index, config, ctx))
        facts.entry = [record.kind.value, record.slug, record.replaced_by, record.status, record.description,
                       record.user_invocable, record.model_invokation, record.knowledge_kind]
        facts.refs = [list(ref) for ref in ref_positions(record)]
        target = replacement_target(record)
        if target is not None:
            facts.replaced = [target, *record.line_of("replaced_by")]
        facts.body = [record.body_length, record.body_line]
    else:
        facts.unparsed = (kind or kind_for_path(ws, Path(path))) is not None
    facts.diags = [[d.line, d.col, d.rule, d.severity, d.message, d.hint] for d in found]
    return facts


def _load(ws: Workspace, key: str) -> tuple[dict[str, FileFacts], dict[str, Any]]:
    data = read_cache(cache_path(ws), CACHE_VERSION, key)
    if data is None:
        return {}, {}
    try:
        files = {rel: FileFacts.from_json(item) for rel, item in data["files"].items()}
        similar = data.get("similar") or {}
        return files, similar if isinstance(similar, dict) else {}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}, {}


def _save(ws: Workspace, key: str, files: Mapping[str, FileFacts], similar: dict[str, Any],
          *, files_json: str | None = None) -> None:
    """Write the cache. ``files_json``: the members of its ``"files"`` object already encoded (by
    the workers of a cold lint, ``_facts_batch``), used instead of encoding ``files`` here."""
    if not ws.yoi_dir.is_dir():
        return  # no .yoi/ (a bare memory/ folder): do not create state the user did not ask for
    target = cache_path(ws)
    if files_json is not None:
        head = _json_compact({"version": CACHE_VERSION, "key": key})[:-1]
        write_cache(target, None, encoded=f'{head},"files":{{{files_json}}},"similar":{_json_compact(similar)}}}')
        return
    data = {"version": CACHE_VERSION, "key": key, "files": {rel: f.to_json() for rel, f in files.items()},
            "similar": similar}
    write_cache(target, data)


def _json_compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def _similar_pairs(kind: RecordKind, slugs: list[str], ratio: float, cached: Any) -> tuple[list[list[Any]], bool]:
    return updated_similar_pairs(slugs, ratio, cached)


def updated_similar_pairs(slugs: list[str], ratio: float, cached: Any) -> tuple[list[list[Any]], bool]:
    """Near-duplicate pairs ``[a, b, score]`` (a < b) of distinct ``slugs``, and whether they were
    (re)computed; reuses ``cached`` (``{"slugs": [...], "pairs": [...]}`` of an earlier call at the
    same ratio) when it can: pairs of removed slugs are dropped, added slugs compared with all."""
    old_slugs: set[str] | None = None
    old_pairs: list[list[Any]] = []
    if isinstance(cached, dict) and isinstance(cached.get("slugs"), list) and isinstance(cached.get("pairs"), list):
        old_slugs = set(cached["slugs"])
        old_pairs = cached["pairs"]
    current = set(slugs)
    if old_slugs == current:
        return old_pairs, False
    added = current - old_slugs if old_slugs is not None else current
    if old_slugs is None or len(added) > FULL_RECOMPUTE_SHARE * max(len(current), 1):
        return [[a, b, score] for a, b, score in similar_slug_pairs(slugs, ratio)], True
    pairs = {(a, b): score for a, b, score in old_pairs if a in current and b in current}
    for slug in sorted(added):
        for other, score in similar_to(slug, slugs, ratio):
            pairs[(min(slug, other), max(slug, other))] = score
    return [[a, b, score] for (a, b), score in sorted(pairs.items())], True


def lint_workspace_cached(ws: Workspace, *, frequencies: Mapping[tuple[str, str], float] | None = None,
                          checked: stored.Checked | None = None) -> tuple[list[Diagnostic], int]:
    """Findings of a whole-workspace lint (unfiltered) and the file count; keeps no parsed record.

    When no record file, usage file, config or linter source changed since a stored result, that
    result is returned after one ``lstat`` per file (nothing is parsed or recomputed). ``checked``
    is ``stored.stored_lint``'s answer when the caller already asked it (the files are not
    ``lstat``-ed twice).

    Otherwise the lint runs in named stages: where it starts from (``_starting_point``: the kept
    memory of a long-running process, or the per-file cache), which files to read (``_plan``),
    reading them (``_read_facts``: in forked workers when many), the index from the facts
    (``_index_of``), the cross-record rules (``_cross_check``), and what is kept for the next lint
    (``_persist``).
    """
    if checked is None:
        checked = stored.stored_lint(ws, frequencies, time.time_ns())
    result, key, sigs, state, storable, started_ns = checked
    if result is not None:
        return result
    kept = resident.state_for(ws)  # a long-running process's memory of its last lint (None: one-shot)
    ctx = LintContext(frequencies)
    start = _starting_point(ws, kept, key, ctx, sigs, started_ns)
    if isinstance(start, tuple):  # answered from memory: only the files with an event were read
        return start
    plan = _plan(ws, start, sigs, frequencies, kept is not None)
    read = _read_facts(ws, start, plan, frequencies, ctx, key, state, storable, started_ns)
    derived = _index_of(read.facts)
    # With a kept memory, every case a previous result could serve went through _lint_from_memory.
    previous = None if start.memory is not None else \
        _previous_result(ws, key, start.cached, read.facts, frequencies, started_ns, plan.same)
    diags, similar_state, recomputed = _cross_check(ws, start, plan, read, derived, previous, ctx)
    files = derived.parsed + sum(1 for d in diags if d.rule == "file-unreadable")
    _persist(ws, kept, start, plan, read, derived, key, similar_state, diags, files, read.changed or recomputed,
             started_ns)
    return diags, files


@dataclass
class _Start:
    """Where a lint starts from: the facts it may reuse and the files it must read again anyway."""

    memory: resident.Memory | None  # the kept memory it builds on (None: the per-file cache)
    cached: Mapping[str, FileFacts]  # rel -> facts of the last lint
    cached_similar: dict[str, Any]  # kind -> {"slugs", "pairs"} of the last lint
    dirty: set[str]  # files with an event since then: read again whatever their signature
    usage: Any  # the usage state stored_lint found for this lint (a long-running process)


@dataclass
class _Plan:
    """Which files this lint reads, and what it computes beside reading them."""

    sigs: list[tuple[str, str, Sig | None]]  # every record file: rel, path, signature
    stale: list[tuple[str, str, Sig | None]]  # of those, the ones to read
    same: set[str]  # signature changed, bytes not: their facts kept
    facts: dict[str, FileFacts]  # the kept facts of ``same``
    side: list[tuple[Callable[..., Any], tuple[Any, ...]]]  # jobs for the workers beside the reading
    sign: bool  # listed, not lstat-ed: the workers take each signature from what they read
    usage_then: list[Any] | None  # a first lint: the usage state before any file was read
    encode: bool  # the workers encode the cache's members (every file is read, nothing kept)


@dataclass
class _Read:
    """The facts of every record file, and what came back from the workers with them."""

    facts: dict[str, FileFacts]
    sigs: list[tuple[str, str, Sig | None]]
    changed: bool  # the per-file cache differs from what is stored
    early_similar: dict[RecordKind, Any] | None  # near-duplicate pairs the workers computed
    files_json: str | None  # the cache's "files" members, encoded by the workers
    state: Any
    storable: bool


def _starting_point(ws: Workspace, kept: resident.KeptState | None, key: str, ctx: LintContext,
                    sigs: list[tuple[str, str, Sig | None]] | None, started_ns: int) -> _Start | tuple[list[Diagnostic], int]:
    """The kept memory when it was made under the same key (config, linter, usage) — answered from
    it outright when it can be — else the per-file cache file."""
    memory = kept.memory if kept is not None else None
    usage = kept.usage if kept is not None else None  # as stored_lint found it for this lint
    if kept is not None and memory is not None and kept.dirty is not None and memory.key == key \
            and memory.facts is not None and memory.similar is not None and sigs is not None:
        quick = _lint_from_memory(ws, kept, memory, kept.dirty, usage, ctx, sigs, started_ns)
        if quick is not None:
            return quick
        # Every file without an event since that lint has the facts it had then, racy or not.
        return _Start(memory, memory.facts, memory.similar or {}, kept.dirty, usage)
    cached, cached_similar = _load(ws, key)
    return _Start(None, cached, cached_similar, set(), usage)


def _plan(ws: Workspace, start: _Start, sigs: list[tuple[str, str, Sig | None]] | None,
          frequencies: Mapping[tuple[str, str], float] | None, kept: bool) -> _Plan:
    """The files to read (signature changed, new, or dirty; not those whose bytes are the same),
    and the side jobs the workers run while the parent would only wait."""
    config = ws.config
    cached, dirty = start.cached, start.dirty
    usage_then: list[Any] | None = None
    sign = False  # the workers take each file's signature from what they read
    if sigs is None:  # nothing stored (stored_lint listed nothing): a first lint
        usage_then = stored._usage_state(frequencies)  # before any file is read, as stored_lint takes it
        listed = record_files(ws) if not cached else []
        if len(listed) >= PARALLEL_MIN:
            sigs, sign = [(rel, path, None) for rel, path in listed], True
        else:
            sigs = stored.record_signatures(ws)
    stale = [(rel, path, sig) for rel, path, sig in sigs
             if sig is None or (old := cached.get(rel)) is None or old.sig != sig or rel in dirty]
    facts: dict[str, FileFacts] = {}
    same: set[str] = set()  # files whose signature changed but not their bytes: their facts kept
    if stale and cached:
        stale = _same_content(stale, cached, facts)
        same = set(facts)
    # Every record path gets an index entry (parsed or not), so the slugs are the file names: the
    # near-duplicate pairs need no parsed record and are computed while the files are parsed, as is
    # the usage log (``compressible`` will most likely ask for it: a body near its cap), by the
    # same workers — the parent only waits (a third busy process on two cores slowed all three).
    side: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
    if len(stale) >= PARALLEL_MIN:
        # A listed rel is a folder prefix and a "*.md" name (no "/"): its slug is the name's stem.
        for prefix, kind in _FOLDERS:
            slugs = sorted(rel[len(prefix):-3] for rel, _path, _sig in sigs if rel.startswith(prefix))
            side.append((_pairs_task, (kind.value, slugs, config.records.similar_slug_ratio,
                                       start.cached_similar.get(kind.value))))
        if isinstance(frequencies, stored.UsageFrequencies) and not frequencies.loaded and frequencies.signature():
            side.append((_usage_task, (str(ws.root), config.as_dict())))
    # The workers encode the cache's members only when the parent would write them all as they are.
    encode = not kept and len(stale) == len(sigs)
    return _Plan(sigs, stale, same, facts, side, sign, usage_then, encode)


def _read_facts(ws: Workspace, start: _Start, plan: _Plan, frequencies: Mapping[tuple[str, str], float] | None,
                ctx: LintContext, key: str, state: Any, storable: bool, started_ns: int) -> _Read:
    """The facts of every file: kept ones as they are, the rest read — by forked workers when there
    are ``PARALLEL_MIN`` or more, here otherwise."""
    config = ws.config
    sigs, stale, sign = plan.sigs, plan.stale, plan.sign
    parallel = _facts_in_parallel(ws, stale, plan.side, started_ns - stored.RACY_NS if plan.encode else None,
                                  sign=sign) if len(stale) >= PARALLEL_MIN else None
    fresh, early_similar, files_json = None, None, None
    if parallel is not None:
        fresh, side_results, files_json = parallel
        early_similar = {_KINDS[value]: found for value, found in side_results[:len(_FOLDERS)]}
        if len(side_results) > len(_FOLDERS) and isinstance(frequencies, stored.UsageFrequencies):  # its task ran
            frequencies.adopt(side_results[-1])
        if sign:
            sigs = [(rel, path, fresh[rel].sig) for rel, path, _none in sigs]
    elif sign:  # no workers after all: listed and signed here, as any lint
        sigs = stored.record_signatures(ws)
    if plan.usage_then is not None:  # the state the result is stored under, from the signatures now known
        state, storable = stored._state_digest(key, [(rel, sig) for rel, _path, sig in sigs], plan.usage_then,
                                               started_ns)
    cached, dirty, same, kept_facts = start.cached, start.dirty, plan.same, plan.facts
    empty_index = WorkspaceIndex()
    facts: dict[str, FileFacts] = {}
    changed = False
    for rel, path, sig in sigs:
        old = cached.get(rel)
        if sig is not None and old is not None and old.sig == sig and rel not in dirty:
            facts[rel] = old
            continue
        if rel in same:  # the same bytes as when its facts were taken (_same_content)
            facts[rel] = kept_facts[rel]  # in listing order, as every other file
            changed = changed or _storable(facts[rel], started_ns)
            continue
        facts[rel] = fresh[rel] if fresh is not None else _facts(ws, path, rel, sig, config, empty_index, ctx)
        # Only what will be stored is worth rewriting the cache for: a file edited moments ago is
        # racy (not stored), and its old entry no longer matches its signature anyway.
        changed = changed or _storable(facts[rel], started_ns)
    if set(cached) - set(facts):
        changed = True
    return _Read(facts, sigs, changed, early_similar, files_json, state, storable)


def _index_of(facts: Mapping[str, FileFacts]) -> Derived:
    """The workspace index from the facts alone: every record path gets an entry, parsed or not,
    so the slugs are the file names."""
    index = WorkspaceIndex()
    unparsed: list[tuple[RecordKind, str, str]] = []
    rels: dict[tuple[RecordKind, str], str] = {}
    parsed = 0
    for rel, item in facts.items():
        if item.entry is not None:
            kind_value, slug, replaced_by, status, description, user_invocable, model_invokation, knowledge_kind = \
                item.entry
            kind = _KINDS[kind_value]
            index.entries[kind][slug] = IndexEntry(kind, slug, rel, replaced_by, status, description,
                                                   user_invocable, model_invokation, knowledge_kind)
            rels[(kind, slug)] = rel
            parsed += 1
        elif item.unparsed:
            unparsed_kind = _kind_of_rel(rel)
            if unparsed_kind is not None:
                unparsed.append((unparsed_kind, "summary" if unparsed_kind is RecordKind.SUMMARY else slug_of(Path(rel)),
                                 rel))
    for kind, slug, rel in unparsed:
        index.entries[kind].setdefault(slug, IndexEntry(kind, slug, rel, None, None, "", False, False, None))
    return Derived(index, rels, parsed, facts)


def _cross_check(ws: Workspace, start: _Start, plan: _Plan, read: _Read, derived: Derived,
                 previous: list[Diagnostic] | None, ctx: LintContext
                 ) -> tuple[list[Diagnostic], dict[str, Any], bool]:
    """The findings: each file's own, then the cross-record rules and the near-duplicate slugs —
    for every file, or, with a ``previous`` result, for the edited files and their dependents
    only. Also the near-duplicate state to keep, and whether it was recomputed."""
    config = ws.config
    facts, index, rels = read.facts, derived.index, derived.rels
    recheck: set[str] = set()
    if previous is not None:  # a few files were edited: they and the files whose findings follow them
        edited = {rel for rel in facts if facts[rel] is not start.cached.get(rel) and rel not in plan.same}
        recheck = edited | _dependents(start.cached, facts, edited)
        diags = [d for d in previous if d.path not in recheck]
        diags += _cross_record({rel: facts[rel] for rel in recheck}, index, config, ctx)
    else:
        diags = list(_cross_record(facts, index, config, ctx))
    similar_state: dict[str, Any] = {}
    changed = False
    for kind in SIMILAR_KINDS:
        slugs = index.slugs(kind)
        early = read.early_similar.get(kind) if read.early_similar else None
        if early is not None and early[0] == slugs:  # the same slugs: the pairs computed meanwhile
            pairs, recomputed = early[1]
        else:
            pairs, recomputed = _similar_pairs(kind, slugs, config.records.similar_slug_ratio,
                                               start.cached_similar.get(kind.value))
        changed = changed or recomputed
        similar_state[kind.value] = {"slugs": slugs, "pairs": pairs}
        for first, second, score in pairs:
            if not similar_pair_wanted(index, kind, first, second):
                continue
            for slug, other in ((first, second), (second, first)):
                # With a previous result, the same slugs: only files checked again need theirs (an
                # edit may have made a record unparsable, which gets none, or parsable again).
                if (kind, slug) in rels and (previous is None or rels[(kind, slug)] in recheck):
                    diags.append(similar_diagnostic(rels[(kind, slug)], kind, other, score))
    return diags, similar_state, changed


def _persist(ws: Workspace, kept: resident.KeptState | None, start: _Start, plan: _Plan, read: _Read,
             derived: Derived, key: str, similar_state: dict[str, Any], diags: list[Diagnostic], files: int,
             changed: bool, started_ns: int) -> None:
    """What the next lint starts from: in a long-running process, the memory (and the cache files,
    written when it is idle); otherwise the per-file cache and, when it may be stored, the result."""
    if kept is not None:
        kept.pending_save = _deferred_save(ws, kept, key, read.facts, similar_state, read.sigs, start.usage, diags,
                                           files, started_ns)
        resident.remember(kept, resident.Memory(key, start.usage, read.facts, similar_state, diags, files, derived))
        return
    if changed and plan.encode and read.files_json is not None:  # every file read by the workers
        _save(ws, key, {}, similar_state, files_json=read.files_json)
    elif changed:
        keep = {rel: item for rel, item in read.facts.items() if _storable(item, started_ns)}
        _save(ws, key, keep, similar_state)
    if read.state is not None and read.storable:
        _save_result(ws, key, read.state, diags, files)


class Derived:
    """What a whole lint derives from all the facts, kept so an edit updates it, not rebuilds it."""

    __slots__ = ("index", "rels", "parsed", "unsigned")

    def __init__(self, index: WorkspaceIndex, rels: dict[tuple[RecordKind, str], str], parsed: int,
                 facts: Mapping[str, FileFacts] | None = None, unsigned: set[str] | None = None) -> None:
        self.index = index
        self.rels = rels  # (kind, slug) -> rel of every parsed record
        self.parsed = parsed
        # files never cached (symlinks, not regular files): read again by every lint
        self.unsigned = unsigned if unsigned is not None else \
            {rel for rel, item in (facts or {}).items() if item.sig is None}


def _deferred_save(ws: Workspace, kept: resident.KeptState, key: str, facts: dict[str, FileFacts],
                   similar_state: dict[str, Any], sigs: list[tuple[str, str, Sig | None]], usage: Any,
                   diags: list[Diagnostic], files: int, started_ns: int) -> Callable[[], None]:
    """The cache files of a kept-state lint, for the next one-shot lint, written when the process is
    idle (``resident.flush``) — with the result, if its state may be stored."""

    def save() -> None:
        # What changed since this lint read the files (the feed is drained as a lint would):
        # those facts are out of date; every other one is the file's current content, so a file
        # racy then is stored once its stamp is RACY_NS old (a later write gets a new stamp).
        _listing, since = kept.signatures(ws)
        now = time.time_ns() if since is not None else started_ns
        _save(ws, key, {rel: item for rel, item in facts.items()
                        if (since is None or rel not in since) and _storable(item, now)}, similar_state)
        then, may_store = stored._state_digest(key, [(rel, sig) for rel, _path, sig in sigs], usage, started_ns)
        if then is not None and may_store:
            _save_result(ws, key, then, diags, files)

    return save


def _lint_from_memory(ws: Workspace, kept: resident.KeptState, memory: resident.Memory, dirty: set[str],
                      usage: Any, ctx: LintContext, sigs: list[tuple[str, str, Sig | None]],
                      started_ns: int) -> tuple[list[Diagnostic], int] | None:
    """The findings after a few files changed in place, from a long-running process's memory,
    touching only them: they are read again, the index and the findings of them and their
    dependents updated (``_dependents``), everything else kept. None when it does not apply —
    files added or removed (slug pairs change), more than ``INCREMENTAL_MAX`` changed, another
    usage state — and the caller lints from the facts instead."""
    derived = memory.derived
    old_facts = memory.facts
    if not isinstance(derived, Derived) or old_facts is None or memory.similar is None or usage is None \
            or memory.usage != usage:
        return None
    changed = dirty | derived.unsigned
    if not changed or len(changed) > INCREMENTAL_MAX:
        return None
    entries = kept.entries
    if any((rel in entries) != (rel in old_facts) for rel in changed):
        return None
    resident.forget(kept)  # the index is updated in place: a failure must not leave a half memory
    config = ws.config
    empty_index = WorkspaceIndex()
    facts = dict(old_facts)
    unsigned = set(derived.unsigned)
    index, rels, parsed = derived.index, derived.rels, derived.parsed
    for rel in sorted(changed):
        path, sig = entries[rel]
        item = facts[rel] = _facts(ws, path, rel, sig, config, empty_index, ctx)
        (unsigned.add if sig is None else unsigned.discard)(rel)
        kind = _kind_of_rel(rel)
        if kind is None:
            continue
        slug = "summary" if kind is RecordKind.SUMMARY else slug_of(Path(rel))
        before = old_facts[rel]
        if before.entry is not None or before.unparsed:
            index.entries[kind].pop(slug, None)
        if before.entry is not None:
            rels.pop((kind, slug), None)
            parsed -= 1
        if item.entry is not None:
            _kind_value, _slug, replaced_by, status, description, user_invocable, model_invokation, knowledge_kind = \
                item.entry
            index.entries[kind][slug] = IndexEntry(kind, slug, rel, replaced_by, status, description, user_invocable,
                                                   model_invokation, knowledge_kind)
            rels[(kind, slug)] = rel
            parsed += 1
        elif item.unparsed:
            index.entries[kind][slug] = IndexEntry(kind, slug, rel, None, None, "", False, False, None)
    recheck = changed | _dependents(old_facts, facts, changed)
    diags = [d for d in memory.diags if d.path not in recheck]
    diags += _cross_record({rel: facts[rel] for rel in recheck}, index, config, ctx)
    for kind in SIMILAR_KINDS:
        for first, second, score in memory.similar[kind.value]["pairs"]:
            if not similar_pair_wanted(index, kind, first, second):
                continue
            for slug, other in ((first, second), (second, first)):
                if (kind, slug) in rels and rels[(kind, slug)] in recheck:
                    diags.append(similar_diagnostic(rels[(kind, slug)], kind, other, score))
    files = parsed + sum(1 for d in diags if d.rule == "file-unreadable")
    key = memory.key
    kept.pending_save = _deferred_save(ws, kept, key, facts, memory.similar, sigs, usage, diags, files, started_ns)
    resident.remember(kept, resident.Memory(key, usage, facts, memory.similar, diags, files,
                                            Derived(index, rels, parsed, unsigned=unsigned)))
    return diags, files


def _facts_batch(root: str, config_values: dict[str, Any], items: list[tuple[str, str, Sig | None]],
                 store_before_ns: int | None = None, sign: bool = False) -> tuple[list[tuple[str, list[Any]]], str]:
    """A worker's share of a cold lint (runs in a child process): the facts of ``items``, and the
    cache's JSON members for those that may be stored (changed before ``store_before_ns``; ``""``
    without it) — encoded here, on every core, not by the parent after the workers are done."""
    ws = Workspace(Path(root), _config=Config.from_dict(config_values))
    empty_index = WorkspaceIndex()
    ctx = LintContext(None)  # the file-local rules never ask for a usage frequency
    found = [(rel, _facts(ws, path, rel, sig, ws.config, empty_index, ctx, sign=sign).to_json())
             for rel, path, sig in items]
    if store_before_ns is None:
        return found, ""
    keep = {rel: data for rel, data in found if _stored_before(Signature.from_json(data[0]), store_before_ns)}
    return found, _json_compact(keep)[1:-1]


def _pairs_task(kind_value: str, slugs: list[str], ratio: float, cached: Any
                ) -> tuple[str, tuple[list[str], tuple[list[list[Any]], bool]]]:
    """A worker's side task in a cold lint: one kind's near-duplicate slug pairs (``updated_similar_pairs``)."""
    return kind_value, (slugs, updated_similar_pairs(slugs, ratio, cached))


def _usage_task(root: str, config_values: dict[str, Any]) -> dict[tuple[str, str], float]:
    """A worker's side task in a cold lint: the usage frequencies (``stored.UsageFrequencies``,
    which also keeps them in its cache file)."""
    return dict(stored.UsageFrequencies(Workspace(Path(root), _config=Config.from_dict(config_values))))


def _facts_in_parallel(ws: Workspace, items: list[tuple[str, str, Sig | None]],
                       side: list[tuple[Callable[..., Any], tuple[Any, ...]]] | None = None,
                       store_before_ns: int | None = None, *, sign: bool = False
                       ) -> tuple[dict[str, FileFacts], list[Any], str] | None:
    """The facts of many files read on every core (a cold lint), the results of the ``side`` tasks
    (module-level functions and their arguments, run by the same workers, first), and the cache's
    JSON members of the facts that may be stored (``_facts_batch``); None: do it all in this process.

    Parsing and the per-file rules are pure Python, so threads would share one core: forked
    children (``forked.run_forked``) take the side tasks and then the chunks of files, each the
    next one free. Any failure to run them (no ``fork``, no pipe, a worker killed) falls back to
    the serial loop: it only costs time.
    """
    workers = available_workers(MAX_WORKERS, idle_only=IDLE_CORES_ONLY)
    if workers < 2:
        return None
    parts = shrinking_chunks(items, workers, MIN_CHUNK)
    values = ws.config.as_dict()
    # The side tasks first: the longest (similar-slug pairs) must not be the last to start.
    jobs = [*(side or ()), *((_facts_batch, (str(ws.root), values, part, store_before_ns, sign)) for part in parts)]
    done = run_forked(jobs, workers)
    if done is None:
        return None
    found_aside, batches = done[:len(side or ())], done[len(side or ()):]
    encoded = ",".join(members for _found, members in batches if members)
    return ({rel: FileFacts.from_json(data) for found, _members in batches for rel, data in found}, found_aside,
            encoded)


def _same_content(stale: list[tuple[str, str, Sig | None]], cached: Mapping[str, FileFacts],
                  facts: dict[str, FileFacts]) -> list[tuple[str, str, Sig | None]]:
    """The stale files whose bytes did change; the others get their cached facts under their new
    signature in ``facts``.

    A signature also changes when only a file's inode does: a hard link made or removed (GC and
    Phase 2 link every record into their scratch copy), ``touch``, a copy that keeps the bytes.
    A file of the same size and mode whose CRC-32 is the one its facts were taken from has those
    facts (they depend on its bytes, its path and the config, which the cache key holds): reading
    it costs a few microseconds, linting it again a hundred.
    """
    left: list[tuple[str, str, Sig | None]] = []
    for rel, path, sig in stale:
        old = cached.get(rel)
        if sig is not None and old is not None and old.sig is not None and old.crc is not None \
                and old.sig.may_hold_same_bytes(sig) and same_bytes(old.sig, old.crc, sig.size, listed_file_crc(path, sig.size)):
            facts[rel] = FileFacts(sig, old.diags, old.entry, old.unparsed, old.refs, old.replaced, old.body, old.crc)
        else:
            left.append((rel, path, sig))
    return left


def _cross_key(item: FileFacts) -> tuple[Any, ...]:
    """What other files' findings can depend on: existence, kind, slug, replaced_by, status."""
    return tuple(item.entry[:4]) if item.entry is not None else ("unparsed", item.unparsed)


def _previous_result(ws: Workspace, key: str, cached: Mapping[str, FileFacts], facts: Mapping[str, FileFacts],
                     frequencies: Mapping[tuple[str, str], float] | None, started_ns: int,
                     same: AbstractSet[str] = frozenset()) -> list[Diagnostic] | None:
    """The stored result of the state ``cached`` describes, when only a few files were edited since.

    Usable when the same files exist (so the same slugs: ``similar-slugs`` is as before), at most
    ``INCREMENTAL_MAX`` were edited, with the same usage log and config: then only the edited
    files and the files whose findings depend on them (``_dependents``) are checked again. Files in
    ``same`` changed their signature but not their bytes (``_same_content``): not edited. None
    otherwise (the cross-record rules run over every file).
    """
    if not cached or set(cached) != set(facts):
        return None
    edited = [rel for rel in facts if facts[rel] is not cached[rel] and rel not in same]
    if not (edited or same) or len(edited) > INCREMENTAL_MAX or any(facts[rel].sig is None for rel in edited):
        return None
    before, _storable_then = stored._state_digest(key, [(rel, cached[rel].sig) for rel in sorted(cached)],
                                                   stored._usage_state(frequencies), started_ns)
    found = stored._load_result(ws, key, before) if before is not None else None
    return found[0] if found is not None else None


def _dependents(cached: Mapping[str, FileFacts], facts: Mapping[str, FileFacts], edited: set[str]) -> set[str]:
    """The files whose cross-record findings may change when ``edited`` change their facts.

    A file's ``#ref`` and ``replaced_by`` findings read the entries along the ``replaced_by`` chain
    from each slug it names (``check_ref_list``, ``check_replacement``: existence, status, the
    final replacement, loops). So an edited record X matters to every file naming a record whose
    chain, before or after the edit, passes through X: the records that reach X backwards over
    the ``replaced_by`` edges of both states. Nothing when no edit changed ``_cross_key`` (kind,
    slug, replaced_by, status, parsed or not): then no other file's findings can change.
    """
    changed = [rel for rel in edited if _cross_key(facts[rel]) != _cross_key(cached[rel])]
    if not changed:
        return set()
    predecessors: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for state in (cached, facts):
        for item in state.values():
            if item.entry is not None and item.replaced_by:
                predecessors.setdefault((item.kind_value, item.replaced_by), set()).add((item.kind_value, item.slug))
    reach: set[tuple[str, str]] = set()
    todo: list[tuple[str, str]] = []
    for rel in changed:
        kind = _kind_of_rel(rel)
        if kind is not None:
            todo.append((kind.value, "summary" if kind is RecordKind.SUMMARY else slug_of(Path(rel))))
    while todo:
        node = todo.pop()
        if node in reach:
            continue
        reach.add(node)
        todo.extend(predecessors.get(node, ()))
    knowledge = RecordKind.KNOWLEDGE.value
    found: set[str] = set()
    for rel, item in facts.items():
        if item.entry is None:
            continue
        kind_value = item.kind_value
        if (item.replaced is not None and ((kind_value, item.replacement_target) in reach
                                           or (kind_value, item.slug) in reach)) \
                or any((knowledge, ref[0]) in reach for ref in item.refs):
            found.add(rel)
    return found


def _storable(item: FileFacts, started_ns: int) -> bool:
    return _stored_before(item.sig, started_ns - stored.RACY_NS)


def _stored_before(sig: Sig | None, before_ns: int) -> bool:
    """A file with this signature may be cached: a regular file last changed before ``before_ns``."""
    return sig is not None and sig.stamp < before_ns


def _cross_record(facts: Mapping[str, FileFacts], index: WorkspaceIndex, config: Config,
                  ctx: LintContext) -> Iterator[Diagnostic]:
    """Stored findings, plus the rules that depend on other records or on usage, from the facts.

    Most references name a live knowledge record and most bodies are far from their cap: those
    are passed over by a set lookup and two comparisons (a cold lint of 10,000 records holds
    ~50,000 references); the rest go through the rules themselves.
    """
    knowledge = index.entries[RecordKind.KNOWLEDGE]
    # A live knowledge record: check_ref_list says nothing of a reference to it.
    live = {slug for slug, entry in knowledge.items() if entry is not None and not entry.is_replaced}
    caps = {kind: config.cap_for(kind.value) for kind in RecordKind}
    fraction = config.records.compressible_fraction
    for rel, item in facts.items():
        for line, col, rule, severity, message, hint in item.diags:
            yield Diagnostic(rel, line, col, rule, severity, message, hint)
        if item.entry is None:
            continue
        kind, slug = _KINDS[item.kind_value], item.slug
        refs = item.refs
        if refs and not all(ref[0] in live for ref in refs):
            yield from check_ref_list(rel, [(s, line, col) for s, line, col in refs], index)
        if item.replaced is not None:
            target, line, col = item.replaced
            yield from check_replacement(rel, kind, slug, target, (line, col), index)
        if item.body is not None and caps[kind] >= item.body_length > caps[kind] * fraction:  # compressible's own test
            yield from compressible(rel, kind, slug, item.body_length, item.body_line, config, ctx)


