"""Every shell block of README.md and docs/*.md marked runnable runs (see docs/development.md)."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import REPO, stop_command_servers

MARKED = re.compile(r"<!--\s*runnable(?::\s*(?P<opts>[^>]*?))?\s*-->\s*\n```(?:bash|sh)\n(?P<code>.*?)\n```", re.DOTALL)
BASH_BLOCK = re.compile(r"^```(?:bash|sh)\s*$", re.MULTILINE)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    code: str
    opts: frozenset[str]

    def __str__(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [Block(page, text.count("\n", 0, m.start()) + 1, m.group("code"),
                  frozenset((m.group("opts") or "").split())) for m in MARKED.finditer(text)]


ALL = [b for page in PAGES for b in blocks(page)]
# "skip": shown to the reader, never run here (the test command itself: running it would recurse).
FAST = [b for b in ALL if "slow" not in b.opts and "skip" not in b.opts]
SLOW = [b for b in ALL if "slow" in b.opts and "skip" not in b.opts]


def _run_on_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=secondary, stdout=secondary, stderr=secondary)
        os.close(secondary)
        out = []
        while True:
            try:
                data = os.read(primary, 65536)
            except OSError:
                break
            if not data:
                break
            out.append(data)
        return proc.wait(timeout=900), b"".join(out).decode("utf-8", "replace")
    finally:
        os.close(primary)


def run_block(block: Block, cwd: Path, home: Path, path_prefix: list[Path]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("YOI_", "GITHUB_"))}
    env.update(HOME=str(home), PATH=os.pathsep.join([*map(str, path_prefix), "/usr/bin", "/bin"]),
               TERM="xterm-256color", TEXTUAL_SCREENSHOT="1", TEXTUAL_SCREENSHOT_LOCATION=str(home),
               PIPX_HOME=str(home / "pipx"), PIPX_BIN_DIR=str(home / "bin"),
               UV_TOOL_DIR=str(home / "uv-tools"), UV_TOOL_BIN_DIR=str(home / "bin"), UV_PYTHON=sys.executable,
               UV_PYTHON_DOWNLOADS="never")
    # As a user runs them (a second `yoi search` is served by a command server), but the servers
    # live in a runtime folder of the block's own and are stopped when it ends.
    runtime = Path(tempfile.mkdtemp(prefix="yoi-docs-rt-", dir="/tmp"))
    runtime.chmod(0o700)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    argv = ["bash", "-euo", "pipefail", "-c", block.code]
    try:
        if "yoi-tui" in block.code:  # the app needs a terminal: it draws, screenshots and exits
            code, output = _run_on_terminal(argv, cwd, env)
        else:
            done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
            code, output = done.returncode, done.stdout + done.stderr
    finally:
        stop_command_servers(runtime)
        shutil.rmtree(runtime, ignore_errors=True)
    assert code == 0, f"{block} exited {code}:\n{block.code}\n--- output ---\n{output[-4000:]}"


def _clone(tmp_path: Path) -> Path:
    target = tmp_path / "clone"
    shutil.copytree(REPO, target, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache"))
    return target


def test_readme_blocks_are_all_marked_and_images_exist() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(BASH_BLOCK.findall(text)) == len(blocks(REPO / "README.md")), "an unmarked bash block in README.md"
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (REPO / image).is_file(), image
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import screenshots
    finally:
        sys.path.pop(0)
    for name in screenshots.SHOTS:
        assert (REPO / "docs" / "images" / f"{name}.svg").is_file(), name


@pytest.mark.parametrize("page", sorted({b.page for b in FAST}), ids=lambda p: p.name)
def test_runnable_blocks_run(page: Path, tmp_path: Path) -> None:
    """A page's blocks run in order in one folder, as a reader would run them."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    for block in (b for b in FAST if b.page == page):
        cwd = _clone(tmp_path) if "clone" in block.opts else project
        run_block(block, cwd, home, [Path(sys.executable).parent])


@pytest.mark.slow
@pytest.mark.parametrize("block", SLOW, ids=str)
def test_slow_runnable_blocks_run(block: Block, tmp_path: Path) -> None:
    """Install blocks really install: pipx and uv (in a venv of their own) into a temporary HOME."""
    home = tmp_path / "home"
    home.mkdir()
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", tools], check=True)
    subprocess.run([tools / "bin" / "pip", "install", "-q", "pipx", "uv"], check=True, timeout=600)
    cwd = _clone(tmp_path) if "clone" in block.opts else tmp_path
    run_block(block, cwd, home, [home / "bin", tools / "bin"])


# --------------------------------------------------------------------------- every --help

def _yoi(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100", "YOI_SERVER": "0"}
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def _commands() -> list[str]:
    from yoi_tui.cli.main import COMMANDS

    return list(COMMANDS)


@pytest.mark.parametrize("command", _commands())
def test_every_help_prints_clean_text(command: str) -> None:
    """Each ``yoi COMMAND --help`` exits 0 and shows no argparse escapes (``%%``) or tracebacks."""
    done = _yoi(command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: yoi {command}") and "%%" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_help_texts_say_what_the_commands_do() -> None:
    assert "merge-driver %O %A %B %P" in _yoi("merge-driver", "--help").stdout
    assert "--notify" not in _yoi("uninstall", "--help").stdout  # install's option only
    assert "--notify" in _yoi("install", "--help").stdout
    context = _yoi("context", "--help").stdout
    for listing in ("## Open decisions", "## Recent requests", "model_invokation: true", "[context] max_tokens"):
        assert listing in context  # what the block holds, and its cap
    assert "under the trigger" in _yoi("phase2", "--help").stdout
    assert "--fix" in _yoi("lint", "--help").stdout


def test_search_without_a_query_lists_and_without_a_target_names_only_that(tmp_path: Path) -> None:
    assert _yoi("init", cwd=tmp_path).returncode == 0
    assert _yoi("new", "knowledge", "howto-release", cwd=tmp_path).returncode == 0
    listed = _yoi("search", "knowledge", "--no-record", cwd=tmp_path)
    assert listed.returncode == 0 and "howto-release" in listed.stdout
    bare = _yoi("search", cwd=tmp_path)
    assert bare.returncode == 2 and bare.stderr.rstrip().endswith("required: target")


def test_the_readme_says_what_ci_runs() -> None:
    """The README's sentence about .ci/run names each pytest tier the script runs."""
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    tiers = re.findall(r"pytest -q -m (\w+)", script)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sentence = next(p for p in readme.split("\n\n") if "`.ci/run`" in p)
    assert "exactly" not in sentence
    for tier in tiers:
        assert tier in sentence, tier
