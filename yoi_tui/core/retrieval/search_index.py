"""The search index: which record files may hold a query's terms, from ``.yoi/state/search-v1.sqlite``.

``search.py`` used to read every file of a folder per query. The index keeps each file's
lower-cased text in an SQLite FTS5 table with the ``trigram`` tokenizer (substring queries from an
index), so a query reads only the files that can match. It is never trusted blindly:

* **Fresh before every answer.** Each query lists the folder and ``lstat``s every ``*.md`` entry;
  a file whose signature (size, mtime_ns, ctime_ns, inode) differs from the indexed one — an edit
  in an outside editor, a ``git checkout``, a rename — is re-read and re-indexed first, a vanished
  one dropped. Nothing is assumed from folder timestamps alone (an in-place edit does not change
  them). A file whose signature changed but not its size, mode or bytes (the CRC-32 kept with its
  signature: a hard link made or removed, a touch) keeps its indexed text.
* **Superset, never the answer.** The index only names candidates; ``search.py`` reads each one
  and decides with the same matcher as a plain scan, so hits, order, excerpts and problems are
  those of a plain scan (``tests/test_search_index.py`` checks this on randomized edits).
* **Always-candidates.** Files the index cannot vouch for are returned for every query: symlinks,
  non-regular files, unreadable or non-UTF-8 files (the scan reports them), and "racily clean"
  files changed within ``RACY_NS`` of the check (a second write in the same timestamp tick would
  keep the signature).
* **Short terms.** Trigrams need 3 characters: a query term shorter than that does not narrow the
  candidates (the scan decides it); other terms still do.
* **Self-healing.** A missing, corrupt or foreign database is rebuilt; one that cannot be written
  (read-only checkout, no ``.yoi/``) makes the search fall back to the plain scan (``None``).

SQLite 3.40 (Python's bundled one here) has no ``contentless_delete``: a changed file gets a new
row id and its old trigrams stay behind as garbage that no live file points at; the table is
rebuilt when garbage outgrows the live rows.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..freshness.signature import RACY_NS, Signature, content_crc, same_bytes
from ..store.record_listing import md_entries, open_folder
from ..store.workspace import SUMMARY_REL, Workspace

if TYPE_CHECKING:
    from ..freshness.record_feed import Subscription

try:  # hashlib loads OpenSSL first (2-4 ms per search); BLAKE2 itself is built in
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - another Python implementation
    from hashlib import blake2b as _blake2b

Found = tuple[str, int]  # (path, st_mode) of one listed record file

INDEX_NAME = "search-v1.sqlite"
SCHEMA_VERSION = "3"
MIN_TERM = 3  # trigram: shorter strings cannot be looked up
_GARBAGE_FACTOR = 1.0  # rebuild when dead rows exceed this share of live ones

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # state 0: text indexed under row id ``id``; 1: always a candidate (see the module docstring)
    "CREATE TABLE IF NOT EXISTS files(rel TEXT PRIMARY KEY, sig TEXT NOT NULL, state INTEGER NOT NULL,"
    " id INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS files_id ON files(id)",
    # the always-candidates without a scan of every row (an OR in one query made SQLite scan them all)
    "CREATE INDEX IF NOT EXISTS files_racy ON files(rel) WHERE state = 1",
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(body, tokenize='trigram case_sensitive 1', content='',"
    " detail=none)",
)


def index_path(ws: Workspace) -> Path:
    return ws.state_dir / INDEX_NAME


def _list(folder: Path, prefix: str, found: dict[str, Found], values: list[int]) -> bool | None:
    """Add every ``*.md`` of ``folder`` to ``found`` and its ``lstat`` fields to ``values``
    (``store.record_listing``). False: no such folder; None: it cannot be listed."""
    try:
        fd = open_folder(str(folder))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return None
    base = str(folder) + os.sep
    try:
        for name, st in md_entries(fd):
            if st is None:
                continue  # vanished while listed: as if listed a moment later
            found[prefix + name] = (base + name, st.st_mode)
            values += (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)
    except OSError:
        return None
    finally:
        os.close(fd)
    return True


def _trigram_query(terms: list[str]) -> str | None:
    """FTS5 query for files holding every trigram of every long-enough term (None: no such term).

    ``detail=none`` keeps the index small (no positions) but allows no phrase queries, so a term is
    looked up as the AND of its trigrams: a superset of the files holding it, which the scan's
    matcher then narrows exactly.
    """
    grams = sorted({t[i:i + MIN_TERM] for t in terms if len(t) >= MIN_TERM for i in range(len(t) - MIN_TERM + 1)})
    return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams) if grams else None


class SearchIndex:
    """One open index database; use as a context manager (``open_index``)."""

    def __init__(self, ws: Workspace, conn: sqlite3.Connection) -> None:
        self.ws = ws
        self.conn = conn

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ keeping it fresh

    def refresh(self, folders: Iterable[tuple[Path, str]], summary: Path | None = None) -> dict[str, Found] | None:
        """Bring the named folders (``(folder, rel_prefix)``) and the summary up to date.

        Returns every ``*.md`` found, by rel, as ``(path, st_mode)``; None when a folder cannot be
        listed (the plain scan then reports it exactly as before). When the digest of every name
        and ``lstat`` signature equals the stored one, no row is read from the database (the
        common case); a folder holding a racily clean file never stores its digest.
        """
        folders = list(folders)
        if not _watching:
            return self._refresh(folders, summary)
        with _steady_lock:  # the MCP server may run tool calls in several threads
            return self._refresh_watched(folders, summary)

    def _refresh_watched(self, folders: list[tuple[Path, str]], summary: Path | None) -> dict[str, Found] | None:
        """What ``_refresh`` answers, in a long-running process: the last listing, kept while the
        workspace's record feed (``freshness.record_feed``: the folders and every record file's
        inode, so a write through a hard link from outside is seen too) reports no event and the
        database is the one that listing was checked against (another process may have rebuilt
        it). Where the feed cannot vouch for contents (out of inotify watches), every search lists
        and ``lstat``-s the folders as a one-shot search does (issue 27)."""
        from ..freshness.record_feed import subscribe

        steady_key = (str(index_path(self.ws)), tuple(prefix for _folder, prefix in folders), str(summary))
        steady = _STEADY.pop(steady_key, None)
        subscription = steady[0] if steady is not None else subscribe(self.ws.root)
        changes = subscription.changes()  # before listing: a change made while listing is not missed
        if steady is not None and changes == {} and subscription.vouches_for_contents:
            _subscription, known, digest_key, digest = steady
            if known is not None and self._meta(digest_key) == digest:
                _STEADY[steady_key] = steady  # most recently used last
                return known
        found = self._refresh(folders, summary)
        stored = self._meta(self._digest_key(folders, summary)) if found is not None else None
        # "" or None: racy or unlistable, so the next search lists again (the subscription is kept)
        kept = found if found is not None and stored and subscription.vouches_for_contents else None
        _STEADY[steady_key] = (subscription, kept, self._digest_key(folders, summary), stored or "")
        while len(_STEADY) > STEADY_LIMIT:  # the command server sees many workspaces
            _STEADY.pop(next(iter(_STEADY)))
        return found

    @staticmethod
    def _digest_key(folders: list[tuple[Path, str]], summary: Path | None) -> str:
        prefixes = [prefix for _folder, prefix in folders] + ([SUMMARY_REL] if summary is not None else [])
        return "digest " + " ".join(prefixes)

    def _refresh(self, folders: list[tuple[Path, str]], summary: Path | None) -> dict[str, Found] | None:
        global LISTINGS
        LISTINGS += 1
        now_ns = time.time_ns()
        found: dict[str, Found] = {}
        values: list[int] = []  # size, mtime_ns, ctime_ns, inode, mode per file, in listing order
        prefixes: list[str] = []
        for folder, prefix in folders:
            prefixes.append(prefix)
            listed = _list(folder, prefix, found, values)
            if listed is None:
                return None
        if summary is not None:
            try:
                st = os.lstat(summary)
            except FileNotFoundError:
                st = None
            except OSError:
                return None
            if st is not None:
                found[SUMMARY_REL] = (str(summary), st.st_mode)
                values += (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)
            prefixes.append(SUMMARY_REL)
        digest_key = "digest " + " ".join(prefixes)
        digest = _blake2b("\0".join(found).encode("utf-8", "surrogateescape"), digest_size=20)
        try:
            digest.update(array("q", values).tobytes())
        except OverflowError:  # an inode beyond 2**63 (some file systems): hash the text instead
            digest.update(repr(values).encode())
        if self._meta(digest_key) == digest.hexdigest():
            return found
        clean = not values or (max(max(values[1::5]), max(values[2::5])) < now_ns - RACY_NS
                               and all(stat.S_ISREG(mode) for mode in set(values[4::5])))
        self._update(found, values, prefixes, now_ns, digest_key, digest.hexdigest() if clean else "")
        if self._maybe_compact():
            return self._refresh(folders, summary)  # the row ids just written are gone: index afresh
        return found

    def _update(self, found: dict[str, Found], values: list[int], prefixes: list[str], now_ns: int,
                digest_key: str, digest: str) -> None:
        """Re-index the files whose signature changed; drop the vanished ones."""
        conn = self.conn
        known: dict[str, str] = {}
        for prefix in prefixes:
            known.update(conn.execute("SELECT rel, sig FROM files WHERE rel >= ? AND rel < ?",
                                      (prefix, prefix + "\uffff")).fetchall())
        with conn:
            gone = [rel for rel in known if rel not in found]
            if gone:
                conn.executemany("DELETE FROM files WHERE rel = ?", [(rel,) for rel in gone])
            next_id = int(self._meta("next_id") or 1)
            for number, (rel, (path, _mode)) in enumerate(found.items()):
                signature = Signature(*values[5 * number:5 * number + 5])
                racy = not signature.is_regular or signature.stamp >= now_ns - RACY_NS
                sig = _row_sig(signature, racy)
                old = known.get(rel)
                if old is not None and old.startswith(sig) and old[len(sig):len(sig) + 1] in ("", " "):
                    continue  # the same signature (a CRC after it or not)
                data = None if racy else self._bytes(path)
                crc = content_crc(data) if data is not None else None
                if crc is not None:
                    sig = f"{sig} {crc}"
                    if old is not None and _same_bytes(old, signature, crc):
                        # A new signature over the same bytes (a hard link made or removed: GC and
                        # Phase 2 link every record into their scratch copy; a touch): indexed as it is.
                        conn.execute("UPDATE files SET sig = ? WHERE rel = ?", (sig, rel))
                        continue
                text = _lowered_text(data) if data is not None else None
                if text is None:
                    conn.execute("INSERT OR REPLACE INTO files(rel, sig, state, id) VALUES (?, ?, 1, 0)", (rel, sig))
                    continue
                conn.execute("INSERT INTO docs(rowid, body) VALUES (?, ?)", (next_id, text))
                conn.execute("INSERT OR REPLACE INTO files(rel, sig, state, id) VALUES (?, ?, 0, ?)",
                             (rel, sig, next_id))
                next_id += 1
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('next_id', ?)", (str(next_id),))
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (digest_key, digest))

    @staticmethod
    def _bytes(path: str) -> bytes | None:
        from ..store.reader import read_bytes

        return read_bytes(path)[0]

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _maybe_compact(self) -> bool:
        """Empty the index when dead row ids (replaced texts) outnumber the live ones (True: done)."""
        next_id = int(self._meta("next_id") or 1)
        live = self.conn.execute("SELECT count(*) FROM files WHERE state = 0").fetchone()[0]
        if next_id - 1 - live <= _GARBAGE_FACTOR * max(live, 1000):
            return False
        with self.conn:  # the next refresh re-reads everything (a rebuild)
            self.conn.execute("INSERT INTO docs(docs) VALUES ('delete-all')")  # contentless: no DELETE
            self.conn.execute("DELETE FROM files")
            self.conn.execute("DELETE FROM meta WHERE key = 'next_id' OR key LIKE 'digest %'")
        return True

    # ------------------------------------------------------------------ asking it

    def candidates(self, found: dict[str, Found], terms: list[str]) -> Iterator[tuple[str, Found]]:
        """The entries of ``found`` that may hold every term, in sorted-rel order, as the database
        hands them over: a search that stops at its limit after a few files of a common word
        does not fetch the thousands of rows it would never read. The index must stay open while
        this is consumed."""
        query = _trigram_query(terms)
        if query is None:
            yield from sorted(found.items())
            return
        cursor = self.conn.execute(
            "SELECT rel FROM files WHERE state = 1 UNION ALL "
            "SELECT rel FROM files WHERE id IN (SELECT rowid FROM docs WHERE docs MATCH ?) ORDER BY rel", (query,))
        while rows := cursor.fetchmany(64):
            for (rel,) in rows:
                entry = found.get(rel)
                if entry is not None:
                    yield rel, entry


# ---------------------------------------------------------------- steady state (long-running processes)

_watching = False
STEADY_LIMIT = 16  # listings kept at once (the feeds themselves: record_feed.FEEDS_KEPT)
LISTINGS = 0  # full listings made by this process (the steady state makes none; tests read it)
_STEADY: dict[tuple[str, tuple[str, ...], str], tuple[Subscription, dict[str, Found] | None, str, str]] = {}


_steady_lock: Any = None


def watch_for_changes(enabled: bool = True) -> None:
    """In a long-running process (the MCP server, the app), let the kernel say when the record
    record sources changed (``freshness.record_feed``) instead of ``lstat``-ing every file per
    search: a search with nothing changed since the last one skips the listing. Off by default: a one-shot CLI call would
    only pay for setting the watches up."""
    global _watching, _steady_lock
    if _steady_lock is None:
        import threading

        _steady_lock = threading.Lock()
    _watching = enabled
    if not enabled:
        from ..freshness.record_feed import close_all

        _STEADY.clear()
        close_all()


def open_index(ws: Workspace) -> SearchIndex | None:
    """The workspace's index, created or rebuilt as needed; None when it cannot be used (scan instead)."""
    if not ws.yoi_dir.is_dir():
        return None  # a bare memory/ folder: do not create state the user did not ask for
    path = index_path(ws)
    for attempt in range(2):
        try:
            path.parent.mkdir(exist_ok=True)
            conn = sqlite3.connect(path, timeout=5.0, isolation_level="DEFERRED")
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=OFF")  # a lost index is rebuilt; never worth an fsync
                for statement in _SCHEMA:
                    conn.execute(statement)
                row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is None:
                    conn.execute("INSERT INTO meta(key, value) VALUES ('version', ?)", (SCHEMA_VERSION,))
                    conn.commit()
                elif row[0] != SCHEMA_VERSION:
                    raise sqlite3.DatabaseError("foreign index version")
                return SearchIndex(ws, conn)
            except BaseException:
                conn.close()
                raise
        except sqlite3.DatabaseError:
            if attempt:
                return None
            _remove(path)  # corrupt or foreign: rebuild from scratch
        except OSError:
            return None
    return None


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass


def _lowered_text(data: bytes) -> str | None:
    """What the index holds of a file's bytes: its text, lower-cased (None: not UTF-8 text)."""
    from ..store.reader import decode_text

    text, _reason = decode_text(data)
    return text.lower() if text is not None else None


def _row_sig(signature: Signature, racy: bool) -> str:
    """The ``files.sig`` column without its CRC: the file's signature (``Signature.to_text``) and
    whether it was racy (then never indexed: an always-candidate); ``_update`` appends " <crc>"
    when it read the bytes."""
    return f"{signature.to_text()} {int(racy)}"


def _same_bytes(old_sig: str, signature: Signature, crc: int) -> bool:
    """True when ``old_sig`` (the ``files.sig`` column) was taken from a file that may hold the
    bytes ``signature`` signs now (same size and mode) whose bytes had this CRC-32, and was
    indexed (not racy)."""
    parts = old_sig.split(" ")
    old = Signature.from_text(old_sig) if len(parts) == 7 and parts[5] == "0" else None
    return old is not None and old.may_hold_same_bytes(signature) and parts[6].isdigit() \
        and same_bytes(old, int(parts[6]), signature.size, crc)
