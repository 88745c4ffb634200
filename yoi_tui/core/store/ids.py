"""UUIDv7 ids (time-ordered): stdlib ``uuid.uuid7`` on Python >= 3.14, the ``uuid6`` package before."""

from __future__ import annotations

import uuid
from collections.abc import Callable

try:
    _uuid7: Callable[[], uuid.UUID] = uuid.uuid7  # type: ignore[attr-defined]
except AttributeError:
    from uuid6 import uuid7 as _uuid7


def new_id() -> str:
    """A new UUIDv7 as a string; ids made later sort after ids made earlier."""
    return str(_uuid7())
