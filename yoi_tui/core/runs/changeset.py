"""Change sets: what a writer run (Phase 2, GC) proposes, how it is applied, journalled and reverted.

A run never writes the workspace while it thinks. It works on a **scratch copy** (``Scratch``) of
``memory/`` and ``knowledge/``; every file it touches is remembered with its text as read, and at
the end the differences become a ``ChangeSet``: per file the operation (add/modify/delete), the
before and after text, and *why* (the staging ids behind it; for GC a category and a reason).

``apply(ws, changeset, only=..., deferred=...)`` then writes the chosen files (all, or the subset a
reviewer accepted), each atomically, and refuses a file whose current content is not the run's "before" (a
human edit wins: reported as a conflict, the file is left alone). Applying is crash-safe:

1. the journal ``.yoi/state/runs/<run-id>.pending.json`` (every before/after, every consumed input)
   is written first;
2. the files are written; a file already holding its "after" counts as applied, so redoing the
   step after a crash is harmless. Each file's check and rename hold the workspace write lock
   (``store.write_lock``, shared with the app's save), and ``replace_checked`` detects a program
   outside yoi writing between the check and the rename (a conflict, its bytes kept);
3. the journal is marked ``applied``; then the consumed inputs (Phase 2's staging files) are
   deleted — except those behind a conflicting change (their content did not land), behind a
   change the reviewer *deferred* (kept for a later run), or held back by the engine. A change the
   reviewer *rejected* consumes its inputs like an applied one: the proposal was judged;
4. the final journal ``<run-id>.json`` replaces the pending one.

``recover_pending(ws)`` finishes any run a crash interrupted (roll forward: steps 2–4 again). The
journal keeps the exact text of every file and input, so ``revert(ws, run)`` restores the exact
bytes the run replaced and puts the consumed inputs back, refusing any file changed since.
Applying and reverting a file are one step (``take_step`` over a ``Transition``: from the text the
file must hold to the text it is given — ``before → after`` to apply, ``after → before`` to revert),
each wording the outcome its own way; the journal keeps the plain JSON it always had.

Texts are exact: files are decoded as UTF-8 with ``surrogateescape`` (a BOM stays a ``\\ufeff``
character, CRLF stays CRLF), so before → after → revert round-trips byte for byte.

Callers hold the consolidation lock (``core.runs.consolidation_lock``) around ``apply``/``recover_pending``;
``revert`` takes it itself.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..crashpoints import crashpoint
from ..errors import RecordLockedError, YoiError
from ..store.atomic import atomic_write_bytes, fsync_dir, is_locked, make_temp, temp_prefix
from ..store.reader import encode_exact, read_exact
from ..store.safe_read import kind_of, load_state_json
from ..store.workspace import Workspace
from ..store.write_lock import write_lock
from .leftovers import new_scratch_dir, remove_tree

ChangeOp = Literal["add", "modify", "delete"]
JOURNAL_VERSION = 1
DEFERRED_IN_REVIEW = " was deferred in review"  # the end of a kept input's detail when a person deferred it


# --------------------------------------------------------------------------- exact text


def write_exact(path: Path, text: str) -> None:
    """Atomically write ``text`` (exact bytes; refuses a locked file with ``RecordLockedError``)."""
    atomic_write_bytes(Path(path), encode_exact(text))


def unified_diff(path: str, before: str | None, after: str | None, *, context: int = 3) -> str:
    """A ``git diff``-style unified diff of one file (``/dev/null`` for an added/deleted side)."""
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    for lines in (old, new):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n\\ No newline at end of file\n"
    fromfile = f"a/{path}" if before is not None else "/dev/null"
    tofile = f"b/{path}" if after is not None else "/dev/null"
    if old and new:
        return "".join(difflib.unified_diff(old, new, fromfile=fromfile, tofile=tofile, n=context))
    # One side empty (a file added or deleted): the whole file is one hunk, as difflib would write
    # it, without difflib's matching (GC deletes 11,000 files at 50,000 records).
    if not old and not new:
        return ""
    lines, sign = (old, "-") if old else (new, "+")
    span = "1" if len(lines) == 1 else f"1,{len(lines)}"
    ranges = f"-{span} +0,0" if old else f"-0,0 +{span}"
    return f"--- {fromfile}\n+++ {tofile}\n@@ {ranges} @@\n{sign}{sign.join(lines)}"


# --------------------------------------------------------------------------- the model


@dataclass
class FileChange:
    """One file of a change set.

    ``why``: the staging ids behind the change (Phase 2). ``category``/``reason``: GC's categories
    (outdated, superseded, unused, noisy) and one-line reason. ``derived``: the file is regenerated
    from other records (the summary); a conflict on it does not hold back any staging. ``items``:
    the fingerprints of the staging items behind it (``runs.rejections``), so a rejection of the
    file is remembered by what it came from.
    """

    path: str
    op: ChangeOp
    before: str | None
    after: str | None
    why: list[str] = field(default_factory=list)
    category: list[str] = field(default_factory=list)
    reason: str | None = None
    derived: bool = False
    items: list[str] = field(default_factory=list)

    def diff(self, context: int = 3) -> str:
        return unified_diff(self.path, self.before, self.after, context=context)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "op": self.op, "before": self.before, "after": self.after,
                "why": list(self.why), "category": list(self.category), "reason": self.reason,
                "derived": self.derived, "items": list(self.items)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileChange:
        return cls(path=str(data["path"]), op=data["op"], before=data.get("before"), after=data.get("after"),
                   why=list(data.get("why") or []), category=list(data.get("category") or []),
                   reason=data.get("reason"), derived=bool(data.get("derived")),
                   items=[str(i) for i in data.get("items") or []])


@dataclass
class ConsumedInput:
    """A file the run consumes (a staging file): deleted after a successful apply, restored on revert."""

    id: str
    path: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "text": self.text}


@dataclass
class ChangeSet:
    """Everything one run proposes. ``held``: input ids the engine did not fully use (kept, with why)."""

    run_id: str
    purpose: str
    engine: str
    created_at: str
    changes: list[FileChange] = field(default_factory=list)
    inputs: list[ConsumedInput] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [c.path for c in self.changes]

    def get(self, path: str) -> FileChange | None:
        return next((c for c in self.changes if c.path == path), None)

    def counts(self) -> dict[str, int]:
        counts = {"add": 0, "modify": 0, "delete": 0}
        for change in self.changes:
            counts[change.op] += 1
        return counts

    def diff(self, context: int = 3) -> str:
        return "".join(change.diff(context) for change in self.changes)

    def to_json(self, *, with_text: bool = True) -> dict[str, Any]:
        changes = []
        for change in self.changes:
            item = change.to_json()
            if not with_text:
                item.pop("before")
                item.pop("after")
            changes.append(item)
        return {"run_id": self.run_id, "purpose": self.purpose, "engine": self.engine,
                "created_at": self.created_at, "changes": changes,
                "inputs": [i.id for i in self.inputs], "held": dict(self.held), "notes": list(self.notes)}


# --------------------------------------------------------------------------- scratch copy


@dataclass
class _Touch:
    before: str | None
    deleted: bool = False  # by ``Scratch.delete``, and not written since: nothing there to read back
    why: list[str] = field(default_factory=list)
    category: list[str] = field(default_factory=list)
    reason: str | None = None
    derived: bool = False


def _copy_ignore(folder: str, names: list[str]) -> set[str]:
    # Leftover temporary files of interrupted atomic writes are nobody's records.
    return {n for n in names if n.startswith(".") and n.endswith(".tmp")}


def _link_or_copy(source: str, target: str) -> None:
    """Hard-link ``source`` into the scratch copy (a copy where links are impossible).

    The copy costs one link per file instead of reading and writing every byte, and stays correct
    because nothing writes a scratch file in place: ``Scratch.write`` renames a new file over the
    link (``write_exact``) and ``delete`` unlinks it, so the real record's inode is never touched.
    Only regular files are linked; anything else (a FIFO, a device) is not copied at all.
    """
    st = os.lstat(source)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"not a regular file ({kind_of(st.st_mode)})")
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        os.unlink(target)
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def _symlinks_under(top: Path) -> Iterator[Path]:
    """Every symlink below ``top`` (links to folders are not followed), from the folder listings'
    entry types: no ``lstat`` per file (a scratch copy holds every record)."""
    folders = [str(top)]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                yield Path(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)


class Scratch:
    """A throw-away copy of the workspace's ``memory/`` (without ``_staging/`` and ``workflow/``)
    and ``knowledge/`` that a run reads and writes; ``.ws`` is a ``Workspace`` rooted there (same
    config), so the linter and the search tools work on it unchanged.

    It lives under ``.yoi/state/scratch/<pid>-…`` (``leftovers.new_scratch_dir``; a killed run's copy
    is swept by the next recovery) and is made of hard links (``_link_or_copy``): only the files the
    engine writes get new bytes.

    Files keep their mode bits, so a locked (read-only) record is refused in the scratch copy too.
    Writes go through ``write``/``delete``, which remember each file's text before its first change.
    """

    def __init__(self, ws: Workspace, *, parent: Path | None = None) -> None:
        self.real = ws
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
            root = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=parent))
        else:
            root = new_scratch_dir(ws)
        self._dir = root
        self.problems: list[str] = []
        try:
            self._copy(ws.memory_dir, root / "memory", skip_top={"_staging", "workflow"})
            self._copy(ws.knowledge_dir, root / "knowledge", skip_top=set())
        except BaseException:
            remove_tree(root)
            raise
        self.ws = Workspace(root, _config=ws.config)
        self._root_str = str(self.ws.root)
        self._folders: dict[str, Path] = {}
        self.touched: dict[str, _Touch] = {}
        # Told the path of each file about to change (a progress line; it may raise to cancel the run).
        self.observer: Callable[[str], None] | None = None

    def _copy(self, source: Path, target: Path, *, skip_top: set[str]) -> None:
        if not source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return

        def ignore(folder: str, names: list[str]) -> set[str]:
            skipped = _copy_ignore(folder, names)
            if Path(folder) == source:
                skipped |= {n for n in names if n in skip_top}
            return skipped

        try:
            shutil.copytree(source, target, symlinks=True, ignore=ignore, dirs_exist_ok=True,
                            copy_function=_link_or_copy)
        except shutil.Error as exc:  # copies what it can, then lists what it could not
            for _src, _dst, why in exc.args[0]:
                self.problems.append(f"{self.real.rel(Path(_src))}: not copied to the scratch workspace ({why})")
        except OSError as exc:
            raise YoiError(f"cannot copy to the scratch workspace: {exc.strerror or exc}", path=source) from exc
        self._relink(target, copy_root=target.parent)

    def _relink(self, top: Path, *, copy_root: Path) -> None:
        """Point absolute links into the real workspace at the same place in the copy.

        Relative links already point inside the copy; links leading out stay as they are (and the
        readers and tools refuse them there as they would in the workspace).
        """
        real_root = self.real.root
        for link in _symlinks_under(top):
            target = Path(os.readlink(link))
            if not target.is_absolute():
                continue
            try:
                rel = Path(os.path.realpath(target)).relative_to(real_root)
            except ValueError:
                continue
            with contextlib.suppress(OSError):
                link.unlink()
                link.symlink_to(copy_root / rel)

    @property
    def root(self) -> Path:
        return self.ws.root

    def path(self, rel: str) -> Path:
        # On the folder's Path, kept: pathlib parses only the name (GC deletes 11,000 files at 50k).
        folder, _, name = rel.rpartition("/")
        parent = self._folders.get(folder)
        if parent is None:
            parent = self._folders[folder] = self.ws.root / folder if folder else self.ws.root
        return parent / name if name else parent

    def read(self, rel: str) -> str | None:
        return read_exact(self._fs(rel))

    def _fs(self, rel: str) -> str:
        # A string, not a Path: reading and deleting need no pathlib (GC deletes 11,000 files at 50k,
        # and three Paths a file cost ~20 us of each).
        return f"{self._root_str}/{rel}" if rel else self._root_str

    def _touch(self, rel: str, why: Iterable[str], category: Iterable[str], reason: str | None,
               derived: bool) -> _Touch:
        if self.observer is not None:
            self.observer(rel)
        touch = self.touched.get(rel)
        if touch is None:
            touch = self.touched[rel] = _Touch(before=self.read(rel))
        for item in why:
            if item not in touch.why:
                touch.why.append(item)
        for item in category:
            if item not in touch.category:
                touch.category.append(item)
        if reason:
            touch.reason = reason if not touch.reason or touch.reason == reason else f"{touch.reason}; {reason}"
        touch.derived = touch.derived or derived
        return touch

    def write(self, rel: str, text: str, *, why: Iterable[str] = (), category: Iterable[str] = (),
              reason: str | None = None, derived: bool = False) -> None:
        """Write ``text`` to ``rel`` in the scratch copy (``RecordLockedError`` for a locked file)."""
        path = self.path(rel)
        if is_locked(path):
            raise RecordLockedError("file is read-only (locked against automated rewriting); not changed",
                                    path=rel)
        self._touch(rel, why, category, reason, derived).deleted = False
        write_exact(path, text)

    def delete(self, rel: str, *, why: Iterable[str] = (), category: Iterable[str] = (),
               reason: str | None = None) -> None:
        path = self._fs(rel)
        if is_locked(path):
            raise RecordLockedError("file is read-only (locked against automated rewriting); not deleted",
                                    path=rel)
        touch = self._touch(rel, why, category, reason, False)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        touch.deleted = True

    def changes(self) -> list[FileChange]:
        """Touched files whose text differs from the text first read, in path order."""
        found: list[FileChange] = []
        for rel in sorted(self.touched):
            touch = self.touched[rel]
            after = None if touch.deleted else self.read(rel)
            if after == touch.before:
                continue
            op: ChangeOp = "add" if touch.before is None else ("delete" if after is None else "modify")
            found.append(FileChange(rel, op, touch.before, after, list(touch.why), list(touch.category),
                                    touch.reason, touch.derived))
        return found

    def changeset(self, *, run_id: str, purpose: str, engine: str, inputs: Iterable[ConsumedInput] = (),
                  held: dict[str, str] | None = None, notes: Iterable[str] = ()) -> ChangeSet:
        return ChangeSet(run_id=run_id, purpose=purpose, engine=engine, created_at=_now_iso(),
                         changes=self.changes(), inputs=list(inputs), held=dict(held or {}),
                         notes=[*self.problems, *notes])

    def close(self) -> None:
        remove_tree(self._dir)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# --------------------------------------------------------------------------- journal


def runs_dir(ws: Workspace) -> Path:
    return ws.state_dir / "runs"


def _journal_path(ws: Workspace, run_id: str, *, pending: bool) -> Path:
    return runs_dir(ws) / (f"{run_id}.pending.json" if pending else f"{run_id}.json")


def _write_journal(path: Path, journal: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise YoiError(f"cannot create the run journal folder: {exc.strerror or exc}", path=path.parent) from exc
    # ensure_ascii: lone surrogates (undecodable bytes kept exact) survive a JSON round trip.
    atomic_write_bytes(path, (json.dumps(journal, indent=1, ensure_ascii=True) + "\n").encode("ascii"))


class BrokenJournal(YoiError):
    """A run journal that is not a file, cannot be read, is not JSON or lacks or mistypes a field."""


def _read_journal(path: Path) -> dict[str, Any]:
    """The journal at ``path``, checked field by field (``BrokenJournal`` naming what is wrong).

    Read through ``safe_read.load_state_json``: a FIFO, folder or symlink named like a journal is
    refused without blocking. A journal is only ever written atomically by yoi, so anything that
    fails these checks was not (a disk error, a hand edit, planted), and nothing in it is used."""
    try:
        data = load_state_json(path)
    except YoiError as exc:
        raise BrokenJournal(f"unreadable run journal: {exc.message}", path=path) from exc
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or nested too deeply
        raise BrokenJournal(f"unreadable run journal: {getattr(exc, 'strerror', None) or exc}", path=path) from exc
    if data is None:
        raise BrokenJournal("run journal vanished while being read", path=path)
    problem = _journal_problem(data)
    if problem is not None:
        raise BrokenJournal(f"not a run journal: {problem}", path=path)
    data.setdefault("inputs", [])
    return data


_JOURNAL_STATUSES = ("applying", "applied", "reverted", "partially-reverted", "nothing-to-revert")


def _journal_problem(data: Any) -> str | None:
    """What makes ``data`` not a journal this module wrote (None: it could be one)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    run_id = data.get("run_id")
    if not isinstance(run_id, str) or not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
        return "run_id is missing or not a plain name"
    if data.get("status") not in _JOURNAL_STATUSES:
        return f"status {data.get('status')!r} is not one of {', '.join(_JOURNAL_STATUSES)}"
    if not isinstance(data.get("held") or {}, dict):
        return "held is not an object"
    for key, fields in (("changes", _CHANGE_FIELDS), ("inputs", _INPUT_FIELDS)):
        items = data.get(key, [] if key == "inputs" else None)
        if not isinstance(items, list):
            return f"{key} is not a list"
        for number, item in enumerate(items, 1):
            if not isinstance(item, dict):
                return f"{key} #{number} is not an object"
            for name, types in fields.items():
                if not isinstance(item.get(name), types):
                    return f"{key} #{number} has no valid {name!r}"
            if key == "changes" and item["op"] not in ("add", "modify", "delete"):
                return f"changes #{number} has op {item['op']!r}"
            if not all(isinstance(v, str) for v in item.get("why") or []):
                return f"{key} #{number} has a 'why' that is not a list of ids"
    return None


_OPTIONAL_TEXT = (str, type(None))
_CHANGE_FIELDS: dict[str, tuple[type, ...] | type] = {
    "path": str, "op": str, "state": str, "before": _OPTIONAL_TEXT, "after": _OPTIONAL_TEXT,
    "why": (list, type(None)), "detail": _OPTIONAL_TEXT}
_INPUT_FIELDS: dict[str, tuple[type, ...] | type] = {
    "id": str, "path": str, "state": str, "text": _OPTIONAL_TEXT, "detail": _OPTIONAL_TEXT}


def _outside_paths(ws: Workspace, journal: dict[str, Any]) -> list[str]:
    """The paths ``journal`` names that leave the workspace (``_inside`` refuses them)."""
    outside: list[str] = []
    for item in [*journal["changes"], *journal.get("inputs", [])]:
        try:
            _inside(ws, item["path"])
        except YoiError:
            outside.append(item["path"])
    return outside


@dataclass
class ApplyResult:
    """What ``apply`` (or a recovery) did."""

    run_id: str
    applied: list[FileChange] = field(default_factory=list)
    conflicts: list[tuple[FileChange, str]] = field(default_factory=list)
    rejected: list[FileChange] = field(default_factory=list)
    deferred: list[FileChange] = field(default_factory=list)
    inputs_deleted: list[str] = field(default_factory=list)
    inputs_kept: dict[str, str] = field(default_factory=dict)
    journal_path: Path | None = None
    recovered: bool = False

    @property
    def ok(self) -> bool:
        return not self.conflicts

    @property
    def write_failed(self) -> bool:
        """A file could not be written (a full disk, a read-only file system, permissions): an
        environment error (exit 2), reported with the conflicts and keeping its staging as they do."""
        return any(reason.startswith(CANNOT_WRITE) for _change, reason in self.conflicts)

    def counts(self) -> dict[str, int]:
        counts = {"add": 0, "modify": 0, "delete": 0}
        for change in self.applied:
            counts[change.op] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "applied": [{"path": c.path, "op": c.op, "why": c.why} for c in self.applied],
                "conflicts": [{"path": c.path, "reason": r} for c, r in self.conflicts],
                "rejected": [c.path for c in self.rejected], "deferred": [c.path for c in self.deferred],
                "inputs_deleted": self.inputs_deleted,
                "inputs_kept": self.inputs_kept, "journal": str(self.journal_path) if self.journal_path else None,
                "recovered": self.recovered}


def _inside(ws: Workspace, rel: str) -> Path:
    path = ws.root / rel
    if Path(rel).is_absolute() or ".." in Path(rel).parts or not ws.contains(path.parent):
        raise YoiError("journal names a path outside the workspace; refused", path=rel)
    return path


CANNOT_WRITE = "cannot write: "  # a conflict or refusal caused by the environment, not by someone's edit
_RACE_DETAIL = ("changed on disk while the run was writing it; the other program's version is kept "
                "and the run's version stays in the journal (the edit wins)")
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Any = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap the files at ``a`` and ``b`` (Linux ``renameat2(RENAME_EXCHANGE)``).

    False where the system or file system cannot (the caller falls back to link + rename).
    """
    global _renameat2
    if os.environ.get("YOI_NO_RENAME_EXCHANGE"):
        return False  # tests of the fallback path (and an escape hatch for an odd file system)
    if _renameat2 is None:
        _renameat2 = False
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            function = libc.renameat2
            function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            function.restype = ctypes.c_int
            _renameat2 = function
    if not _renameat2:
        return False
    import ctypes

    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def replace_checked(path: Path, expected: str | None, new: str | None) -> str | None:
    """Replace ``path`` holding ``expected`` with ``new`` (None: absent); a conflict detail or None.

    Callers hold the workspace write lock, which keeps yoi's own writers out. A program outside
    yoi may still write between our check and our rename, so the replacement itself captures the
    file it replaces: the new file and the old one are swapped atomically (``_exchange``; a
    deletion moves the old file aside), and if the bytes captured are not ``expected`` they are
    put back and a conflict is returned — nothing is reported as applied over bytes the run did
    not read. Captured files carry the ``.yoi-tmp-`` prefix, so a crash here leaves nothing a
    recovery does not sweep.
    """
    folder = path.parent
    tmp: Path | None = None
    try:
        if new is not None:
            try:
                mode = stat.S_IMODE(path.stat().st_mode)
            except FileNotFoundError:
                mode = 0o644
            fd, tmp = make_temp(folder, path.name)
            with os.fdopen(fd, "wb") as handle:
                handle.write(encode_exact(new))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
        if expected is None:
            assert tmp is not None
            crashpoint("apply:creating")
            try:
                os.link(tmp, path)  # never replaces a file someone created meanwhile
            except FileExistsError:
                return "file was created on disk while the run was writing it; left as it is (the edit wins)"
            fsync_dir(folder)
            return None
        crashpoint("apply:renaming")
        if tmp is None:
            tmp = folder / f"{temp_prefix(path.name)}deleted.tmp"
            try:
                os.rename(path, tmp)  # moves out exactly the file there now
            except FileNotFoundError:
                tmp = None
                return "file was deleted on disk while the run was deleting it; nothing to do"
        elif not _exchange(tmp, path):
            # No atomic swap here: link the old file aside, then rename. A rename by another
            # program between these two calls is the one write this cannot see (docs/reliability.md).
            aside = Path(f"{tmp}.before")
            try:
                os.link(path, aside)
            except FileNotFoundError:
                return "file was deleted on disk while the run was writing it; left as it is (the edit wins)"
            os.replace(tmp, path)
            tmp = aside
        captured = read_exact(tmp)
        if captured != expected:
            if new is not None:
                os.replace(tmp, path)
            else:
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, path)
            fsync_dir(folder)
            return _RACE_DETAIL
        fsync_dir(folder)
        return None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


# --------------------------------------------------------------------------- one file's transition


@dataclass(frozen=True, slots=True)
class Transition:
    """One journalled file brought from one text to another: ``apply`` moves it ``before → after``
    (``forward``), ``revert`` ``after → before`` (``backward``). ``None`` is "no file"."""

    path: str  # workspace-relative, as journalled
    source: str | None  # what the file must hold for the step to be taken
    target: str | None  # what it holds after

    @classmethod
    def forward(cls, change: dict[str, Any]) -> Transition:
        return cls(str(change["path"]), change.get("before"), change.get("after"))

    @classmethod
    def backward(cls, change: dict[str, Any]) -> Transition:
        return cls(str(change["path"]), change.get("after"), change.get("before"))


StepOutcome = Literal["moved", "done", "diverged", "locked", "unreadable", "failed", "raced"]


@dataclass(frozen=True, slots=True)
class Step:
    """What ``take_step`` found or did. ``moved``: written; ``done``: the file already held the
    target; ``diverged``: it holds neither text (``current``, at ``full_path``); ``locked``: it is
    read-only; ``unreadable``: it cannot be read or leaves the workspace; ``failed``: it could not
    be written (``detail`` starts with ``CANNOT_WRITE``); ``raced``: another program wrote it while
    it was replaced (its bytes kept, ``detail`` says so)."""

    outcome: StepOutcome
    detail: str | None = None
    current: str | None = None
    full_path: Path | None = None


def take_step(ws: Workspace, transition: Transition, *, crash_at: str | None = None) -> Step:
    """Bring one file from ``transition.source`` to ``.target`` if it holds the source: the one
    step ``apply`` and ``revert`` both take, each wording the outcome its own way. The caller
    holds the workspace write lock (``store.write_lock``) around it: the check and the
    replacement are one step to yoi's other writers. ``crash_at``: the crash point (tests) between
    the check and the write."""
    try:
        path = _inside(ws, transition.path)
        current = read_exact(path)
    except YoiError as exc:
        return Step("unreadable", exc.message)
    if current == transition.target:
        return Step("done")
    if current != transition.source:
        return Step("diverged", current=current, full_path=path)
    if is_locked(path):
        return Step("locked")
    if crash_at is not None:
        crashpoint(crash_at)
    try:
        if transition.target is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        detail = replace_checked(path, transition.source, transition.target)
    except (YoiError, OSError) as exc:
        return Step("failed", f"{CANNOT_WRITE}{getattr(exc, 'message', None) or exc}")
    return Step("raced", detail) if detail else Step("moved")


def _apply_one(ws: Workspace, change: dict[str, Any]) -> tuple[str, str | None]:
    """Bring one file from before to after; ("applied"|"conflict", detail). Holds the write lock."""
    with write_lock(ws.root):
        step = take_step(ws, Transition.forward(change), crash_at="apply:checked")
    if step.outcome in ("moved", "done"):
        return "applied", None
    if step.outcome == "diverged":
        what = ("was created" if change.get("before") is None else "was deleted" if step.current is None
                else "changed")
        return "conflict", f"file {what} on disk since the run read it; left as it is (the edit wins)"
    if step.outcome == "locked":
        return "conflict", "file is read-only (locked against automated rewriting); left as it is"
    return "conflict", step.detail


def _finish(ws: Workspace, journal: dict[str, Any], pending: Path, *, recovered: bool) -> ApplyResult:
    result = ApplyResult(run_id=journal["run_id"], recovered=recovered)
    if journal["status"] == "applying":
        for change in journal["changes"]:
            if change["state"] != "pending":
                continue
            change["state"], change["detail"] = _apply_one(ws, change)
            crashpoint("apply:file")
        kept: dict[str, str] = dict(journal.get("held") or {})
        for change in journal["changes"]:
            if change["state"] == "conflict" and not change.get("derived"):
                for staging_id in change.get("why") or []:
                    kept.setdefault(staging_id, f"its change to {change['path']} conflicted: {change['detail']}")
            elif change["state"] == "deferred" and not change.get("derived"):
                for staging_id in change.get("why") or []:
                    kept.setdefault(staging_id, f"its change to {change['path']}{DEFERRED_IN_REVIEW}")
        for item in journal["inputs"]:
            if item["id"] in kept:
                item["state"], item["detail"] = "kept", kept[item["id"]]
            else:
                item["state"] = "delete"
        journal["status"] = "applied"
        journal["applied_at"] = _now_iso()
        _write_journal(pending, journal)
        crashpoint("apply:journal-applied")
    for item in journal["inputs"]:
        if item["state"] != "delete":
            continue
        try:
            path = _inside(ws, item["path"])
            current = read_exact(path)
        except YoiError as exc:
            item["state"], item["detail"] = "kept", exc.message
            continue
        if current is None:
            item["state"] = "deleted"
        elif current != item["text"]:
            item["state"], item["detail"] = "kept", "changed since the run read it"
        else:
            try:
                path.unlink()
                fsync_dir(path.parent)
                item["state"] = "deleted"
            except FileNotFoundError:
                item["state"] = "deleted"
            except OSError as exc:
                item["state"], item["detail"] = "kept", f"cannot delete: {exc.strerror or exc}"
        crashpoint("apply:input")
    final = _journal_path(ws, journal["run_id"], pending=False)
    _write_journal(final, journal)
    crashpoint("apply:journal-final")
    with contextlib.suppress(FileNotFoundError):
        pending.unlink()
    fsync_dir(pending.parent)
    result.journal_path = final
    for change in journal["changes"]:
        fc = FileChange.from_json(change)
        if change["state"] == "applied":
            result.applied.append(fc)
        elif change["state"] == "conflict":
            result.conflicts.append((fc, change.get("detail") or "conflict"))
        elif change["state"] == "rejected":
            result.rejected.append(fc)
        elif change["state"] == "deferred":
            result.deferred.append(fc)
    for item in journal["inputs"]:
        if item["state"] == "deleted":
            result.inputs_deleted.append(item["id"])
        else:
            result.inputs_kept[item["id"]] = item.get("detail") or item["state"]
    return result


def apply(ws: Workspace, changeset: ChangeSet, *, only: Iterable[str] | None = None,
          deferred: Iterable[str] = ()) -> ApplyResult:
    """Apply ``changeset`` (or only the files in ``only``) to the workspace; see the module docstring.

    Files in ``deferred`` are journalled as deferred and the inputs behind them (their ``why``) are
    kept for a later run; other files not in ``only`` are journalled as rejected. Consumed inputs are
    deleted after the files are written, except inputs the engine held back and inputs behind a
    conflicting or deferred change (an input shared with an accepted change is kept too: keeping is
    the safe side, the next run sees the accepted record already written).
    """
    paths = set(changeset.paths())
    later = set(deferred)
    selected = (paths if only is None else set(only)) - later
    unknown = (selected | later) - paths
    if unknown:
        raise YoiError(f"not in the change set: {', '.join(sorted(unknown))}")

    def state(path: str) -> str:
        return "pending" if path in selected else "deferred" if path in later else "rejected"

    journal: dict[str, Any] = {
        "version": JOURNAL_VERSION, "run_id": changeset.run_id, "purpose": changeset.purpose,
        "engine": changeset.engine, "created_at": changeset.created_at, "status": "applying",
        "applied_at": None, "reverted_at": None, "held": dict(changeset.held), "notes": list(changeset.notes),
        "changes": [{**c.to_json(), "state": state(c.path), "detail": None}
                    for c in changeset.changes],
        "inputs": [{**i.to_json(), "state": "pending", "detail": None} for i in changeset.inputs],
    }
    pending = _journal_path(ws, changeset.run_id, pending=True)
    if pending.exists() or _journal_path(ws, changeset.run_id, pending=False).exists():
        raise YoiError(f"run {changeset.run_id} was already applied")
    _write_journal(pending, journal)
    crashpoint("apply:journal")
    return _finish(ws, journal, pending, recovered=False)


QUARANTINE = "quarantine"


def recover_pending(ws: Workspace, quarantined: list[str] | None = None) -> list[ApplyResult]:
    """Finish every run a crash interrupted (roll forward), oldest first. Hold the lock when calling.

    A pending journal that is broken (``BrokenJournal``: not a file, not JSON, a missing or
    mistyped field, a run id not its file name) or that names a path outside the workspace is
    never rolled forward: it is moved to ``.yoi/state/runs/quarantine/`` (kept for a person to
    look at) and the reason is appended to ``quarantined``; recovery goes on with the others."""
    folder = runs_dir(ws)
    try:
        pendings = sorted(folder.glob("*.pending.json"))
    except OSError:
        return []
    results: list[ApplyResult] = []
    for pending in pendings:
        run_id = pending.name[: -len(".pending.json")]
        if os.path.lexists(_journal_path(ws, run_id, pending=False)):
            # Crashed after the final journal was written: only the pending copy is left to remove.
            with contextlib.suppress(FileNotFoundError):
                pending.unlink()
            continue
        try:
            journal = _read_journal(pending)
            if journal["run_id"] != run_id:
                raise BrokenJournal(f"names run {journal['run_id']!r}, not its own file name's", path=pending)
            outside = _outside_paths(ws, journal)
            if outside:
                raise BrokenJournal(f"names a path outside the workspace ({outside[0]!r}); never rolled forward",
                                    path=pending)
        except BrokenJournal as exc:
            note = _quarantine(pending, exc)
            if quarantined is not None:
                quarantined.append(note)
            continue
        results.append(_finish(ws, journal, pending, recovered=True))
    return results


def _quarantine(path: Path, why: YoiError) -> str:
    """Move the broken journal ``path`` aside (never deleted) and say what was done."""
    target = path.parent / QUARANTINE / path.name
    try:
        target.parent.mkdir(exist_ok=True)
        for number in range(1, 1000):
            if not os.path.lexists(target):
                break
            target = path.parent / QUARANTINE / f"{path.name}.{number}"
        os.rename(path, target)
    except OSError as exc:
        raise YoiError(f"{why.message}; and it cannot be moved aside: {exc.strerror or exc}", path=path) from exc
    return f"{why}; moved to {target} and not applied"


# --------------------------------------------------------------------------- runs and revert


@dataclass
class RunSummary:
    run_id: str
    purpose: str
    engine: str
    status: str
    created_at: str
    applied_at: str | None
    reverted_at: str | None
    files: int
    pending: bool
    changes: list[dict[str, str]] = field(default_factory=list)  # {path, op, state} per file, journal order

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def counts(self) -> dict[str, int]:
        """Files per journalled state (applied, rejected, deferred, conflict, ...)."""
        found: dict[str, int] = {}
        for change in self.changes:
            found[change["state"]] = found.get(change["state"], 0) + 1
        return found


def _journal_files(ws: Workspace) -> dict[str, Path]:
    """run id → journal path (the final journal wins over a pending one)."""
    found: dict[str, Path] = {}
    try:
        entries = sorted(runs_dir(ws).glob("*.json"))
    except OSError:
        return found
    for path in entries:
        if path.name.endswith(".pending.json"):
            found.setdefault(path.name[: -len(".pending.json")], path)
        else:
            found[path.name[: -len(".json")]] = path
    return found


def list_runs(ws: Workspace) -> list[RunSummary]:
    """Journalled runs, oldest first (run ids are UUIDv7, so they sort by time)."""
    runs: list[RunSummary] = []
    for run_id, path in sorted(_journal_files(ws).items()):
        try:
            data = _read_journal(path)
        except YoiError:
            continue
        runs.append(RunSummary(run_id=run_id, purpose=str(data.get("purpose")), engine=str(data.get("engine")),
                               status=str(data.get("status")), created_at=str(data.get("created_at")),
                               applied_at=data.get("applied_at"), reverted_at=data.get("reverted_at"),
                               files=sum(c.get("state") == "applied" for c in data["changes"]),
                               pending=path.name.endswith(".pending.json"),
                               changes=[{"path": str(c.get("path")), "op": str(c.get("op")), "state": str(c.get("state"))}
                                        for c in data["changes"]]))
    return runs


def find_run(ws: Workspace, ref: str) -> tuple[str, Path]:
    """The journal of run ``ref``: a full run id, a unique prefix of one, or ``last``."""
    journals = _journal_files(ws)
    if not journals:
        raise YoiError("no applied runs are journalled in .yoi/state/runs/")
    if ref == "last":
        run_id = max(journals)
        return run_id, journals[run_id]
    if ref in journals:
        return ref, journals[ref]
    matches = [run_id for run_id in journals if run_id.startswith(ref)]
    if len(matches) == 1:
        return matches[0], journals[matches[0]]
    if not matches:
        raise YoiError(f"no journalled run '{ref}' (see `yoi revert --list`)")
    raise YoiError(f"'{ref}' matches {len(matches)} runs; give more of the run id")


def read_run(ws: Workspace, ref: str) -> dict[str, Any]:
    """The journal of run ``ref`` (see ``find_run``) as stored: every change with its state and texts."""
    _run_id, path = find_run(ws, ref)
    return _read_journal(path)


@dataclass
class RevertResult:
    run_id: str
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # of ``restored``: files the run had created
    already: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    inputs_restored: list[str] = field(default_factory=list)
    inputs_kept: list[str] = field(default_factory=list)  # staging left consumed: its changes were not undone here
    merged: list[str] = field(default_factory=list)  # of ``restored``: undone around later edits (not exact bytes)

    @property
    def ok(self) -> bool:
        return not self.refused

    @property
    def status(self) -> str:
        """``reverted``, ``partially-reverted`` or ``nothing-to-revert`` (what the journal now says)."""
        if not self.restored and not self.inputs_restored:
            return "nothing-to-revert"
        return "reverted" if self.ok and not self.inputs_kept else "partially-reverted"

    @property
    def write_failed(self) -> bool:
        """A file could not be written back (see ``ApplyResult.write_failed``): exit 2."""
        return any(reason.startswith(CANNOT_WRITE) for _path, reason in self.refused)

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "restored": self.restored, "removed": self.removed, "already": self.already,
                "refused": [{"path": p, "reason": r} for p, r in self.refused],
                "inputs_restored": self.inputs_restored, "inputs_kept": self.inputs_kept, "merged": self.merged,
                "status": self.status}


def _revert_one(ws: Workspace, change: dict[str, Any]) -> tuple[str, str | None]:
    """Bring one file back from after to before; ("restored"|"merged"|"already"|"refused", detail).
    Holds the write lock, around the three-way merge of a file edited since too."""
    with write_lock(ws.root):
        step = take_step(ws, Transition.backward(change))
        if step.outcome == "diverged":
            assert step.full_path is not None
            return _revert_around_later_edits(ws, step.full_path, change["path"], step.current,
                                              change.get("before"), change.get("after"),
                                              undone_before=change.get("revert") == "restored")
    if step.outcome == "moved":
        return "restored", None
    if step.outcome == "done":
        return "already", None
    if step.outcome == "locked":
        return "refused", "file is read-only (locked); left as it is"
    return "refused", step.detail


def _revert_around_later_edits(ws: Workspace, path: Path, rel: str, current: str | None, before: str | None,
                               after: str | None, *, undone_before: bool = False) -> tuple[str, str | None]:
    """Undo the run's change to a record edited since (a later commit, a rebase or cherry-pick that
    merged it with other work, a squash): a three-way merge with the run's text as the base, the
    file as it is as ours and the text before the run as theirs takes out what the run added and
    puts back what it removed, keeping the later edits. Only for a record the run modified and that
    merges cleanly; anything else is refused and left as it is."""
    refused = ("refused", "changed since the run applied it; left as it is")
    if current is None or after is None or is_locked(path):
        return refused
    from ..store.merge import kind_from_path, merge_deleted, merge_records

    if kind_from_path(rel) is None:
        return refused
    if before is None:
        # The run created the record and later work changed it: undoing the creation is a
        # deletion against those changes, settled as git's modify/delete is (store/unmerged.py):
        # what was added since survives, the run's own content goes.
        survivor = merge_deleted(after, current, path=rel)
        if survivor is None or (survivor.text is not None and not survivor.sources):
            # Not a readable record any more, or only a person's hand edits were added (no later
            # run's source): the run's content and theirs are one text now; a person decides.
            return refused
        if survivor.text == current:
            # Nothing of the run is left in it: undone already by an earlier revert; otherwise a
            # person rewrote it, and their version stands as it is.
            return ("already", None) if undone_before else refused
        try:
            detail = replace_checked(path, current, survivor.text)
        except (YoiError, OSError) as exc:
            return "refused", f"cannot write: {getattr(exc, 'message', None) or exc}"
        return ("refused", detail) if detail else ("restored" if survivor.text is None else "merged", None)
    merged = merge_records(after, current, before, path=rel, sources_max=ws.config.records.sources_max)
    if merged is None or not merged.clean:
        return ("refused", "changed since the run applied it, and the run's change cannot be taken out of it "
                "cleanly; left as it is")
    if merged.text == current:
        return "already", None  # (what the run changed is no longer there: undone already)
    try:
        detail = replace_checked(path, current, merged.text)
    except (YoiError, OSError) as exc:
        return "refused", f"cannot write: {getattr(exc, 'message', None) or exc}"
    return ("refused", detail) if detail else ("merged", None)


def revert(ws: Workspace, ref: str, *, take_lock: bool = True) -> RevertResult:
    """Undo an applied run: restore every file it wrote (exact bytes) and the inputs it consumed.

    A record changed since the run (a later edit, a rebase, cherry-pick or squash that merged it
    with other work) has the run's change taken out of it by a three-way merge when that is clean
    (``merged``); any other file changed since is refused and left as it is (reported). Only the
    staging of what was really undone goes back. Idempotent: reverting again restores what is left
    and reports the rest as already reverted.
    """
    run_id, path = find_run(ws, ref)
    lock = None
    if take_lock:
        from .consolidation_lock import ConsolidationLock

        lock = ConsolidationLock(ws, purpose="revert").acquire()
    try:
        if lock is not None:
            from .leftovers import sweep

            sweep(ws)
        journal = _read_journal(path)
        result = RevertResult(run_id=run_id)
        for change in journal["changes"]:
            if change.get("state") not in ("applied", "pending"):
                continue
            outcome, detail = _revert_one(ws, change)
            crashpoint("revert:file")
            change["revert"] = outcome
            if outcome == "merged":  # undone around later edits: restored, not to the exact bytes
                change["revert"] = outcome = "restored"
                result.restored.append(change["path"])
                result.merged.append(change["path"])
            elif outcome == "restored":
                result.restored.append(change["path"])
                if change.get("before") is None:
                    result.removed.append(change["path"])
            elif outcome == "already":
                result.already.append(change["path"])
            else:
                result.refused.append((change["path"], detail or "refused"))
        # Put back only the staging of what this revert really undid: an input whose changes were
        # all reverted by something else already (``git revert``, a rebase that dropped them) or were
        # refused stays consumed, or the next Phase 2 would make those records again (issue 30).
        outcomes: dict[str, set[str]] = {}
        for change in journal["changes"]:
            for staging_id in change.get("why") or []:
                outcomes.setdefault(staging_id, set()).add(str(change.get("revert")))
        for item in journal.get("inputs") or []:
            if item.get("state") not in ("deleted", "delete"):
                continue
            seen = outcomes.get(item.get("id"))
            # (An input behind a refused change and a restored one goes back: what it made is partly
            # undone, and Phase 2 merges what it makes again into the refused file's record.)
            put_back = "restored" in seen if seen else bool(result.restored)
            if not put_back:
                result.inputs_kept.append(item["id"])
                continue
            try:
                target = _inside(ws, item["path"])
                if read_exact(target) is None:
                    write_exact(target, item["text"])
                    result.inputs_restored.append(item["id"])
                item["state"] = "restored"
            except (YoiError, OSError) as exc:
                result.refused.append((item["path"], f"cannot restore: {getattr(exc, 'message', None) or exc}"))
        previous = journal.get("status")
        if result.status != "nothing-to-revert" or previous not in ("reverted", "partially-reverted"):
            journal["status"] = result.status  # (reverting again changes nothing: the run stays reverted)
        journal["inputs_tracked"] = True  # each input's state says whether it was put back (runs.consumed)
        journal["reverted_at"] = _now_iso()
        final = _journal_path(ws, run_id, pending=False)
        _write_journal(final, journal)
        if path != final:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return result
    finally:
        if lock is not None:
            lock.release()


__all__ = ["BrokenJournal", "ApplyResult", "ChangeSet", "ConsumedInput", "FileChange", "RevertResult", "RunSummary", "Scratch",
           "Step", "Transition", "take_step",
           "apply", "find_run", "list_runs", "read_run", "recover_pending", "revert", "runs_dir",
           "unified_diff", "write_exact"]
