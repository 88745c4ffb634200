"""Every module-level value a function changes is named in ``core/process_state.py`` (issue 24).

The command server runs many commands in one process: a module global a command assigns or
mutates outlives it. The walk below finds every such name in ``yoi_tui`` (assigned under
``global``, or mutated through ``x[k] = …``, ``del x[k]``, ``x.append(…)``, ``x.update(…)``, …
inside a function) and fails on one the table does not classify, and on a table entry naming
nothing.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from yoi_tui.core import process_state

PACKAGE = Path(__file__).resolve().parents[1] / "yoi_tui"
MUTATORS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "discard",
            "remove", "appendleft", "move_to_end", "sort", "reverse"}


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def changed_globals(path: Path, package: Path = PACKAGE) -> set[str]:
    """``module:name`` of every module-level name a function of ``path`` assigns or mutates."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path, package)
    top: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    found: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = function.args
        local = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        local |= {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        declared = {name for node in ast.walk(function) if isinstance(node, ast.Global) for name in node.names}
        found |= declared
        local -= declared
        for node in ast.walk(function):
            target: ast.expr | None = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                target = node.func.value
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
                target = node.value
            if isinstance(target, ast.Name) and target.id in top and target.id not in local:
                found.add(target.id)
    return {f"{module}:{name}" for name in found}


def test_every_changed_module_global_is_classified() -> None:
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        found |= changed_globals(path)
    unclassified = sorted(found - process_state.STATE.keys())
    assert unclassified == [], (
        "module-level state not named in yoi_tui/core/process_state.py (say whether it is per request, "
        f"checked on every use, or a fact of the process): {unclassified}")
    stale = sorted(process_state.STATE.keys() - found)
    assert stale == [], f"process_state.STATE names what no function changes any more: {stale}"
    kinds = {entry[0] for entry in process_state.STATE.values()}
    assert kinds <= {process_state.PER_REQUEST, process_state.CHECKED, process_state.PROCESS}


def test_the_walk_finds_a_planted_memo(tmp_path: Path) -> None:
    """The walk itself can fail: a module keeping a dict it fills, and a counter under ``global``."""
    package = tmp_path / "yoi_tui"
    package.mkdir()
    planted = package / "planted.py"
    planted.write_text("_SEEN = {}\n_calls = 0\nLIMIT = {}\n\n"
                       "def f(key, value):\n    global _calls\n    _calls += 1\n    _SEEN[key] = value\n\n"
                       "def g(LIMIT):\n    LIMIT.update({})\n", encoding="utf-8")
    assert changed_globals(planted, package) == {"yoi_tui.planted:_SEEN", "yoi_tui.planted:_calls"}


def test_per_request_values_start_fresh() -> None:
    for key, entry in process_state.STATE.items():
        if entry[0] == process_state.PER_REQUEST:
            module_name, name = key.split(":")
            module = importlib.import_module(module_name)
            setattr(module, name, "left by the last request")
            process_state.reset_per_request()
            assert getattr(module, name) == entry[2]()
