"""What the installed Codex makes of yoi's hooks, asked of Codex itself, and the trust it needs.

Codex (0.16x) runs a non-managed hook only when ``$CODEX_HOME/config.toml`` holds
``[hooks.state."<key>"] trusted_hash = "<hash>"`` for it, where ``key`` is
``<hooks.json path>:<event>:<group>:<handler>`` and ``hash`` a digest of the normalised hook; an
untrusted hook is skipped silently (codex-rs ``hooks/src/engine/discovery.rs``). The TUI asks the
user to review new hooks at start-up; ``codex exec`` never asks. A project's ``.codex/`` is read at
all only when the project is trusted (``[projects."<path>"] trust_level = "trusted"``).

yoi never computes Codex's hash: it asks ``codex app-server`` (JSON-RPC ``hooks/list``), which
answers each hook's ``key``, ``command``, ``currentHash`` and ``trustStatus``, and writes the
``trusted_hash`` of **yoi's own hooks only** (command ending in ``hook codex``), after showing the
diff, as part of the ``yoi install codex`` the user asked for. Feature flags come from
``codex features list`` run with an empty ``CODEX_HOME`` (the release's defaults, not the user's
overrides): hooks on by default need no flag.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
import tomllib
from pathlib import Path
from typing import IO, Any

from .plan import FileEdit, IntegrationError, read_text

HOOK_SUFFIX = "hook codex"
_TIMEOUT = 20.0
_FEATURE_RE = re.compile(r"^(\S+)\s+(\S+(?:\s\S+)*?)\s+(true|false)\s*$")


class CodexProbeError(Exception):
    """Codex could not be asked (not installed, too old for ``app-server hooks/list``, failed)."""


def find_codex() -> str | None:
    """The ``codex`` yoi asks: ``$YOI_CODEX`` if set, else ``codex`` on ``PATH``."""
    return os.environ.get("YOI_CODEX") or shutil.which("codex")


def _env(codex_home: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if codex_home is not None:
        env["CODEX_HOME"] = str(codex_home)
    return env


def default_features(codex: str) -> dict[str, bool]:
    """``{feature: default}`` of this Codex release (``codex features list`` with an empty CODEX_HOME)."""
    with tempfile.TemporaryDirectory(prefix="yoi-codex-home-") as home:
        try:
            done = subprocess.run([codex, "features", "list"], capture_output=True, text=True,
                                  timeout=_TIMEOUT, env=_env(Path(home)), stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CodexProbeError(f"'{codex} features list' failed: {exc}") from exc
    if done.returncode != 0:
        raise CodexProbeError(f"'{codex} features list' exited {done.returncode}")
    features: dict[str, bool] = {}
    for line in done.stdout.splitlines():
        match = _FEATURE_RE.match(line.strip())
        if match:
            features[match.group(1)] = match.group(3) == "true"
    return features


def hooks_flag(features: dict[str, bool] | None) -> str | None:
    """The ``[features]`` key yoi must set for hooks to run, or None when they run by default.

    ``hooks`` on by default (0.16x): nothing. ``hooks`` known but off: ``hooks``. Only the old name
    ``codex_hooks`` known (the releases that introduced hooks): ``codex_hooks``. Unknown (Codex not
    found): nothing — the current releases' default; docs/agents.md tells older releases' users.
    """
    if not features:
        return None
    if "hooks" in features:
        return None if features["hooks"] else "hooks"
    if "codex_hooks" in features:
        return None if features["codex_hooks"] else "codex_hooks"
    return None


def list_hooks(codex: str, cwd: Path, codex_home: Path) -> list[dict[str, Any]]:
    """Codex's hook inventory for ``cwd`` (``codex app-server``, JSON-RPC ``hooks/list``)."""
    requests = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "yoi", "version": "install"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    try:
        proc = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=cwd, env=_env(codex_home))
    except OSError as exc:
        raise CodexProbeError(f"cannot start '{codex} app-server': {exc}") from exc
    try:
        assert proc.stdin is not None and proc.stdout is not None
        # The server answers asynchronously and stops at end of input: keep stdin open until the answer.
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
        proc.stdin.flush()
        answer = _read_answer(proc.stdout, 2, time.monotonic() + _TIMEOUT)
    except OSError as exc:
        raise CodexProbeError(f"codex app-server: {exc}") from exc
    finally:
        proc.kill()
        proc.wait()
    if answer is not None:
        if "error" in answer:
            error = answer["error"]
            raise CodexProbeError(f"codex app-server hooks/list: {error.get('message', error)}")
        hooks: list[dict[str, Any]] = []
        for entry in answer.get("result", {}).get("data", []):
            hooks.extend(h for h in entry.get("hooks", []) if isinstance(h, dict))
        return hooks
    raise CodexProbeError("codex app-server gave no answer to hooks/list (a Codex before hook trust?)")


def _read_answer(stream: IO[bytes], wanted: int, deadline: float) -> dict[str, Any] | None:
    """The JSON-RPC message with ``id == wanted`` from ``stream``, or None (end of output, deadline)."""
    buffer = b""
    fd = stream.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == wanted:
                return message
    return None


def yoi_hooks(hooks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [h for h in hooks if str(h.get("command") or "").rstrip().endswith(HOOK_SUFFIX)]


def untrusted(hooks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """yoi's hooks Codex would skip: not trusted (new, or changed since trusted) or disabled."""
    return [h for h in yoi_hooks(hooks)
            if h.get("trustStatus") not in ("trusted", "managed") or h.get("enabled") is False]


def project_trusted(config: dict[str, Any], project: Path) -> bool:
    """Whether the user's Codex config trusts ``project`` (else Codex ignores its ``.codex/``)."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return False
    resolved = project.resolve()
    for path, entry in projects.items():
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            try:
                if resolved == Path(path).resolve() or resolved.is_relative_to(Path(path).resolve()):
                    return True
            except (OSError, ValueError):
                continue
    return False


def load_config(path: Path) -> dict[str, Any]:
    text = read_text(path) or ""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IntegrationError(f"not valid TOML ({exc}); fix it by hand, nothing was changed", path=path) from exc


def _header(key: str) -> str:
    return f"[hooks.state.{json.dumps(key)}]"


def trust_edit(config_path: Path, hooks: list[dict[str, Any]]) -> FileEdit:
    """The edit of ``$CODEX_HOME/config.toml`` trusting ``hooks`` (each ``key`` + ``currentHash``).

    A ``[hooks.state."<key>"]`` table that exists gets its ``trusted_hash`` line replaced (other keys,
    such as ``enabled``, kept); a missing one is appended. The result must parse to the same data
    plus exactly those hashes, else the edit is refused (nothing written).
    """
    before = read_text(config_path)
    text = before or ""
    original = load_config(config_path)
    lines = text.splitlines(keepends=True)
    appended: list[str] = []
    for hook in hooks:
        key, digest = str(hook["key"]), str(hook["currentHash"])
        value = f"trusted_hash = {json.dumps(digest)}\n"
        header = next((i for i, line in enumerate(lines) if line.strip() == _header(key)), None)
        if header is None:
            appended += ["\n", _header(key) + "\n", value]
            continue
        end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        found = next((i for i in range(header + 1, end) if re.match(r"^\s*trusted_hash\s*=", lines[i])), None)
        if found is None:
            lines.insert(header + 1, value)
        else:
            lines[found] = value
    if appended:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        if not lines:
            appended = appended[1:]
        lines += appended
    new = "".join(lines)
    expected = json.loads(json.dumps(original))
    for hook in hooks:
        state = expected.setdefault("hooks", {}).setdefault("state", {}).setdefault(str(hook["key"]), {})
        state["trusted_hash"] = str(hook["currentHash"])
    try:
        ok = tomllib.loads(new) == expected
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        raise IntegrationError("cannot add the hook trust entries as text here (an inline [hooks] table?); "
                               "trust yoi's hooks in Codex instead (start codex and review them with /hooks)",
                               path=config_path)
    return FileEdit(config_path, before, new)
