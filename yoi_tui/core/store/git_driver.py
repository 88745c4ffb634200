"""Is the record merge driver registered in this clone? Answered from files, without running git.

``.git/config`` is never cloned, so a fresh clone of a set-up repository has ``.gitattributes``
naming ``merge=yoi`` and no ``merge.yoi.driver``: git then merges records line by line without a
word (issue 30). Every yoi command and hook asks ``driver_state`` first; it costs a few ``stat``
and small reads (no git process: ``yoi search`` runs on every agent prompt), and only a clone that
lacks the driver goes on to ``store.team.register_merge_driver``, which runs ``git config`` once.

Read: the workspace's ``.gitattributes`` (and those of the folders above it up to the repository
top), the git directory found by walking up for ``.git`` (a folder, or a file ``gitdir: ...`` as
in worktrees and submodules, whose ``commondir`` names the shared config), ``$GIT_DIR`` when set,
and the user's global configs (a driver registered there counts too). ``include`` directives are
not followed: a driver reachable only through one is registered again locally (harmless).

Also here, for the same reason (every hook asks): ``operation_in_progress``, whether git is stopped
in a merge, revert, cherry-pick or rebase (``store.unmerged`` then settles records' modify/delete).
"""

from __future__ import annotations

import os

MISSING = "missing"  # .gitattributes names merge=yoi, no git config this clone reads defines the driver
REGISTERED = "registered"
NOT_WANTED = "not-wanted"  # not in git, or no attribute names merge=yoi


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 20)
    except OSError:
        return None


def find_git_dir(root: str) -> tuple[str, str] | None:
    """(the work tree's top folder, its git directory) for ``root``, or None outside git."""
    env = os.environ.get("GIT_DIR")
    if env:
        top = os.environ.get("GIT_WORK_TREE") or root
        return os.path.abspath(top), os.path.abspath(env)
    folder = os.path.abspath(root)
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return folder, dot_git
        if os.path.isfile(dot_git):
            text = _read(dot_git) or ""
            for line in text.splitlines():
                if line.startswith("gitdir:"):
                    target = line[len("gitdir:"):].strip()
                    return folder, os.path.normpath(os.path.join(folder, target))
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def config_files(git_dir: str) -> list[str]:
    """The git config files this clone reads, local first (``commondir`` for worktrees), then global."""
    files = [os.path.join(git_dir, "config")]
    common = _read(os.path.join(git_dir, "commondir"))
    if common and common.strip():
        files.insert(0, os.path.normpath(os.path.join(git_dir, common.strip(), "config")))
        files.append(os.path.join(git_dir, "config.worktree"))
    glob = os.environ.get("GIT_CONFIG_GLOBAL")
    if glob is not None:
        files.append(glob)
    else:
        home = os.path.expanduser("~")
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    return [f for f in files if f]


def defines_driver(config_text: str) -> bool:
    """True when the text has a ``[merge "yoi"]`` section with a non-empty ``driver``."""
    inside = False
    for raw in config_text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            header = line[1:line.find("]")] if "]" in line else line[1:]
            parts = header.split(None, 1)
            inside = bool(parts) and parts[0].lower() == "merge" and len(parts) == 2 \
                and parts[1].strip() == '"yoi"'
            if not inside and parts and parts[0].lower() == "merge.yoi":  # the old [merge.yoi] form
                inside = True
            rest = line[line.find("]") + 1:].strip() if "]" in line else ""
            if inside and rest:
                line = rest  # "[merge "yoi"] driver = ..." on one line
            else:
                continue
        if inside and "=" in line:
            key, value = line.split("=", 1)
            if key.strip().lower() == "driver" and value.strip().strip('"'):
                return True
    return False


def wants_driver(root: str, top: str) -> bool:
    """True when a ``.gitattributes`` from ``root`` up to ``top`` names ``merge=yoi``."""
    folder = os.path.abspath(root)
    top = os.path.abspath(top)
    while True:
        text = _read(os.path.join(folder, ".gitattributes"))
        if text and "merge=yoi" in text:
            return any("merge=yoi" in line.split() and not line.lstrip().startswith("#")
                       for line in text.splitlines())
        if folder == top:
            return False
        parent = os.path.dirname(folder)
        if parent == folder or not folder.startswith(top):
            return False
        folder = parent


def driver_state(root: str) -> str:
    """``MISSING``, ``REGISTERED`` or ``NOT_WANTED`` for the workspace at ``root`` (no git process)."""
    found = find_git_dir(root)
    if found is None:
        return NOT_WANTED
    top, git_dir = found
    if not wants_driver(root, top):
        return NOT_WANTED
    for path in config_files(git_dir):
        text = _read(path)
        if text and "yoi" in text and defines_driver(text):
            return REGISTERED
    return MISSING


_STOPPED = (("MERGE_HEAD", "git commit"), ("REVERT_HEAD", "git revert --continue"),
            ("CHERRY_PICK_HEAD", "git cherry-pick --continue"), ("rebase-merge", "git rebase --continue"),
            ("rebase-apply", "git rebase --continue"))


def operation_in_progress(root: str) -> str | None:
    """The command that finishes the git operation stopped in ``root``'s repository (None: none)."""
    found = find_git_dir(root)
    if found is None:
        return None
    _top, git_dir = found
    for name, step in _STOPPED:
        if os.path.exists(os.path.join(git_dir, name)):
            return step
    return None


__all__ = ["MISSING", "NOT_WANTED", "REGISTERED", "config_files", "defines_driver", "driver_state",
           "find_git_dir", "operation_in_progress", "wants_driver"]
