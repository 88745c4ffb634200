"""The ``llm`` Phase 2 engine: a pydantic-ai agent (``llm.consolidation_model``) with confined tools.

The agent gets the consumed staging entries (with their ids and sources), the memory records (full
text, or slugs and first lines when they are too large for the prompt), the knowledge candidate
report, and the tools of ``tools.Phase2Tools`` (over ``runs.file_tools.FileTools``): ``list_files``,
``read_file``, ``write_file``, ``edit_file``, ``knowledge_search``, ``memory_search``. Every write is
linted; a refusal goes back to the model as ``ModelRetry``; at ``phase2.max_failed_writes`` failed
writes in total the run is aborted (``runs.run_context.RunAborted``) and the scratch copy is thrown
away, so nothing is kept. Token usage is recorded as a ``tokens`` usage event even when the run
aborts.

With ``llm.write_mode`` fields (``auto`` for a model without native tool calls) the write tool is
``write_record`` instead of ``write_file``/``edit_file``: the model gives one record's fields, the
tool layer renders and lints the record (``record_fields``, ``Phase2Tools.write_fields``). The prompt
then lists the staging items by id and the existing records by path and title, the first step must
be a write, and the run ends once every item is recorded (or the model repeats a write).

pydantic-ai is imported when the engine runs, never when the CLI starts.
"""

# No ``from __future__ import annotations`` here: pydantic-ai reads the tool functions' type hints
# with ``get_type_hints``, and ``RunContext`` is imported inside ``build_toolset`` (lazily).
import json
from typing import Any

from ..runs.agent_tools import (
    add_file_tools,
    add_search_tools,
    call_tool,
    engine_model,
    new_toolset,
    run_agent,
)
from ..runs.body_merge import title_of_body
from ..runs.rejections import item_title
from ..store.kinds import RecordKind, kind_for_path
from ..store.reader import read_record
from ..store.record_listing import iter_record_paths
from .record_fields import describe_item, fields_model
from .run_context import Phase2Context
from .tools import Phase2Tools

PROMPT_RECORDS_CHARS = 60_000
PROMPT_RECORD_LINES = 200  # existing records listed in a fields-mode prompt
MAX_UPDATE_ENUM = 200  # up to this many, the records an update may name are an enum of the schema


INSTRUCTIONS = """\
You consolidate a coding project's memory. Memory is plain Markdown files with YAML frontmatter:
memory/summary.md, memory/decisions/<slug>.md, memory/requests/<slug>.md and knowledge/<slug>.md.
People edit the same files and review your changes as git diffs.

Your input is a set of staging entries: what happened in agent sessions (decisions, discussions,
attempts, requests), each with an id and a source. Fold them into the records:
- Prefer updating an existing record with the same subject over creating a new slug. Read a record
  (read_file) before you overwrite it; edit_file changes an exact excerpt.
- Rewrite to integrate and densify, not to append. Lose no claim, rationale or source.
- Express removal as replacement: a decision that is superseded gets `status: replaced` and
  `replaced_by: <new-slug>`. Never delete records.
- Attempts that failed and then succeeded belong in a "Failure and fix" section of the related
  decision or request, so the failure is not repeated.
- Keep memory/summary.md short: what the project is and where things stand. Do not list open
  decisions, recent requests or knowledge there: those listings are computed, never stored.
- Create a knowledge record only from a record on the knowledge candidate report (pass it as
  derived_from, e.g. "decision/use-sqlite"). Find existing knowledge with knowledge_search.
- Never invent sources. Pass the ids of the staging entries a write is based on as staging_ids:
  the tools copy their sources into the record and set the timestamps for you.
- Slugs are kebab-case, at most 64 characters; the file name is the slug.
- Frontmatter keys: decisions need created_at, updated_at, sources, status (open|resolved|replaced);
  requests need created_at, updated_at, sources; knowledge needs kind, description,
  model_invokation, user_invocable, last_sources, created_at, updated_at.
- `#slug` in a body must name an existing knowledge record; put other `#words` in backticks.
- Never write memory/workflow/ or memory/_staging/. A read-only file is locked by a person: leave it.
- The tools add created_at, updated_at and the sources (from staging_ids), so a new request can be
  as short as: write_file(path="memory/requests/fix-the-server-start.md", content="---\n---\n\n# Fix
  the server start\n\nThe user reported that `mix phx.server` does not start.\n",
  staging_ids=["<the staging id>"]); a new decision also needs `status: open` (or resolved)
  between the two `---` lines.
Every write is checked by a linter; if it refuses, fix what it reports and write again. After a few
failed writes the whole run is discarded. When you are done, answer with one short paragraph
saying what you changed.
"""


FIELDS_INSTRUCTIONS = """\
You consolidate a coding project's memory: decisions, requests and knowledge records that people
review as git diffs. The staging items below say what happened in agent sessions, each with an id.
Record what is worth keeping with write_record, one call per record. Give only the record's fields:
yoi writes the file, its frontmatter, timestamps and sources (copied from the items you cite in
"items"; never type a source yourself).
- A decision: what was chosen, the options, the rationale; status "resolved" when a choice was
  made, "open" when not.
- A request: what the user asked for, in the summary.
- An attempt that failed goes into failure_and_fix of the record it belongs to (what failed, why,
  what fixed it); discussion points go into discussion.
- To add to an existing record, give its path in "update": its text is kept and yours merged in.
  Prefer that over a new record on the same subject.
- A knowledge record only for a record on the knowledge candidate report (derived_from).
- Write plain sentences: no Markdown headings, no YAML, no `#` before a word.
Every write is checked by a linter; if it refuses, fix what it reports and call write_record again.
After a few refused writes the whole run is discarded. When every item worth keeping is recorded,
finish.
"""


def build_prompt(ctx: Phase2Context, tools: Phase2Tools) -> str:
    staging = [{"id": s.id, "source": s.source.as_yaml(), "activity": s.activity.model_dump()}
               for s in ctx.staging]
    parts = ["## Consumed staging entries\n", json.dumps(staging, indent=1, ensure_ascii=False), "\n\n"]
    parts.append("## Knowledge candidate report\n")
    if ctx.candidates:
        for stat in ctx.candidates:
            parts.append(f"- {stat.kind}/{stat.slug}: {stat.sessions} sessions, "
                         f"{getattr(stat, 'candidate_frequency', stat.frequency):.2f} invokes per Mtoken\n")
    else:
        parts.append("(empty: no knowledge record may be created in this run)\n")
    parts.append("\n## Memory records\n")
    memory = [p for p in iter_record_paths(ctx.sws) if kind_for_path(ctx.sws, p) in
              (RecordKind.SUMMARY, RecordKind.DECISION, RecordKind.REQUEST)]
    texts: list[tuple[str, str]] = []
    for path in memory:
        result = read_record(ctx.sws, path)
        if result.record is not None:
            texts.append((result.record.rel, result.record.text))
    total = sum(len(t) for _, t in texts)
    if total <= PROMPT_RECORDS_CHARS:
        for rel, text in texts:
            parts.append(f"\n### {rel}\n```markdown\n{text}\n```\n")
            tools.mark_read(rel)
    else:
        parts.append(f"(too large to include: {len(texts)} records, {total} characters; read them with "
                     "read_file or find them with memory_search)\n")
        for rel, text in texts:
            first = next((line for line in text.split("---", 2)[-1].splitlines() if line.strip()), "")
            parts.append(f"- {rel}: {first[:120]}\n")
    if not texts:
        parts.append("(none yet)\n")
    parts.append("\nKnowledge records are not listed: use knowledge_search, list_files('knowledge') and read_file.\n")
    return "".join(parts)


def build_toolset(*, max_failed_writes: int, fields: Any = None) -> Any:
    """The agent's tools (a refusal becomes ``ModelRetry``): given to a native tool-calling model, or
    driven as structured steps for a model without native tool calls. ``fields`` (a
    ``record_fields.fields_model``): the write tool is ``write_record`` taking those fields, instead
    of ``write_file`` and ``edit_file`` taking a record's full text."""
    from pydantic_ai import RunContext

    toolset = new_toolset(max_failed_writes=max_failed_writes)
    if fields is not None:
        def write_record(ctx: RunContext[Phase2Tools], record: Any) -> str:
            """Create a record, or add to one (update), from its fields; yoi writes the file, its frontmatter,
            timestamps and sources (copied from the staging items you cite).

            record: the record's fields
            """
            return call_tool(ctx, ctx.deps.write_fields, record)

        write_record.__annotations__["record"] = fields  # the schema holds this run's ids (built per run)
        toolset.tool(write_record)
        add_file_tools(toolset)
        add_search_tools(toolset)
        return toolset
    add_file_tools(toolset)

    @toolset.tool
    def write_file(ctx: RunContext[Phase2Tools], path: str, content: str, staging_ids: list[str] | None = None,
                   derived_from: str | None = None) -> str:
        """Create or replace a record with its full text (frontmatter and body).

        staging_ids: ids of the staging entries this write is based on (their sources are copied in).
        derived_from: for a NEW knowledge record, the candidate-report record it comes from, e.g.
        "decision/use-sqlite".
        """
        return call_tool(ctx, ctx.deps.write_file, path, content, staging_ids, derived_from)

    @toolset.tool
    def edit_file(ctx: RunContext[Phase2Tools], path: str, old: str, new: str,
                  staging_ids: list[str] | None = None) -> str:
        """Replace an exact excerpt `old` (occurring exactly once) of a record with `new`."""
        return call_tool(ctx, ctx.deps.edit_file, path, old, new, staging_ids)

    add_search_tools(toolset)
    return toolset


def build_fields_prompt(ctx: Phase2Context, tools: Phase2Tools) -> str:
    """The prompt of a fields-mode run: the staging items by id, the candidate report, and the records
    that may be updated (path and title; an update merges, so their text is not needed)."""
    parts = ["## Staging items (cite their ids in \"items\")\n"]
    parts.extend(describe_item(staged) + "\n" for staged in tools.items.values())
    parts.append("\n## Knowledge candidate report\n")
    if ctx.candidates:
        parts.extend(f"- {stat.kind}/{stat.slug}\n" for stat in ctx.candidates)
    else:
        parts.append("(empty: no knowledge record may be created in this run)\n")
    parts.append("\n## Existing records (give one's path in \"update\" to add to it)\n")
    paths = updatable_paths(ctx)
    for rel in paths[:PROMPT_RECORD_LINES]:
        result = read_record(ctx.sws, ctx.sws.root / rel)
        title = title_of_body(result.record.body) if result.record is not None else None
        parts.append(f"- {rel}: {title or '(no title)'}\n")
    if len(paths) > PROMPT_RECORD_LINES:
        parts.append(f"- ... and {len(paths) - PROMPT_RECORD_LINES} more (find them with memory_search)\n")
    if not paths:
        parts.append("(none yet)\n")
    return "".join(parts)


def updatable_paths(ctx: Phase2Context) -> list[str]:
    """The decisions, requests and knowledge records a fields-mode write may update, workspace-relative."""
    return [ctx.sws.rel(p) for p in iter_record_paths(ctx.sws)
            if kind_for_path(ctx.sws, p) in (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)]


def _all_recorded(tools: Phase2Tools) -> Any:
    """A fields-mode run ends once every staging item is cited by a write that went through."""
    def check() -> str | None:
        if tools.items and tools.recorded >= set(tools.items):
            return f"recorded every staging item ({len(tools.items)}) in {len(set(tools.written))} record(s)"
        return None

    return check


def _wrote_nothing(ctx: Phase2Context, tools: Phase2Tools) -> Any:
    """A check before the model's final answer: a run about to end without one write while the
    staging holds items is told so once (consuming the staging would lose them), then may end."""
    items = sum(len(getattr(s.activity, name)) for s in ctx.staging
                for name in ("decisions", "discussions", "attempts", "requests"))
    asked: list[bool] = []

    def check() -> str | None:
        if tools.written or not items or asked:
            return None
        asked.append(True)
        return (f"You have written nothing, but the consumed staging entries hold {items} item(s), which this run "
                "consumes: fold them into records first (write_file or edit_file with their staging_ids). Finish "
                "again only if none of them is worth keeping.")

    return check


class LlmEngine:
    name = "llm"

    def __init__(self, model: Any = None) -> None:
        self.model = model

    def run(self, ctx: Phase2Context) -> None:
        max_failed = ctx.ws.config.phase2.max_failed_writes
        tools = Phase2Tools(ctx, max_failed_writes=max_failed)
        engine = engine_model(ctx.ws, self.model)
        first: frozenset[str] = frozenset()
        if engine.write_mode == "fields":
            if not tools.items:  # nothing to record: a model call could only read or finish
                ctx.notes.append("llm: the consumed staging holds no items; no model call was made")
                return
            paths = updatable_paths(ctx)
            fields = fields_model(list(tools.items), paths if len(paths) <= MAX_UPDATE_ENUM else None,
                                  [f"{c.kind}/{c.slug}" for c in ctx.candidates])
            toolset = build_toolset(max_failed_writes=max_failed, fields=fields)
            instructions, prompt = FIELDS_INSTRUCTIONS, build_fields_prompt(ctx, tools)
            # Everything a first write needs is in the prompt (an update merges): a small model that
            # may read first tends to read until the request limit.
            first = frozenset({"write_record"})
        else:
            toolset = build_toolset(max_failed_writes=max_failed)
            instructions, prompt = INSTRUCTIONS, build_prompt(ctx, tools)

        def keep_usage(counted: dict[str, int]) -> None:
            ctx.usage = counted

        result = run_agent(engine, toolset, instructions, prompt, tools, ws=ctx.ws, notes=ctx.notes,
                           lost="nothing it wrote is kept", on_usage=keep_usage,
                           before_finish=_wrote_nothing(ctx, tools),
                           act_first=any(not s.activity.is_empty() for s in ctx.staging), first=first,
                           finished=_all_recorded(tools) if first else None)
        ctx.notes.extend(f"locked: {rel} is read-only; the model's write was refused" for rel in tools.locked_refusals)
        left = [item_id for item_id in tools.items if item_id not in tools.recorded]
        if engine.write_mode == "fields" and left:
            ctx.notes.append("llm: not recorded (the model found them not worth a record): " + "; ".join(
                f"{item_id} {item_title(tools.items[item_id].section, tools.items[item_id].item)!r}"
                for item_id in left))
        if tools.failures:
            ctx.notes.append(f"llm: {len(tools.failures)} write(s) refused by the linter and fixed")
        answer = " ".join(str(result.output).split())
        if answer:
            ctx.notes.append(f"llm: {answer[:600]}")
