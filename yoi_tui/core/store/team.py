"""Sharing a workspace through git: the ignore and attribute entries ``yoi init`` writes, the merge
driver registered in each clone's git config, and the one-time notice for a workspace whose
``.gitignore`` predates ``memory/_staging/`` being ignored.

Everything here is idempotent: in a fresh clone of a set-up repository the tracked files
(``.gitignore``, ``.gitattributes``) already hold every entry and are left byte for byte as they
are; only the clone's own ``.git/config`` (never tracked) gains the driver.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from .atomic import atomic_write_text
from .workspace import GITIGNORE_ENTRIES, STAGING_REL, Workspace

STAGING_IGNORE = STAGING_REL
GITATTRIBUTES_ENTRIES = (
    "memory/summary.md merge=yoi",
    "memory/decisions/*.md merge=yoi",
    "memory/requests/*.md merge=yoi",
    "knowledge/*.md merge=yoi",
    ".yoi/usage/*.jsonl merge=union",
)
DRIVER_NAME = "yoi record merge (sources unioned, timestamps ordered, body by section)"
_NOTICE_FLAG = "staging-ignore-notice"


def _append_lines(path: Path, entries: tuple[str, ...], header: str | None = None) -> list[str]:
    """Append the ``entries`` missing from ``path`` (compared line by line); returns those added."""
    try:
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError):
        return []
    present = {" ".join(line.split()) for line in existing.splitlines()}
    missing = [e for e in entries if e not in present]
    if not missing:
        return []
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    block = "".join(f"{e}\n" for e in missing)
    if header and header not in present:
        block = f"{header}\n{block}"
    atomic_write_text(path, existing + prefix + block)
    return missing


def write_git_files(ws: Workspace) -> list[str]:
    """Add the ignore and merge-attribute entries to the workspace's ``.gitignore``/``.gitattributes``."""
    created = [f".gitignore entry {e}" for e in _append_lines(ws.root / ".gitignore", GITIGNORE_ENTRIES)]
    created += [f".gitattributes entry {e}" for e in _append_lines(
        ws.root / ".gitattributes", GITATTRIBUTES_ENTRIES,
        header="# yoi: records merge with `yoi merge-driver`, usage logs line by line (docs/team.md)")]
    return created


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None


def in_git_worktree(root: Path) -> bool:
    done = _git(root, "rev-parse", "--is-inside-work-tree")
    return done is not None and done.returncode == 0 and done.stdout.strip() == "true"


def driver_command() -> str:
    """The command git runs: the ``yoi`` installed beside this Python when there is one (hooks and
    GUIs often run git without the virtualenv on PATH), else ``yoi`` from PATH, else this Python
    running the CLI module (yoi run as ``python -m`` from a checkout: a bare ``yoi`` would fail in
    every merge, and git would fall back to conflicts with only a "not found" line to show for it)."""
    script = Path(sys.executable).parent / "yoi"
    if script.is_file():
        program = shlex.quote(str(script))
    elif shutil.which("yoi"):
        program = "yoi"
    else:
        program = f"{shlex.quote(sys.executable)} -m yoi_tui.cli.main"
    return f"{program} merge-driver %O %A %B %P"


def register_merge_driver(ws: Workspace) -> list[str]:
    """Set ``merge.yoi.driver`` in this clone's git config (not tracked); returns what changed."""
    if not in_git_worktree(ws.root):
        return []
    command = driver_command()
    changed: list[str] = []
    # The driver first: a name without a driver makes git refuse every merge of those files.
    for key, value in (("merge.yoi.driver", command), ("merge.yoi.name", DRIVER_NAME)):
        current = _git(ws.root, "config", "--local", "--get", key)
        if current is not None and current.returncode == 0 and current.stdout.strip() == value:
            continue
        done = _git(ws.root, "config", "--local", key, value)
        if done is not None and done.returncode == 0:
            changed.append(f"git config {key}")
    return changed


def staging_ignored(ws: Workspace) -> bool:
    """True when ``memory/_staging/`` is ignored (by the workspace's .gitignore, or as git says)."""
    try:
        lines = (ws.root / ".gitignore").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    wanted = {STAGING_IGNORE, STAGING_IGNORE.rstrip("/"), "/" + STAGING_IGNORE, "/" + STAGING_IGNORE.rstrip("/")}
    if any(line.strip() in wanted for line in lines):
        return True
    done = _git(ws.root, "check-ignore", "-q", "memory/_staging/x.json")
    return done is not None and done.returncode == 0


def staging_notice(ws: Workspace) -> str | None:
    """The one-time notice for a git workspace whose staging is not ignored (None: nothing to say).

    Told once per clone. A flag in ``.yoi/state/`` remembers the answer (``shown`` or ``ignored``),
    so the git subprocesses run once per clone, not on every Phase 1 hook.
    """
    flag = ws.state_dir / _NOTICE_FLAG
    try:
        known = flag.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        known = ""
    if known in ("shown", "ignored") or not _has_git_dir_above(ws.root) or not in_git_worktree(ws.root):
        return None  # (outside git nothing is written: a dry run there leaves .yoi/ as it was)
    if staging_ignored(ws):
        answer, notice = "ignored", None
    else:
        answer = "shown"
        notice = ("memory/_staging/ is not git-ignored, so staging files can be committed and consumed again "
                  f"in other clones; fix: echo '{STAGING_IGNORE}' >> {ws.rel(ws.root / '.gitignore')} "
                  "(or rerun `yoi init`, which also registers the record merge driver)")
    try:
        ws.state_dir.mkdir(parents=True, exist_ok=True)
        flag.write_text(answer + "\n", encoding="utf-8")
    except OSError:
        pass
    return notice


def deleted_in_git(root: Path, folder: str) -> set[str] | None:
    """Names of the files directly in ``folder`` (relative to ``root``) that git saw deleted: in a
    commit of the history (``git log --diff-filter=D``) or in the work tree or index since ``HEAD``
    (a ``git rm`` or a plain delete not committed yet). ``None`` when ``root`` is not in a git work
    tree or git fails (then nothing is known). Two git processes (80 ms together on this project's
    535 commits under load); Phase 2 asks only when a knowledge candidate has no knowledge record."""
    if not _has_git_dir_above(root):
        return None
    spec = folder.rstrip("/") + "/"
    names: set[str] = set()
    for args in (("log", "--diff-filter=D", "--name-only", "--format=", "--relative", "--", spec),
                 ("diff", "HEAD", "--diff-filter=D", "--name-only", "--relative", "--", spec)):
        done = _git(root, "-c", "core.quotePath=false", *args)
        if done is None or done.returncode != 0:
            if args[0] == "diff" and done is not None:
                continue  # no HEAD yet (a repository without commits): nothing committed to delete
            return None
        names.update(line[len(spec):] for line in done.stdout.splitlines()
                     if line.startswith(spec) and "/" not in line[len(spec):])
    return names


def _has_git_dir_above(root: Path) -> bool:
    """A ``.git`` in ``root`` or a parent (a few stat calls: no git process outside repositories)."""
    return any((folder / ".git").exists() for folder in (root, *root.parents))


__all__ = ["GITATTRIBUTES_ENTRIES", "GITIGNORE_ENTRIES", "deleted_in_git", "driver_command", "in_git_worktree",
           "register_merge_driver", "staging_ignored", "staging_notice", "write_git_files"]
