"""The real agent clients for the contract tests: pinned npm packages in a folder the tests own.

``client_binary(name)`` installs ``@anthropic-ai/claude-code`` / ``@openai/codex`` at the exact
version pinned in :data:`CLIENTS` into ``$YOI_CLIENTS_CACHE`` (default ``~/.cache/yoi-tui-clients``),
one prefix per package and version, with ``npm install --prefix`` — never globally — and returns the
binary, or raises :class:`ClientUnavailable` saying why it cannot run here (no npm, the registry not
reachable, the binary refusing to start); the tests skip with that reason. A finished install is
marked with a stamp file, so later runs reuse it.

``isolated_env`` is the environment a client runs in: a throw-away ``HOME``/``CODEX_HOME``/
``CLAUDE_CONFIG_DIR`` under the test's tmp folder, every proxy variable pointing at the refusing
proxy (so nothing leaves the machine), and the switches that turn off update checks and telemetry.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

# Exact pins (``npm view <pkg> versions``): bumping one is a deliberate change with its own run.
CLIENTS: dict[str, tuple[str, str, str]] = {
    # name: (npm package, version, binary)
    "claude-code": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.169.0", "codex"),
}


class ClientUnavailable(Exception):
    """The client cannot run on this machine; the message says why (used as the skip reason)."""


def cache_root() -> Path:
    return Path(os.environ.get("YOI_CLIENTS_CACHE") or Path.home() / ".cache" / "yoi-tui-clients")


def client_binary(name: str) -> Path:
    """The pinned client's binary, installed on first use; raises ``ClientUnavailable``."""
    package, version, binary = CLIENTS[name]
    npm = shutil.which("npm")
    if npm is None:
        raise ClientUnavailable(f"{package}@{version}: npm is not installed here")
    prefix = cache_root() / f"{package.replace('/', '+')}@{version}"
    stamp = prefix / ".installed"
    path = prefix / "node_modules" / ".bin" / binary
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:  # two test processes never install into one prefix at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and path.exists()):
            env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
            try:
                done = subprocess.run(
                    [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
                     "--loglevel=error", f"{package}@{version}"],
                    capture_output=True, text=True, timeout=600, env=env)
            except subprocess.TimeoutExpired:
                raise ClientUnavailable(f"{package}@{version}: npm install took over 600 s") from None
            if done.returncode != 0 or not path.exists():
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise ClientUnavailable(f"{package}@{version}: npm install failed: {' | '.join(tail)}")
            stamp.write_text(f"{package}@{version}\n", encoding="utf-8")
    try:
        probe = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60,
                               env={"PATH": os.environ.get("PATH", ""), "HOME": str(prefix)})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClientUnavailable(f"{package}@{version}: the binary does not start here ({exc})") from None
    if probe.returncode != 0 or version not in probe.stdout:
        raise ClientUnavailable(f"{package}@{version}: '{binary} --version' answered "
                                f"{(probe.stdout + probe.stderr).strip()[:200]!r}")
    return path


def isolated_env(home: Path, proxy_url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A client's environment: throw-away home folders, everything outside 127.0.0.1 refused."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".claude").mkdir(exist_ok=True)
    # YOI_SERVER: the suite's setting (tests/conftest.py) reaches the hooks the clients run, so no
    # command server outlives the test.
    keep = ("PATH", "LANG", "LC_ALL", "TERM", "PYTHONPATH", "VIRTUAL_ENV", "TMPDIR", "YOI_SERVER")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "CODEX_HOME": str(home / ".codex"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "HTTPS_PROXY": proxy_url, "HTTP_PROXY": proxy_url, "ALL_PROXY": proxy_url,
        "https_proxy": proxy_url, "http_proxy": proxy_url, "all_proxy": proxy_url,
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
        "CODEX_DISABLE_UPDATE_CHECK": "1", "NO_COLOR": "1", "CI": "1",
    })
    env.update(extra or {})
    return env
