"""Error types for expected failures.

Every error a user can cause (bad config, missing workspace, locked file) is a ``YoiError`` whose
message names the file or key at fault. The CLI turns these into one line on stderr and exit 2;
anything else is a bug and may show a traceback.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `yoi --help` imports this module, and typing costs ~3 ms
if TYPE_CHECKING:  # pathlib costs ~5 ms to import
    from pathlib import Path


class YoiError(Exception):
    """An expected error with a message meant for the user."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        self.path = str(path) if path is not None else None
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.message = message


class WorkspaceNotFound(YoiError):
    """No folder holding ``memory/`` or ``.yoi/`` above the starting directory."""


class ConfigError(YoiError):
    """``.yoi/config.toml`` is unreadable, not TOML, or holds a bad key or value."""


class RecordLockedError(YoiError):
    """A record's write bits are removed: a person locked it against automated rewriting."""


class RecordChangedError(YoiError):
    """A file changed on disk since it was read; writing would lose someone's edit."""


class UnsafePathError(YoiError):
    """A path leaves the folders a writer may touch (``..``, absolute, or a symlink out)."""


class ModelStopped(YoiError):
    """A model gave no valid answer within its retries, or the run's token budget is spent.

    A clean stop (what was written so far is kept, nothing is half-applied): the run's outcome, exit
    status 1 — not an environment error like an unreachable server or a missing key (exit 2).
    """
