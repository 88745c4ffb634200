"""Phase 2's ``llm`` engine tools: write, edit and the fields mode, over the shared confined reading.

``Phase2Tools`` subclasses ``runs.file_tools.FileTools`` (confinement, list, read, both searches, the
failed-write count) with Phase 2's writes; ``llm_engine`` wraps them for pydantic-ai. Every rule is
enforced — and tested — here:

* **Linter on every write.** ``write_file``/``edit_file`` write through the run's ``LintedWriter``;
  an error is refused with the findings so the model can fix them, and counts as a failed write.
* **Sources are copied, never taken from the model.** A write names the staging ids it is based on
  (``staging_ids``); the tool layer copies those staging entries' sources into ``sources`` (and
  keeps the record's previous ones) or ``last_sources`` for knowledge. A source the model typed
  itself survives only if it is already on the record or in the consumed staging; otherwise the
  linter's ``invented-source`` refuses the write.
* ``updated_at`` is set by the tool layer; ``created_at`` is set on creation and kept on update.
* A new knowledge record must name the candidate-report record it derives from (``derived_from``).
* ``write_fields`` (``llm.write_mode = "fields"``, ``record_fields``): the model gives a record's
  fields, the tool renders the record (frontmatter by the record writer, sources from the cited
  staging items, an update merged into the existing body) and writes it through the same linted
  path, with the same refusals and failure count.
* A locked (read-only) record is never written: the tool says so (not counted as a failure).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from ..runs.file_tools import FileTools, ToolRefusal
from ..runs.linted_writer import LintedWriter
from ..store.atomic import is_locked
from ..store.canonical import accumulated_sources
from ..store.kinds import RecordKind, kind_for_path, path_for, slugify
from ..store.reader import drop_bom, read_exact
from ..store.records import parse_record_text
from ..store.writer import new_record_text, render_record
from .record_fields import staged_items
from .run_context import Phase2Context


class Phase2Tools(FileTools):
    """The tool layer of one Phase 2 llm run (also the pydantic-ai ``deps``)."""

    ctx: Phase2Context

    def __init__(self, ctx: Phase2Context, *, max_failed_writes: int | None = None) -> None:
        super().__init__(ctx, LintedWriter(ctx), max_failed_writes=max_failed_writes)
        self.written: list[str] = []
        self.staging = {s.id: s for s in ctx.staging}
        self.items = staged_items(ctx.staging)  # by the ids the fields mode cites them by
        self.recorded: set[str] = set()  # the items a fields-mode write has cited
        self.candidates = {f"{c.kind}/{c.slug}" for c in ctx.candidates}
        self._sources_max = ctx.ws.config.records.sources_max

    # ------------------------------------------------------------------ writing

    def write_file(self, path: str, content: str, staging_ids: list[str] | None = None,
                   derived_from: str | None = None) -> str:
        resolved, rel = self.resolve_to_write(path)
        before = read_exact(resolved) if resolved.is_file() else None
        return self._write(resolved, rel, content, before, staging_ids or [], derived_from)

    def edit_file(self, path: str, old: str, new: str, staging_ids: list[str] | None = None) -> str:
        resolved, rel = self.resolve_to_write(path)
        before = read_exact(resolved) if resolved.is_file() else None
        if before is None:
            raise self.fail(f"no such file: {rel}; create it with write_file")
        current = drop_bom(before)
        count = current.count(old) if old else 0
        if count != 1:
            raise self.fail(f"edit refused: the old text occurs {count} times in {rel}; give an exact excerpt "
                            "that occurs exactly once")
        self.w.read_paths.add(rel)  # an exact excerpt proves the file was read
        return self._write(resolved, rel, current.replace(old, new, 1), before, staging_ids or [], None)

    def write_fields(self, fields: Any) -> str:
        """Write the record ``fields`` describe (a ``record_fields.fields_model`` instance): created at the
        title's slug, or merged into ``fields.update`` (or the record already at that slug) without losing
        a line of it. Sources are the cited items' own, copied from staging."""
        from ..runs.body_merge import merge_body, same_title, title_of_body, with_also_titled
        from .record_fields import body_from_fields, item_sources, title_of

        unknown = [i for i in fields.items if i not in self.items]
        if unknown or not fields.items:
            raise self.fail(f"unknown item id(s) {', '.join(unknown) or '(none given)'}; cite ids of the staging "
                            f"items ({', '.join(self.items) or 'there are none'})")
        cited = [self.items[i] for i in dict.fromkeys(fields.items)]
        title = title_of(fields)
        update = getattr(fields, "update", None)
        try:
            if update:
                resolved, rel = self.resolve(update)
                kind = kind_for_path(self.ctx.sws, resolved)
            else:
                kind = RecordKind(fields.kind)
                slug = slugify(title)
                if not slug:
                    raise ToolRefusal(f"the title {title!r} gives no slug; use words (letters or digits)")
                resolved, rel = self.resolve(path_for(self.ctx.sws, kind, slug).relative_to(self.root).as_posix())
            if kind is None or kind is RecordKind.SUMMARY:
                raise ToolRefusal(f"refused: {rel} is not a decision, request or knowledge record")
            entry = self.w.index.get(kind, resolved.name[:-3])
            final = self.w.index.final_replacement(kind, entry.slug) if entry is not None and entry.is_replaced else None
            if final and entry is not None and final != entry.slug:  # (final is only set for an entry)
                # A replaced record's news belong to its replacement (as the rules engine does).
                resolved, rel = self.resolve(path_for(self.ctx.sws, kind, final).relative_to(self.root).as_posix())
        except ToolRefusal as exc:
            raise self.fail(str(exc)) from None
        before_raw = read_exact(resolved) if resolved.is_file() else None
        body = body_from_fields(fields, lambda slug: self.w.index.has(RecordKind.KNOWLEDGE, slug))
        sources = item_sources(cited)
        field = "last_sources" if kind is RecordKind.KNOWLEDGE else "sources"
        resolved_status = fields.status == "resolved" or (fields.status is None and bool(fields.chosen.strip()))
        if before_raw is not None:
            record = parse_record_text(drop_bom(before_raw), kind=kind, path=resolved, rel=rel)[0]
            if record is None:
                raise self.fail(f"{rel} cannot be read as a record (run `yoi lint`); give this record another title")
            current = title_of_body(record.body)
            if current and not same_title(current, title):
                body = with_also_titled(body, title)  # another wording of the title is kept, as Phase 2's rules keep it
            previous = record.meta.get(field)
            updates: dict[str, Any] = {field: accumulated_sources(previous, sources, self._sources_max)}
            if kind is RecordKind.DECISION and resolved_status and record.status == "open":
                updates["status"] = "resolved"
            self.w.read_paths.add(rel)  # merged: every line of the record is kept
            text = render_record(record, updates, body=merge_body(record.body, body))
        else:
            now = self.ctx.now
            meta: dict[str, Any] = {"created_at": now, "updated_at": now}
            if kind is RecordKind.KNOWLEDGE:
                kinds = self.ctx.ws.config.records.knowledge_kinds
                origin = str(getattr(fields, "derived_from", None) or "").partition("/")[0]
                wanted = {"decision": "policy", "request": "rule"}.get(origin, "fact")
                description = " ".join(str(getattr(fields, "description", "") or fields.summary or title).split())
                meta = {"kind": wanted if wanted in kinds else (kinds[0] if kinds else "fact"),
                        "description": description[:200], "model_invokation": False, "user_invocable": True,
                        field: sources, **meta}
            else:
                meta[field] = sources
            if kind is RecordKind.DECISION:
                meta["status"] = "resolved" if resolved_status else "open"
            text = new_record_text(meta, body)
        with contextlib.ExitStack() as stack:
            for staged in cited:  # a rejection of this file holds back exactly these items
                stack.enter_context(self.ctx.from_items(staged.staging, [(staged.section, staged.item)]))
            answer = self._write(resolved, rel, text, before_raw, [], getattr(fields, "derived_from", None),
                                 why=list(dict.fromkeys(staged.staging.id for staged in cited)))
        if rel not in self.written:
            return answer  # locked: nothing written
        self.recorded.update(staged.id for staged in cited)
        left = [item_id for item_id in self.items if item_id not in self.recorded]
        if not left:
            return answer + ". Every staging item is recorded now."
        return answer + f". Not recorded yet: {', '.join(left)}; record what is worth keeping, then finish."

    def _write(self, resolved: Path, rel: str, content: str, before_raw: str | None, staging_ids: list[str],
               derived_from: str | None, *, why: list[str] | None = None) -> str:
        kind = kind_for_path(self.ctx.sws, resolved)
        if kind is None:
            raise self.fail(f"refused: {rel} is not a record path (memory/summary.md, memory/decisions/<slug>.md, "
                            "memory/requests/<slug>.md or knowledge/<slug>.md)")
        if is_locked(resolved):
            self.locked_refusals.append(rel)
            return f"refused: {rel} is read-only (locked by a person against automated rewriting); leave it as it is"
        unknown = [s for s in staging_ids if s not in self.staging]
        if unknown:
            raise self.fail(f"unknown staging id(s) {', '.join(unknown)}; use ids from the consumed staging "
                            f"({', '.join(self.staging)})")
        if kind is RecordKind.KNOWLEDGE and before_raw is None:
            if not self.candidates:
                raise self.fail("refused: no record is on the knowledge candidate report, so no knowledge record "
                                "may be created in this run; update an existing one or a decision/request instead")
            if derived_from not in self.candidates:
                raise self.fail(f"refused: a new knowledge record must name the candidate-report record it derives "
                                f"from in derived_from (one of: {', '.join(sorted(self.candidates))})")
        before = drop_bom(before_raw) if before_raw is not None else None
        bom = before_raw is not None and before_raw.startswith("\ufeff")
        text = self._with_tool_fields(kind, resolved, rel, content, before, staging_ids)
        why = why or staging_ids or [s.id for s in self.ctx.staging]
        errors = self.w.write(resolved, text, before_text=before, bom=bom, why=why,
                              derived=kind is RecordKind.SUMMARY)
        if errors:
            raise self.lint_refusal(rel, errors)
        self.written.append(rel)
        return f"wrote {rel} ({len(text)} characters); lint clean"

    def _with_tool_fields(self, kind: RecordKind, path: Path, rel: str, content: str, before: str | None,
                          staging_ids: list[str]) -> str:
        """``content`` with sources copied from staging and the timestamps set by the tool layer."""
        record, _diags = parse_record_text(content, kind=kind, path=path, rel=rel)
        if record is None:
            return content  # the linter reports why it cannot be parsed
        old = parse_record_text(before, kind=kind, path=path, rel=rel)[0] if before is not None else None
        now = self.ctx.now
        updates: dict[str, Any] = {"updated_at": now}
        if kind is not RecordKind.SUMMARY:
            if old is not None and "created_at" in old.meta:
                updates["created_at"] = old.meta["created_at"]
            elif "created_at" not in record.meta:
                updates["created_at"] = now
            field = "last_sources" if kind is RecordKind.KNOWLEDGE else "sources"
            typed = record.meta.get(field, [])
            if isinstance(typed, list):
                cited = [self.staging[s].source.as_yaml() for s in staging_ids]
                if kind is RecordKind.KNOWLEDGE:
                    previous = old.meta.get(field) if old is not None else []
                    merged = (accumulated_sources(typed, cited, self._sources_max)
                              or (list(previous) if isinstance(previous, list) else []))
                else:
                    previous = old.meta.get(field) if old is not None else []
                    merged = accumulated_sources(previous, [*typed, *cited], self._sources_max)
                updates[field] = merged
        return render_record(record, updates)

