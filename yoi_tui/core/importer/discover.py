"""Which foreign files ``yoi import`` reads, and reading each into ``ForeignNote``s.

A PATH may be a file (recognised by its name) or a folder. In a folder the well-known places are
looked for — ``.cursor/rules/*.mdc``, ``.cursorrules``, ``.claude/skills/*/SKILL.md``,
``.agents/skills/*/SKILL.md``, ``.claude/commands/**/*.md``, ``CLAUDE.md``, ``AGENTS.md`` — and
when there are none the folder is taken as a notes vault (basic-memory / Obsidian: every ``*.md``
below it, hidden folders skipped).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from . import foreign
from .foreign import ForeignNote, ForeignProblem

_MAX_BYTES = 1024 * 1024


def _known_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    found += sorted((folder / ".cursor" / "rules").glob("*.mdc"))
    if (folder / ".cursorrules").is_file():
        found.append(folder / ".cursorrules")
    for skills in (".claude/skills", ".agents/skills"):
        found += sorted((folder / skills).glob("*/SKILL.md"))
    found += sorted((folder / ".claude" / "commands").rglob("*.md"))
    found += [folder / name for name in ("CLAUDE.md", "AGENTS.md") if (folder / name).is_file()]
    return [p for p in found if p.is_file()]


def _vault_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts[:-1]))


def files_to_read(paths: list[Path]) -> list[Path]:
    """Every file the given paths stand for, in a stable order, each once."""
    seen: set[Path] = set()
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            files = _known_files(path) or _vault_files(path)
        else:
            files = [path]
        for file in files:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                out.append(file)
    return out


def _origin(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def read_file(path: Path, root: Path) -> Iterator[ForeignNote | ForeignProblem]:
    """The notes in one foreign file, or a problem naming it (never an exception)."""
    origin = _origin(path, root)
    try:
        if path.stat().st_size > _MAX_BYTES:
            yield ForeignProblem(origin, f"larger than {_MAX_BYTES // 1024} KiB; skipped")
            return
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield ForeignProblem(origin, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
        return
    name = path.name
    if name in ("CLAUDE.md", "AGENTS.md"):
        yield from foreign.agents_md_sections(origin, text)
        return
    if name == ".cursorrules":
        yield foreign.cursorrules(origin, text)
        return
    try:
        meta, body = foreign.read_frontmatter(text)
    except ValueError as exc:
        yield ForeignProblem(origin, str(exc))
        return
    if path.suffix == ".mdc":
        yield foreign.cursor_rule(path, origin, meta, body)
    elif name == "SKILL.md":
        yield foreign.skill(path, origin, meta, body)
    elif "commands" in path.parts and path.parent.name != "skills" and ".claude" in path.parts:
        yield foreign.command(path, origin, meta, body)
    else:
        yield foreign.note(path, origin, meta, body)
