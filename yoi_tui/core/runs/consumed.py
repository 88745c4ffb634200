"""Which staging ids this workspace has already consumed, by its run journals.

Staging is local (``memory/_staging/`` is git-ignored), but a staging file can still arrive through
git (committed before the ignore entry existed, or by hand). Phase 2 must apply it at most once per
workspace: an id that an applied (and not reverted) run journal lists as deleted was consumed
already. The journals (``.yoi/state/runs/``) are this clone's own, never shared.

Journals hold whole before/after texts, so a journal is parsed only when its raw text mentions one
of the ids asked about.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import YoiError
from ..store.safe_read import loads_json, read_state_bytes
from ..store.workspace import Workspace
from .changeset import runs_dir

_CONSUMED_STATES = ("deleted", "delete")


def consumed_staging(ws: Workspace, ids: Iterable[str]) -> dict[str, str]:
    """Of ``ids``, those an applied run of this workspace consumed: staging id → run id."""
    wanted = set(ids)
    found: dict[str, str] = {}
    if not wanted:
        return found
    try:
        journals = sorted(runs_dir(ws).glob("*.json"))
    except OSError:
        return found
    for path in journals:
        try:  # non-blocking, regular files only: a FIFO named like a journal is skipped, not waited on
            data = read_state_bytes(path)
        except (OSError, YoiError):
            continue  # recovery (changeset.recover_pending) reports and quarantines a broken journal
        if data is None:
            continue
        raw = data.decode("ascii", errors="replace")
        if not any(staging_id in raw for staging_id in wanted - found.keys()):
            continue
        try:
            journal = loads_json(raw)
        except ValueError:
            continue
        if not isinstance(journal, dict):
            continue
        if journal.get("status") not in ("applied", "applying") and not journal.get("inputs_tracked"):
            continue  # reverted before inputs were tracked one by one: it put them all back
        # (A revert that tracks its inputs marks those it put back "restored": they may be consumed
        # again; those it kept back — their changes were undone by git, not by it — stay consumed.)
        for item in journal.get("inputs") or []:
            if isinstance(item, dict) and item.get("id") in wanted and item.get("state") in _CONSUMED_STATES:
                found.setdefault(str(item["id"]), str(journal.get("run_id")))
    return found


__all__ = ["consumed_staging"]
