"""What a commit leaves out: the agent staging only part of what ``git status`` showed (issue 26).

An agent that reads ``git status``, says something of a path it will not commit ("CLAUDE.md was
deleted but is unrelated to this task"), then stages the other paths by name (``git add README.md
src/x.py``) and commits, has decided what the commit holds and what stays out. Owns only that
reading: the paths the last status before the commit listed, the paths named to ``git add``, the
ones left out, and the agent's words naming one of them (its reason). Staging everything (``-A``,
``.``, ``-u``) or every path shown chooses nothing, and staging only its own files without a word
of the rest is routine, not a choice told.
"""

from __future__ import annotations

import re

from ..sessions.model import Entry
from ..store.staging import Decision
from .calls import Call
from .text import prose, sentences, short_title, squash

# `git status --short` lines (" M a.py", "?? dir/", "R  old -> new") and the long form's.
_SHORT_LINE_RE = re.compile(r"^(?:[MADRCUT?!][ MADRCUT?!]|[ MADRCUT?!][MADRCUT?!]) (?P<path>\S.*?)\s*$")
_LONG_LINE_RE = re.compile(r"^\s*(?:modified|deleted|new file|renamed|typechange|both modified):\s+(?P<path>\S.*?)\s*$")
_UNTRACKED_LINE_RE = re.compile(r"^\t(?P<path>\S.*?)\s*$")
_ADD_RE = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?add\s+(?P<args>[^&;|\n]+)")
_COMMIT_RE = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?commit\b")
_STATUS_RE = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?status\b")
_WHOLE_TREE = {"-A", "--all", ".", "-u", "--update", ":/", "*", "./"}


def status_paths(output: str) -> list[str]:
    """The paths a ``git status`` output lists as changed or untracked."""
    found: list[str] = []
    untracked = False
    for line in output.splitlines():
        if line.startswith("Untracked files:"):
            untracked = True
            continue
        match = _SHORT_LINE_RE.match(line) or _LONG_LINE_RE.match(line) or (
            _UNTRACKED_LINE_RE.match(line) if untracked else None)
        if match is None:
            continue
        path = match.group("path").split(" -> ")[-1].strip('"')
        if path and not path.startswith("("):
            found.append(_norm(path))
    return list(dict.fromkeys(found))


def _norm(path: str) -> str:
    return path.strip().strip("'\"").removeprefix("./")


def staged_paths(command: str) -> list[str] | None:
    """The paths ``command`` names to ``git add`` (None: it stages the whole tree, or adds nothing)."""
    named: list[str] = []
    for match in _ADD_RE.finditer(command):
        args = match.group("args").split()
        if any(a in _WHOLE_TREE for a in args):
            return None
        named.extend(_norm(a) for a in args if not a.startswith("-"))
    return named or None


def _covered(path: str, staged: list[str]) -> bool:
    """Whether a status path is (partly) in the commit: named, inside a named folder, or a folder
    holding a named path."""
    folder = path.rstrip("/")
    return any(s.rstrip("/") == folder or s.startswith(folder + "/") or folder.startswith(s.rstrip("/") + "/")
               for s in staged)


def commit_scopes(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """A commit that stages only part of what the last ``git status`` showed: the paths left out."""
    decisions: list[Decision] = []
    status: tuple[Call, list[str]] | None = None
    for call in calls:
        if not call.is_shell or call.rejected:
            continue
        command = call.command()
        if "git" not in command:
            continue  # cheap test first
        if _STATUS_RE.search(command) and call.result is not None and not call.failed and not _COMMIT_RE.search(command):
            status = (call, status_paths(call.result.text))
            continue
        if status is None or "add" not in command or (
                not _COMMIT_RE.search(command) and not _COMMIT_RE.search(_next_commands(calls, call))):
            continue  # staged but not committed here, or no status read before
        staged = staged_paths(command)
        shown = status[1]
        if not staged or not shown:
            continue
        left = [p for p in shown if not _covered(p, staged)]
        kept = [p for p in shown if _covered(p, staged)]
        if not left or not kept:
            status = None
            continue  # every path, or none of the ones shown: nothing set aside
        why = _said_before(entries, status[0].entry.index, call.entry.index, left)
        if not why:
            status = None
            continue  # the agent staged its own files and said nothing of the rest: no choice told
        chosen = f"commit only {', '.join(staged[:4])}{' …' if len(staged) > 4 else ''}; leave out {', '.join(left[:4])}" \
                 f"{' …' if len(left) > 4 else ''}"
        decisions.append(Decision(title=short_title(f"Leave {', '.join(left[:2])} out of the commit", 10),
                                  options=[], chosen=squash(chosen, 200), rationale=squash(why, 240),
                                  range=(status[0].entry.index, call.end)))
        status = None  # one scope a status read
    return decisions


def _next_commands(calls: list[Call], call: Call) -> str:
    """The command of the shell call after ``call`` (a `git add` then a separate `git commit`)."""
    return next((c.command() for c in calls if c.entry.index > call.entry.index and c.is_shell), "")


def _said_before(entries: list[Entry], start: int, end: int, left: list[str]) -> str:
    """What the agent said between the status and the commit about a path it leaves out (the
    sentences naming one), else ""."""
    names = {p.rstrip("/").rsplit("/", 1)[-1] for p in left}
    for entry in reversed(entries):
        if not start < entry.index < end or entry.role != "assistant" or entry.kind not in (None, "message") \
                or not any(n in entry.text for n in names):
            continue
        told = [s for s in sentences(prose(entry.text)) if any(n in s for n in names)]
        if told:
            return " ".join(told[:2])
    return ""


__all__ = ["commit_scopes", "staged_paths", "status_paths"]
