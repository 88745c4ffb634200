"""The core's imports run one way: store <- retrieval, runs <- lint, sessions, phase1, phase2, gc.

Walks every import statement (module level and inside functions) of every module under
``yoi_tui/core`` and fails on one that runs the wrong way, or on any import of Textual or of the
app/CLI layers from the core.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "yoi_tui" / "core"
SHARED = {"errors", "diagnostics", "crashpoints", "notices", "lazy_names", "value_class"}
# What each wing may import of ours, besides itself and the shared modules.
ALLOWED: dict[str, set[str]] = {
    "store": set(),
    "retrieval": {"store"},
    "runs": {"store"},
}
WINGS = set(ALLOWED)
ABOVE = {"lint", "sessions", "phase1", "phase2", "gc"}
FORBIDDEN_OUTSIDE = ("textual", "yoi_tui.app", "yoi_tui.screens", "yoi_tui.widgets", "yoi_tui.cli",
                     "yoi_tui.mcp_server", "yoi_tui.messages", "textual_autocomplete", "textual_diff_view")


def module_name(path: Path, core: Path = CORE) -> str:
    rel = path.relative_to(core.parent.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path, core: Path = CORE) -> list[tuple[int, str]]:
    """Absolute names of every module imported by ``path``, with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path, core)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "yoi_tui.core" or (node.level and not node.module):
                # ``from . import x``: each name is a module of that package
                found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
            else:
                found.append((node.lineno, target))
    return found


def part_of(module: str) -> str | None:
    """The core part (``store``, ``lint``, ``errors``, ``browse`` …) a module belongs to."""
    if not module.startswith("yoi_tui.core."):
        return None
    return module.split(".")[2]


def violations(core: Path = CORE) -> list[str]:
    bad: list[str] = []
    for path in sorted(core.rglob("*.py")):
        here = part_of(module_name(path, core)) or ""
        for line, target in imports_of(path, core):
            where = f"{path.relative_to(core.parent.parent)}:{line} imports {target}"
            if target.startswith(FORBIDDEN_OUTSIDE):
                bad.append(f"{where} (the core never imports the app, the CLI or Textual)")
                continue
            there = part_of(target)
            if there is None or there == here or there in SHARED:
                continue
            if here in SHARED:
                bad.append(f"{where} ({here} is shared by all and imports nothing of ours)")
            elif here in WINGS and there not in ALLOWED[here]:
                bad.append(f"{where} ({here} may import only {sorted(ALLOWED[here] | SHARED)})")
    return bad


def test_core_imports_run_one_way() -> None:
    assert violations() == []


def test_every_wing_and_part_above_exists() -> None:
    for part in WINGS | ABOVE:
        assert (CORE / part / "__init__.py").is_file(), part
    for wing in WINGS:
        doc = ast.get_docstring(ast.parse((CORE / wing / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), f"{wing}/__init__.py must say what it may import"


@pytest.mark.parametrize(("source", "expected"), [
    ("from ..runs.changeset import apply\n", "store may import only"),
    ("from yoi_tui.core.lint import runner\n", "store may import only"),
    ("import textual\n", "never imports"),
    ("def f():\n    from ..retrieval import search\n", "store may import only"),
])
def test_checker_catches_a_wrong_way_import(tmp_path: Path, source: str, expected: str) -> None:
    """The walk itself can fail: a planted store module importing upwards is reported."""
    core = tmp_path / "yoi_tui" / "core"
    shutil.copytree(CORE, core, ignore=shutil.ignore_patterns("__pycache__"))
    (core / "store" / "_planted_for_test.py").write_text(source, encoding="utf-8")
    found = violations(core)
    assert any("_planted_for_test" in v and expected in v for v in found), found
