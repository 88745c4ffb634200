"""The one-time notice for a git workspace whose ``memory/_staging/`` is not ignored (docs/team.md)."""

from __future__ import annotations

import sys

from ..core.store.workspace import Workspace


def tell_staging_notice(ws: Workspace) -> None:
    """Print the notice on stderr once per clone (``store.team.staging_notice`` remembers it)."""
    from ..core.store.team import staging_notice

    try:
        notice = staging_notice(ws)
    except OSError:
        return
    if notice:
        print(f"yoi: note: {notice}", file=sys.stderr)
