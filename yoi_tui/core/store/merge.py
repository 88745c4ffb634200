"""Three-way merge of one record (the ``yoi merge-driver`` git calls): pure record logic, no git.

Git hands the driver three texts of one path: the merge base, ours and theirs. For add/add (both
sides created the file) git gives a *synthetic empty base*; then a key or line missing on one side
is never read as a deletion — there was nothing to delete. The rules, per field:

* ``sources`` / ``last_sources``: the union in canonical order (``store.canonical``: session id,
  then range), a source removed by one side (a GC trim) stays removed, and the result is capped to
  the last ``sources_max`` of that order exactly as GC trims, so union and trim converge instead of
  fighting and every merge order gives the same list;
* ``created_at``: the earliest; ``updated_at``: the latest (never moved back in time);
* ``status``: ``open < resolved < replaced`` — when both sides changed it, the later stage wins;
* ``model_invokation`` / ``user_invocable``: true on either changed side stays true (what agents
  could reach stays reachable, as in a GC merge); the summary's ``last_rewritten_from_range``: the
  later range;
* ``replaced_by`` both sides set to different keepers (two GCs over overlapping near-duplicate
  groups): the keeper GC prefers by name (``kinds.slug_preference``: shortest, then alphabetical);
* knowledge ``kind`` and any other key both sides changed to different values: left to a person as standard conflict markers around the key's lines (``yoi lint`` reports them);
* the body: merged by section (``#`` headings outside code fences); inside a section lines are
  merged three-way: a line one side added is kept, a line one side removed and the other kept
  unchanged is removed, and where both sides changed the same place both sides' lines are kept;
  then what was merged is put in canonical order (``canonical.canonical_body``: Phase 2's sections
  and their one-line entries sorted, a repeated entry once), so the result is the same whichever
  side is ours and whichever clone pushed first.

Two sides whose frontmatter says they are records of different kinds (git's rename detection can
pair a decision with a knowledge file) are refused: the whole file is left in conflict.
``merge_records`` returns ``None`` when a side cannot be parsed as a record at all; the caller then
falls back to git's own line merge.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .canonical import canonical_body, capped_sources, merge_section, split_sections
from .kinds import RecordKind, slug_preference
from .reader import drop_bom
from .records import Record, as_timestamp, parse_record_text
from .writer import DELETE, emit_value, render_record

STATUS_ORDER = {"open": 0, "resolved": 1, "replaced": 2}
_MARKER_RE = re.compile(r"^(<{7}|={7}|>{7}|\|{7})( |$)", re.MULTILINE)
DEFAULT_LABELS = ("ours", "base", "theirs")


@dataclass
class MergeResult:
    """The merged text; ``conflicts`` names what a person must decide (empty: a clean merge)."""

    text: str
    conflicts: list[str] = field(default_factory=list)
    refused: str | None = None  # why the record logic did not merge at all (whole file in conflict)

    @property
    def clean(self) -> bool:
        return not self.conflicts and self.refused is None


def kind_from_path(path: str) -> RecordKind | None:
    """The record kind a repository path names (the workspace may sit in a subfolder)."""
    parts = Path(path.replace("\\", "/")).parts
    if not parts or not parts[-1].endswith(".md"):
        return None
    if parts[-2:] == ("memory", "summary.md"):
        return RecordKind.SUMMARY
    if len(parts) >= 3 and parts[-3] == "memory":
        return {"decisions": RecordKind.DECISION, "requests": RecordKind.REQUEST}.get(parts[-2])
    if len(parts) >= 2 and parts[-2] == "knowledge":
        return RecordKind.KNOWLEDGE
    return None


def shape_of(meta: dict[str, Any]) -> RecordKind:
    """The kind a frontmatter mapping looks like, whatever folder the file sits in."""
    if any(k in meta for k in ("last_sources", "model_invokation", "user_invocable", "description")):
        return RecordKind.KNOWLEDGE
    if "status" in meta:
        return RecordKind.DECISION
    if "sources" in meta:
        return RecordKind.REQUEST
    return RecordKind.SUMMARY


def _parse(text: str, kind: RecordKind, path: str) -> Record | None:
    text = drop_bom(text)
    if _MARKER_RE.search(text):
        return None  # an unresolved earlier conflict: record logic cannot read it
    record, diags = parse_record_text(text, kind=kind, path=Path(path), rel=path)
    if record is None or any(d.is_error for d in diags):
        return None
    return record


def merge_records(base: str, ours: str, theirs: str, *, path: str, sources_max: int = 20,
                  labels: tuple[str, str, str] = DEFAULT_LABELS) -> MergeResult | None:
    """Merge three texts of the record at ``path``; None when a side is not a readable record."""
    kind = kind_from_path(path) or RecordKind.DECISION
    synthetic = not base.strip()
    ours_rec, theirs_rec = _parse(ours, kind, path), _parse(theirs, kind, path)
    base_rec = None if synthetic else _parse(base, kind, path)
    if ours_rec is None or theirs_rec is None or (base_rec is None and not synthetic):
        return None
    ours_shape, theirs_shape = shape_of(ours_rec.meta), shape_of(theirs_rec.meta)
    if ours_shape is not theirs_shape:
        why = (f"refused: {labels[0]} is a {ours_shape.value} and {labels[2]} is a {theirs_shape.value} "
               "(rename detection paired two different records); decide by hand")
        return MergeResult(_whole_file_conflict(ours, theirs, labels), [why], refused=why)
    base_meta = base_rec.meta if base_rec is not None else {}
    base_body = base_rec.body if base_rec is not None else ""
    updates, conflicts = _merge_meta(base_meta, ours_rec.meta, theirs_rec.meta, synthetic=synthetic,
                                     sources_max=sources_max)
    body = merge_bodies(base_body, ours_rec.body, theirs_rec.body)
    safe_updates = {k: v for k, v in updates.items() if k not in conflicts}
    text = render_record(ours_rec, safe_updates, body=body)
    if conflicts:
        text = _mark_conflicts(text, ours_rec, theirs_rec, conflicts, kind, path, labels)
    return MergeResult(text, [f"{key}: {labels[0]} and {labels[2]} both changed it differently"
                              for key in conflicts])


@dataclass
class DeletionMerge:
    """A record one side deleted and the other modified: ``text`` is what survives (None: the
    deletion stands), with the sources and body lines the modifying side added."""

    text: str | None
    sources: int = 0
    lines: int = 0


def merge_deleted(base: str, modified: str, *, path: str) -> DeletionMerge | None:
    """Settle a modify/delete of the record at ``path`` by the driver's own line rule: a deletion
    removes what the deleting side saw (``base``), what the other side added since survives.

    So the record stays only when the modifying side added sources or body lines (a later Phase 2
    run, a GC merge into it, a person's note); it then holds just those — the sources it added and
    its added lines under their headings (the title heading kept) — never the deleted content.
    A change that adds nothing (a status, a trim, a timestamp; no new heading, no other key edited)
    lets the deletion stand, and so does
    a replaced stub that gained no source (its content lives in its keeper). None: a side is not a
    readable record (a person decides)."""
    kind = kind_from_path(path) or RecordKind.DECISION
    base_rec, mod_rec = _parse(base, kind, path), _parse(modified, kind, path)
    if base_rec is None or mod_rec is None:
        return None
    updates: dict[str, Any] = {}
    added = 0
    for key in ("sources", "last_sources"):
        mine, theirs = mod_rec.meta.get(key), base_rec.meta.get(key)
        if not isinstance(mine, list):
            continue
        seen = {_source_key(s) for s in theirs} if isinstance(theirs, list) else set()
        new = [s for s in mine if _source_key(s) not in seen]
        added += len(new)
        if len(new) != len(mine):
            updates[key] = new
    body, lines = _added_body(base_rec.body, mod_rec.body)
    # Another key edited (a description, a kind, a flag) is a person's change too: the record stays.
    edited = [k for k in mod_rec.meta if k not in _MECHANICAL
              and not _same(mod_rec.meta[k], base_rec.meta.get(k, _MISSING))]
    if not added and not edited and (lines == 0 or mod_rec.meta.get("replaced_by")):
        return DeletionMerge(None)
    if not added:
        updates = {}  # a hand edit with no new source: the record's own sources stay with its text
    # In the canonical order every writer gives (the added entries of Phase 2's sections, sorted).
    return DeletionMerge(render_record(mod_rec, updates, body=canonical_body(body)), added, lines)


# Keys whose change alone is no content of its own (a deletion against it stands).
_MECHANICAL = frozenset({"created_at", "updated_at", "sources", "last_sources", "status", "replaced_by"})


def _added_body(base: str, modified: str) -> tuple[str, int]:
    """The lines of ``modified`` that ``base`` lacks, section by section, under their headings
    (the first ``#`` heading, the title, always kept), and how many non-blank lines that is (a
    heading ``base`` lacks counts: a new or retitled section is an edit)."""
    bmap = {s.key: s for s in _sections(base)}
    out: list[str] = []
    count = 0
    title_seen = False
    for section in _sections(modified):
        heading = section.lines[:1] if section.key else []
        rest = section.lines[1:] if section.key else section.lines
        before = bmap.get(section.key)
        base_lines = set(before.lines) if before is not None else set()
        kept = [line for line in rest if not line.strip() or line not in base_lines]
        while kept and not kept[0].strip():
            kept.pop(0)
        while kept and not kept[-1].strip():
            kept.pop()
        kept = [line for n, line in enumerate(kept) if line.strip() or kept[n - 1].strip()]
        is_title = bool(section.key) and section.key.startswith("1:") and not title_seen
        title_seen = title_seen or is_title
        if not kept and not is_title:
            continue
        count += sum(1 for line in kept if line.strip()) + (bool(heading) and before is None)
        if out and out[-1].strip():
            out.append("")
        out.extend(heading)
        if heading and kept:
            out.append("")
        out.extend(kept)
    text = "\n".join(out).strip("\n")
    return (text + "\n" if text else ""), count


# --------------------------------------------------------------------------- frontmatter


def _same(a: Any, b: Any) -> bool:
    return _canon(a) == _canon(b)


def _canon(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return json.dumps(value, sort_keys=True, default=str)


_MISSING = object()


def _merge_meta(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any], *, synthetic: bool,
                sources_max: int) -> tuple[dict[str, Any], list[str]]:
    """Updates to apply to ours' frontmatter, and the keys left to a person."""
    updates: dict[str, Any] = {}
    conflicts: list[str] = []
    keys = list(ours) + [k for k in theirs if k not in ours] + [k for k in base if k not in ours and k not in theirs]
    for key in keys:
        b, o, t = base.get(key, _MISSING), ours.get(key, _MISSING), theirs.get(key, _MISSING)
        if synthetic:
            # Nothing existed before: a key only one side has was added by it, not deleted by the other.
            if o is _MISSING:
                o = t
            if t is _MISSING:
                t = o
        if key in ("sources", "last_sources") and (o is _MISSING or isinstance(o, list)) \
                and (t is _MISSING or isinstance(t, list)):
            merged = union_sources(b if isinstance(b, list) else [], o if isinstance(o, list) else [],
                                   t if isinstance(t, list) else [], sources_max=sources_max,
                                   deleted_ok=not synthetic)
            value: Any = merged
        elif key in ("created_at", "updated_at") and _stamp(o) and _stamp(t):
            pick = min if key == "created_at" else max
            value = pick((o, t), key=lambda v: _stamp(v))  # type: ignore[arg-type,return-value]  # both stamps set (checked above)
        elif _same(o, t):
            value = o
        elif _same(o, b):
            value = t
        elif _same(t, b):
            value = o
        elif key == "status" and isinstance(o, str) and isinstance(t, str) \
                and o in STATUS_ORDER and t in STATUS_ORDER:
            value = o if STATUS_ORDER[o] >= STATUS_ORDER[t] else t
        elif key in ("model_invokation", "user_invocable") and isinstance(o, bool) and isinstance(t, bool):
            value = True
        elif key == "replaced_by" and isinstance(o, str) and isinstance(t, str) and o and t:
            # Two clones' GCs (or Phase 2 moves) merged this record into different keepers: the one
            # GC itself would keep, by the names alone, so every clone and merge order agrees. Both
            # keepers hold the record's content; a later GC merges them if they are near-duplicates.
            value = min((o, t), key=slug_preference)
        elif key == "last_rewritten_from_range" and _is_range(o) and _is_range(t):
            value = max((o, t), key=lambda r: (r[1], r[0]))  # the summary rewritten from the later range
        else:
            conflicts.append(key)
            continue
        if value is _MISSING:
            if key in ours:
                updates[key] = DELETE
        elif key not in ours or not _same(value, ours[key]) or type(value) is not type(ours[key]):
            updates[key] = value
    return updates, conflicts


def _is_range(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)


def _stamp(value: Any) -> datetime | None:
    return as_timestamp(value) if value is not _MISSING else None


def _source_key(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("range"), list):
        return _canon({"session_id": item.get("session_id"), "range": item.get("range")})
    return _canon(item)


def union_sources(base: list[Any], ours: list[Any], theirs: list[Any], *, sources_max: int,
                  deleted_ok: bool = True) -> list[Any]:
    """Sources of both sides, deletions of either side honoured, in canonical order, capped to the last N.

    The order is ``canonical.source_sort_key`` (session id, range), so the result does not depend on
    which side is "ours" nor on the order the sources arrived in; capping keeps the end of it, the
    same rule GC's trim uses.
    """
    base_keys = [_source_key(s) for s in base]
    ours_keys = {_source_key(s) for s in ours}
    theirs_keys = {_source_key(s) for s in theirs}
    result: list[Any] = []
    seen: set[str] = set()
    for item, key in zip(base, base_keys, strict=True):
        if key in seen:
            continue
        if deleted_ok and (key not in ours_keys or key not in theirs_keys):
            continue  # one side removed it (a trim or a hand edit): keep it removed
        seen.add(key)
        result.append(item)
    base_set = set(base_keys)
    added: dict[str, Any] = {}
    for item in [*ours, *theirs]:
        key = _source_key(item)
        if key not in seen and key not in added and (key not in base_set or not deleted_ok):
            added[key] = item
    result.extend(added.values())
    return capped_sources(result, sources_max)


def _mark_conflicts(text: str, ours: Record, theirs: Record, keys: list[str], kind: RecordKind, path: str,
                    labels: tuple[str, str, str]) -> str:
    """Replace each conflicting key's lines in ``text`` by a standard conflict-marker block."""
    merged, _ = parse_record_text(text, kind=kind, path=Path(path), rel=path)
    assert merged is not None
    fm = list(merged.frontmatter_lines)
    starts = sorted((line - 2, key) for key, (line, _c) in merged.key_lines.items())
    spans: dict[str, tuple[int, int]] = {}
    for i, (start, key) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(fm)
        while end - 1 > start and not fm[end - 1].strip():
            end -= 1
        spans[key] = (start, end)
    for key in sorted(keys, key=lambda k: spans.get(k, (len(fm), 0))[0], reverse=True):
        ours_lines = emit_value(key, ours.meta[key]) if key in ours.meta else []
        theirs_lines = emit_value(key, theirs.meta[key]) if key in theirs.meta else []
        block = [f"<<<<<<< {labels[0]}", *ours_lines, "=======", *theirs_lines, f">>>>>>> {labels[2]}"]
        start, end = spans.get(key, (len(fm), len(fm)))
        fm[start:end] = block
    newline = merged.newline
    out = "---\n" + "".join(f"{line}\n" for line in fm) + "---\n" + merged.body
    return out.replace("\n", newline) if newline != "\n" else out


def _whole_file_conflict(ours: str, theirs: str, labels: tuple[str, str, str]) -> str:
    def ending(text: str) -> str:
        return text if text.endswith("\n") or not text else text + "\n"
    return f"<<<<<<< {labels[0]}\n{ending(ours)}=======\n{ending(theirs)}>>>>>>> {labels[2]}\n"


# --------------------------------------------------------------------------- body


@dataclass
class _Section:
    key: str  # "" for the text before the first heading
    lines: list[str]  # the heading line first (when there is one)


def _sections(body: str) -> list[_Section]:
    """``canonical.split_sections``'s sections, each keyed by its heading's level and name and
    which of that heading's occurrences it is (``"2:notes#1"``), its heading line first."""
    sections: list[_Section] = []
    seen: dict[str, int] = {}
    for section in split_sections(body):
        if section.heading is None:
            sections.append(_Section("", section.lines))
            continue
        key = f"{section.level}:{section.name}"
        seen[key] = seen.get(key, 0) + 1
        sections.append(_Section(f"{key}#{seen[key]}", [section.heading, *section.lines]))
    return sections


def merge_lines(base: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    """Three-way line merge that never conflicts: additions of both sides kept, deletions honoured
    where the other side left the line alone, both versions kept where both changed one place."""
    if ours == theirs or theirs == base:
        return list(ours)
    if ours == base:
        return list(theirs)
    base_set, ours_set, theirs_set = set(base), set(ours), set(theirs)

    def kept(line: str) -> bool:
        # Added by a side, or a base line both sides still hold (the diff may pair it elsewhere:
        # it moved on one side, or the sides' additions around it shifted the alignment).
        return line not in base_set or (line in ours_set and line in theirs_set)

    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    result: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            result.extend(ours[i1:i2])
            continue
        # A line only one side has: added by it (keep), or in base and removed by the other (drop).
        mine = [line for line in ours[i1:i2] if kept(line)]
        other = [line for line in theirs[j1:j2] if kept(line)]
        # Both sides' lines, in an order that does not depend on which side is "ours".
        first, second = sorted((mine, other), key=lambda part: "\n".join(part))
        result.extend(first)
        result.extend(line for line in second if line not in first or not line.strip())
    limits = {line: max(ours.count(line), theirs.count(line)) for line in set(result) if line.strip()}
    return _once(result, limits)


def _once(lines: list[str], limits: dict[str, int]) -> list[str]:
    """``lines`` with no non-blank line more often than the side that holds it most (``limits``):
    a line both sides added, or a base line the diff paired in two places, is kept once (the same
    sessions pushed in another order would have made one). Blank lines are left as they are."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for line in lines:
        if line.strip():
            seen[line] = seen.get(line, 0) + 1
            if seen[line] > limits.get(line, 1):
                continue
        out.append(line)
    return out


def merge_bodies(base: str, ours: str, theirs: str) -> str:
    """Section-wise three-way merge of two bodies (see the module docstring)."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    b, o, t = _sections(base), _sections(ours), _sections(theirs)
    bmap = {s.key: s for s in b}
    omap = {s.key: s for s in o}
    tmap = {s.key: s for s in t}
    order = _merged_order([s.key for s in o], [s.key for s in t])
    out: list[str] = []
    for key in order:
        bs, os_, ts = bmap.get(key), omap.get(key), tmap.get(key)
        if os_ is None or ts is None:
            present = os_ or ts
            assert present is not None
            # One side lacks the section: removed by it (drop, if the other left it unchanged) or added.
            if bs is not None and bs.lines == present.lines:
                continue
            lines = present.lines
            if bs is not None and key:
                # Removed by one side, changed by the other: the lines the other added stay under
                # the heading, the base lines the removal took stay removed — the rule of every
                # other line, whichever side removed it.
                absent = bs.lines[:1]
                found = merge_section(bs.lines, present.lines, absent)
                lines = found if found is not None else merge_lines(bs.lines, present.lines, absent)
        else:
            base_lines = bs.lines if bs else None
            found = merge_section(base_lines, os_.lines, ts.lines)
            lines = found if found is not None else merge_lines(base_lines or [], os_.lines, ts.lines)
        if out and out[-1] == "" and key and len(out) > 1 and out[-2] == "" and lines[:1] == [""]:
            lines = lines[1:]
        out.extend(lines)
    text = "\n".join(out)
    if ours.endswith("\n") and not text.endswith("\n"):
        text += "\n"
    return canonical_body(text)


def _merged_order(ours: list[str], theirs: list[str]) -> list[str]:
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    order: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            order.extend(ours[i1:i2])
        else:
            first, second = sorted((ours[i1:i2], theirs[j1:j2]))
            order.extend(k for k in first if k not in order)
            order.extend(k for k in second if k not in order)
    return order


__all__ = ["DeletionMerge", "MergeResult", "kind_from_path", "merge_deleted", "merge_bodies", "merge_lines", "merge_records", "shape_of",
           "union_sources"]
