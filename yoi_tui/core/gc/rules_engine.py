"""The ``rules`` GC engine (SPEC 10, 11): deterministic, offline, metric- and structure-based.

What it proposes, in this order (each file of the change set belongs to one operation):

1. **drop** — *superseded*: a replaced record (``replaced_by`` / ``status: replaced``) that nothing
   points at any more, and whose replacement chain ends at a live record (a broken chain is only
   reported: the content may live nowhere else). *unused*: never invoked (no ``invoke`` event at all) although at least
   ``gc.unused_min_age_tokens`` input tokens have passed since it was created; dropped only when it
   is also replaced, or it is a request that is resolved (``status: resolved``) or old (not updated
   for ``gc.request_stale_tokens``). Other unused records are only reported: dropping what people
   wrote is worse than keeping it. A record is dropped only when every file pointing at it (``#slug``,
   ``replaced_by``, workflows) is dropped in the same run, so no reference dangles; replaced chains
   whose head nothing points at go together.
2. **merge** — *noisy*: near-duplicate slugs of one kind (rapidfuzz ratio ≥
   ``records.similar_slug_ratio`` and the same numbers, as Phase 2 matches them: ``issue-12`` is not
   ``issue-13``; nor slugs naming different files or identifiers: ``store.slug_names``). The keeper
   is the record with the preferred slug (shortest, then alphabetical: ``merge_content``, a rule of
   names, so every clone keeps the same one whatever it had pulled). The others' bodies are merged in Markdown
   block by block (``merge_content.merge_blocks``: a paragraph, list item or code block moves whole;
   no line of either is lost or doubled; a differing title
   is kept as an "Also titled:" line, a differing knowledge description as "Also described as:";
   a knowledge flag ``model_invokation``/``user_invocable`` true on any of them stays true), sources
   are unioned in canonical order (``store.canonical``). A merged record is
   deleted when nothing points at it; otherwise it stays as a replaced record
   (``replaced_by`` the keeper, and ``status: replaced`` for decisions) so references keep working.
3. **trim** — *noisy*: more than ``records.sources_max`` sources: the last N of the canonical order
   (session id, then range: ``store.canonical``) are kept, the same ones in every clone; git has the rest. ``updated_at`` is left alone (bookkeeping).
4. reported only: *noisy* over-cap bodies and *outdated* records naming repository paths (in code
   spans) that no longer exist under the workspace root — both need prose rewritten, which this
   engine never does.

Hard rules: a protected record (frequency ≥ ``usage.protect_threshold``) is never dropped or merged
away; a read-only (locked) file is never touched and is reported as ``locked``; the summary is never
dropped, merged or trimmed; ``memory/workflow/`` is never written (it is read for references).
Every written text passes the write-time linter; a refused one changes nothing and is reported.
"""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import YoiError
from ..fork_pool import available_workers, run_forked, shrinking_chunks
from ..lint.write_check import source_keys
from ..retrieval.slugrefs import referenced_slugs
from ..runs.linted_writer import LintedWriter, format_errors
from ..runs.rejections import held_reason
from ..store.canonical import canonical_body, capped_sources
from ..store.kinds import RecordKind, kind_for_path, slug_preference
from ..store.meta_cache import MetaCache
from ..store.reader import read_record, read_record_digest
from ..store.record_listing import iter_record_path_strings
from ..store.records import Record, RecordHead, as_timestamp
from ..store.slug_names import naming_difference
from ..store.writer import DELETE, render_record
from .facts import PathChecker, build_references, named_paths, scan_workflows
from .merge_content import Holding, merge_blocks
from .merge_content import keeper_reason as choose_reason
from .model import Operation, State, format_tokens
from .run_context import GcContext
from .similar_cache import SimilarPairs

_MERGEABLE = (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)
PARALLEL_MIN = 2_000  # records from which they are read on every idle core
MAX_WORKERS = 4
MIN_CHUNK = 200  # records per job of a parallel read, at the least


def _sources_key(kind: RecordKind) -> str:
    return "last_sources" if kind is RecordKind.KNOWLEDGE else "sources"


def _listing(rels: list[str], limit: int = 3) -> str:
    shown = ", ".join(rels[:limit])
    return shown + (f" and {len(rels) - limit} more" if len(rels) > limit else "")


def _root(parent: dict[str, str], slug: str) -> str:
    """Union-find: the representative of ``slug``'s group of near-duplicates."""
    while parent.get(slug, slug) != slug:
        slug = parent[slug]
    return slug


# GC's merge stubs, and Phase 2's move stubs (``phase2.rules_engine.move_line``): the same kind of stub.
_STUB_RE = re.compile(r"^(?:Merged into `[a-z0-9-]+` by GC|Moved to `[a-z0-9-]+` by Phase 2)[^\n]*\n?", re.MULTILINE)


def stub_line(keeper: str) -> str:
    """The line GC adds to a record it merged away: it marks a merge stub (kept for
    ``gc.replaced_grace_tokens``, then folded and dropped) for every clone and for a reader."""
    return f"Merged into `{keeper}` by GC; kept as a stub until every clone has pulled the merge."


class _BodyFacts(NamedTuple):
    """What GC's rules need of a record's text, taken while reading it (GC keeps no text)."""

    body_chars: int
    refs: str  # the #slugs the body names, one per line (as the cache keeps them: one object)
    paths: str  # the repository paths it names in code spans, one per line
    stub: bool  # replaced, and carries the line a GC merge writes into a stub
    sources: int  # how many sources (last_sources) it lists; -1: none, or not a list


def _lines(joined: str) -> list[str]:
    return joined.split("\n") if joined else []


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause Python's cycle collector while every record is read: the reads allocate millions of
    objects and none of them form cycles, yet each allocation burst set off a full collection that
    walked all of them again (a third of the read at 50,000 records). Restored afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _norm_title(title: str) -> str:
    return " ".join(title.lower().split())


# A record as the passes hold it: the head of every record read (``RecordHead``), or the whole
# record once ``_full`` read it again to be rewritten.
Held = RecordHead | Record


class GcRulesEngine:
    name = "rules"
    facts: dict[str, _BodyFacts]  # by rel, filled by _load
    full: dict[str, Record]  # by rel: the records read again in full (``_full``), the few GC rewrites

    def run(self, ctx: GcContext) -> None:
        self.ctx = ctx
        self.cfg = ctx.ws.config
        self.usage = ctx.usage
        self.w = LintedWriter(ctx)
        records, unparsed = self._load()
        self.records = records
        for record in records:  # the writer's lint index would otherwise re-read each record it asks about
            if self.w.index.has(record.kind, record.slug):
                self.w.index.add(record)
        self.refs = build_references(ctx.sws, records, unparsed, ctx.notes, refs_of=lambda r: _lines(self.facts[r.rel].refs))
        scan_workflows(ctx.ws, self.refs, ctx.notes)
        self.gone: set[str] = set()  # rels deleted by this run
        self.claimed: set[str] = set()  # rels changed by a proposed operation
        self.unused_kept: list[tuple[RecordHead, str, int]] = []
        self.by_key = {(r.kind, r.slug): r for r in records}
        self.folds: list[tuple[RecordHead, RecordHead]] = []
        self.stubbed: set[str] = set()  # rels this run turned into merge stubs (not reported again)
        # Shared through git: a clone that has not pulled a merge may still edit the record it merged
        # away, and git cannot merge an edit into a deleted file (a modify/delete conflict for a
        # person). No clone can know that every other one has pulled, so merge stubs are not dropped
        # there: what a late edit adds is merged into the stub by the driver and folded (docs/team.md).
        from ..store.git_driver import find_git_dir

        self.shared = find_git_dir(str(ctx.ws.root)) is not None
        if self.usage.problems:
            ctx.note(f"usage: {len(self.usage.problems)} malformed usage line(s) skipped (see `yoi usage`)")
        self._drops()
        self._folds()
        self._merges()
        self._trims()
        self._reports()
        self._summary_note()
        self.meta_cache.save()
        # Everything per record goes now, before the change set is built and printed (the engine
        # object lives on until the run returns; its results are in ctx and ``claimed``).
        self.records, self.by_key, self.facts, self.full, self.unused_kept, self.folds = [], {}, {}, {}, [], []
        del self.refs, self.w, self.meta_cache

    # ------------------------------------------------------------------ helpers

    def _load(self) -> tuple[list[RecordHead], list[tuple[RecordKind, str]]]:
        sws = self.ctx.sws
        records: list[RecordHead] = []
        unparsed: list[tuple[RecordKind, str]] = []
        # Parsed frontmatter by its text's hash, kept in the real workspace's .yoi/state/cache/:
        # building the YAML values was ~45 % of a dry run at 10,000 records.
        cache = self.meta_cache = MetaCache.load(self.ctx.ws)
        self.facts, self.full = {}, {}
        paths = list(iter_record_path_strings(sws))
        with _no_cyclic_gc():
            for read, (used, new) in self._read_in_parallel(paths) or [(self._read(paths), ({}, False))]:
                cache.adopt(used, new)
                for path, record, facts in read:
                    if record is None:
                        self._unparsed(facts, path, unparsed)
                        continue
                    records.append(record)
                    self.facts[record.rel] = facts
        return records, unparsed

    def _read_in_parallel(self, paths: list[str]) -> list[Any] | None:
        """``_read``'s answers for ``paths`` in chunks, each with what the worker that read it used
        of the frontmatter cache, from forked workers on the idle cores (``core.fork_pool``); None:
        read them here (few records, one idle core, or a worker failed)."""
        workers = available_workers(MAX_WORKERS) if len(paths) >= PARALLEL_MIN else 1
        if workers < 2:
            return None
        return run_forked([(self._read_share, (chunk,)) for chunk in shrinking_chunks(paths, workers, MIN_CHUNK)], workers)

    def _read_share(self, paths: list[str]) -> tuple[list[tuple[str, RecordHead | None, Any]], tuple[dict[str, Any], bool]]:
        """A worker's chunk (in a forked child): ``_read``'s answers, and the frontmatter-cache
        entries used or added meanwhile (which the parent adopts, so the saved cache is the one a
        serial read would save)."""
        read = self._read(paths)
        return read, self.meta_cache.take_used()

    def _read(self, paths: list[str]) -> list[tuple[str, RecordHead | None, Any]]:
        """``(path, head, its _BodyFacts)`` for each path, or ``(path, None, why)`` for a file that
        does not parse. The record itself is not kept: its head, without the sources, and the facts
        its body gives are."""
        sws, cache = self.ctx.sws, self.meta_cache
        read: list[tuple[str, RecordHead | None, Any]] = []
        for path in paths:
            result, size, digest = read_record_digest(sws, path, meta_cache=cache)
            record = result.record
            if record is None or digest is None:
                read.append((path, None, next((d.message for d in result.diagnostics if d.is_error), "unreadable")))
                continue
            # What the rules read in a body, taken now; the text is not kept (at 50,000 records it
            # was most of GC's memory) and is read again for the few records rewritten (``_full``).
            body = record.body
            key = _sources_key(record.kind)
            sources = record.meta.get(key)
            # The sources go with the text (the largest part of the frontmatter); ``_full`` brings
            # both back for a record about to be rewritten.
            meta = ({k: v for k, v in record.meta.items() if k != key}
                    if key in record.meta and record.kind is not RecordKind.SUMMARY else record.meta)
            read.append((path, RecordHead.of(record, size, digest, meta=meta), _BodyFacts(
                len(body), cache.memo_joined("refs", body, referenced_slugs),
                cache.memo_joined("paths", body, named_paths),
                bool(record.replaced_by) and _STUB_RE.search(body) is not None,
                len(sources) if isinstance(sources, list) else -1)))
        return read

    def _full(self, record: Held) -> Record:
        """The whole record of ``record``'s head (read again from the scratch copy, which GC has not
        written yet for it, once per run); a file changed on disk since it was read (its bytes'
        digest differs) stops the run rather than be rewritten from a stale reading."""
        if isinstance(record, Record):
            return record
        full = self.full.get(record.rel)
        if full is None:
            result, size, digest = read_record_digest(self.ctx.sws, record.path)
            if result.record is None or not record.describes(size, digest):
                raise YoiError(f"{record.rel}: changed on disk while GC was running; nothing was written, "
                               "run GC again", path=record.rel)
            full = self.full[record.rel] = result.record
        return full

    def _unparsed(self, why: str, path: str, unparsed: list[tuple[RecordKind, str]]) -> None:
        sws = self.ctx.sws
        kind = kind_for_path(sws, Path(path))
        rel = sws.rel(Path(path))
        if kind is not None:
            unparsed.append((kind, rel))
        self.ctx.note(f"{rel}: not evaluated ({why}); run `yoi lint`")

    def _add(self, record: Held, op: Operation, state: State, categories: list[str], reason: str, *,
             paths: list[str] | None = None, details: dict[str, Any] | None = None) -> None:
        self.ctx.operations.add(op, state, categories, reason, kind=record.kind.value, slug=record.slug,
                                path=record.rel, paths=paths, details=details)

    def _protected(self, record: Held) -> bool:
        return self.usage.protected(record.kind, record.slug)

    def _protected_reason(self, record: Held) -> str:
        return (f"protected: used {self.usage.frequency(record.kind, record.slug):.2f} times per million tokens "
                f"(threshold {self.cfg.usage.protect_threshold:g})")

    def _unused_age(self, record: Held) -> int | None:
        """Tokens since creation when the record was never invoked and is old enough (else None)."""
        if self.usage.invokes(record.kind, record.slug):
            return None
        age = self.usage.age_tokens(record.meta.get("created_at"))
        if age is None or age < self.cfg.gc.unused_min_age_tokens:
            return None
        return age

    # ------------------------------------------------------------------ 1. drop

    def _drops(self) -> None:
        candidates: dict[str, tuple[RecordHead, list[str], list[str]]] = {}
        for record in self.records:
            if record.kind is RecordKind.SUMMARY:
                continue
            categories: list[str] = []
            parts: list[str] = []
            if record.is_replaced and (self._stub_kept(record) or self._revive_orphan(record)):
                continue
            if record.is_replaced:
                categories.append("superseded")
                parts.append(f"replaced by `{record.replaced_by}`" if record.replaced_by else "status is replaced")
            age = self._unused_age(record)
            if age is not None:
                never = f"never invoked in {format_tokens(age)} tokens since it was written"
                done = self._request_done(record)
                if record.is_replaced or done:
                    categories.append("unused")
                    parts.append(never + (f"; {done}" if done else ""))
                else:
                    # Reported after the merges (a record merged away is not "kept").
                    self.unused_kept.append((record, f"{never}; kept (the rules engine drops only unused records "
                                                     "that are replaced, or requests that are resolved or old)", age))
            if not categories:
                continue
            broken = self._replacement_problem(record) if record.is_replaced else None
            if self.w.locked_record(record):
                self._add(record, "drop", "locked", categories, "; ".join([*parts, "read-only: not touched"]))
            elif broken is not None:
                # Its content may live nowhere else: keep it until the replacement is sorted out.
                self._add(record, "drop", "reported", categories, "; ".join([*parts, f"kept: {broken}"]))
            elif self._protected(record):
                self._add(record, "drop", "protected", categories, "; ".join([*parts, self._protected_reason(record)]))
            elif (rejection := self.ctx.held_back(f"drop:{record.rel}")) is not None:
                # Decided here, not after the run: what it points at must stay too (not dangle).
                self._add(record, "drop", "held", categories, "; ".join([*parts, held_reason(rejection, "gc")]),
                          details={"rejection": rejection.id})
            else:
                candidates[record.rel] = (record, categories, parts)
        # Keep what is still pointed at by a file that stays; repeat, since keeping one record keeps
        # alive what it points at.
        dropping = set(candidates)
        blocked: dict[str, list[str]] = {}
        changed = True
        while changed:
            changed = False
            for rel in sorted(dropping):
                live = self.refs.live(rel, gone=dropping)
                if live:
                    dropping.discard(rel)
                    blocked[rel] = live
                    changed = True
        for rel in sorted(candidates):
            record, categories, parts = candidates[rel]
            if rel in blocked:
                final = self.w.index.final_replacement(record.kind, record.slug) if record.is_replaced else None
                hint = f"; point them at `{final}` and GC can drop it" if final and final != record.slug else ""
                self._add(record, "drop", "reported", categories,
                          "; ".join([*parts, f"kept: still referred to from {_listing(blocked[rel])}{hint}"]),
                          details={"referred_from": blocked[rel]})
                continue
            reason = "; ".join([*parts, "nothing refers to it"])
            self.w.delete(record, category=categories, reason=reason)
            self.gone.add(rel)
            self.claimed.add(rel)
            self._add(record, "drop", "proposed", categories, reason, paths=[rel])

    def _absorbed_into(self, record: RecordHead) -> RecordHead | None:
        """The live record a GC merge absorbed ``record`` into (None: not a merge stub).

        Content decides, so every clone agrees: a merge stub carries the ``stub_line`` GC wrote.
        """
        if not record.replaced_by:
            return None
        final = self.w.index.final_replacement(record.kind, record.slug)
        target = self.by_key.get((record.kind, final)) if final else None
        if target is None or target is record or target.is_replaced or target.rel in self.gone:
            return None
        return target if self.facts[record.rel].stub else None

    def _revive_orphan(self, record: RecordHead) -> bool:
        """A merge (or move) stub whose keeper no longer exists — a person deleted the record another
        clone's GC merged into, or deleted it before pulling the merge — becomes a live record again:
        its sources and text live nowhere else. True when it is dealt with here."""
        if not record.replaced_by or not self.facts[record.rel].stub:
            return False
        loop = self._loop_of(record)
        if loop:
            # Two clones' GCs each kept the record the other merged away (they saw different sources
            # and chose different keepers): git merged each file into a stub of the other, a loop.
            # The one of the loop preferred by name is live again — a rule of names, so every clone
            # breaks the loop at the same record.
            if min(loop, key=slug_preference) != record.slug:
                return False
        elif self.w.index.get(record.kind, record.replaced_by) is not None:
            return False
        if self.w.locked_record(record):
            return False
        full = self._full(record)
        if _STUB_RE.search(full.body) is None:
            return False
        updates: dict[str, Any] = {"replaced_by": DELETE, "updated_at": self.ctx.now}
        if record.kind is RecordKind.DECISION:
            updates["status"] = "open"
        body = _STUB_RE.sub("", full.body).rstrip("\n") + "\n"
        text = render_record(full, updates, body=body)
        if self.w.record_errors(full, text):
            return False
        reason = (f"a merge stub of `{record.replaced_by}`, which no longer exists (deleted after the merge): "
                  "live again, so its sources and text are not lost; delete it too if the topic is gone") \
            if not loop else (f"replaced_by runs in a loop ({' -> '.join(loop)}; two clones' GCs kept different "
                              "records of one group): live again as the one of them preferred by name")
        self.w.rewrite(full, text, category=["superseded"], reason=reason)
        self.claimed.add(record.rel)
        self._add(record, "rewrite", "proposed", ["superseded"], reason, paths=[record.rel],
                  details={"revived": True, "was_replaced_by": record.replaced_by, "loop": loop})
        return True

    def _loop_of(self, record: RecordHead) -> list[str]:
        """The slugs of the ``replaced_by`` loop ``record`` is on (empty: it is on none)."""
        chain = [record.slug]
        current: Any = record  # a head, then index entries
        while current is not None and current.replaced_by:
            if current.replaced_by == record.slug:
                return chain
            if current.replaced_by in chain:
                return []  # a loop further on, which its own members break
            chain.append(current.replaced_by)
            current = self.w.index.get(record.kind, current.replaced_by)
        return []

    def _stub_kept(self, record: RecordHead) -> bool:
        """A merge stub within its grace period is kept; one that gained content after the merge (an
        update from a clone that had not pulled it, merged by git) is folded into its keeper first.
        True when ``record`` is dealt with here (not a drop candidate this run)."""
        target = self._absorbed_into(record)
        if target is None:
            return False
        grace = self.cfg.gc.replaced_grace_tokens
        stamp = as_timestamp(record.meta.get("updated_at"))
        # Stamps are whole seconds: events within the stamp's second may precede the write.
        age = self.usage.age_tokens(stamp + timedelta(seconds=1)) if stamp is not None else None
        if age is None or age < grace:
            self._add(record, "drop", "reported", ["superseded"],
                      f"merged into `{target.slug}`; kept as a replaced stub until {format_tokens(grace)} tokens "
                      "have passed since (a clone that has not pulled the merge may still update it)",
                      details={"into": target.slug, "age_tokens": age})
            return True
        if self._fold_text(record, target) is not None:
            self.folds.append((record, target))
            return True
        if self.shared:
            self._add(record, "drop", "reported", ["superseded"],
                      f"merged into `{target.slug}`, which holds all of it; kept as a replaced stub: the workspace "
                      "is shared through git, where a clone that has not pulled the merge may still update it "
                      "(a deleted stub would leave that update in a modify/delete conflict); delete it by hand "
                      "once every clone has pulled",
                      details={"into": target.slug, "age_tokens": age, "shared": True})
            return True
        return False

    def _fold_text(self, head: RecordHead, target_head: RecordHead) -> str | None:
        """``target``'s text with what ``record`` holds beyond it (body lines, sources); None: nothing."""
        from ..runs.body_merge import merge_body

        record, target = self._full(head), self._full(target_head)
        key = _sources_key(record.kind)
        theirs, mine = record.meta.get(key), target.meta.get(key)
        if not isinstance(theirs, list) or not isinstance(mine, list):
            return None
        have = source_keys(mine)
        extra = [s for s in theirs if not (source_keys([s]) <= have)]
        body = merge_body(target.body, _STUB_RE.sub("", self._body_to_merge(target, record)))
        if body != target.body:
            body = canonical_body(body)  # store.canonical: the same bytes whichever clone folds
        if not extra and body == target.body:
            return None
        updates: dict[str, Any] = {}
        if extra:
            # The union in canonical order, capped like a trim: sources the merge itself trimmed
            # had sources_max greater ones beside them, so they never come back round (folding converges).
            merged = capped_sources([*extra, *mine], self.cfg.records.sources_max)
            if merged != mine:
                updates[key] = merged
        if not updates and body == target.body:
            return None
        updates["updated_at"] = self.ctx.now
        return render_record(target, updates, body=body)

    def _folds(self) -> None:
        for record, target_head in self.folds:
            if target_head.rel in self.claimed or target_head.rel in self.gone:
                continue
            target = self._full(target_head)  # read when the fold was found
            reason = (f"`{record.slug}` was merged into `{target.slug}` and then gained content (an update from "
                      "a clone that had not pulled the merge): folded into the keeper; the stub is dropped by a "
                      "later run")
            if self.w.locked_record(target):
                self._add(target, "merge", "locked", ["superseded"], f"{reason}; read-only: not touched")
                continue
            text = self._fold_text(record, target_head)
            if text is None:
                continue
            key = _sources_key(record.kind)
            errors = self.w.record_errors(target, text, allowed_sources=source_keys(self._full(record).meta.get(key) or []))
            if errors:
                self._add(target, "merge", "refused", ["superseded"],
                          f"{reason}; the linter refused the folded text: {format_errors(errors, columns=False)}")
                continue
            self.w.rewrite(target, text, category=["superseded"], reason=reason)
            self.claimed.add(target.rel)
            self._add(target, "merge", "proposed", ["superseded"], reason, paths=[target.rel],
                      details={"into": target.slug, "merged": [record.slug], "deleted": [], "replaced": [],
                               "folded": True})

    def _replacement_problem(self, record: RecordHead) -> str | None:
        """Why a replaced record's replacement cannot be relied on (None: its chain ends at a live record)."""
        if not record.replaced_by:
            return "status is replaced but no replaced_by names the replacement"
        final = self.w.index.final_replacement(record.kind, record.slug)
        entry = self.w.index.get(record.kind, final) if final is not None else None
        if final is None or final == record.slug or entry is None or entry.is_replaced:
            return f"the replacement chain from `{record.replaced_by}` is broken (a missing record or a loop; see `yoi lint`)"
        return None

    def _request_done(self, record: Held) -> str | None:
        """Why an unused request may go: resolved, or not updated for ``gc.request_stale_tokens``."""
        if record.kind is not RecordKind.REQUEST:
            return None
        if record.meta.get("status") == "resolved":
            return "the request is resolved"
        age = self.usage.age_tokens(record.meta.get("updated_at"))
        if age is not None and age >= self.cfg.gc.request_stale_tokens:
            return f"last updated {format_tokens(age)} tokens ago"
        return None

    # ------------------------------------------------------------------ 2. merge

    def _merges(self) -> None:
        ratio = self.cfg.records.similar_slug_ratio
        known = SimilarPairs(self.ctx.ws)  # the pairs of the last run, updated for the slugs that changed
        for kind in _MERGEABLE:
            live = {r.slug: r for r in self.records
                    if r.kind is kind and not r.is_replaced and r.rel not in self.gone}
            scores: dict[tuple[str, str], float] = {}
            parent: dict[str, str] = {}
            for first, second, score in known.pairs(kind.value, live, ratio):
                # Spelled alike is not the same thing: numbers (issue 12 vs 13, v2 vs v3), names of
                # files or identifiers (hoge.py vs piyo.py) are never merged across.
                if naming_difference(first, second) is not None:
                    continue
                scores[(first, second)] = scores[(second, first)] = score
                parent[_root(parent, second)] = _root(parent, first)
            groups: dict[str, list[str]] = {}
            for slug in sorted({s for pair in scores for s in pair}):
                groups.setdefault(_root(parent, slug), []).append(slug)
            for members in sorted(groups.values()):
                self._merge_group(kind, [live[s] for s in members], scores)
        known.save()

    def _holding(self, record: Held) -> Holding:
        """What ``record`` holds, as the keeper rule weighs it (``merge_content``): from the facts
        taken while reading, so a released text need not be read again."""
        facts = self.facts[record.rel]
        created = as_timestamp(record.meta.get("created_at"))
        return Holding(record.slug, max(facts.sources, 0), facts.body_chars, created.timestamp() if created else 0.0)

    def _keeper_key(self, record: RecordHead) -> tuple[Any, ...]:
        """The keeper first: the preferred slug (``merge_content``), a rule of names alone, so every
        clone picks the same keeper whatever sources, text or usage it had seen (issue 30)."""
        return self._holding(record).key()

    def _merge_group(self, kind: RecordKind, group: list[RecordHead], scores: dict[tuple[str, str], float]) -> None:
        ordered = sorted(group, key=self._keeper_key)
        unlocked = [r for r in ordered if not self.w.locked_record(r)]
        for record in ordered:
            if record not in unlocked:
                others = ", ".join(f"`{r.slug}`" for r in ordered if r is not record)
                self._add(record, "merge", "locked", ["noisy"],
                          f"near-duplicate slug of {others}; read-only: not merged")
        if len(unlocked) < 2:
            return
        keeper = unlocked[0]
        absorbed: list[tuple[RecordHead, float]] = []
        for record in unlocked[1:]:
            score = scores.get((keeper.slug, record.slug))
            if score is None:
                continue  # similar to another member only; a later run compares it again
            if self._protected(record):
                self._add(record, "merge", "protected", ["noisy"],
                          f"near-duplicate slug of `{keeper.slug}` (ratio {score:.0f}); not merged away: "
                          + self._protected_reason(record))
                continue
            absorbed.append((record, score))
        if absorbed:
            self._merge(kind, keeper, absorbed)

    @staticmethod
    def _body_to_merge(keeper: Record, record: Record) -> str:
        """``record``'s body plus what would otherwise be lost with it: a title that differs from the
        keeper's (``merge_body`` keeps one title) as an "Also titled:" line, and a knowledge
        description that differs as an "Also described as:" line — next to its title."""
        from ..runs.body_merge import join_blocks, split_blocks, title_of_body

        extra: list[str] = []
        keeper_title, title = title_of_body(keeper.body), title_of_body(record.body)
        if keeper_title and title and _norm_title(keeper_title) != _norm_title(title):
            extra.append(f"Also titled: {title}")
        description = " ".join(record.description.split())
        if description and _norm_title(description) != _norm_title(keeper.description):
            extra.append(f"Also described as: {description}")
        if not extra:
            return record.body
        blocks = split_blocks(record.body)
        block = next((b for b in blocks if b.level == 1), blocks[0])
        block.lines[0:0] = [line for item in extra for line in ("", item)]
        return join_blocks(blocks)

    def _merge(self, kind: RecordKind, keeper_head: RecordHead, heads: list[tuple[RecordHead, float]]) -> None:
        key = _sources_key(kind)
        keeper = self._full(keeper_head)
        absorbed = [(self._full(r), score) for r, score in heads]
        group = [keeper, *(r for r, _ in absorbed)]
        malformed = [r.rel for r in group if not isinstance(r.meta.get(key, []), list)]
        names = ", ".join(f"`{r.slug}`" for r, _ in absorbed)
        paths = [r.rel for r in group]
        if malformed:
            self._add(keeper, "merge", "refused", ["noisy"],
                      f"near-duplicate slugs {names}; not merged: malformed {key} in {', '.join(malformed)}")
            return
        # Sources: unioned in canonical order (store.canonical), capped to the last sources_max of it,
        # as a trim cuts: every clone merging the same records writes the same list.
        every = [item for record in group for item in (record.meta.get(key) or [])]
        limit = self.cfg.records.sources_max
        merged_sources = capped_sources(every, limit)
        trimmed = len(capped_sources(every, 0)) > limit
        body = keeper.body
        for record, _score in sorted(absorbed, key=lambda item: item[0].slug):
            body = merge_blocks(body, self._body_to_merge(keeper, record))
        body = canonical_body(body)
        updates: dict[str, Any] = {"updated_at": self.ctx.now}
        if merged_sources != keeper.meta.get(key):
            updates[key] = merged_sources
        changes_said: list[str] = []  # what the merge changes beyond text and sources: said in the reason
        resolved = [r.slug for r, _ in absorbed if r.status == "resolved"]
        if kind is RecordKind.DECISION and keeper.status == "open" and resolved:
            updates["status"] = "resolved"
            changes_said.append(f"status open → resolved (`{resolved[0]}` records the choice as made)")
        if kind is RecordKind.KNOWLEDGE:
            # What agents could reach before stays reachable: resident or /slug if any of them was.
            for flag in ("model_invokation", "user_invocable"):
                if keeper.meta.get(flag) is False and any(r.meta.get(flag) is True for r, _ in absorbed):
                    updates[flag] = True
                    changes_said.append(f"{flag} false → true (true on a merged record)")
        keeper_text = render_record(keeper, updates, body=body)
        allowed = source_keys(item for r, _ in absorbed for item in (r.meta.get(key) or []))
        errors = self.w.record_errors(keeper, keeper_text, allowed_sources=allowed)
        # A merged record is never deleted by the merge: it stays as a replaced stub (body unchanged)
        # for ``gc.replaced_grace_tokens``, so a clone that updates it before pulling the merge is
        # merged by git, not lost in a modify/delete conflict; a later run folds what such an update
        # added into the keeper and drops the stub (``_drops``).
        deleting: set[str] = set()
        marks: dict[str, str] = {}
        for record, _score in absorbed:
            if record.rel in deleting:
                continue
            mark: dict[str, Any] = {"replaced_by": keeper.slug, "updated_at": self.ctx.now}
            if kind is RecordKind.DECISION:
                mark["status"] = "replaced"
            marks[record.rel] = render_record(record, mark, body=canonical_body(
                record.body.rstrip("\n") + "\n\n" + stub_line(keeper.slug) + "\n"))
            errors.extend(self.w.record_errors(record, marks[record.rel]))
        if errors:
            self._add(keeper, "merge", "refused", ["noisy"],
                      f"near-duplicate slugs {names}; the linter refused the merged text: {format_errors(errors, columns=False)}",
                      details={"merged": [r.slug for r, _ in absorbed]})
            return
        ratios = {r.slug: round(score, 1) for r, score in absorbed}
        chosen = choose_reason(self._holding(keeper), [self._holding(r) for r, _ in absorbed])
        keeper_reason = (f"merged {names} into it (near-duplicate slugs, ratio ≥ "
                         f"{min(ratios.values()):.0f}); {chosen}; Markdown blocks merged whole, no line lost, "
                         "sources unioned"
                         + (f", trimmed to the latest {limit}" if trimmed else "")
                         + "".join(f"; {said}" for said in changes_said))
        self.w.rewrite(keeper, keeper_text, category=["noisy"], reason=keeper_reason)
        deleted: list[str] = []
        replaced: list[str] = []
        for record, score in absorbed:
            if record.rel in deleting:
                self.w.delete(record, category=["noisy"],
                              reason=f"merged into `{keeper.slug}` (near-duplicate slug, ratio {score:.0f}); "
                                     "nothing refers to it")
                self.gone.add(record.rel)
                deleted.append(record.slug)
            else:
                live = self.refs.live(record.rel, gone=self.gone | deleting | {keeper.rel})
                why = (f"still referred to from {_listing(live)}" if live
                       else "dropped by a later run once every clone has pulled this merge")
                self.w.rewrite(record, marks[record.rel], category=["noisy"],
                             reason=f"merged into `{keeper.slug}` (near-duplicate slug, ratio {score:.0f}); "
                                    f"kept as a replaced stub: {why}")
                replaced.append(record.slug)
                self.stubbed.add(record.rel)
        self.claimed.update(paths)
        self._add(keeper, "merge", "proposed", ["noisy"], keeper_reason, paths=paths,
                  details={"into": keeper.slug, "merged": [r.slug for r, _ in absorbed], "deleted": deleted,
                           "replaced": replaced, "ratios": ratios, "sources_trimmed": trimmed})

    # ------------------------------------------------------------------ 3. trim

    def _trims(self) -> None:
        limit = self.cfg.records.sources_max
        for head in self.records:
            if head.kind is RecordKind.SUMMARY or head.rel in self.gone or head.rel in self.claimed:
                continue
            if self.facts[head.rel].sources <= limit:
                continue  # the count taken while reading: most records are not read again
            key = _sources_key(head.kind)
            record = self._full(head)
            sources = record.meta.get(key)
            if not isinstance(sources, list) or len(sources) <= limit:
                continue
            reason = f"{len(sources)} {key}; keep the last {limit} by session and range (git has the rest)"
            details = {"sources": len(sources), "kept": limit}
            if self.w.locked_record(record):
                self._add(record, "trim", "locked", ["noisy"], f"{reason}; read-only: not touched", details=details)
                continue
            # The last of the canonical order (store.canonical), so every clone trims the same ones.
            text = render_record(record, {key: capped_sources(sources, limit)})
            errors = self.w.record_errors(record, text)
            if errors:
                self._add(record, "trim", "refused", ["noisy"],
                          f"{reason}; the linter refused the trimmed text: {format_errors(errors, columns=False)}", details=details)
                continue
            self.w.rewrite(record, text, category=["noisy"], reason=reason)
            self.claimed.add(record.rel)
            self._add(record, "trim", "proposed", ["noisy"], reason, paths=[record.rel], details=details)

    # ------------------------------------------------------------------ 4. reports

    def _reports(self) -> None:
        for kept, reason, age in self.unused_kept:
            if kept.rel not in self.gone and kept.rel not in self.stubbed:
                self._add(kept, "drop", "locked" if self.w.locked_record(kept) else "reported", ["unused"], reason,
                          details={"age_tokens": age})
        checker = PathChecker(self.ctx.ws.root)
        for original in self.records:
            if original.rel in self.gone or original.rel in self.stubbed:
                continue
            # A record this run changed (a merge keeper) is judged by its new text.
            changed = read_record(self.ctx.sws, original.path).record if original.rel in self.claimed else None
            record: Held = changed or original
            state: State = "locked" if self.w.locked_record(record) else "reported"
            locked_note = "; read-only" if state == "locked" else ""
            cap = self.cfg.cap_for(record.kind.value)
            if changed is None:  # the facts its text gave when it was read
                facts = self.facts[record.rel]
                chars, paths = facts.body_chars, _lines(facts.paths)
            else:
                chars, paths = len(changed.body), self.meta_cache.memo("paths", changed.body, named_paths)
            if chars > cap:
                self._add(record, "rewrite", state, ["noisy"],
                          f"body is {chars:,} characters, over the {record.kind.value} cap of {cap:,}; "
                          f"the rules engine does not rewrite prose: densify or split it by hand (or with --engine llm)"
                          f"{locked_note}",
                          details={"chars": chars, "cap": cap})
            missing = checker.missing(paths)
            if missing:
                named = ", ".join(f"`{p}`" for p in missing[:5]) + (f" and {len(missing) - 5} more"
                                                                    if len(missing) > 5 else "")
                self._add(record, "rewrite", state, ["outdated"],
                          f"names {'a path' if len(missing) == 1 else f'{len(missing)} paths'} that no longer "
                          f"exist{'s' if len(missing) == 1 else ''}: {named}; rewriting is left to a person (or --engine llm)"
                          f"{locked_note}", details={"missing_paths": missing})

    def _summary_note(self) -> None:
        head = next((r for r in self.records if r.kind is RecordKind.SUMMARY), None)
        gone = [r for r in self.records if r.rel in self.gone]
        if head is None or not gone:
            return
        summary = self.full.get(head.rel) or read_record(self.ctx.sws, head.path).record  # GC never writes it
        if summary is None:
            return
        for record in gone:
            if f"`{record.slug}`" in summary.body:
                self.ctx.note(f"memory/summary.md still lists `{record.slug}`, which this run removes; "
                              "edit that line (the summary's generated listings are computed, never stored)")


__all__ = ["GcRulesEngine"]
