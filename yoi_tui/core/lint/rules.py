"""The static lint rules of SPEC 4, applied to one parsed record against the workspace index."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping

from rapidfuzz import fuzz, process

from ..diagnostics import Diagnostic, Severity
from ..retrieval.slugrefs import iter_ref_positions
from ..store.config import Config
from ..store.kinds import SLUG_MAX, RecordKind, is_valid_slug
from ..store.meta_fields import DECISION_STATUSES, KNOWN_KEYS, REQUIRED_KEYS, meta_is_valid
from ..store.records import Record
from ..text.prefilter import JointPlan, fold
from ..text.secrets import all_patterns, find_secrets, secret_needles  # the patterns Phase 1 redacts with
from .index import WorkspaceIndex
from .injection import NEEDLES as INJECTION_NEEDLES
from .injection import find_injections

RecordRule = Callable[[Record, WorkspaceIndex, Config, "LintContext"], Iterator[Diagnostic]]

_CONFLICT_RE = re.compile(r"^(<{7}(?: .*)?|>{7}(?: .*)?|\|{7}(?: .*)?)$", re.MULTILINE)


class LintContext:
    """Per-run inputs beyond the index: usage frequencies for ``compressible``."""

    def __init__(self, frequencies: Mapping[tuple[str, str], float] | None = None) -> None:
        self.frequencies = frequencies or {}

    def frequency(self, kind: RecordKind, slug: str) -> float:
        return self.frequencies.get((kind.value, slug), 0.0)


def _at(record: Record, key: str, rule: str, message: str, *, severity: Severity = "error",
        hint: str | None = None) -> Diagnostic:
    line, col = record.line_of(key)
    return Diagnostic(record.rel, line, col, rule, severity, message, hint)


def body_position(record: Record, offset: int) -> tuple[int, int]:
    """File line/column (1-based) of an offset into the record's body."""
    before = record.body[:offset]
    line = record.body_line + before.count("\n")
    col = offset - (before.rfind("\n") + 1) + 1
    return line, col


def _in_body(record: Record, offset: int, rule: str, message: str, *, severity: Severity = "error",
             hint: str | None = None) -> Diagnostic:
    line, col = body_position(record, offset)
    return Diagnostic(record.rel, line, col, rule, severity, message, hint)


def check_fields(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    """missing-field, field-type, bad-status (and the knowledge kind set)."""
    missing = [key for key in REQUIRED_KEYS[record.kind] if key not in record.meta]
    spelled, ambiguous = misspelled_keys(record) if missing else ({}, frozenset())
    for key in missing:
        default = {"model_invokation": "false", "user_invocable": "true"}.get(key)
        if key in ambiguous:
            hint = f"more than one key here stands for '{key}': keep one and name it '{key}'"
        elif key in spelled:
            hint = f"'{spelled[key]}' (line {record.line_of(spelled[key])[0]}) looks like this key; " \
                   "`yoi lint --fix` rewrites it"
        elif default:
            hint = f"add '{key}: {default}' (the default), or run `yoi lint --fix`"
        elif key in ("created_at", "updated_at", "sources", "last_sources"):
            hint = f"add '{key}:' to the frontmatter, or run `yoi lint --fix`"
        else:
            hint = f"add '{key}:' to the frontmatter"
        yield Diagnostic(record.rel, 1, 1, "missing-field", "error",
                         f"required field '{key}' is missing for a {record.kind.value}", hint)
    yield from _field_types(record)
    if record.kind is RecordKind.DECISION:
        status = record.meta.get("status")
        if isinstance(status, str) and status not in DECISION_STATUSES:
            yield _at(record, "status", "bad-status", f"status '{status}' is not one of open|resolved|replaced")
        if status == "replaced" and not record.meta.get("replaced_by"):
            yield _at(record, "status", "bad-status", "status 'replaced' without 'replaced_by'",
                      hint="name the replacing decision in 'replaced_by:'")
    if record.kind is RecordKind.KNOWLEDGE:
        kind = record.meta.get("kind")
        allowed = config.records.knowledge_kinds
        if isinstance(kind, str) and kind not in allowed:
            yield _at(record, "kind", "field-type", f"knowledge kind '{kind}' is not one of {', '.join(allowed)}",
                      hint="use one of those, or add it to records.knowledge_kinds in .yoi/config.toml")


def _field_types(record: Record) -> Iterator[Diagnostic]:
    """field-type for each value the kind's pydantic model rejects (pydantic is imported only for a
    frontmatter the plain check in ``store.meta_fields`` cannot pass)."""
    if meta_is_valid(record.kind, record.meta, missing_ok=True):
        return  # the model would report only missing fields: check_fields reports those
    from pydantic import ValidationError

    from ..store.models import META_MODELS

    try:
        META_MODELS[record.kind].model_validate(record.meta)
    except ValidationError as exc:
        for error in exc.errors():
            loc = error["loc"]
            key = str(loc[0])
            where = key + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:])
            if error["type"] == "missing" and len(loc) == 1:
                continue  # reported by check_fields from REQUIRED_KEYS
            message = str(error["msg"]).removeprefix("Value error, ")
            yield _at(record, key, "field-type", f"'{where}': {message}", hint=_type_hint(key))


def _type_hint(key: str) -> str | None:
    if key in ("created_at", "updated_at"):
        return "write e.g. 2026-01-05T10:00:00+00:00"
    if key in ("sources", "last_sources"):
        return "each source is {session_id: ..., range: [start, end]}"
    if key in ("model_invokation", "user_invocable"):
        return "write true or false"
    return None


def check_slug(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    if record.kind is not RecordKind.SUMMARY and not is_valid_slug(record.slug):
        yield Diagnostic(record.rel, 1, 1, "bad-slug", "error",
                         f"file name '{record.slug}' is not a valid slug",
                         f"use lowercase letters, digits and single hyphens, at most {SLUG_MAX} characters")


def ref_positions(record: Record) -> list[tuple[str, int, int]]:
    """``(slug, file line, col)`` of every ``#slug`` reference in the body (``iter_slug_refs``'s,
    without a ``SlugRef`` per reference: a cold lint finds ~50,000 at 10,000 records)."""
    body = record.body
    if "#" not in body:
        return []
    offset = record.body_line - 1
    return [(slug, offset + line, start + 1) for slug, line, start, _line_start in iter_ref_positions(body)]


def check_refs(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    """dangling-ref and ref-to-replaced for ``#slug`` in the body."""
    yield from check_ref_list(record.rel, ref_positions(record), index)


def check_ref_list(rel: str, refs: list[tuple[str, int, int]], index: WorkspaceIndex) -> Iterator[Diagnostic]:
    """``check_refs`` on references already found (the lint cache keeps them per file)."""
    for slug, line, col in refs:
        hint: str | None
        entry = index.get(RecordKind.KNOWLEDGE, slug)
        if entry is None:
            close = process.extractOne(slug, index.slugs(RecordKind.KNOWLEDGE), scorer=fuzz.ratio, score_cutoff=80)
            hint = f"did you mean #{close[0]}?" if close else "create the knowledge record or remove the '#'"
            yield Diagnostic(rel, line, col, "dangling-ref", "error", f"#{slug} names no knowledge record", hint)
        elif entry.is_replaced:
            final = index.final_replacement(RecordKind.KNOWLEDGE, slug)
            hint = f"point at #{final}" if final and final != slug else None
            yield Diagnostic(rel, line, col, "ref-to-replaced", "warning", f"#{slug} is replaced", hint)


def replacement_target(record: Record) -> str | None:
    target = record.meta.get("replaced_by")
    return target if isinstance(target, str) and target else None


def check_replaced_by(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    target = replacement_target(record)
    if target is not None:
        yield from check_replacement(record.rel, record.kind, record.slug, target, record.line_of("replaced_by"),
                                     index)


def check_replacement(rel: str, kind: RecordKind, slug: str, target: str, at: tuple[int, int],
                      index: WorkspaceIndex) -> Iterator[Diagnostic]:
    """``check_replaced_by`` from the record's kind, slug, target and the line/col of its key."""
    line, col = at
    entry = index.get(kind, target)
    if entry is None:
        yield Diagnostic(rel, line, col, "dangling-replaced-by", "error",
                         f"replaced_by '{target}' names no {kind.value} record")
        return
    problem = index.chain_problem(kind, slug)
    if problem is not None and "loops" in problem:
        yield Diagnostic(rel, line, col, "dangling-replaced-by", "error", problem)
    elif entry.is_replaced:
        final = index.final_replacement(kind, target)
        yield Diagnostic(rel, line, col, "ref-to-replaced", "warning", f"replaced_by '{target}' is itself replaced",
                         f"point at '{final}'" if final else None)


def check_sizes(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    """over-cap, compressible, description-too-long, sources-overflow."""
    yield from check_caps(record, index, config, ctx)
    yield from check_compressible(record, index, config, ctx)


def check_compressible(record: Record, index: WorkspaceIndex, config: Config,
                       ctx: LintContext) -> Iterator[Diagnostic]:
    yield from compressible(record.rel, record.kind, record.slug, record.body_length, record.body_line, config, ctx)


def compressible(rel: str, kind: RecordKind, slug: str, length: int, body_line: int, config: Config,
                 ctx: LintContext) -> Iterator[Diagnostic]:
    """``compressible`` from the body's length: the one size rule that depends on usage."""
    cap = config.cap_for(kind.value)
    if cap >= length > cap * config.records.compressible_fraction and \
            ctx.frequency(kind, slug) < config.usage.protect_threshold:
        yield Diagnostic(rel, body_line, 1, "compressible", "warning",
                         f"body is {length} of {cap} characters and the record is rarely used",
                         "compress it: keep claims and rationale, drop repetition")


def check_caps(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    """over-cap, description-too-long, sources-overflow: the size rules that need only the record."""
    cap = config.cap_for(record.kind.value)
    length = record.body_length
    if length > cap:
        yield Diagnostic(record.rel, record.body_line, 1, "over-cap", "error",
                         f"body is {length} characters; the {record.kind.value} cap is {cap}",
                         "densify it, or split it into several records")
    description = record.meta.get("description")
    if record.model_invokation and isinstance(description, str) and len(description) > config.records.description_max:
        yield _at(record, "description", "description-too-long",
                  f"description is {len(description)} characters; at most {config.records.description_max} "
                  "when model_invokation is true (it is injected into every prompt)")
    sources = record.sources()
    if len(sources) > config.records.sources_max:
        key = "last_sources" if record.kind is RecordKind.KNOWLEDGE else "sources"
        yield _at(record, key, "sources-overflow", f"{len(sources)} sources; keep the latest "
                  f"{config.records.sources_max}, git has the rest", severity="warning")


_TEXT_PLAN: tuple[object, JointPlan] | None = None


def _text_plan() -> JointPlan:
    """One prefilter pass for the secret and the injection scans of ``check_text`` (built on first
    use, and again if the secret table is reloaded: it comes from the detect-secrets cache)."""
    global _TEXT_PLAN
    patterns = all_patterns()
    if _TEXT_PLAN is None or _TEXT_PLAN[0] is not patterns:
        _TEXT_PLAN = (patterns, JointPlan([secret_needles(), INJECTION_NEEDLES]))
    return _TEXT_PLAN[1]


def check_text(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    """conflict-markers, secret, injection-pattern over the whole file text."""
    text = record.text.replace("\r\n", "\n")
    has_markers = "<<<<<<<" in text or ">>>>>>>" in text or "|||||||" in text  # cheap test first
    for match in _CONFLICT_RE.finditer(text) if has_markers else ():
        line = text.count("\n", 0, match.start()) + 1
        yield Diagnostic(record.rel, line, 1, "conflict-markers", "error",
                         f"git merge-conflict marker '{match.group()[:7]}'", "resolve the merge and remove the markers")
    secret_ranks, injection_ranks = _text_plan().candidates(fold(text))
    for kind, start, _end in find_secrets(text, secret_ranks):
        line = text.count("\n", 0, start) + 1
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        yield Diagnostic(record.rel, line, col, "secret", "error", f"secret-shaped string ({kind})",
                         "remove it and rotate the secret if it was real")
    for start, why in find_injections(text, injection_ranks):
        line = text.count("\n", 0, start) + 1
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        yield Diagnostic(record.rel, line, col, "injection-pattern", "warning",
                         f"text reads as instructions to an agent: {why}",
                         "rephrase as a description, or quote it in a code span")


_ALL_KNOWN = sorted(set().union(*KNOWN_KEYS.values()))


def misspelled_keys(record: Record) -> tuple[dict[str, str], frozenset[str]]:
    """``{known key: the key in the record that misspells it}`` (what ``yoi lint --fix`` renames),
    and the known keys more than one key stands for (``--fix`` leaves those to a person)."""
    from .fix import spelling_fixes

    renames, ambiguous = spelling_fixes(record)
    return {target: key for key, target in renames.items()}, ambiguous


def check_unknown_fields(record: Record, index: WorkspaceIndex, config: Config, ctx: LintContext) -> Iterator[Diagnostic]:
    known = KNOWN_KEYS[record.kind]
    if all(key in known for key in record.meta):
        return
    from .fix import fixable_spelling, spelling_fixes

    renames, ambiguous = spelling_fixes(record)
    for key in record.meta:
        if key in known:
            continue
        target = renames.get(key)
        if target is not None:
            opposite = "disable" in key  # Claude Code's disable-model-invocation: the opposite switch
            hint = (f"Claude Code's spelling; here it is '{target}' with the opposite value: `yoi lint --fix` "
                    "writes it" if opposite else f"did you mean '{target}'? `yoi lint --fix` renames it")
            yield _at(record, key, "unknown-field", f"unknown field '{key}'", severity="warning", hint=hint)
            continue
        target = fixable_spelling(record, key)
        if target in ambiguous:
            yield _at(record, key, "unknown-field", f"unknown field '{key}'", severity="warning",
                      hint=f"more than one key here stands for '{target}': keep one and name it '{target}'")
            continue
        close = difflib.get_close_matches(key, _ALL_KNOWN, n=1, cutoff=0.75)
        if close and close[0] != key:
            yield _at(record, key, "unknown-field", f"unknown field '{key}'", severity="warning",
                      hint=f"did you mean '{close[0]}'?")


def similar_diagnostic(rel: str, kind: RecordKind, other: str, score: float) -> Diagnostic:
    return Diagnostic(rel, 1, 1, "similar-slugs", "warning",
                      f"slug is near-identical to {kind.value} '{other}' (ratio {score:.0f})",
                      "merge the two records if they are about the same subject")


def similar_pair_wanted(index: WorkspaceIndex, kind: RecordKind, slug: str, other: str) -> bool:
    """Whether a near-identical pair is worth a ``similar-slugs`` warning: not when one already
    replaces the other (a merge or move stub and its replacement: the merge is done), and not when
    the slugs name different things (``store.slug_names``: ``hoge-py`` / ``piyo-py``, ``v1`` /
    ``v2``), which GC would never merge either."""
    from ..store.slug_names import naming_difference

    if naming_difference(slug, other) is not None:
        return False
    for one, two in ((slug, other), (other, slug)):
        entry = index.get(kind, one)
        if entry is not None and entry.replaced_by and index.final_replacement(kind, one) == two:
            return False
    return True


def similar_slug_pairs(slugs: list[str], ratio: float) -> Iterator[tuple[str, str, float]]:
    """Near-duplicate pairs ``(a, b, score)`` among ``slugs``, each once with a < b (blocking: ``similar.py``)."""
    from .similar import similar_slug_pairs as blocked

    return blocked(slugs, ratio)


def similar_to(slug: str, slugs: list[str], ratio: float) -> list[tuple[str, float]]:
    """Slugs near-identical to ``slug`` (excluding itself)."""
    return [(other, score) for other, score, _ in
            process.extract(slug, slugs, scorer=fuzz.ratio, score_cutoff=ratio, limit=None) if other != slug]


# (id of a listing, slug, ratio) -> (the listing, similar_to's answer): the editor lints the same
# file on every keystroke, against a folder listing kept while the folder is unchanged.
_SIMILAR_KEPT: dict[tuple[int, str, float], tuple[tuple[str, ...], list[tuple[str, float]]]] = {}


def similar_in_listing(slug: str, listing: tuple[str, ...], ratio: float) -> list[tuple[str, float]]:
    """``similar_to(slug, list(listing), ratio)``, kept per listing (the same tuple while its folder
    is unchanged: ``index.folder_slugs``) — at 30,000 decisions, 1.9 ms a keystroke."""
    key = (id(listing), slug, ratio)
    kept = _SIMILAR_KEPT.get(key)
    if kept is None or kept[0] is not listing:
        if len(_SIMILAR_KEPT) > 256:
            _SIMILAR_KEPT.clear()
        kept = _SIMILAR_KEPT[key] = (listing, similar_to(slug, list(listing), ratio))
    return list(kept[1])


RECORD_RULES: tuple[RecordRule, ...] = (
    check_fields, check_slug, check_refs, check_replaced_by, check_sizes, check_text, check_unknown_fields,
)
# The rules whose findings depend on the file alone (not on other records, usage or the index):
# the lint cache keeps their findings per file. RECORD_RULES = LOCAL_RULES + refs, replaced_by,
# compressible.
LOCAL_RULES: tuple[RecordRule, ...] = (check_fields, check_slug, check_caps, check_text, check_unknown_fields)
