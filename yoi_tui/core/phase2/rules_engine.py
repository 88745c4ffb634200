"""The ``rules`` Phase 2 engine: deterministic, offline consolidation of staging into records.

For each consumed staging file, in id (time) order:

* each **decision** becomes a decision record, slug from its title (kebab-case, ≤ 64 characters);
  with a chosen option it is ``resolved``, without one ``open``;
* each **request** becomes a request record, slug from its intent (and target);
* an existing record with the same or a near-identical slug (rapidfuzz ratio ≥
  ``records.similar_slug_ratio``; a replaced record is followed to its replacement) is **updated**
  instead: the staging source is appended to ``sources`` (no duplicates), the new text is merged
  into the body without losing a line of the old one (``merge.merge_body``), ``updated_at`` is
  bumped — only when something actually changed, so consuming the same staging twice changes nothing;
* **attempts** that failed and then succeeded become lines of a "Failure and fix" section of the
  related decision or request: one made from the same staging file (best title match), else the
  record whose sources lie nearest in the same session; failures without a later success are kept
  too ("not fixed yet");
* **discussions** join a "Discussion" section of the related record of the same staging file; a
  question the user asked joins the nearest record of its session; with none, a discussion becomes
  an ``open`` decision (the plan keeps undecided discussions as open decisions).

Then a knowledge record is created for each decision/request on the knowledge candidate report
that has none yet (and refreshed when its origin changed in this run). The summary's listings (open
decisions, recent requests; an older version's knowledge index) are not stored: they are computed when the resident
context is built; a summary that still holds them from an older run has just those sections
removed (other summary sections are a person's and are kept).

Every text passes the write-time linter before it enters the scratch copy. A write the linter
refuses is reported and its staging files are *held* (not deleted); a locked (read-only) record
is never modified and is reported. Staging text never creates a ``#slug`` reference by accident: a
``#word`` naming no knowledge record is put in a code span.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from ..lint.write_check import source_keys
from ..retrieval.summary_lists import raw_frontmatter
from ..runs.body_merge import merge_body, retitle, same_title, title_of_body, with_also_titled
from ..runs.linted_writer import LintedWriter, format_errors
from ..store.canonical import accumulated_sources, canonical_body, capped_sources
from ..store.kinds import RecordKind, folder_for, path_for, slug_preference, slugify
from ..store.models import Source
from ..store.reader import is_record_text, read_frontmatter_bytes
from ..store.records import Record
from ..store.slug_names import naming_difference
from ..store.staging import Attempt, Decision, Discussion, Request, StagingFile
from ..store.titles import clean_title, decision_title, trim_cut
from ..store.writer import new_record_text, render_record
from .attempt_text import bypassed_by, truthful_result
from .decision_text import (
    chosen_text,
    config_title,
    gerund_statement,
    is_change_summary,
    is_document_heading,
    is_working_step,
    option_text,
    rationale_text,
    settled,
    split_reason,
    topic_title,
    with_object,
    without_emphasis,
)
from .record_fields import defang, one_line, summary_line
from .request_text import (
    REFINED,
    answers_the_ask,
    asked_text,
    done_text,
    is_resume_of,
    is_same_again,
    is_sent_again,
    names_a_target,
    request_title,
    resolve_pronoun,
    whole_phrase,
)
from .request_text import slug_text as request_slug_text
from .run_context import Phase2Context

_NO_CHOICE = {"", "none", "n/a", "na", "tbd", "undecided", "open", "pending", "unknown", "-"}
_DIGITS_RE = re.compile(r"\d+")
RELATE_RATIO = 60  # rapidfuzz token_set_ratio above which an attempt/discussion "names" a record
_CUT_AT_WORDS = 8  # words a decision title has when Phase 1 may have cut it at its word limit
KNOWLEDGE_KIND_FOR = {"decision": "policy", "request": "rule"}
LESSONS_SLUG = "lessons-from-agent-sessions"


def move_line(slug: str) -> str:
    """The line Phase 2 adds to a record it moved to a preferred slug (GC knows it as a stub)."""
    return f"Moved to `{slug}` by Phase 2 (the preferred slug of a near-identical title); kept as a stub until " \
           "every clone has pulled the move."


def _has_choice(chosen: str) -> bool:
    return one_line(chosen).lower().strip(" .") not in _NO_CHOICE


@dataclass
class Target:
    """A record one staging file created or updated (for relating attempts and discussions)."""

    kind: RecordKind
    slug: str
    title: str
    locked: bool = False
    start: int | None = None  # the first entry of the item that made it (to relate later work in time)


class RulesEngine:
    name = "rules"

    def run(self, ctx: Phase2Context) -> None:
        self.ctx = ctx
        self.w = LintedWriter(ctx, remember_texts=True)
        self.now: datetime = ctx.now
        self.run_sources: dict[tuple[RecordKind, str], list[dict[str, Any]]] = {}
        self.run_staging: dict[tuple[RecordKind, str], set[str]] = {}
        self.changed: set[tuple[RecordKind, str]] = set()
        self._raw_cache: dict[RecordKind, dict[str, bytes]] = {}
        self._raw_paths: dict[RecordKind, dict[str, Path]] = {}
        for staging in ctx.staging:
            self._consume(staging)
        self._knowledge_from_candidates()
        self._summary()

    # ------------------------------------------------------------------ helpers

    def _note(self, message: str) -> None:
        if message not in self.ctx.notes:
            self.ctx.notes.append(message)

    def _defang(self, text: str) -> str:
        """Put ``#word`` that names no knowledge record into a code span (not a reference)."""
        return defang(text, lambda slug: self.w.index.has(RecordKind.KNOWLEDGE, slug))

    def _line(self, text: str) -> str:
        return self._defang(one_line(text))

    def _resolve(self, kind: RecordKind, base: str) -> str | None:
        """The existing slug to update for ``base``: exact, else near-identical; replaced → replacement."""
        slugs = self.w.index.slugs(kind)
        found: str | None = base if base in slugs else None
        if found is None and slugs:
            # Numbers in a slug name things (issue 12 vs 13, v2 vs v3): near-identical only when
            # they agree.
            digits = _DIGITS_RE.findall(base)
            same_numbers = [s for s in slugs if _DIGITS_RE.findall(s) == digits]
            # ... and not a record about another file or name (``store.slug_names``): the best
            # match that names the same thing.
            matches = process.extract(base, same_numbers, scorer=fuzz.ratio, limit=8,
                                      score_cutoff=self.ctx.ws.config.records.similar_slug_ratio)
            found = next((m[0] for m in matches if naming_difference(base, m[0]) is None), None)
        if found is None:
            return None
        entry = self.w.index.get(kind, found)
        if entry is not None and entry.is_replaced:
            final = self.w.index.final_replacement(kind, found)
            if final is not None and final != found:
                return final
        return found

    def _unique_slug(self, kind: RecordKind, base: str) -> str:
        slug, n = base, 2
        while self.w.index.has(kind, slug) or path_for(self.ctx.sws, kind, slug).exists():
            suffix = f"-{n}"
            slug = base[: 64 - len(suffix)].rstrip("-") + suffix
            n += 1
        return slug

    def _merge_sources(self, existing: Any, new: Iterable[Source]) -> tuple[list[Any], bool]:
        items = list(existing) if isinstance(existing, list) else []
        keys = set()
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("range"), list) and len(item["range"]) == 2:
                keys.add((item.get("session_id"), item["range"][0], item["range"][1]))
        changed = False
        for source in new:
            if source.key() not in keys:
                items.append(source.as_yaml())
                keys.add(source.key())
                changed = True
        # In canonical order and capped (store.canonical), so every push order writes the same list;
        # a list nothing was added to stays as a person left it.
        if not changed:
            return items, False
        return accumulated_sources(items, [], self.ctx.ws.config.records.sources_max), True

    # ------------------------------------------------------------------ upsert

    def _upsert(self, staging: StagingFile, kind: RecordKind, title: str, body: str, *,
                resolved: bool | None = None, slug_text: str | None = None,
                source: Source | None = None) -> Target | None:
        """Create or update the record for ``title``; returns the record touched (None: not written)."""
        base = slugify(slug_text or title)
        slug = self._resolve(kind, base)
        source = source or staging.source
        if slug is None:
            return self._create(staging, kind, self._unique_slug(kind, base), title, body, resolved=resolved,
                                source=source)
        if self._moves_to(kind, slug, base):
            return self._move(staging, kind, slug, base, title, body, resolved=resolved, source=source)
        return self._update(staging, kind, slug, body, resolved=resolved, source=source, title=title)

    def _moves_to(self, kind: RecordKind, slug: str, base: str) -> bool:
        """Whether the record at ``slug``, matched near-identically by a title whose own slug is
        ``base``, moves to ``base``: when ``base`` is the preferred name (``slug_preference``, the
        rule GC's merges keep), and nothing is at ``base`` yet. So a topic ends under the same
        slug whichever wording reached this clone first (the push order decides that in a team)."""
        if slug == base or slug_preference(base) >= slug_preference(slug):
            return False
        if self.w.index.has(kind, base) or path_for(self.ctx.sws, kind, base).exists():
            return False  # something (a stub, an unreadable file) is there: update, never overwrite
        return not self.w.locked(kind, slug)

    def _create(self, staging: StagingFile, kind: RecordKind, slug: str, title: str, body: str, *,
                resolved: bool | None, source: Source) -> Target | None:
        meta: dict[str, Any] = {"created_at": self.now, "updated_at": self.now,
                                "sources": [source.as_yaml()]}
        if kind is RecordKind.DECISION:
            meta["status"] = "resolved" if resolved else "open"
        path = path_for(self.ctx.sws, kind, slug)
        errors = self.w.write(path, new_record_text(meta, canonical_body(body)), before_text=None, why=[staging.id])
        if errors:
            self._refused(staging, f"{kind.value} '{slug}' not created", errors)
            return None
        self._ran(kind, slug, staging.id, source)
        self.changed.add((kind, slug))
        return Target(kind, slug, title)

    def _ran(self, kind: RecordKind, slug: str, staging_id: str, source: Source) -> None:
        self.run_sources.setdefault((kind, slug), []).append(source.as_yaml())
        self.run_staging.setdefault((kind, slug), set()).add(staging_id)

    def _locked(self, staging: StagingFile, rel: str, what: str) -> None:
        """A read-only record stops nothing else, but the staging aimed at it stays in staging (and is
        reported on every run) until the lock is lifted: removing it would lose what it says."""
        self._note(f"locked: {rel} is read-only; {what} from staging {staging.id} kept in staging until it is "
                   "writable")
        self.ctx.hold([staging.id], f"{rel} is read-only (locked)")

    def _move(self, staging: StagingFile, kind: RecordKind, slug: str, new_slug: str, title: str, body: str, *,
              resolved: bool | None, source: Source) -> Target | None:
        """Move the record at ``slug`` to the preferred ``new_slug`` and update it there.

        Done the way GC merges near-duplicates: the new record holds every line and source of the
        old one (its title becomes an "Also titled:" line) plus this update; the old file stays as
        a replaced stub pointing at it (``move_line``), which GC treats like its own merge stubs —
        kept for ``gc.replaced_grace_tokens`` so a clone that updates it before pulling the move
        is merged by git, then folded into the new record and dropped.
        """
        record = self.w.read(kind, slug)
        if record is None or record.is_replaced or not isinstance(record.meta.get("sources"), list):
            # Unreadable, malformed sources, or the end of a broken replacement chain: updated (or
            # held and reported) where it is.
            return self._update(staging, kind, slug, body, resolved=resolved, source=source, title=title)
        old_title = title_of_body(record.body)
        carried = record.body
        if old_title and not same_title(old_title, title):
            carried = with_also_titled(carried, old_title)
        new_body = canonical_body(merge_body(merge_body(f"\n# {title}\n", carried), body))
        sources, _changed = self._merge_sources(record.meta["sources"], [source])
        # The old frontmatter re-emitted with only these keys changed (every other key as it was).
        updates: dict[str, Any] = {"sources": sources, "updated_at": self.now}
        if kind is RecordKind.DECISION and resolved and record.status == "open":
            updates["status"] = "resolved"
        new_path = path_for(self.ctx.sws, kind, new_slug)
        reason = (f"moved from `{slug}`: `{new_slug}` is the preferred slug of these near-identical titles "
                  "(shortest, then alphabetical — the name GC's merges keep)")
        errors = self.w.write(new_path, render_record(record, updates, body=new_body), before_text=None, bom=record.bom,
                              why=[staging.id], reason=reason, allowed_sources=source_keys(record.meta["sources"]))
        if errors:
            self._refused(staging, f"{kind.value} '{slug}' not moved to '{new_slug}'", errors)
            return None
        self._ran(kind, new_slug, staging.id, source)
        self.changed.add((kind, new_slug))
        mark: dict[str, Any] = {"replaced_by": new_slug, "updated_at": self.now}
        if kind is RecordKind.DECISION:
            mark["status"] = "replaced"
        stub = render_record(record, mark, body=canonical_body(record.body.rstrip("\n") + "\n\n" + move_line(new_slug) + "\n"))
        errors = self.w.write(record.path, stub, before_text=record.text, bom=record.bom, why=[staging.id],
                              reason=f"moved to `{new_slug}`; kept as a replaced stub until every clone has "
                                     "pulled the move")
        if errors:
            # Nothing is lost: both files hold the content; GC merges them into the preferred slug.
            self._note(f"lint refused: {record.rel} not turned into a stub of `{new_slug}` "
                       f"({format_errors(errors)}); GC will merge the two")
        return Target(kind, new_slug, title)

    def _update(self, staging: StagingFile, kind: RecordKind, slug: str, body: str, *,
                resolved: bool | None, source: Source, title: str | None = None) -> Target | None:
        rel = f"{path_for(self.ctx.sws, kind, slug).relative_to(self.ctx.sws.root).as_posix()}"
        if self.w.locked(kind, slug):
            self._locked(staging, rel, "its update")
            record = self.w.read(kind, slug)
            title = (title_of_body(record.body) if record else None) or slug
            return Target(kind, slug, title, locked=True)
        record = self.w.read(kind, slug)
        if record is None:
            self._note(f"unreadable: {rel} could not be parsed and was not updated (run `yoi lint`); "
                       f"staging {staging.id} is kept")
            self.ctx.hold([staging.id], f"{rel} is unreadable")
            return None
        current = title_of_body(record.body)
        base_body = None
        if title and current and title != current:
            if title < current and slugify(title) == slugify(current) == record.slug:
                # Two wordings of this very slug: the title is the first of them in code-point
                # order, whichever came first (so every push order ends with the same title).
                base_body = retitle(record.body, title, None if same_title(current, title) else current)
            elif not same_title(current, title):
                # Another wording of the title (a near-identical slug): kept, as GC's merge keeps it.
                body = with_also_titled(body, title)
        if not self._write_update(staging.id, record, body, [source], resolved=resolved, base_body=base_body):
            return None
        return Target(kind, slug, title_of_body(base_body or record.body) or slug)

    def _write_update(self, staging_id: str, record: Record, body: str, sources: list[Source], *,
                      resolved: bool | None = None, base_body: str | None = None) -> bool:
        """Merge ``body`` into the record (into ``base_body``, the record's body already changed, when
        given) and its sources; write when anything changed."""
        new_body = merge_body(record.body if base_body is None else base_body, body)
        if new_body != record.body:
            new_body = canonical_body(new_body)  # what was merged, in the order every push order gives
        updates: dict[str, Any] = {}
        if sources:
            merged, changed = self._merge_sources(record.meta.get("sources"), sources)
            if not isinstance(record.meta.get("sources"), list):
                self._note(f"unreadable: {record.rel} has malformed sources and was not updated; "
                           f"staging {staging_id} is kept")
                self.ctx.hold([staging_id], f"{record.rel} has malformed sources")
                return False
            if changed:
                updates["sources"] = merged
        if record.kind is RecordKind.DECISION and resolved and record.status == "open":
            updates["status"] = "resolved"
        if new_body == record.body and not updates:
            for source in sources:
                self._ran(record.kind, record.slug, staging_id, source)
            return True
        updates["updated_at"] = self.now
        text = render_record(record, updates, body=new_body)
        errors = self.w.write(record.path, text, before_text=record.text, bom=record.bom, why=[staging_id])
        if errors:
            self._refused_id(staging_id, f"{record.rel} not updated", errors)
            return False
        for source in sources:
            self._ran(record.kind, record.slug, staging_id, source)
        self.changed.add((record.kind, record.slug))
        return True

    def _refused(self, staging: StagingFile, what: str, errors: list[Any]) -> None:
        self._refused_id(staging.id, what, errors)

    def _refused_id(self, staging_id: str, what: str, errors: list[Any]) -> None:
        self._note(f"lint refused: {what} ({format_errors(errors)}); staging {staging_id} is kept")
        self.ctx.hold([staging_id], f"{what}: lint error")

    # ------------------------------------------------------------------ one staging file

    def _consume(self, staging: StagingFile) -> None:
        activity = staging.activity
        targets: list[Target] = []
        ctx = self.ctx
        for decision in settled(activity.decisions):  # a way considered and then not taken: no choice
            with ctx.from_items(staging, [("decisions", decision)]):
                target = self._decision(staging, decision)
            if target is not None:
                targets.append(replace(target, start=decision.range[0] if decision.range else None))
        before: Request | None = None
        for request in folded_requests(activity.requests):
            earlier = [t for t in targets if t.kind is RecordKind.REQUEST]
            with ctx.from_items(staging, [("requests", request)]):
                if earlier and is_vcs_step(request.summary):
                    # "commit", "please push": the last step of the work asked before, not a new request.
                    self._section_lines(staging, earlier[-1], "Then", [f"- {self._line(summary_line(request))}"],
                                        self._source(staging, request.range))
                    continue
                target = self._request(staging, request, before)
                before = request
            if target is not None:
                targets.append(replace(target, start=request.range[0] if request.range else None))
        for discussion in activity.discussions:
            with ctx.from_items(staging, [("discussions", discussion)]):
                self._discussion(staging, discussion, targets)
        self._attempts(staging, activity.attempts, targets)

    def _decision(self, staging: StagingFile, decision: Decision) -> Target | None:
        if is_change_summary(decision) or is_document_heading(decision) or is_working_step(decision):
            # a commit or PR subject and what it changed, a document's heading, the agent's way of
            # working: no choice told
            return None
        # "Deleting it requires the prefix": a statement about a gerund, never "Delete it requires …"
        stated = gerund_statement(decision.title) or config_title(decision.title, decision.chosen, decision.rationale)
        title = self._line(stated or decision_title(decision.title)) if one_line(decision.title) else "Untitled decision"
        # A title cut before a preposition's object ("… the voice system through"): the preposition goes.
        title = trim_cut(title, one_line(decision.chosen), one_line(decision.rationale), *decision.options)
        # "Netlify form integration": a topic heading; the chosen's first step is what was chosen.
        title = self._line(topic_title(title, decision.chosen))
        # "… by comparing it to local" of the chosen "… to local time and logging …": the phrase whole;
        # "… the event using" + the option chosen "IDs from all batches": its object.
        if len(title.split()) >= _CUT_AT_WORDS:  # a title cut at a word limit ("Run it" is whole)
            title = self._line(whole_phrase(title, chosen_text(one_line(decision.chosen))))
        title = self._line(with_object(title, decision.options, decision.chosen))
        said, why = split_reason(decision.chosen, decision.rationale)  # "X, which is the standard way": a reason
        chosen = self._line(with_object(chosen_text(said), [], ""))  # "… that switches between": unfinished
        has_choice = _has_choice(decision.chosen)
        parts = [f"\n# {title}\n"]
        if has_choice:
            parts.append(f"\n## Chosen\n{chosen}\n")
        options = [self._line(option_text(o)) for o in decision.options if one_line(o)]
        if options:
            parts.append("\n## Options\n" + "".join(f"- {o}\n" for o in options))
        rationale = rationale_text(why)  # a reason, never the agent's next step
        if rationale:
            parts.append(f"\n## Rationale\n{self._line(rationale)}\n")
        return self._upsert(staging, RecordKind.DECISION, title, "".join(parts), resolved=has_choice,
                            source=self._source(staging, decision.range))

    @staticmethod
    def _source(staging: StagingFile, item_range: tuple[int, int] | None) -> Source:
        """Where an item came from: its own entries when Phase 1 gave them, else the staging range."""
        if item_range is None:
            return staging.source
        return Source(session_id=staging.source.session_id, range=item_range)

    def _request(self, staging: StagingFile, request: Request, before: Request | None = None) -> Target | None:
        intent = self._line(request.intent) or self._line(request.summary)[:80] or "Untitled request"
        target = self._line(request.target)
        title = intent
        if request.title and one_line(request.title):
            title = self._line(clean_title(request.title))  # Phase 1 read it from the request's own sentence
            # A template's heading ("User Input") is no intent: read one from what was asked or done.
            title = self._line(request_title(title, asked_text(one_line(request.summary)),
                                             done_text(one_line(request.done or ""))))
            # "Edit it and add some content": "it" is what the request before made (its report names it).
            title = self._line(resolve_pronoun(title, one_line(before.done or "") if before else ""))
            title = trim_cut(title, one_line(request.summary))
            # "… review te linear docs both sdk" of "… both sdk and regular to get …": the phrase whole.
            title = self._line(whole_phrase(title, asked_text(one_line(request.summary))))
        elif target and not set(slugify(target).split("-")) <= set(slugify(intent).split("-")):
            # A bare verb ("fix", as the rules extractor gives) reads as a title only with its object.
            title = f"{intent} {target}" if len(intent.split()) <= 3 else f"{intent} ({target})"
        title = title[:1].upper() + title[1:]
        slug_text = request_slug_text(title, target, one_line(request.summary), one_line(request.done or ""))
        parts = [f"\n# {title}\n"]
        if target and adds_to_title(target, title) and names_a_target(target, one_line(request.summary)):
            parts.append(f"\nTarget: {target}\n")
        summary = summary_line(request)
        if summary:
            parts.append(f"\n## Summary\n{self._line(summary)}\n")
        return self._upsert(staging, RecordKind.REQUEST, title, "".join(parts), slug_text=slug_text,
                            source=self._source(staging, request.range))

    def _best(self, text: str, targets: list[Target], at: int | None = None) -> Target | None:
        """The target whose title matches ``text`` best; on a weak match the request the user had
        made last before entry ``at`` (the work in a session is done for what was asked), else the
        first request, else the first target."""
        if not targets:
            return None
        scores = [fuzz.token_set_ratio(text.lower(), t.title.lower()) for t in targets]
        best = max(scores)
        if best >= RELATE_RATIO:
            return targets[scores.index(best)]
        asked = [t for t in targets if t.kind is RecordKind.REQUEST and t.start is not None and at is not None
                 and t.start <= at]
        if asked:
            return max(asked, key=lambda t: t.start or 0)
        return next((t for t in targets if t.kind is RecordKind.REQUEST), targets[0])

    def _discussion(self, staging: StagingFile, discussion: Discussion, targets: list[Target]) -> None:
        topic = self._line(discussion.topic) or "Discussion"
        points = [self._line(p) for p in discussion.points if one_line(p)]
        lines = [discussion_line(topic, points)]
        target = self._best(topic + " " + " ".join(points), targets, discussion.range[0] if discussion.range else None)
        if target is None and topic.rstrip().endswith("?"):
            # A question the user asked and the agent answered is context for the work of that
            # session, not an undecided choice.
            target = self._nearest_in_session(staging) or self._in_parent(staging)
        if target is None:
            body = f"\n# {topic}\n\n## Discussion\n" + "".join(f"- {p}\n" for p in points or [topic])
            self._upsert(staging, RecordKind.DECISION, topic, body, resolved=False,
                         source=self._source(staging, discussion.range))
            return
        self._section_lines(staging, target, "Discussion", lines, self._source(staging, discussion.range))

    def _attempts(self, staging: StagingFile, attempts: list[Attempt], targets: list[Target]) -> None:
        # (line, text used to relate it, the entries it came from)
        pairs: list[tuple[str, str, tuple[int, int] | None, list[Attempt]]] = []
        failures: list[Attempt] = []
        for attempt in attempts:
            if is_harness_poll(attempt.trial) or is_status_poll(attempt.trial):
                # waiting on a command ("write_stdin", "BashOutput") or on CI ("gh pr checks") is no
                # attempt of its own
                continue
            if attempt.outcome == "success" and failures:
                # The older shape: a failure item, then the success that fixed it (or skipped the check).
                flag = bypassed_by(attempt.trial, [f.trial for f in failures])
                said = f"Not fixed — the check was bypassed (`{flag}`):" if flag else "Fix:"
                fix = f"{said} {self._line(attempt.trial)} — {self._line(attempt.result).rstrip('.')}."
                for failure in failures:
                    pairs.append((f"- {self._failed(failure)} {fix}", f"{failure.trial} {attempt.trial}",
                                  _span(failure.range, attempt.range), [failure, attempt]))
                failures = []
            elif attempt.outcome == "success" or _is_story(attempt):
                # One story (Phase 1 rules): what failed, why, and the run that showed it fixed (or not).
                result = truthful_result(attempt.trial, self._line(attempt.result))
                line = f"- {self._line(attempt.trial)} {result.rstrip('.')}."
                if not _is_story(attempt):
                    line = f"- Fixed: {self._line(attempt.trial)} — {self._line(attempt.result).rstrip('.')}."
                pairs.append((line, attempt.trial, attempt.range, [attempt]))
            else:
                failures.append(attempt)
        for failure in failures:
            said = self._failed(failure)
            ending = "" if "not fixed" in said.lower() else " Not fixed yet."
            pairs.append((f"- {said}{ending}", failure.trial, failure.range, [failure]))
        lessons: list[tuple[str, tuple[int, int] | None]] = []
        lesson_items: list[tuple[str, Attempt]] = []
        for line, text, span, behind in pairs:
            target = (self._best(text, targets, span[0] if span else None) or self._nearest_in_session(staging)
                      or self._in_parent(staging))
            if target is None:
                lessons.append((line, span))
                lesson_items.extend(("attempts", a) for a in behind)
                continue
            with self.ctx.from_items(staging, [("attempts", a) for a in behind]):
                self._section_lines(staging, target, "Failure and fix", [line], self._source(staging, span))
        if lessons:
            with self.ctx.from_items(staging, lesson_items):
                self._lessons(staging, lessons)

    def _lessons(self, staging: StagingFile, lessons: list[tuple[str, tuple[int, int] | None]]) -> None:
        """Failure lines that relate to no decision or request (a subagent's "tree is missing, use find")
        are lessons: they go to the "Lessons" section of one knowledge record, never dropped."""
        rel = path_for(self.ctx.sws, RecordKind.KNOWLEDGE, LESSONS_SLUG).relative_to(self.ctx.sws.root).as_posix()
        if self.w.locked(RecordKind.KNOWLEDGE, LESSONS_SLUG):
            self._locked(staging, rel, f"{len(lessons)} lesson line(s)")
            return
        sources = capped_sources((self._source(staging, span).as_yaml() for _line, span in lessons),
                                 self.ctx.ws.config.records.sources_max)
        body = "\n## Lessons\n" + "".join(f"{line}\n" for line, _span in lessons)
        record = self.w.read(RecordKind.KNOWLEDGE, LESSONS_SLUG) if self.w.index.has(RecordKind.KNOWLEDGE,
                                                                                   LESSONS_SLUG) else None
        if record is None and path_for(self.ctx.sws, RecordKind.KNOWLEDGE, LESSONS_SLUG).exists():
            self._note(f"unreadable: {rel} could not be parsed; staging {staging.id} is kept")
            self.ctx.hold([staging.id], f"{rel} is unreadable")
            return
        if record is None:
            kinds = self.ctx.ws.config.records.knowledge_kinds
            kind = "fact" if "fact" in kinds or not kinds else kinds[0]
            meta = {"kind": kind, "description": "Lessons from agent sessions that belong to no decision or request "
                    "(tools missing, limits hit, what worked instead); read before similar work.",
                    "model_invokation": False, "user_invocable": True, "last_sources": sources,
                    "created_at": self.now, "updated_at": self.now}
            text = new_record_text(meta, canonical_body("\n# Lessons from agent sessions\n" + body))
            errors = self.w.write(path_for(self.ctx.sws, RecordKind.KNOWLEDGE, LESSONS_SLUG), text, before_text=None,
                                  why=[staging.id], reason="failures that relate to no decision or request")
            if errors:
                self._refused(staging, f"knowledge '{LESSONS_SLUG}' not created", errors)
            return
        new_body = merge_body(record.body, body)
        if new_body != record.body:
            new_body = canonical_body(new_body)
        merged = accumulated_sources(record.meta.get("last_sources"), sources, self.ctx.ws.config.records.sources_max)
        updates: dict[str, Any] = {}
        if merged != record.meta.get("last_sources"):
            updates["last_sources"] = merged
        if new_body == record.body and not updates:
            return
        updates["updated_at"] = self.now
        errors = self.w.write(record.path, render_record(record, updates, body=new_body), before_text=record.text,
                              bom=record.bom, why=[staging.id], reason="failures that relate to no decision or request")
        if errors:
            self._refused(staging, f"knowledge '{LESSONS_SLUG}' not updated", errors)

    def _in_parent(self, staging: StagingFile) -> Target | None:
        """For a subagent's staging: the latest request (else decision) of the session that started it."""
        parent, sep, _agent = staging.source.session_id.partition(".agent-")
        if not sep:
            return None
        return self._nearest_in_session(staging, session=parent)

    def _failed(self, attempt: Attempt) -> str:
        what = "Partly worked" if attempt.outcome == "partial" else "Failed"
        result = self._line(attempt.result).rstrip(".")
        return f"{what}: {self._line(attempt.trial)} — {result}."

    def _in_session(self, kind: RecordKind, session: str) -> list[str]:
        """Slugs of ``kind`` whose frontmatter mentions ``session`` (a pre-selection: the matches
        are parsed and their sources checked by the caller).

        Files are read as bytes and only their frontmatter kept, once per run (decoding every
        record of a 10,000-record workspace cost a tenth of a dry run); texts written in this run
        come from the writer. A file that is not UTF-8 is skipped, as reading it as text would.
        """
        cache = self._raw_cache.setdefault(kind, {})
        paths = self._raw_paths.setdefault(kind, {})
        folder = folder_for(self.ctx.sws, kind) if kind is not RecordKind.SUMMARY else None
        needle = session.encode("utf-8", "surrogatepass")
        found: list[str] = []
        for slug in self.w.index.slugs(kind):
            # One Path per slug for the run (path_for joined three per call: 1 s of a 10k dry run).
            path = paths.get(slug)
            if path is None:
                path = paths[slug] = folder / f"{slug}.md" if folder is not None else path_for(self.ctx.sws, kind, slug)
            written = self.w.written.get(path)
            if written is not None:
                if session in raw_frontmatter(written):
                    found.append(slug)
                continue
            head = cache.get(slug)
            if head is None:
                head = cache[slug] = read_frontmatter_bytes(path)
            if needle in head and is_record_text(path):
                found.append(slug)
        return found

    def _nearest_in_session(self, staging: StagingFile, session: str | None = None) -> Target | None:
        """The record whose sources lie nearest to this staging range in the same session (or, with
        ``session``, the latest one of that other session: its indices are not comparable)."""
        other = session is not None
        session = session or staging.source.session_id
        start, end = staging.source.range
        best: tuple[bool, int, int, Record] | None = None
        for kind in (RecordKind.REQUEST, RecordKind.DECISION):
            for slug in self._in_session(kind, session):
                record = self.w.read(kind, slug)
                if record is None or record.is_replaced:
                    continue
                for source in record.sources():
                    rng = source.get("range")
                    if source.get("session_id") != session or not isinstance(rng, list) or len(rng) != 2:
                        continue
                    gap = 0 if other else max(0, start - rng[1], rng[0] - end)
                    # Requests first (the work in a session is done for what the user asked), then
                    # the nearest range; on a tie the range that starts later (the latest context).
                    candidate = (record.kind is not RecordKind.REQUEST, gap, -int(rng[0]), record)
                    if best is None or candidate[:3] < best[:3]:
                        best = candidate
        if best is None:
            return None
        record = best[3]
        return Target(record.kind, record.slug, title_of_body(record.body) or record.slug)

    def _section_lines(self, staging: StagingFile, target: Target, section: str, lines: list[str],
                       source: Source | None = None) -> None:
        rel = path_for(self.ctx.sws, target.kind, target.slug).relative_to(self.ctx.sws.root).as_posix()
        if self.w.locked(target.kind, target.slug):
            self._locked(staging, rel, f"its {section.lower()} lines")
            return
        record = self.w.read(target.kind, target.slug)
        if record is None:
            self.ctx.hold([staging.id], f"{rel} is unreadable")
            return
        body = f"\n## {section}\n" + "".join(f"{line}\n" for line in lines)
        self._write_update(staging.id, record, body, [source or staging.source])

    # ------------------------------------------------------------------ knowledge

    def _knowledge_from_candidates(self) -> None:
        kinds = self.ctx.ws.config.records.knowledge_kinds
        for stat in self.ctx.candidates:
            origin_kind = {"decision": RecordKind.DECISION, "request": RecordKind.REQUEST}.get(str(stat.kind))
            if origin_kind is None:
                continue
            origin = self.w.read(origin_kind, stat.slug)
            if origin is None or origin.is_replaced:
                continue
            title = title_of_body(origin.body) or stat.slug.replace("-", " ")
            kslug = stat.slug
            # The origin's sources (canonical, capped), not this run's: what the knowledge came from is
            # then a function of the origin's content, the same in every clone whatever it consumed.
            listed = origin.meta.get("sources")
            sources = capped_sources(listed if isinstance(listed, list) else [],
                                     self.ctx.ws.config.records.sources_max)
            why = sorted(self.run_staging.get((origin_kind, stat.slug), set()))
            body = origin.body.rstrip("\n") + f"\n\nDerived from the {origin_kind.value} `{stat.slug}`.\n"
            if self.w.index.has(RecordKind.KNOWLEDGE, kslug):
                # Every run, not only one that changed the origin: a merge may have brought the origin
                # lines this clone's knowledge lacks, and the refresh writes nothing when none are missing.
                self._refresh_knowledge(kslug, body, sources, why, source_keys(sources))
                continue
            kind = KNOWLEDGE_KIND_FOR[origin_kind.value]
            kind = kind if kind in kinds else (kinds[0] if kinds else "fact")
            if origin_kind is RecordKind.DECISION:
                description = f"{title}: what was decided and why; read before revisiting this choice."
            else:
                description = f"{title}: what the user asked for; read before working on it again."
            meta = {"kind": kind, "description": one_line(description), "model_invokation": False,
                    "user_invocable": True, "last_sources": sources, "created_at": self.now,
                    "updated_at": self.now}
            path = path_for(self.ctx.sws, RecordKind.KNOWLEDGE, kslug)
            errors = self.w.write(path, new_record_text(meta, canonical_body(body)), before_text=None, why=why,
                                  allowed_sources=source_keys(sources),
                                  reason=f"the {origin_kind.value} '{stat.slug}' is on the knowledge candidate report")
            if errors:
                self._note(f"lint refused: knowledge '{kslug}' not created ({format_errors(errors)})")

    def _refresh_knowledge(self, slug: str, body: str, sources: list[dict[str, Any]], why: list[str],
                           allowed: set[Any]) -> None:
        if self.w.locked(RecordKind.KNOWLEDGE, slug):
            self._note(f"locked: knowledge/{slug}.md is read-only and was not refreshed")
            return
        record = self.w.read(RecordKind.KNOWLEDGE, slug)
        if record is None:
            return
        new_body = merge_body(record.body, body)
        if new_body != record.body:
            new_body = canonical_body(new_body)
        updates: dict[str, Any] = {}
        if sources and sources != record.meta.get("last_sources"):
            updates["last_sources"] = sources
        if new_body == record.body and not updates:
            return
        updates["updated_at"] = self.now
        errors = self.w.write(record.path, render_record(record, updates, body=new_body), before_text=record.text,
                              bom=record.bom, why=why, allowed_sources=allowed)
        if errors:
            self._note(f"lint refused: knowledge '{slug}' not refreshed ({format_errors(errors)})")

    # ------------------------------------------------------------------ summary

    def _summary(self) -> None:
        """Migrate an older summary: drop the listings earlier runs stored in it.

        Open decisions and recent requests are computed when the resident
        context is built (``retrieval.summary_lists``); stored, they made every commit rewrite the
        summary and every merge of two clones conflict on it. Every other section is kept verbatim
        and ``updated_at`` is left alone (nothing a person wrote changed).
        """
        from ..retrieval.summary_lists import strip_generated

        existing = self.w.read(RecordKind.SUMMARY, "summary")
        if existing is None:
            return
        body = strip_generated(existing.body)
        if body == existing.body:
            return
        if self.w.locked(RecordKind.SUMMARY, "summary"):
            self._note("locked: memory/summary.md is read-only; its stored listings were not removed")
            return
        errors = self.w.write(self.ctx.sws.summary_path, render_record(existing, {}, body=body),
                              before_text=existing.text, bom=existing.bom, why=[], derived=True,
                              reason="migrated: the generated listings are computed when the resident context "
                                     "is built, no longer stored")
        if errors:
            self._note(f"lint refused: summary not migrated ({format_errors(errors)})")


_VCS_WORDS = {"commit", "push", "merge", "pr", "rebase", "land", "ship"}
_FILLER_WORDS = {"please", "and", "then", "now", "it", "this", "that", "the", "changes", "change", "them", "ok", "okay",
                 "also", "to", "main", "origin", "a", "open", "create", "pull", "request", "go", "ahead", "do", "can",
                 "you", "just", "all", "everything", "up"}
_TARGET_EDGE_WORDS = {"and", "or", "but", "also", "then", "so", "it", "this", "that", "will", "would", "not", "of",
                      "to", "for", "with", "in", "on", "at", "from", "by", "a", "an", "the", "is", "are", "be",
                      "was", "were", "has", "have", "had", "been", "just", "only", "can", "could", "should", "must",
                      "may", "might", "shall", "me", "us", "i", "we", "you", "my", "our", "your", "i've", "i'm", "please"}


_PHRASE_OPENERS = {"a", "an", "the", "this", "that"}  # "the build command", "this dump": a phrase may open so


def folded_requests(requests: list[Request]) -> list[Request]:
    """``requests`` with each that only continues the one before folded into it: a "continue" after
    the work stopped (its report is the record's "Done:") and a follow-up that only says "same
    error" (a "— refined:" part of what was asked, its report the newer one); and a request sent
    again word for word, later in the same range, folded into its first sending."""
    kept: list[Request] = []
    for request in requests:
        before = kept[-1] if kept else None
        again = None if is_vcs_step(request.summary) else next(
            (at for at, k in enumerate(kept) if is_sent_again(request, k)), None)  # "commit" twice: two "Then" lines
        if again is not None:
            # The same words sent again later ("conda activate aie311" twice): one request, the
            # later report its outcome (the first one's may have been wrong).
            first = kept[again]
            kept[again] = first.model_copy(update={"done": request.done or first.done,
                                                   "range": _span(first.range, request.range)})
        elif before is not None and is_resume_of(request, before):
            kept[-1] = before.model_copy(update={"done": request.done or before.done,
                                                 "range": _span(before.range, request.range)})
        elif before is not None and (is_same_again(request.summary) or answers_the_ask(request, before)):
            # "same error", or what the agent's report asked the user to hand over: detail of the request
            summary = f"{before.summary}{REFINED}{one_line(request.summary)}"
            kept[-1] = before.model_copy(update={"summary": summary, "done": request.done or before.done,
                                                 "range": _span(before.range, request.range)})
        else:
            kept.append(request)
    return kept


def is_vcs_step(summary: str) -> bool:
    """A request that only says to commit, push or merge what was just done ("commit", "please push")."""
    words = re.findall(r"[a-z]+", summary.lower())
    return 0 < len(words) <= 6 and bool(set(words) & _VCS_WORDS) and set(words) <= _VCS_WORDS | _FILLER_WORDS


def _plain_words(text: str) -> list[str]:
    """The words of ``text``, lower case, without the dots around them ("issues." and ".codex" are
    "issues" and "codex": a sentence's full stop or a dot-folder's dot is no part of the word)."""
    return [w for w in (w.strip(".") for w in re.findall(r"[\w.'-]+", text.lower())) if w]


def adds_to_title(target: str, title: str) -> bool:
    """Whether a "Target:" line reads as a phrase of its own, not a cut piece of the sentence ("and
    checkout latest main", "native_viewer just codex_log_viewer it will not"), and names something
    the title does not: a garbled or repeated target says less than the title next to it, so it
    is left out."""
    words = _plain_words(target)
    if not words or words[0] in _TARGET_EDGE_WORDS - _PHRASE_OPENERS or words[-1] in _TARGET_EDGE_WORDS:
        return False
    if re.fullmatch(r"\([^()]*\)", target.strip()):
        return False  # "(expected shape)": an aside in brackets cut out of a sentence, no thing of its own
    # One that only repeats the title's words says nothing the title does not ("Target: this dump").
    said = set(_plain_words(title))
    return not set(words) <= said


def discussion_line(topic: str, points: list[str]) -> str:
    """One line for a discussion: the question (or topic), then what was said, each point a
    sentence ("- is there a way to keep secrets out? A redacted export. Tokens are masked.")."""
    # Bold marks and the colon of a heading cut from its list ("Find the generated cask file:**") are debris.
    points = [q for q in (without_emphasis(p).rstrip(" :") for p in points) if q]
    said = " ".join(p if p.endswith((".", "!", "?", "…")) else p + "." for p in points)
    if not said:
        return f"- {topic}"
    return f"- {topic}{' ' if topic.endswith('?') else ': '}{said}"


_POLL_RE = re.compile(r"^\W*(?:write_stdin|read_stdin|poll|bashoutput|bash_output|taskoutput|task_output|killshell|"
                      r"killbash|kill_shell)\b", re.IGNORECASE)


def is_harness_poll(trial: str) -> bool:
    """An attempt named after the harness's polling of a running command (Codex ``write_stdin``,
    Claude Code's ``BashOutput``): what it waited on is the command, and Phase 1 names the
    attempt after that; a poll left alone says nothing a teammate keeps."""
    return bool(_POLL_RE.match(trial))


# A look at a CI run's state ("gh pr checks 18", "gh run watch", "glab ci status"): its exit code is
# the checks' state (pending, failing) at that moment, never a step of the agent's that failed —
# and what "fixed" it is time passing, not the edit before the next look. The request's report
# tells how the checks ended.
_STATUS_POLL_RE = re.compile(r"^\W*(?:cd\s+\S+\s*(?:&&|;)\s*)?(?:gh\s+(?:pr\s+checks|run\s+(?:watch|view|list)|pr\s+status)|"
                             r"glab\s+ci\s+(?:status|view)|glab\s+pipeline\s+status)\b", re.IGNORECASE)


def is_status_poll(trial: str) -> bool:
    """An attempt named after a look at CI's state (``_STATUS_POLL_RE``): no failure of the agent's."""
    return bool(_STATUS_POLL_RE.match(trial))


def _is_story(attempt: Attempt) -> bool:
    """An attempt told whole by Phase 1 ("failed: …; fixed — …" or "…; not fixed in this range"; a
    problem the agent's own look found "still there: …; fixed — …")."""
    result = one_line(attempt.result).lower()
    return result.startswith(("failed:", "failed (", "blocked:", "still there:")) and \
        ("fixed —" in result or "not fixed" in result)


def _span(first: tuple[int, int] | None, second: tuple[int, int] | None) -> tuple[int, int] | None:
    """The entries from a failure item to its fix item (None when either has no range)."""
    if first is None or second is None:
        return None
    return (min(first[0], second[0]), max(first[1], second[1]))


