"""``yoi install codex``: the ``[mcp_servers.yoi]`` table in Codex's ``config.toml`` and yoi's hooks.

The TOML is edited as text, never round-tripped through a TOML writer: every byte outside the
``[mcp_servers.yoi]`` table (and its sub-tables such as ``[mcp_servers.yoi.env]``) stays as it was,
comments and formatting included. The edit is checked with ``tomllib`` before it is offered: the
file must parse before and after, and everything but ``mcp_servers.yoi`` must parse to the same
data, so a file written in a shape the text edit does not understand (an inline
``mcp_servers = {...}``, a ``yoi = {...}`` key under ``[mcp_servers]``) is refused, untouched.

Hooks go to ``hooks.json`` beside the config (Codex ≥ 0.114 reads ``.codex/hooks.json`` and
``~/.codex/hooks.json``; same JSON shape as Claude Code's), calling ``yoi hook codex``. The
``[features]`` flag is written only for a Codex that keeps hooks off by default
(``codex_trust.hooks_flag``); trusting the hooks is ``codex_trust``'s part.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from .hooksjson import plan_hooks
from .plan import FileEdit, IntegrationError, read_text, shell_command

# Codex events yoi handles; Codex has no SessionEnd, and Stop ends every turn.
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop")
HOOK_SUFFIX = "hook codex"
_HEADER = re.compile(r"""^[ \t]*\[\[?[ \t]*([^\]]*?)[ \t]*\]\]?[ \t]*(#.*)?$""")
_OURS = re.compile(r"""^mcp_servers[ \t]*\.[ \t]*(yoi|"yoi"|'yoi')([ \t]*\..*)?$""")


def config_dir(scope: str, project: Path, codex_home: Path) -> Path:
    if scope == "project":
        return project / ".codex"
    if scope == "user":
        return codex_home
    raise IntegrationError(f"unknown scope {scope!r} (use project or user)")


def table_text(argv: list[str]) -> str:
    """yoi's table, written by hand (TOML basic strings via JSON escaping, which TOML accepts)."""
    args = ", ".join(json.dumps(a) for a in [*argv[1:], "mcp"])
    return f"[mcp_servers.yoi]\ncommand = {json.dumps(argv[0])}\nargs = [{args}]\n"


def _split(text: str) -> tuple[str, str, str]:
    """``(before, our tables, after)`` of the text; ``our tables`` is empty when absent."""
    lines = text.splitlines(keepends=True)
    start = end = None
    for number, line in enumerate(lines):
        match = _HEADER.match(line.rstrip("\r\n"))
        if not match:
            continue
        ours = bool(_OURS.match(match.group(1)))
        if ours and start is None:
            start = number
        elif start is not None and not ours:
            end = number
            break
    if start is None:
        return text, "", ""
    end = len(lines) if end is None else end
    # Blank lines and comments just above the next table belong to it, not to us.
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IntegrationError(f"not valid TOML ({exc}); fix it by hand, nothing was changed", path=path) from exc


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    servers = data.get("mcp_servers")
    if isinstance(servers, dict) and "yoi" in servers:
        rest = {k: v for k, v in servers.items() if k != "yoi"}
        data = {**data, "mcp_servers": rest}
        if not rest:
            del data["mcp_servers"]
    return data


def plan_config(path: Path, argv: list[str], *, install: bool) -> FileEdit:
    before = read_text(path)
    text = before or ""
    original = _parse(text, path)
    head, ours, tail = _split(text)
    if install:
        table = table_text(argv)
        if ours:  # blank lines and comments before the next table were left in ``tail`` by _split
            new = head + table + tail
        else:
            sep = "" if not head or head.endswith("\n\n") else ("\n" if head.endswith("\n") else "\n\n")
            new = head + sep + table + tail
    else:
        if ours and head.endswith("\n\n"):
            # The blank line before our table goes with it: no double blank line, none at the end.
            tail = tail.lstrip("\n") if tail.strip() else ""
            head = head if tail else head.rstrip("\n") + "\n"
        new = head + tail
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        after = {}  # the text edit broke the file: refused below
    expected_yoi = {"command": argv[0], "args": [*argv[1:], "mcp"]}
    ok = bool(after or not new.strip()) and _without_ours(after) == _without_ours(original) and (
        after.get("mcp_servers", {}).get("yoi") == expected_yoi if install else "yoi" not in after.get("mcp_servers", {}))
    if not ok:
        raise IntegrationError(
            "the [mcp_servers.yoi] entry is written in a form yoi cannot edit as text (an inline table or a "
            "dotted key); move it to its own [mcp_servers.yoi] table or remove it, nothing was changed", path=path)
    if not new.strip():  # uninstall left nothing: remove the file yoi created
        return FileEdit(path, before, None if (before is None or ours) else before)
    return FileEdit(path, before, new)


_NOTIFY = re.compile(r"^[ \t]*notify[ \t]*=")
NOTIFY_ARG = "codex-notify"


def notify_line(argv: list[str]) -> str:
    return f"notify = [{', '.join(json.dumps(a) for a in [*argv, 'hook', NOTIFY_ARG])}]\n"


def with_notify(text: str, argv: list[str], *, add: bool, path: Path) -> str:
    """``text`` with yoi's top-level ``notify`` line added (``add``) or removed; other bytes kept.

    Codex runs one notify program, so a ``notify`` that is not yoi's is refused, untouched.
    """
    lines = text.splitlines(keepends=True)
    first_table = next((i for i, line in enumerate(lines) if _HEADER.match(line.rstrip("\r\n"))), len(lines))
    found = next((i for i in range(first_table) if _NOTIFY.match(lines[i])), None)
    ours = found is not None and NOTIFY_ARG in lines[found] and lines[found].rstrip().endswith("]")
    if found is not None and not ours:
        if not add:
            return text
        raise IntegrationError("'notify' is already set to another program (Codex runs only one); leave out "
                               "--notify or remove it first; nothing was changed", path=path)
    if found is not None:
        del lines[found]
    if add:
        at = first_table if found is None else found
        while found is None and at > 0 and not lines[at - 1].strip():
            at -= 1  # keep the blank line(s) before the first table after our line
        line = notify_line(argv)
        if at > 0 and not lines[at - 1].endswith("\n"):
            line = "\n" + line
        lines.insert(at, line + ("\n" if at == 0 and lines else ""))
    new = "".join(lines)
    expected = {**tomllib.loads(text), "notify": [*argv, "hook", NOTIFY_ARG]}
    if not add:
        expected.pop("notify", None)
    try:
        if tomllib.loads(new) != expected:
            raise ValueError
    except ValueError as exc:  # TOMLDecodeError is a ValueError
        raise IntegrationError("cannot add yoi's notify line as text here; nothing was changed", path=path) from exc
    return new


FLAG_MARK = "# added by yoi install codex"
_FEATURES = re.compile(r"^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(#.*)?$")
_FLAG_KEY = re.compile(r"^[ \t]*(codex_hooks|hooks)[ \t]*=")


def with_hooks_flag(text: str, *, flag: str | None, path: Path) -> str:
    """``text`` with yoi's ``[features] <flag> = true`` line, or without any yoi added.

    ``flag`` is what the installed Codex needs (``codex_trust.hooks_flag``): None where hooks run by
    default (0.16x; writing ``codex_hooks`` there only earns a deprecation warning on every run), so
    a line an older ``yoi install codex`` added is removed; ``hooks`` or ``codex_hooks`` where this
    release has hooks off by default. A ``codex_hooks`` / ``hooks`` key the user set (even to false)
    is theirs and left alone; uninstall passes None."""
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if _FEATURES.match(line.rstrip("\r\n"))), None)
    end = len(lines)
    if header is not None:
        end = next((i for i in range(header + 1, len(lines)) if _HEADER.match(lines[i].rstrip("\r\n"))), len(lines))
    ours = [i for i in range(header + 1 if header is not None else 0, end)
            if header is not None and FLAG_MARK in lines[i] and _FLAG_KEY.match(lines[i])]
    removed = {m.group(1) for i in ours if (m := _FLAG_KEY.match(lines[i]))}
    theirs = header is not None and any(_FLAG_KEY.match(lines[i]) for i in range(header + 1, end) if i not in ours)
    add = flag is not None and not theirs
    for i in reversed(ours):
        del lines[i]
        end -= 1
    if header is not None and FLAG_MARK in lines[header] and all(
            not line.strip() for line in lines[header + 1:end]) and not add:
        del lines[header:end]  # the [features] table yoi created, now empty
        while lines and not lines[-1].strip():
            lines.pop()
        header = None
    if add:
        line = f"{flag} = true  {FLAG_MARK}\n"
        if header is not None:
            lines.insert(header + 1, line)
        else:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines += (["\n"] if lines else []) + [f"[features]  {FLAG_MARK}\n", line]
    new = "".join(lines)
    expected = tomllib.loads(text)
    features = dict(expected.get("features", {}))
    for key in removed:
        features.pop(key, None)
    if add:
        features[str(flag)] = True
    expected = {**expected, "features": features} if features or (header is not None) else \
        {k: v for k, v in expected.items() if k != "features"}
    try:
        if tomllib.loads(new) != expected:
            raise ValueError
    except ValueError as exc:
        raise IntegrationError("cannot edit [features] as text here; nothing was changed", path=path) from exc
    return new


def plan(scope: str, project: Path, codex_home: Path, argv: list[str], *, install: bool,
         notify: bool = False, hooks_flag: str | None = None) -> list[FileEdit]:
    folder = config_dir(scope, project, codex_home)
    command = shell_command([*argv, "hook", "codex"])
    config = plan_config(folder / "config.toml", argv, install=install)
    keep = any(_NOTIFY.match(line) and NOTIFY_ARG in line for line in (config.after or "").splitlines())
    if config.after is not None or notify:  # a re-install without --notify keeps an earlier one
        config.after = with_notify(config.after or "", argv, add=install and (notify or keep), path=config.path)
    if config.after is not None:
        config.after = with_hooks_flag(config.after, flag=hooks_flag if install else None, path=config.path)
        if not config.after.strip():
            config.after = None if config.before is None or not install else config.after
    return [config, plan_hooks(folder / "hooks.json", command, EVENTS, HOOK_SUFFIX, install=install)]
