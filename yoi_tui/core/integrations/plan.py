"""A planned edit of harness config files: before/after text per file, its diff, and applying it."""

from __future__ import annotations

import difflib
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import YoiError
from ..store.atomic import atomic_write_text


class IntegrationError(YoiError):
    """A harness config file cannot be edited safely (malformed, unexpected shape, unreadable)."""


@dataclass
class FileEdit:
    """One file of a plan: ``before`` is None for a new file, ``after`` None to delete it."""

    path: Path
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, fromfile=str(self.path) if self.before is not None else "/dev/null",
                                     tofile=str(self.path) if self.after is not None else "/dev/null")
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
        return text


def read_text(path: Path) -> str | None:
    """The file's text, or None when it does not exist; an unreadable file is an ``IntegrationError``."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntegrationError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", path=path) from exc


def changed_only(edits: list[FileEdit]) -> list[FileEdit]:
    return [e for e in edits if e.changed]


def apply_edits(edits: list[FileEdit]) -> None:
    """Write every changed file atomically (a deleted ``after`` removes the file)."""
    for edit in changed_only(edits):
        if edit.after is None:
            try:
                edit.path.unlink()
            except FileNotFoundError:
                pass
            continue
        edit.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(edit.path, edit.after)


def yoi_command() -> list[str]:
    """argv that runs this very ``yoi``: its absolute script path, so no PATH change is needed.

    ``pipx`` / ``uv tool`` / a venv install a ``yoi`` script beside the interpreter; when the CLI is
    run some other way (``python -m yoi_tui.cli.main``) that script is still the one to call if it
    exists, else the interpreter with ``-m``.
    """
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "yoi" and argv0.is_file():
        return [str(argv0.absolute())]
    beside = Path(sys.executable).absolute().parent / ("yoi.exe" if os.name == "nt" else "yoi")
    if beside.is_file():
        return [str(beside)]
    return [str(Path(sys.executable).absolute()), "-m", "yoi_tui.cli.main"]


def shell_command(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)
