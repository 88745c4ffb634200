"""Per-session Phase 1 pointers in ``.yoi/state/phase1/``: the last entry index already processed.

A pointer moves only after the staging file for that range is durable, so a crash makes the same
range be processed again, never skipped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from ..errors import YoiError
from ..store.atomic import atomic_write_text
from ..store.safe_read import load_state_json
from ..store.workspace import Workspace


def pointer_path(ws: Workspace, session_id: str) -> Path:
    # Session ids come from logs; quote them so none can name a path outside the folder.
    return ws.state_dir / "phase1" / f"{quote(session_id, safe='')}.json"


def read_pointer(ws: Workspace, session_id: str) -> int:
    """Last processed entry index (-1: nothing processed). A damaged pointer restarts from -1."""
    try:
        data = load_state_json(pointer_path(ws, session_id))
        value = data["last_index"]
        return value if isinstance(value, int) and not isinstance(value, bool) else -1
    except (OSError, ValueError, KeyError, TypeError, YoiError):  # YoiError: not a regular file
        return -1


def write_pointer(ws: Workspace, session_id: str, last_index: int, log_path: Path) -> None:
    payload = {"session_id": session_id, "last_index": last_index, "log": str(log_path),
               "updated_at": datetime.now(UTC).isoformat(timespec="seconds")}
    atomic_write_text(pointer_path(ws, session_id), json.dumps(payload, indent=2) + "\n")
