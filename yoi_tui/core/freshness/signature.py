"""How yoi decides a file changed: the one file signature every derived file under ``.yoi/state/`` keys on.

The lint caches (``lint/stored.py``, ``lint/cache.py``, ``lint/index.py``), the search index
(``retrieval/search_index.py``) and the listings cache (``retrieval/listing_cache.py``) keep facts
about record files (and folders) keyed by a ``Signature``:
the ``lstat`` fields that change whenever a file's content does — size, ``mtime_ns``,
``ctime_ns``, inode, mode — with one codec, a list of five integers in JSON (``to_json`` /
``from_json``) and five space-separated integers in a text column (``to_text`` / ``from_text``).
They share three rules, which live here so that they are written once:

* **Racily clean.** A file (or folder) whose ``mtime`` or ``ctime`` (``Signature.stamp``) is less
  than ``RACY_NS`` before the moment it was looked at may be used but not stored: a second write in
  the same timestamp tick could keep its signature (git's "racily clean" problem). Each user imports
  ``RACY_NS`` from here into its own namespace and compares there (the tests set that name per
  module to 0 to cache files written moments ago).
* **Same bytes.** A file whose signature changed but whose size and CRC-32 (``content_crc``) are the
  stored ones keeps its stored facts: GC's and Phase 2's scratch copies hard-link every record, which
  changes every ``ctime``, and without this check every cache re-read everything after them.
  ``same_bytes`` is that test (``Signature.may_hold_same_bytes`` the cheap half of it, before a read).
* **Only regular files are signed** (``file_signature``, ``regular_signature``): a symlink or
  anything else is read every time.

Imports nothing of ours.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

RACY_NS = 2_000_000_000  # files changed less than 2 s before a run are re-read next time


class Signature(NamedTuple):
    """A file's ``lstat`` fields that change whenever its content does. A named tuple: a lint
    signs every record file (50,000 per run) and compares them with the stored ones."""

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    mode: int

    @property
    def stamp(self) -> int:
        """The later of ``mtime`` and ``ctime``: what the racily-clean rule compares."""
        return self.mtime_ns if self.mtime_ns > self.ctime_ns else self.ctime_ns

    @property
    def is_regular(self) -> bool:
        return stat.S_ISREG(self.mode)

    def may_hold_same_bytes(self, other: Signature) -> bool:
        """True when the file ``other`` signs may hold the bytes this one did (same size and
        mode): whether reading it for the same-bytes check is worth it."""
        return self.size == other.size and self.mode == other.mode

    def to_json(self) -> list[int]:
        return [self.size, self.mtime_ns, self.ctime_ns, self.ino, self.mode]

    @staticmethod
    def from_json(value: Any) -> Signature | None:
        """The signature ``to_json`` wrote (None: not a list of five). The caches' own JSON, whose
        version and key ``store.json_cache`` checked: the items are not checked one by one (a lint
        loads 50,000 of them, and checking them doubled the cost)."""
        return _new(Signature, value) if type(value) is list and len(value) == 5 else None

    def to_text(self) -> str:
        return f"{self.size} {self.mtime_ns} {self.ctime_ns} {self.ino} {self.mode}"

    @staticmethod
    def from_text(text: str) -> Signature | None:
        """The signature ``to_text`` wrote at the start of ``text`` (what follows a space after it
        is the caller's); None: not one."""
        parts = text.split(" ", 5)[:5]
        try:
            return _new(Signature, map(int, parts)) if len(parts) == 5 else None
        except ValueError:
            return None


_new = tuple.__new__  # a Signature from five integers without the named tuple's per-call checks


def signature_of(st: os.stat_result) -> Signature:
    """The signature of what ``st`` describes (a file or a folder)."""
    return _new(Signature, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode))


def regular_signature(st: os.stat_result | None) -> Signature | None:
    """``signature_of(st)`` for a regular file; None for anything else (never stored)."""
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    return _new(Signature, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode))


def file_signature(path: str | Path) -> Signature | None:
    """The ``lstat`` signature of the regular file at ``path``; None for what is never cached (a
    symlink, anything but a regular file, a file that cannot be ``lstat``-ed)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return regular_signature(st)


def content_crc(data: bytes) -> int:
    """The CRC-32 the same-bytes check compares (``zlib.crc32``)."""
    # Imported here, not at module level: the lint fast path (``lint/stored.py``) imports this
    # module and never hashes, and zlib is a shared library to load.
    import zlib

    return zlib.crc32(data)


def same_bytes(old: Signature, old_crc: int | None, size: int, crc: int | None) -> bool:
    """True when stored facts taken from the file ``old`` signed, whose bytes had CRC ``old_crc``,
    describe a file now read as ``size`` bytes with CRC ``crc`` (None: not read, never the same)."""
    return crc is not None and old_crc == crc and old.size == size


__all__ = ["RACY_NS", "Signature", "content_crc", "file_signature", "regular_signature", "same_bytes",
           "signature_of"]
