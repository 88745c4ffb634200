"""Which flags and variables make a command skip a check (or override a refusal) instead of passing it.

A pre-commit hook that fails and a ``git commit --no-verify`` that then "succeeds" is a check that
was skipped, not one that was fixed: a teammate who reads "fixed" trusts the hook passes, and it
does not. This module owns the lexicon of such switches, said on one statement's words (the
environment assignments before the program, the program, its arguments): ``--no-verify`` and its
kin, ``git commit -n`` (``-n`` is ``--no-verify`` there only: on ``git push`` it is a dry run), a
forced push or install, ``HUSKY=0``, ``SKIP=<hook ids>``, ``LEFTHOOK=0``, ``git -c
core.hooksPath=/dev/null``, Maven's ``-DskipTests``.

Phase 1 asks it about the command it already parsed (``phase1.commands.check_bypass``), which is
where an attempt's outcome is decided; Phase 2 asks it only about a command quoted in an attempt
staged by an earlier version (``phase2.attempt_text``). Both sit above this wing, which is why the
lexicon is here and not in either phase.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

# Long flags that skip a check or override a refusal, whatever the program (`git commit/push/merge
# --no-verify`, `cargo publish --no-verify`, `npm install --force` past a peer-dependency refusal).
_FLAGS = frozenset({"--no-verify", "--no-hooks", "--skip-hooks", "--skip-checks", "--skip-check", "--skip-tests",
                    "--skip-test", "--no-lint", "--skip-lint", "--force", "--force-with-lease"})
_FLAG_PREFIXES = ("--force-with-lease=", "--force-if-includes")
_JAVA_PROPERTIES = frozenset({"-DskipTests", "-DskipTests=true", "-Dmaven.test.skip=true", "-DskipITs",
                              "-Dcheckstyle.skip", "-Dcheckstyle.skip=true", "-Dspotless.check.skip=true"})
# Variables hook managers read to run no hook: husky (v9 and v4), lefthook, pre-commit.
_VARIABLES = {"HUSKY": {"0"}, "HUSKY_SKIP_HOOKS": {"1", "true"}, "LEFTHOOK": {"0", "false"},
              "PRE_COMMIT_ALLOW_NO_CONFIG": {"1"}, "SKIP_PREFLIGHT_CHECK": {"true", "1"}}
_ANY_VALUE_VARIABLES = frozenset({"SKIP"})  # pre-commit's SKIP=<hook ids>: any id list skips those hooks
_HOOKS_PATH_RE = re.compile(r"^core\.hooks[pP]ath=(?:/dev/null|/?$|nul$)", re.IGNORECASE)
# Short flags that mean a skip on one subcommand only; the letters before them in a cluster that
# take a value end the cluster (`git commit -mn` is the message "n").
_SHORT = {("git", "commit"): ("n", "mFcCt"), ("git", "push"): ("f", "o")}
_VALUE_FLAGS = frozenset({"-m", "--message", "-F", "--file", "-C", "-c", "-t", "--template"})
_SAME = {"-n": "--no-verify", "-f": "--force"}  # a short switch and its long form are one switch
_ENV_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$", re.DOTALL)
_SPLIT_RE = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")


def variable_bypass(assignment: str) -> str:
    """``assignment`` (``HUSKY=0``) when it is one that makes hook managers skip their hooks, else ""."""
    match = _ENV_RE.match(assignment)
    if not match:
        return ""
    name, value = match.group("name"), match.group("value")
    if name in _ANY_VALUE_VARIABLES and value.strip():
        return f"{name}={value}"
    return assignment if value.lower() in _VARIABLES.get(name, set()) else ""


def _subcommand(args: Sequence[str]) -> str:
    """The first word that is neither a switch nor a switch's value (``git -C dir commit`` → commit)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-C", "-c"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def statement_bypasses(env: Sequence[str], program: str, args: Sequence[str]) -> list[str]:
    """The switches in one statement that skip a check: its environment assignments, then its
    arguments (``git -c core.hooksPath=/dev/null``, ``--no-verify``, ``git commit -n`` …)."""
    found = [b for b in (variable_bypass(a) for a in env) if b]
    subcommand = _subcommand(args)
    short = _SHORT.get((program, subcommand))
    skip = False
    for number, arg in enumerate(args):
        if skip:
            skip = False
            if args[number - 1] == "-c" and _HOOKS_PATH_RE.match(arg):
                found.append(f"-c {arg}")
            continue
        if arg in _VALUE_FLAGS:
            skip = True  # a message or a file name: words said, not switches given
            continue
        if arg in _FLAGS or arg.startswith(_FLAG_PREFIXES) or arg in _JAVA_PROPERTIES:
            found.append(arg)
        elif short and re.fullmatch(r"-[A-Za-z]+", arg):
            letter, valued = short
            for char in arg[1:]:
                if char == letter:
                    found.append(f"-{letter}")
                    break
                if char in valued:
                    break
    return found


def command_bypasses(command: str) -> list[str]:
    """The switches that skip a check anywhere in ``command``, a command as quoted in text (an old
    staged attempt's "ran `git commit --no-verify -m x` instead"); statements split on ``&&``, ``;``,
    pipes. Phase 1 has a better parse of its own commands and calls ``statement_bypasses``."""
    found: list[str] = []
    for statement in _SPLIT_RE.split(command):
        try:
            words = shlex.split(statement, posix=True)
        except ValueError:
            words = statement.split()
        if words[:1] == ["export"]:
            found.extend(b for b in (variable_bypass(w) for w in words[1:]) if b)
            continue
        env: list[str] = []
        while words and _ENV_RE.match(words[0]):
            env.append(words.pop(0))
        if words[:1] == ["env"]:
            words.pop(0)
            while words and _ENV_RE.match(words[0]):
                env.append(words.pop(0))
        program = words[0].rsplit("/", 1)[-1] if words else ""
        found.extend(statement_bypasses(env, program, words[1:]))
    return found


def new_bypass(found: Sequence[str], failed: Sequence[str]) -> str:
    """The first switch of ``found`` that the failed command's own switches (``failed``) lack: a
    ``git push --force`` that failed and was run again is no bypass of anything."""
    had = {_SAME.get(flag, flag) for flag in failed}
    return next((flag for flag in found if _SAME.get(flag, flag) not in had), "")
