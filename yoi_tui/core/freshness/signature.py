"""The two rules every derived file under ``.yoi/state/`` uses to decide "is this file still fresh?".

The lint caches (``lint/stored.py``, ``lint/cache.py``, ``lint/index.py``), the search index
(``retrieval/search_index.py``) and the listings cache (``retrieval/listing_cache.py``) each keep
facts about record files keyed by the file's signature (its ``lstat``; each keeps its own format).
They share two rules, which live here so that they are written once:

* **Racily clean.** A file (or folder) whose ``mtime`` or ``ctime`` is less than ``RACY_NS`` before
  the moment it was looked at may be used but not stored: a second write in the same timestamp tick
  could keep its signature (git's "racily clean" problem). Each user imports ``RACY_NS`` from here
  into its own namespace and compares there (the tests set that name per module to 0 to cache
  files written moments ago).
* **Same bytes.** A file whose signature changed but whose size and CRC-32 (``content_crc``) are the
  stored ones keeps its stored facts: GC's and Phase 2's scratch copies hard-link every record, which
  changes every ``ctime``, and without this check every cache re-read everything after them.
  ``same_bytes`` is that test.

Imports nothing of ours.
"""

from __future__ import annotations

RACY_NS = 2_000_000_000  # files changed less than 2 s before a run are re-read next time


def content_crc(data: bytes) -> int:
    """The CRC-32 the same-bytes check compares (``zlib.crc32``)."""
    # Imported here, not at module level: the lint fast path (``lint/stored.py``) imports this
    # module and never hashes, and zlib is a shared library to load.
    import zlib

    return zlib.crc32(data)


def same_bytes(old_size: object, old_crc: object, size: object, crc: object) -> bool:
    """True when stored facts taken from ``old_size`` bytes with CRC ``old_crc`` describe a file
    now read as ``size`` bytes with CRC ``crc`` (None: not read, never the same)."""
    return crc is not None and old_crc == crc and old_size == size
