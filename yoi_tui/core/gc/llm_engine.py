"""The ``llm`` GC engine: the rules engine first, then a model rewrites what the rules only report.

1. ``GcRulesEngine`` runs unchanged on the scratch copy (drops, merges, trims; its findings).
2. The records it could only report for a **rewrite** — *outdated* (names paths that no longer
   exist) and *noisy* (body over its cap) — become the model's targets, each with its categories,
   reason and full text. The summary is not a target (its listings are Phase 2's, the rest is a
   person's), nor is a file a rules operation already changes. No target: no model call.
3. A pydantic-ai agent (``llm.consolidation_model``) gets the writer runs' confined read tools
   (``runs.file_tools.FileTools``, wrapped by ``runs.agent_tools``: ``list_files``, ``read_file``,
   ``knowledge_search``, ``memory_search``; ``memory/`` minus ``_staging/`` and ``workflow/``, and
   ``knowledge/``) and two GC tools that write through the write-time linter:

   * ``rewrite_record(path, body, reason)`` — a new body for a target; the frontmatter stays as it
     is (sources are never the model's to change) and ``updated_at`` is set by the tool;
   * ``split_record(path, new_slug, body, reason, description)`` — a new record of the target's kind
     holding part of it; its frontmatter is made by the tool, sources copied from the target.

   A protected target (frequency ≥ ``usage.protect_threshold``) must keep at least
   ``PROTECTED_MIN_KEEP`` of its body (counting what was split off): never heavily compressed. A
   locked file is refused without counting as a failure. Every refusal goes back to the model to fix;
   at ``phase2.max_failed_writes`` failed writes in total the run is aborted (``runs.run_context.RunAborted``) and
   nothing of it — the rules' changes included — is kept.
4. A target that was split but does not name its new part gets a "See also" line, so nothing
   becomes unreachable. Each rewritten or split target becomes one proposed ``rewrite``/``split``
   operation (its files: the target and the split-off records) carrying the finding's categories and
   the model's one-line reasons. Token usage is recorded as a ``tokens`` usage event.

pydantic-ai is imported when the engine runs, never when the CLI starts.
"""

# No ``from __future__ import annotations``: pydantic-ai reads the tool functions' type hints with
# ``get_type_hints``, and ``RunContext`` is imported inside ``build_toolset`` (lazily).
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..lint.write_check import source_keys
from ..runs.file_tools import FileTools
from ..runs.linted_writer import LintedWriter
from ..store.atomic import is_locked
from ..store.kinds import RecordKind, is_valid_slug, path_for
from ..store.reader import read_record
from ..store.records import Record
from ..store.writer import new_record_text, render_record
from .run_context import GcContext

PROTECTED_MIN_KEEP = 0.7
MAX_REASON_CHARS = 240

INSTRUCTIONS = """\
You maintain a coding project's memory: Markdown records with YAML frontmatter in memory/decisions/,
memory/requests/ and knowledge/. People review your changes as git diffs. This is garbage
collection: an automatic pass already dropped dead records, merged duplicates and trimmed sources.
What is left for you are records it could only report:

- outdated: the record names repository paths that no longer exist. Rewrite the statements so they
  do not present those paths as current (say the file was removed or moved, in the past tense, or
  name where the code lives now if another record tells you). Keep the claim, the rationale and
  the history; do not invent facts.
- noisy, over the cap: the body is longer than allowed. Densify it: merge repetition, keep every
  claim, rationale, failure and fix. If it holds several subjects, split one off with split_record
  (a new record of the same kind with its own kebab-case slug), then rewrite the original without
  the moved text and name the new record: `#new-slug` for knowledge, a code span `new-slug` otherwise.

Rules:
- Only rewrite or split the records listed below. rewrite_record takes the new BODY only (everything
  after the frontmatter): the frontmatter, sources and timestamps are handled for you.
- A record marked protected is used often: keep at least 70% of its text (split rather than cut).
- `#slug` in a body must name an existing knowledge record; put other `#words` in backticks.
- A read-only file is locked by a person: leave it.
- Give every write a one-line reason: what you changed and why.
Every write is checked by a linter; if it refuses, fix what it reports and write again. After a few
failed writes the whole run is discarded. When you are done, answer with one short paragraph.
"""


@dataclass
class Target:
    """A record the model may rewrite or split, with the finding that made it one."""

    rel: str
    kind: RecordKind
    slug: str
    categories: list[str]
    reason: str
    protected: bool
    original_chars: int
    missing_paths: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # the model's, per write
    rewritten: bool = False
    splits: list[str] = field(default_factory=list)  # rels of the records split off
    split_chars: int = 0


def _one_line(text: str) -> str:
    return " ".join(str(text or "").split())[:MAX_REASON_CHARS]


def _body(text: str) -> str:
    """A body as records store it: a blank line after the frontmatter, one newline at the end."""
    return "\n" + str(text).strip("\n") + "\n"


class GcTools(FileTools):
    """The writer runs' confined reading, listing, searching and failure count; GC's own two writes."""

    def __init__(self, ctx: GcContext, targets: dict[str, Target], *, max_failed_writes: int) -> None:
        super().__init__(ctx, LintedWriter(ctx), max_failed_writes=max_failed_writes)
        self.gc = ctx
        self.targets = targets

    def _target(self, path: str) -> tuple[Target, Record] | str:
        """The target at ``path`` and its current record, or a message for a locked file."""
        resolved, rel = self.resolve_to_write(path)
        target = self.targets.get(rel)
        if target is None:
            raise self.fail(f"refused: {rel} is not one of the records to rewrite or split "
                            f"({', '.join(sorted(self.targets))})")
        if is_locked(resolved):
            self.locked_refusals.append(rel)
            return f"refused: {rel} is read-only (locked by a person against automated rewriting); leave it"
        record = read_record(self.gc.sws, resolved).record
        if record is None:
            raise self.fail(f"{rel} cannot be parsed any more; rewrite it again from the text you were given")
        self.w.read_paths.add(rel)
        return target, record

    def _reason(self, reason: str) -> str:
        line = _one_line(reason)
        if not line:
            raise self.fail("give a one-line reason: what you changed and why")
        return line

    def rewrite_record(self, path: str, body: str, reason: str) -> str:
        found = self._target(path)
        if isinstance(found, str):
            return found
        target, record = found
        line = self._reason(reason)
        new_body = _body(body)
        if new_body == record.body:
            return f"no change: that is the current body of {target.rel}; nothing was written"
        if target.protected and len(new_body) + target.split_chars < PROTECTED_MIN_KEEP * target.original_chars:
            raise self.fail(
                f"refused: {target.rel} is protected (used often) and may not be heavily compressed: keep at least "
                f"{PROTECTED_MIN_KEEP:.0%} of its {target.original_chars} characters (split parts count), "
                f"got {len(new_body) + target.split_chars}")
        text = render_record(record, {"updated_at": self.gc.now}, body=new_body)
        errors = self.w.record_errors(record, text)
        if errors:
            raise self.lint_refusal(target.rel, errors)
        self.w.rewrite(record, text, category=target.categories, reason=f"rewritten: {line}")
        target.rewritten = True
        target.reasons.append(line)
        return f"rewrote {target.rel} ({len(new_body)} characters); lint clean"

    def split_record(self, path: str, new_slug: str, body: str, reason: str, description: str = "") -> str:
        found = self._target(path)
        if isinstance(found, str):
            return found
        target, record = found
        line = self._reason(reason)
        slug = str(new_slug or "").strip()
        if not is_valid_slug(slug):
            raise self.fail(f"'{slug}' is not a valid slug: lowercase letters, digits and single hyphens, "
                            "at most 64 characters")
        new_path = path_for(self.gc.sws, record.kind, slug)
        if new_path.exists() or self.w.index.has(record.kind, slug):
            raise self.fail(f"a {record.kind.value} record '{slug}' already exists; choose another slug")
        meta = self._split_meta(record, description)
        new_body = _body(body)
        text = new_record_text(meta, new_body)
        allowed = source_keys(record.sources())
        errors = self.w.errors(new_path, text, before_text=None, allowed_sources=allowed)
        if errors:
            raise self.lint_refusal(self.gc.sws.rel(new_path), errors)
        self.w.put(new_path, text, category=target.categories, reason=f"split from `{target.slug}`: {line}")
        target.splits.append(self.gc.sws.rel(new_path))
        target.split_chars += len(new_body)
        target.reasons.append(line)
        return (f"created {self.gc.sws.rel(new_path)} ({len(new_body)} characters); lint clean. Now rewrite "
                f"{target.rel} without the moved text, naming the new record")

    def _split_meta(self, record: Record, description: str) -> dict[str, Any]:
        now = self.gc.now
        if record.kind is RecordKind.KNOWLEDGE:
            text = _one_line(description)
            if not text:
                raise self.fail("a knowledge record needs a description: what it is and when to read it")
            kinds = self.gc.ws.config.records.knowledge_kinds
            return {"kind": record.knowledge_kind or (kinds[0] if kinds else "fact"), "description": text,
                    "model_invokation": False, "user_invocable": record.user_invocable,
                    "last_sources": list(record.sources()), "created_at": now, "updated_at": now}
        meta: dict[str, Any] = {"created_at": now, "updated_at": now, "sources": list(record.sources())}
        if record.kind is RecordKind.DECISION:
            meta["status"] = record.status if record.status in ("open", "resolved") else "open"
        return meta



def build_toolset(*, max_failed_writes: int) -> Any:
    """GC's tools (a refusal becomes ``ModelRetry``), for a native or a structured-steps agent run."""
    from pydantic_ai import RunContext

    from ..runs.agent_tools import add_file_tools, add_search_tools, call_tool, new_toolset

    toolset = new_toolset(max_failed_writes=max_failed_writes)
    add_file_tools(toolset)
    add_search_tools(toolset)

    @toolset.tool
    def rewrite_record(ctx: RunContext[Any], path: str, body: str, reason: str) -> str:
        """Replace the BODY (everything after the frontmatter) of one of the listed records.

        reason: one line saying what you changed and why.
        """
        return call_tool(ctx, ctx.deps.rewrite_record, path, body, reason)

    @toolset.tool
    def split_record(ctx: RunContext[Any], path: str, new_slug: str, body: str, reason: str,
                     description: str = "") -> str:
        """Create a new record of the same kind as the listed record at `path`, holding part of it.

        new_slug: kebab-case file name of the new record. body: its body. description: required for
        knowledge (what it is and when to read it). Then rewrite `path` without the moved text.
        """
        return call_tool(ctx, ctx.deps.split_record, path, new_slug, body, reason, description)

    return toolset


def build_prompt(ctx: GcContext, targets: dict[str, Target]) -> str:
    parts = ["## Records to rewrite or split\n"]
    for rel in sorted(targets):
        target = targets[rel]
        record = read_record(ctx.sws, ctx.sws.root / rel).record
        flags = [f"categories: {', '.join(target.categories)}"]
        if target.protected:
            flags.append(f"protected: keep at least {PROTECTED_MIN_KEEP:.0%} of its text")
        if target.missing_paths:
            flags.append("paths that no longer exist: " + ", ".join(f"`{p}`" for p in target.missing_paths))
        parts.append(f"\n### {rel}\n- finding: {target.reason}\n- " + "\n- ".join(flags) + "\n")
        if record is not None:
            parts.append(f"```markdown\n{record.text}\n```\n")
    parts.append("\nOther records are reachable with list_files, read_file and the search tools.\n")
    return "".join(parts)


class GcLlmEngine:
    name = "llm"

    def __init__(self, model: Any = None) -> None:
        self.model = model

    def _targets(self, ctx: GcContext, claimed: set[str]) -> dict[str, Target]:
        targets: dict[str, Target] = {}
        for item in ctx.operations:
            if item.op != "rewrite" or item.state != "reported" or item.path in claimed:
                continue
            kind = RecordKind(item.kind)
            if kind is RecordKind.SUMMARY:
                continue
            record = read_record(ctx.sws, ctx.sws.root / item.path).record
            if record is None:
                continue
            targets[item.path] = Target(rel=item.path, kind=kind, slug=item.slug, categories=list(item.categories),
                                        reason=item.reason, protected=ctx.usage.protected(kind, item.slug),
                                        original_chars=len(record.body),
                                        missing_paths=list(item.details.get("missing_paths") or []))
        return targets

    def run(self, ctx: GcContext) -> None:
        from .rules_engine import GcRulesEngine

        rules = GcRulesEngine()
        rules.run(ctx)
        targets = self._targets(ctx, rules.claimed)
        if not targets:
            ctx.note("llm: nothing for the model to rewrite; no model call")
            return
        from ..runs.agent_tools import engine_model, run_agent

        max_failed = ctx.ws.config.phase2.max_failed_writes
        tools = GcTools(ctx, targets, max_failed_writes=max_failed)
        engine = engine_model(ctx.ws, self.model)
        toolset = build_toolset(max_failed_writes=max_failed)

        def keep_usage(counted: dict[str, int]) -> None:
            ctx.llm_usage = counted  # run_agent has recorded them as a ``tokens`` usage event, like Phase 2

        result = run_agent(engine, toolset, INSTRUCTIONS, build_prompt(ctx, targets), tools, ws=ctx.ws, notes=ctx.notes,
                           lost="nothing of the run is kept", on_usage=keep_usage)
        self._finish(ctx, tools, targets)
        ctx.notes.extend(f"locked: {rel} is read-only; the model's write was refused"
                         for rel in dict.fromkeys(tools.locked_refusals))
        if tools.failures:
            ctx.note(f"llm: {len(tools.failures)} write(s) refused by the linter or the rules and fixed")
        answer = " ".join(str(result.output).split())
        if answer:
            ctx.note(f"llm: {answer[:600]}")

    def _finish(self, ctx: GcContext, tools: GcTools, targets: dict[str, Target]) -> None:
        """Point each split target at its new parts; turn the targets the model changed into operations."""
        for target in targets.values():
            if target.splits:
                self._ensure_pointers(ctx, tools, target)
            touch = ctx.scratch.touched.get(target.rel)
            changed = touch is not None and ctx.scratch.read(target.rel) != touch.before
            if not target.splits and not changed:
                continue  # untouched, or written back as it was: the finding stays reported
            ctx.operations.take("rewrite", target.rel, "reported")
            paths = ([target.rel] if changed else []) + target.splits
            reason = "; ".join(dict.fromkeys(target.reasons)) or "rewritten by the llm engine"
            ctx.operations.add("split" if target.splits else "rewrite", "proposed", target.categories, reason,
                               kind=target.kind.value, slug=target.slug, path=target.rel, paths=paths,
                               details={"split_into": [Path(p).stem for p in target.splits],
                                        "finding": target.reason})

    @staticmethod
    def _ensure_pointers(ctx: GcContext, tools: GcTools, target: Target) -> None:
        record = read_record(ctx.sws, ctx.sws.root / target.rel).record
        if record is None:
            return
        slugs = [Path(p).stem for p in target.splits]
        missing = [s for s in slugs if s not in record.body]
        if not missing:
            return
        ref = (lambda s: f"#{s}") if target.kind is RecordKind.KNOWLEDGE else (lambda s: f"`{s}`")
        body = record.body.rstrip("\n") + "\n\nSee also " + ", ".join(ref(s) for s in missing) + ".\n"
        text = render_record(record, {"updated_at": ctx.now}, body=body)
        errors = tools.w.record_errors(record, text)
        if errors:
            ctx.note(f"{target.rel}: could not add a pointer to {', '.join(missing)} (lint refused); add it by hand")
            return
        tools.w.rewrite(record, text, category=target.categories, reason=f"points at what was split off: "
                                                                          f"{', '.join(missing)}")


__all__ = ["INSTRUCTIONS", "PROTECTED_MIN_KEEP", "GcLlmEngine", "GcTools", "Target", "build_prompt", "build_toolset"]
