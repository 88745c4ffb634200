"""The core's imports run one way, over every package and loose module of ``yoi_tui/core``.

Walks every import statement (module level and inside functions) of every module under
``yoi_tui/core`` and fails on one that runs the wrong way (a part importing a part it is not
allowed to, below), on a part of the core the map does not name, or on any import of Textual or
of the app/CLI layers from the core. The map is the direction the code has today
(docs/architecture.md draws it); ``DEBTS`` are the imports against the intended rooms that
issue 24 names, allowed until they are moved, and no new one may be added silently.

Around the core, every other module of ``yoi_tui`` belongs to one front end (``FRONT_OF``) and
imports one way too (``FRONTS``): the app may import the core and the app's model
(``yoi_tui/model/``); the model, the CLI and the MCP server never import the app or Textual.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "yoi_tui" / "core"
SHARED = {"errors", "diagnostics", "crashpoints", "notices", "lazy_names", "fork_pool", "process_state"}
# What each part of the core may import of ours, besides itself and the shared modules: the direction
# of imports as it is today, lowest first (the graph, debts included, has no cycle: a test checks).
ALLOWED: dict[str, set[str]] = {
    # the wings
    "store": set(),
    "freshness": {"store"},
    "text": {"store"},
    "usage": {"store"},
    "retrieval": {"store", "freshness", "text", "usage"},
    "runs": {"store", "usage", "retrieval", "lint"},
    "export": {"store"},
    "integrations": {"store"},
    # the memory pipeline and the rules
    "sessions": {"store", "text", "usage"},
    "lint": {"store", "freshness", "text", "retrieval", "usage", "export"},
    "phase1": {"store", "retrieval", "runs", "sessions", "usage"},
    "phase2": {"store", "retrieval", "runs", "lint", "usage"},
    "gc": {"store", "retrieval", "runs", "lint", "usage"},
    "importer": {"store", "runs", "lint"},
    # what `yoi hook` runs (the CLI's only caller of it)
    "hooks": {"store", "retrieval", "usage", "sessions", "phase1", "phase2"},
}
# Imports that exist today against the rooms issue 24 asks for: allowed, each a debt of issue 24.
DEBTS: dict[str, set[str]] = {}
WINGS = {"store", "freshness", "text", "usage", "retrieval", "runs", "export"}  # their __init__ docstrings say what they may import
FORBIDDEN_OUTSIDE = ("textual", "yoi_tui.app", "yoi_tui.screens", "yoi_tui.widgets", "yoi_tui.cli",
                     "yoi_tui.mcp_server", "yoi_tui.messages", "textual_autocomplete", "textual_diff_view")
PACKAGE = CORE.parent
# The front ends around the core, and what each may import of ours (``core``: any of it): the app may
# import the core and its model, the core never the app (nor the model, the CLI or the MCP server).
FRONTS: dict[str, set[str]] = {
    "model": {"core"},  # yoi_tui/model/: the app's data model and its demo workspace, without Textual
    "mcp": {"core"},  # mcp_server.py (the protocol), mcp_tools.py (the tools)
    "cli": {"core", "mcp"},  # yoi_tui/cli/: one module per `yoi` command, the command server; `yoi mcp` starts the server
    "app": {"core", "model", "textual"},  # the Textual app and what only it uses
}
FRONT_OF = {"model": "model", "mcp_server": "mcp", "mcp_tools": "mcp", "cli": "cli", "app": "app",
            "app_main": "app", "messages": "app", "screens": "app", "widgets": "app", "screenshots": "app",
            "terminal": "app", "lint_process": "app"}


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
            if target.startswith(FORBIDDEN_OUTSIDE) or (
                    target.startswith("yoi_tui.") and not target.startswith("yoi_tui.core.")):
                bad.append(f"{where} (the core never imports the app, its model, the CLI or Textual)")
                continue
            there = part_of(target)
            if there is None or there == here or there in SHARED:
                continue
            if here in SHARED:
                bad.append(f"{where} ({here} is shared by all and imports nothing of ours)")
            elif here not in ALLOWED:
                bad.append(f"{where} ({here} is not in tests/test_architecture.py's map: add it there "
                           "and to docs/architecture.md)")
            elif there not in ALLOWED[here] | DEBTS.get(here, set()):
                bad.append(f"{where} ({here} may import only {sorted(ALLOWED[here] | SHARED)})")
    return bad


def front_of(module: str) -> str | None:
    """The front end (``FRONTS``) a module outside the core belongs to; None for one the map does not name."""
    parts = module.split(".")
    return FRONT_OF.get(parts[1]) if len(parts) > 1 else "package"


def imported_part(target: str) -> str | None:
    """``core``, a front end, ``textual`` (Textual and its add-ons), or None (anything else)."""
    if target == "textual" or target.startswith(("textual.", "textual_")):
        return "textual"
    parts = target.split(".")
    if parts[0] != "yoi_tui" or len(parts) < 2:
        return None
    return "core" if parts[1] == "core" else FRONT_OF.get(parts[1], parts[1])


def front_violations(package: Path = PACKAGE) -> list[str]:
    """Imports of the front ends that run the wrong way (the model or the CLI importing the app or
    Textual, the MCP server importing the CLI, ...), and modules outside the core the map does not name."""
    bad: list[str] = []
    core = package / "core"
    for path in sorted(package.rglob("*.py")):
        if core in path.parents:
            continue
        name = module_name(path, core)
        here = front_of(name)
        if here is None:
            bad.append(f"{path.relative_to(package.parent)} is in no front end of tests/test_architecture.py's "
                       "FRONT_OF: add it there and to docs/architecture.md")
            continue
        allowed = FRONTS.get(here, set()) | {here}
        for line, target in imports_of(path, core):
            there = imported_part(target)
            if there is not None and there not in allowed:
                bad.append(f"{path.relative_to(package.parent)}:{line} imports {target} "
                           f"({here} may import only {sorted(allowed - {here})})")
    return bad


def parts_of_core(core: Path = CORE) -> set[str]:
    """Every package and loose module directly under ``core`` (``__init__`` aside)."""
    found = {path.name for path in core.iterdir() if (path / "__init__.py").is_file()}
    found |= {path.stem for path in core.glob("*.py") if path.stem != "__init__"}
    return found


def test_core_imports_run_one_way() -> None:
    assert violations() == []


def test_front_ends_import_one_way() -> None:
    """The app may import the core and its model; the model, the CLI and the MCP server never the app or Textual."""
    assert front_violations() == []


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("model/_planted_for_test.py", "import textual\n", "model may import only ['core']"),
    ("model/_planted_for_test.py", "from ..widgets import header\n", "model may import only ['core']"),
    ("cli/_planted_for_test.py", "def f():\n    from ..app import YoiApp\n", "cli may import only"),
    ("_planted_for_test.py", "", "in no front end"),
])
def test_checker_catches_a_wrong_way_front_import(tmp_path: Path, where: str, source: str, expected: str) -> None:
    package = tmp_path / "yoi_tui"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "core"))
    (package / "core").mkdir()
    (package / where).write_text(source, encoding="utf-8")
    found = front_violations(package)
    assert any("_planted_for_test" in v and expected in v for v in found), found


def test_the_map_names_every_part_of_the_core_and_nothing_else() -> None:
    assert parts_of_core() == set(ALLOWED) | SHARED


def test_the_code_map_names_every_room() -> None:
    """docs/architecture.md names every package of the core (``lint/``), every shared module
    (``errors.py``) and the front ends' folders, so a newcomer finds each room from the map."""
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = {part for part in parts_of_core() if (CORE / part).is_dir()}
    missing = [f"{part}/" for part in sorted(packages) if f"{part}/" not in doc]
    missing += [f"{part}.py" for part in sorted(parts_of_core() - packages) if f"{part}.py" not in doc]
    missing += [f"yoi_tui/{front}/" for front in ("model", "cli") if f"yoi_tui/{front}/" not in doc]
    assert missing == []


def test_the_direction_has_no_cycle() -> None:
    """Allowed imports and debts together form a direction: no part reaches itself."""
    edges = {part: ALLOWED[part] | DEBTS.get(part, set()) for part in ALLOWED}
    assert set(DEBTS) <= set(ALLOWED) and all(edges[part] <= set(ALLOWED) for part in edges)

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(edges[start])
        while todo:
            part = todo.pop()
            if part not in seen:
                seen.add(part)
                todo.extend(edges[part])
        return seen

    assert [part for part in edges if part in reachable(part)] == []


def test_every_wing_says_what_it_may_import() -> None:
    for wing in WINGS:
        assert (CORE / wing / "__init__.py").is_file(), wing
    for wing in WINGS:
        doc = ast.get_docstring(ast.parse((CORE / wing / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), f"{wing}/__init__.py must say what it may import"


@pytest.mark.parametrize(("source", "expected"), [
    ("from ..runs.changeset import apply\n", "store may import only"),
    ("from yoi_tui.core.lint import runner\n", "store may import only"),
    ("import textual\n", "never imports"),
    ("from yoi_tui.model.browse import RecordStore\n", "never imports the app, its model"),
    ("def f():\n    from ..retrieval import search\n", "store may import only"),
])
def test_checker_catches_a_wrong_way_import(tmp_path: Path, source: str, expected: str) -> None:
    """The walk itself can fail: a planted store module importing upwards is reported."""
    core = tmp_path / "yoi_tui" / "core"
    shutil.copytree(CORE, core, ignore=shutil.ignore_patterns("__pycache__"))
    (core / "store" / "_planted_for_test.py").write_text(source, encoding="utf-8")
    found = violations(core)
    assert any("_planted_for_test" in v and expected in v for v in found), found


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("gc/_planted_for_test.py", "from ..phase1 import runner\n", "gc may import only"),
    ("lint/_planted_for_test.py", "from ..phase2 import runner\n", "lint may import only"),
    ("sessions/_planted_for_test.py", "from ..lint import runner\n", "sessions may import only"),
    ("browse_planted_for_test.py", "from .store import records\n", "not in tests/test_architecture.py's map"),
])
def test_checker_catches_an_import_outside_the_map(tmp_path: Path, where: str, source: str, expected: str) -> None:
    """Every part is checked, not only the wings; a debt allows its own import and no other."""
    core = tmp_path / "yoi_tui" / "core"
    shutil.copytree(CORE, core, ignore=shutil.ignore_patterns("__pycache__"))
    (core / where).write_text(source, encoding="utf-8")
    found = violations(core)
    assert any("_planted_for_test" in v and expected in v for v in found), found
