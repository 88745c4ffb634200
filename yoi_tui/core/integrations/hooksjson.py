"""The Claude Code / Codex hooks JSON shape: event -> [matcher group {hooks: [handler]}].

Both harnesses use the same three levels, so one planner adds yoi's command handler to each event
(in a matcher group of its own, after the groups already there) and removes it again. yoi's handler
is recognised by its command ending in ``suffix`` (``hook claude-code`` / ``hook codex``), so a
re-install from another ``yoi`` path replaces it instead of adding a second.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .jsonfile import load_object, render
from .plan import FileEdit, IntegrationError


def _is_ours(handler: Any, suffix: str) -> bool:
    return (isinstance(handler, dict) and handler.get("type") == "command"
            and isinstance(handler.get("command"), str)
            and handler["command"].rstrip().endswith(suffix) and "yoi" in handler["command"])


def _event_groups(hooks: dict[str, Any], event: str, path: Path) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise IntegrationError(f"'hooks.{event}' is a {type(groups).__name__}, expected a list of matcher "
                               "groups; nothing was changed", path=path)
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise IntegrationError(f"'hooks.{event}' holds an entry that is not a matcher group with a "
                                   "'hooks' list; nothing was changed", path=path)
    return groups


def _hooks_of(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise IntegrationError(f"'hooks' is a {type(hooks).__name__}, expected an object; nothing was changed",
                               path=path)
    return hooks


def _strip_ours(data: dict[str, Any], path: Path, suffix: str) -> None:
    """Remove yoi's handlers, and the groups, events and ``hooks`` key that only held them."""
    if "hooks" not in data:
        return
    hooks = _hooks_of(data, path)
    for event in list(hooks):
        groups = _event_groups(hooks, event, path)
        kept = []
        for group in groups:
            handlers = group.get("hooks", [])
            remaining = [h for h in handlers if not _is_ours(h, suffix)]
            if len(remaining) == len(handlers):
                kept.append(group)
            elif remaining:
                kept.append({**group, "hooks": remaining})
        if len(kept) != len(groups):
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        elif any(len(g.get("hooks", [])) != len(k.get("hooks", [])) for g, k in zip(groups, kept, strict=True)):
            hooks[event] = kept
    if not hooks:
        del data["hooks"]


def _has_exactly(data: dict[str, Any], event: str, command: str, suffix: str) -> bool:
    groups = data.get("hooks", {}).get(event, [])
    ours = [h for g in groups for h in g.get("hooks", []) if _is_ours(h, suffix)]
    return len(ours) == 1 and ours[0].get("command") == command


def plan_hooks(path: Path, command: str, events: tuple[str, ...], suffix: str, *, install: bool) -> FileEdit:
    """The edit adding (or removing) one ``command`` handler per event, keeping every other handler."""
    before, original = load_object(path)
    data = copy.deepcopy(original)
    _hooks_of(data, path)
    for event in events:  # validate the shape before changing anything
        _event_groups(data.get("hooks", {}), event, path)
    if install and all(_has_exactly(data, e, command, suffix) for e in events):
        return FileEdit(path, before, before)
    _strip_ours(data, path, suffix)
    if install:
        hooks = data.setdefault("hooks", {})
        for event in events:
            hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": command}]})
    return FileEdit(path, before, render(before, data, original))
