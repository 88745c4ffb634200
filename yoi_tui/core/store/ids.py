"""UUIDv7 ids (RFC 9562, time-ordered): stdlib ``uuid.uuid7`` on Python >= 3.14, our own before.

Ours is a dozen lines instead of the ``uuid6`` package, which reads its own package metadata at
import (``importlib.metadata``, ~20 ms): every ``yoi search`` with a hit records an event id, and
start-up is measured. Layout: 48-bit Unix milliseconds, version 7, 12 bits that continue the
timestamp as a counter (so ids made later in this process sort after ids made earlier, even within
one millisecond), the RFC variant, then 62 random bits.
"""

from __future__ import annotations

import os
import sys
import time

_last = 0  # the last (milliseconds << 12 | counter) handed out by this process


def _uuid7() -> str:
    global _last
    stamp = max((time.time_ns() // 1_000_000) << 12, _last + 1)
    _last = stamp
    rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (stamp >> 12) << 80 | 0x7 << 76 | (stamp & 0xFFF) << 64 | 0b10 << 62 | rand_b
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def new_id() -> str:
    """A new UUIDv7 as a string; ids made later sort after ids made earlier."""
    if sys.version_info >= (3, 14):  # the stdlib's, once it has one (uuid is imported only then)
        import uuid

        return str(uuid.uuid7())
    return _uuid7()
