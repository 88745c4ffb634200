"""The workspace: where a project's memory lives, how it is found, and ``yoi init``.

A workspace is the first folder, walking up from the current directory, that holds ``memory/`` or
``.yoi/`` (SPEC 2). Paths of every part of the layout are derived here and nowhere else.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

from ..errors import WorkspaceNotFound, YoiError
from .atomic import TEMP_GITIGNORE
from .config import DEFAULT_CONFIG_TEXT, Config, load_config

# The record layout relative to the root, in POSIX spelling: the one place these names are written
# (the ``Workspace`` paths below are built from them; ``kinds.RECORD_FOLDERS`` pairs folders and kinds).
# Folders end in "/": they are the prefixes of the workspace-relative paths listings and caches key by.
MEMORY_REL = "memory/"
SUMMARY_REL = "memory/summary.md"
DECISIONS_REL = "memory/decisions/"
REQUESTS_REL = "memory/requests/"
WORKFLOW_REL = "memory/workflow/"
STAGING_REL = "memory/_staging/"
KNOWLEDGE_REL = "knowledge/"

GITIGNORE_ENTRY = ".yoi/state/"
GITIGNORE_ENTRIES = (GITIGNORE_ENTRY, TEMP_GITIGNORE, STAGING_REL)
"""What ``yoi init`` adds to ``.gitignore``: run state, the temp files a killed writer may leave, and
Phase 1's staging (local to each clone; docs/team.md)."""


class Workspace:
    """A project root and the paths of its memory layout.

    A plain class rather than a dataclass: its constructor resolves the root, and the config is read
    on first use. Compared by root and given config, like the dataclass it was.
    """

    def __init__(self, root: Path | str, _config: Config | None = None) -> None:
        self.root = Path(root).resolve()
        self._config = _config

    def __repr__(self) -> str:
        return f"Workspace(root={self.root!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Workspace:
            return NotImplemented
        return self.root == other.root and self._config == other._config

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    @property
    def yoi_dir(self) -> Path:
        return self.root / ".yoi"

    @property
    def config_path(self) -> Path:
        return self.yoi_dir / "config.toml"

    @property
    def usage_dir(self) -> Path:
        return self.yoi_dir / "usage"

    @property
    def state_dir(self) -> Path:
        return self.yoi_dir / "state"

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_REL

    @property
    def summary_path(self) -> Path:
        return self.root / SUMMARY_REL

    @property
    def decisions_dir(self) -> Path:
        return self.root / DECISIONS_REL

    @property
    def requests_dir(self) -> Path:
        return self.root / REQUESTS_REL

    @property
    def workflow_dir(self) -> Path:
        return self.root / WORKFLOW_REL

    @property
    def staging_dir(self) -> Path:
        return self.root / STAGING_REL

    @property
    def knowledge_dir(self) -> Path:
        return self.root / KNOWLEDGE_REL

    @cached_property
    def config(self) -> Config:
        """The validated config (defaults when the file is absent); loaded once."""
        return self._config if self._config is not None else load_config(self.config_path, self.state_dir)

    def rel(self, path: Path | str) -> str:
        """``path`` relative to the root, with forward slashes (as shown in diagnostics)."""
        inside = self.rel_parts(path)
        if inside is not None:
            return "/".join(inside)
        try:
            return Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def rel_parts(self, path: Path | str) -> list[str] | None:
        """The parts of ``path`` below the root (made absolute, not resolved), or None when it is
        not below it. String work only: reading every record asks this several times per file."""
        absolute = os.path.abspath(path)
        root = str(self.root)
        cut = len(root) + 1
        if len(absolute) <= cut or not absolute.startswith(root) or absolute[cut - 1] != os.sep:
            return None
        return absolute[cut:].split(os.sep)

    def contains(self, path: Path) -> bool:
        """True when ``path``, with symlinks resolved, lies inside the workspace."""
        try:
            Path(path).resolve().relative_to(self.root)
        except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
            return False
        return True


def _is_workspace_root(folder: Path) -> bool:
    return (folder / "memory").is_dir() or (folder / ".yoi").is_dir()


def find_workspace(start: Path | None = None, explicit: Path | str | None = None) -> Workspace:
    """The workspace named by ``explicit``, or found by walking up from ``start`` (default: cwd)."""
    if explicit is not None:
        root = Path(explicit).expanduser()
        if not root.is_dir():
            raise WorkspaceNotFound("workspace folder does not exist", path=root)
        return Workspace(root)
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_workspace_root(folder):
            return Workspace(folder)
    raise WorkspaceNotFound(
        f"no yoi workspace here or above {here} (a folder holding memory/ or .yoi/); "
        "run `yoi init` in the project root or pass --workspace PATH"
    )


def init_workspace(root: Path) -> tuple[Workspace, list[str]]:
    """Create the layout of SPEC 2 under ``root``; idempotent. Returns what was created.

    Also the git side of sharing it (``store.team``): ignore and merge-attribute entries, and in a
    git clone the ``merge.yoi.driver`` config. Rerun in a fresh clone it changes no tracked file.
    """
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise YoiError("not a folder", path=root)
    ws = Workspace(root if root.exists() else _mkdir(root))
    created: list[str] = []
    for folder in (ws.decisions_dir, ws.requests_dir, ws.workflow_dir, ws.staging_dir,
                   ws.knowledge_dir, ws.usage_dir, ws.state_dir):
        if not folder.is_dir():
            _mkdir(folder)
            created.append(ws.rel(folder) + "/")
    if not ws.config_path.exists():
        ws.config_path.write_text(DEFAULT_CONFIG_TEXT, encoding="utf-8")
        created.append(ws.rel(ws.config_path))
    from .team import register_merge_driver, write_git_files  # team imports this module

    created += write_git_files(ws)
    created += register_merge_driver(ws)
    return ws, created


def _mkdir(folder: Path) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise YoiError(f"cannot create folder: {exc.strerror or exc}", path=folder) from exc
    return folder
