"""``yoi install claude-code``: yoi's hook handlers in Claude Code settings and the MCP server entry.

Project scope edits ``.claude/settings.json`` and ``.mcp.json`` at the project root; user scope edits
``~/.claude/settings.json`` and the top-level ``mcpServers`` of ``~/.claude.json``. Every other key,
hook group and handler is kept in place. yoi's own handler is recognised by its command ending in
``hook claude-code``, so a re-install with a different ``yoi`` path replaces it rather than adding a
second, and uninstall removes exactly it (and only the containers it leaves empty).
"""

from __future__ import annotations

import copy
from pathlib import Path

from .hooksjson import plan_hooks
from .jsonfile import load_object, render
from .plan import FileEdit, IntegrationError, shell_command

# The events yoi handles (see core/hooks/events.py). SessionEnd is left out: Claude Code gives all
# SessionEnd hooks 1.5 s together, too little for Phase 1; Stop covers the end of every turn.
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop")
HOOK_SUFFIX = "hook claude-code"
SERVER = "yoi"
# Claude Code expands ${VAR:-default} in .mcp.json args and exports CLAUDE_PROJECT_DIR to stdio servers.
MCP_ARGS = ["mcp", "--workspace", "${CLAUDE_PROJECT_DIR:-.}"]


def settings_paths(scope: str, project: Path, home: Path) -> tuple[Path, Path]:
    """``(settings file, MCP file)`` for the scope."""
    if scope == "project":
        return project / ".claude" / "settings.json", project / ".mcp.json"
    if scope == "user":
        return home / ".claude" / "settings.json", home / ".claude.json"
    raise IntegrationError(f"unknown scope {scope!r} (use project or user)")


def plan_mcp(path: Path, argv: list[str], *, install: bool) -> FileEdit:
    before, original = load_object(path)
    data = copy.deepcopy(original)
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise IntegrationError(f"'mcpServers' is a {type(servers).__name__}, expected an object; "
                               "nothing was changed", path=path)
    if install:
        entry = {"command": argv[0], "args": [*argv[1:], *MCP_ARGS]}
        existing = servers.get(SERVER)
        if isinstance(existing, dict):
            entry = {**existing, **entry}  # keep the user's env/timeout on the entry
        data.setdefault("mcpServers", {})[SERVER] = entry
    elif SERVER in servers:
        del data["mcpServers"][SERVER]
        if not data["mcpServers"]:
            del data["mcpServers"]
    return FileEdit(path, before, render(before, data, original))


def plan(scope: str, project: Path, home: Path, argv: list[str], *, install: bool) -> list[FileEdit]:
    """Both files' edits; raises ``IntegrationError`` (touching nothing) if either cannot be edited."""
    settings, mcp = settings_paths(scope, project, home)
    command = shell_command([*argv, "hook", "claude-code"])
    return [plan_hooks(settings, command, EVENTS, HOOK_SUFFIX, install=install),
            plan_mcp(mcp, argv, install=install)]
