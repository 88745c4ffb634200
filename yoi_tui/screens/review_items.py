"""What the review screen lists: one ``ReviewItem`` per decision a person makes (no Textual here).

* Phase 2: one item per file of the change set; its *why* names the staging files behind it and the
  session and entry range each came from (read from the consumed staging's own text).
* GC: one item per **proposed operation** (a merge spans several files, accepted or rejected
  together), grouped by category; findings GC did not turn into a change (locked, protected,
  reported, refused) are listed as items that cannot be decided.
* A journalled run (history): one item per file, read-only, with the state the journal recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.runs.changeset import ChangeSet, FileChange

OP_MARK = {"add": "A", "modify": "M", "delete": "D"}
DECISIONS = ("accept", "reject", "defer")
STATE_MEANING = {
    "locked": "locked: the file is read-only (a person locked it); GC never touches it",
    "protected": "protected: used often (usage.protect_threshold); GC never drops it",
    "reported": "reported: worth a look, but this engine does not change it",
    "refused": "refused: the linter refused the new text; nothing was changed",
    "held": "held back: you rejected this operation in an earlier review and its files have not changed "
            "since; w withdraws the rejection (proposed again from the next run)",
}
HELD_GROUP = "held back (rejected earlier)"


@dataclass
class ReviewItem:
    """One decision: an id, the files it covers, a group heading, a label and the reason shown."""

    id: str
    label: str
    group: str
    why: str
    changes: list[FileChange] = field(default_factory=list)
    decidable: bool = True
    state: str | None = None  # read-only runs: the journal's state of the file
    rejection: str | None = None  # held back by this remembered rejection (``w`` withdraws it)

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes]

    @property
    def marks(self) -> str:
        return "".join(OP_MARK[c.op] for c in self.changes) or "·"


def staging_sources(changeset: ChangeSet) -> dict[str, str]:
    """staging id → "session S, entries a–b" from the consumed staging texts."""
    found: dict[str, str] = {}
    for item in changeset.inputs:
        try:
            source = json.loads(item.text).get("source") or {}
            start, end = source.get("range") or ("?", "?")
            found[item.id] = f"session {source.get('session_id', '?')}, entries {start}–{end}"
        except (ValueError, AttributeError, TypeError):
            found[item.id] = "unreadable staging text"
    return found


def phase2_items(changeset: ChangeSet, held_back: list[dict[str, Any]] | None = None) -> list[ReviewItem]:
    """One item per file, then (not decidable) the staging items an earlier rejection held back."""
    sources = staging_sources(changeset)
    items: list[ReviewItem] = []
    for change in changeset.changes:
        lines: list[str] = []
        if change.derived:
            lines.append("derived: regenerated from the other records")
        for staging_id in change.why:
            lines.append(f"staging {staging_id} ({sources.get(staging_id, 'source unknown')})")
        if change.reason:
            lines.append(change.reason)
        if not lines:
            lines.append("no reason recorded")
        items.append(ReviewItem(id=change.path, label=change.path, group="files", why="\n".join(lines),
                                changes=[change]))
    for number, held in enumerate(held_back or []):
        items.append(ReviewItem(
            id=f"held:{number}", label=f"held: {held.get('path')}", group=HELD_GROUP, decidable=False,
            rejection=str(held.get("rejection")),
            why=f"held back: you rejected {held.get('path')} in an earlier review (run {held.get('run_id')}); "
                f"its {str(held.get('section', 'items'))[:-1]} “{held.get('item')}” of staging {held.get('staging')} "
                "is not folded in again.\nw withdraws the rejection: proposed again from the next run."))
    return items


def gc_items(changeset: ChangeSet | None, operations: list[Any]) -> list[ReviewItem]:
    """Proposed operations grouped by their first category, then the findings GC did not change."""
    by_path = {c.path: c for c in (changeset.changes if changeset else [])}
    items: list[ReviewItem] = []
    claimed: set[str] = set()
    for op in operations:
        if op.state != "proposed":
            continue
        changes = [by_path[p] for p in op.paths if p in by_path]
        claimed.update(c.path for c in changes)
        files = f" ({len(changes)} files)" if len(changes) > 1 else ""
        group = op.categories[0] if op.categories else "other"
        items.append(ReviewItem(id=op.id, label=f"{op.op} {op.slug}{files}", group=group,
                                why=f"{op.op} · {', '.join(op.categories) or 'no category'}\n{op.reason}\n"
                                    + "\n".join(f"{OP_MARK[c.op]} {c.path}" for c in changes),
                                changes=changes))
    for path, change in by_path.items():
        if path not in claimed:
            items.append(ReviewItem(id=f"file:{path}", label=path, group="other",
                                    why=change.reason or "changed outside any operation", changes=[change]))
    items.sort(key=lambda i: (_group_rank(i.group), i.group))
    for op in operations:
        if op.state == "proposed":
            continue
        items.append(ReviewItem(id=op.id, label=f"{op.state}: {op.op} {op.slug}",
                                group=HELD_GROUP if op.state == "held" else f"not changed ({op.state})",
                                why=f"{STATE_MEANING.get(op.state, op.state)}\n"
                                    f"{op.op} · {', '.join(op.categories) or 'no category'} — {op.reason}\n{op.path}",
                                decidable=False, rejection=op.details.get("rejection") if op.state == "held" else None))
    return items


def _group_rank(group: str) -> int:
    order = ("outdated", "superseded", "unused", "noisy")
    return order.index(group) if group in order else len(order)


def journal_items(journal: dict[str, Any]) -> list[ReviewItem]:
    """A journalled run's files, read-only, each with its recorded state."""
    changeset = ChangeSet(run_id=journal["run_id"], purpose=str(journal.get("purpose")),
                          engine=str(journal.get("engine")), created_at=str(journal.get("created_at")))
    items: list[ReviewItem] = []
    for data in journal.get("changes") or []:
        change = FileChange.from_json(data)
        changeset.changes.append(change)
        state = str(data.get("revert") and f"{data.get('state')}, revert: {data['revert']}" or data.get("state"))
        why = " — ".join(part for part in (", ".join(change.category), change.reason or "") if part)
        if change.why:
            why = (why + "\n" if why else "") + "staging " + ", ".join(change.why)
        if data.get("detail"):
            why += f"\n{data['detail']}"
        items.append(ReviewItem(id=change.path, label=change.path, group="files", why=why or "no reason recorded",
                                changes=[change], decidable=False, state=state))
    return items


__all__ = ["DECISIONS", "HELD_GROUP", "OP_MARK", "ReviewItem", "gc_items", "journal_items", "phase2_items", "staging_sources"]
