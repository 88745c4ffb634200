"""Remembered review decisions: what a person rejected is not proposed again (issue 25).

Two stores, one shape — a folder with one small JSON file per rejection, so recording one never
rewrites another (no lost update between two writers, and in git no merge conflict between two
clones that each rejected something):

* **Phase 2** (``.yoi/state/review/phase2/``, local to the clone). A rejection names the staging
  *items* behind the rejected file (``item_fingerprint``: the item's session, section and full
  content, not the staging file's name, so a re-extraction of the same range is recognised too).
  The next runs leave those items out of what they fold in, whatever else their staging files
  hold (``hold_back_items``). Local because staging is: it stays in the clone that made it
  (docs/team.md), so nobody else ever sees these items.
* **GC** (``.yoi/review/gc/``, committed with the workspace). A rejection names an operation id
  (``drop:memory/decisions/x.md``) and the sha-256 of every file the operation changes, as the run
  read them. While each of those files holds the same bytes the operation is held back; once one
  changes it is proposed again. Shared because records are: every clone proposes the same operation
  on the same bytes (docs/team.md#who-runs-gc), and a teammate should not be asked again what one
  person already refused. The file's name and text are a function of the operation and the bytes
  alone (no time, no host), so two clones rejecting the same thing write the same file and git
  merges them silently.

A person withdraws a rejection by its id (or, for Phase 2, the path it was shown under; for GC,
the operation id): ``withdraw``. Nothing here takes the consolidation lock — one file per decision
is written atomically or deleted, which no run reads half-way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import YoiError
from ..store.atomic import atomic_write_bytes, fsync_dir
from ..store.safe_read import loads_json, read_regular_bytes
from ..store.workspace import Workspace

PHASE2_FOLDER = ("state", "review", "phase2")
GC_FOLDER = ("review", "gc")
ABSENT = "absent"  # the digest of a file that did not exist (an operation that adds one)
SECTIONS = ("decisions", "requests", "discussions", "attempts")


def digest_text(text: str | None) -> str:
    """sha-256 of a file's exact text (``changeset`` texts are surrogate-escaped bytes)."""
    if text is None:
        return ABSENT
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def digest_file(path: Path) -> str:
    try:
        return hashlib.sha256(read_regular_bytes(path)).hexdigest()
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return "unreadable"


def item_fingerprint(session_id: str, section: str, item: Any) -> str:
    """A staging item's identity: its session, its section and everything it says (range included)."""
    data = item.model_dump(mode="json") if hasattr(item, "model_dump") else item
    canonical = json.dumps([session_id, section, data], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def item_title(section: str, item: Any) -> str:
    for name in ("title", "intent", "topic", "trial"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:100]
    return section[:-1]


@dataclass
class Rejection:
    """One remembered rejection (see the module docstring). ``data`` is what its file holds."""

    id: str
    data: dict[str, Any]
    path: Path

    @property
    def shown_as(self) -> str:
        """The path (Phase 2) or operation id (GC) it was rejected under."""
        return str(self.data.get("operation") or self.data.get("path") or self.id)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, **self.data}


@dataclass
class RejectionStore:
    """A folder of rejections (one JSON file each, named ``<id>.json``)."""

    folder: Path
    problems: list[str] = field(default_factory=list)

    @classmethod
    def phase2(cls, ws: Workspace) -> RejectionStore:
        return cls(ws.yoi_dir.joinpath(*PHASE2_FOLDER))

    @classmethod
    def gc(cls, ws: Workspace) -> RejectionStore:
        return cls(ws.yoi_dir.joinpath(*GC_FOLDER))

    def load(self) -> list[Rejection]:
        """Every readable rejection, by id; an unreadable file is named in ``problems`` and ignored
        (it holds nothing back: proposing again is the safe side of a broken memory)."""
        found: list[Rejection] = []
        try:
            names = sorted(p.name for p in self.folder.iterdir() if p.name.endswith(".json"))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            self.problems.append(f"{self.folder}: cannot list ({exc.strerror or exc})")
            return []
        for name in names:
            path = self.folder / name
            try:
                data = loads_json(read_regular_bytes(path))
            except (OSError, ValueError) as exc:
                self.problems.append(f"{path}: not a readable rejection ({exc}); ignored")
                continue
            if not isinstance(data, dict):
                self.problems.append(f"{path}: not a JSON object; ignored")
                continue
            found.append(Rejection(name[: -len(".json")], data, path))
        return found

    def save(self, rejection_id: str, data: Mapping[str, Any]) -> Rejection:
        path = self.folder / f"{rejection_id}.json"
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(dict(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        atomic_write_bytes(path, text.encode("utf-8"))
        return Rejection(rejection_id, dict(data), path)

    def withdraw(self, names: Iterable[str]) -> tuple[list[Rejection], list[str]]:
        """Delete the rejections named by id, by the path/operation they were shown under, or by a
        unique id prefix (at least 6 characters). Returns (withdrawn, names that matched none)."""
        rejections = self.load()
        withdrawn: dict[str, Rejection] = {}
        unknown: list[str] = []
        for name in names:
            hits = [r for r in rejections if name in (r.id, r.shown_as)]
            if not hits and len(name) >= 6:
                hits = [r for r in rejections if r.id.startswith(name)]
                if len(hits) > 1:
                    raise YoiError(f"'{name}' is the prefix of {len(hits)} rejections; give more of the id")
            if not hits:
                unknown.append(name)
            for hit in hits:
                withdrawn[hit.id] = hit
        for hit in withdrawn.values():
            with contextlib.suppress(FileNotFoundError):
                hit.path.unlink()
        if withdrawn:
            fsync_dir(self.folder)
        return sorted(withdrawn.values(), key=lambda r: r.id), unknown


# --------------------------------------------------------------------------- Phase 2


def staging_items(staging: Any) -> list[tuple[str, int, Any, str]]:
    """``(section, index, item, fingerprint)`` of every item of a staging file."""
    session = staging.source.session_id
    return [(section, index, item, item_fingerprint(session, section, item))
            for section in SECTIONS for index, item in enumerate(getattr(staging.activity, section))]


def record_phase2_rejections(ws: Workspace, changes: Iterable[Any], items: Mapping[str, dict[str, Any]], *,
                             run_id: str) -> list[Rejection]:
    """Remember each rejected file change by the staging items behind it (``change.items``). A
    change that came from no staging item (the summary, knowledge made from the candidate report)
    holds nothing back and is not stored."""
    store = RejectionStore.phase2(ws)
    saved: list[Rejection] = []
    for change in changes:
        fingerprints = sorted(set(getattr(change, "items", None) or []))
        if not fingerprints or getattr(change, "derived", False):
            continue
        rejection_id = hashlib.sha256(json.dumps([change.path, fingerprints]).encode()).hexdigest()[:16]
        data = {"kind": "phase2", "path": change.path, "op": change.op, "run_id": run_id,
                "items": [{"fingerprint": fp, **{k: v for k, v in (items.get(fp) or {}).items() if k != "fingerprint"}}
                          for fp in fingerprints]}
        saved.append(store.save(rejection_id, data))
    return saved


def hold_back_items(ws: Workspace, staging: list[Any]) -> tuple[list[Any], list[dict[str, Any]], list[str]]:
    """The staging with every item an earlier rejection names left out; what was held back (one
    entry per item: the staging file, its title, the path it was rejected under and the rejection's
    id); and problems reading the store."""
    store = RejectionStore.phase2(ws)
    rejected: dict[str, Rejection] = {}
    for rejection in store.load():
        for item in rejection.data.get("items") or []:
            if isinstance(item, dict) and isinstance(item.get("fingerprint"), str):
                rejected.setdefault(item["fingerprint"], rejection)
    if not rejected:
        return staging, [], store.problems
    kept: list[Any] = []
    held: list[dict[str, Any]] = []
    for one in staging:
        drop: dict[str, set[int]] = {}
        for section, index, item, fingerprint in staging_items(one):
            found = rejected.get(fingerprint)
            if found is None:
                continue
            drop.setdefault(section, set()).add(index)
            held.append({"staging": one.id, "section": section, "item": item_title(section, item),
                         "path": found.data.get("path"), "rejection": found.id,
                         "run_id": found.data.get("run_id"),
                         "reason": f"rejected in review (run {found.data.get('run_id')}); "
                                   f"withdraw with `yoi phase2 --withdraw {found.id}`"})
        if not drop:
            kept.append(one)
            continue
        activity = one.activity.model_copy(update={
            section: [item for index, item in enumerate(getattr(one.activity, section)) if index not in indexes]
            for section, indexes in drop.items()})
        kept.append(one.model_copy(update={"activity": activity}))
    return kept, held, store.problems


# --------------------------------------------------------------------------- GC


def gc_rejection_id(operation_id: str, digests: Mapping[str, str]) -> str:
    payload = json.dumps([operation_id, sorted(digests.items())], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class GcRejections:
    """The GC rejections of a workspace, asked per operation during a run."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.store = RejectionStore.gc(ws)
        self.by_operation: dict[str, list[Rejection]] = {}
        for rejection in self.store.load():
            operation = rejection.data.get("operation")
            if isinstance(operation, str) and isinstance(rejection.data.get("digests"), dict):
                self.by_operation.setdefault(operation, []).append(rejection)

    @property
    def problems(self) -> list[str]:
        return self.store.problems

    def matching(self, operation_id: str, current: Mapping[str, str]) -> Rejection | None:
        """The rejection of ``operation_id`` whose files all still hold the bytes it was rejected on
        (``current``: path → digest now). None: not rejected, or one of its files has changed."""
        for rejection in self.by_operation.get(operation_id, ()):
            digests = rejection.data["digests"]
            if all(current.get(path, self._digest(path)) == digest for path, digest in digests.items()):
                return rejection
        return None

    def held_for(self, operation_id: str) -> Rejection | None:
        """As ``matching``, reading every named file from the workspace."""
        if operation_id not in self.by_operation:
            return None
        return self.matching(operation_id, {})

    def _digest(self, rel: str) -> str:
        return digest_file(self.ws.root / rel)

    def record(self, operation: Any, befores: Mapping[str, str | None], *, run_id: str) -> Rejection:
        digests = {path: digest_text(befores.get(path)) for path in sorted(operation.paths)}
        rejection_id = gc_rejection_id(operation.id, digests)
        data = {"kind": "gc", "operation": operation.id, "op": operation.op, "paths": sorted(operation.paths),
                "digests": digests, "categories": sorted(operation.categories)}
        return self.store.save(rejection_id, data)


def held_reason(rejection: Rejection, command: str) -> str:
    return (f"rejected in an earlier review and not proposed again while its files are unchanged; "
            f"withdraw with `yoi {command} --withdraw {rejection.id}`")


__all__ = ["ABSENT", "GcRejections", "Rejection", "RejectionStore", "digest_file", "digest_text", "gc_rejection_id",
           "hold_back_items", "held_reason", "item_fingerprint", "item_title", "record_phase2_rejections",
           "staging_items"]
