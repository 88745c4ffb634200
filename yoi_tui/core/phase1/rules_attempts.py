"""Failed-then-fixed attempts, as the rules extractor finds them.

A story starts at a real failure: a tool call the log marks failed whose meaning is a failure
(``commands.is_real_failure``: not grep's "no match", not an exploratory look at a missing path, not
a harmless tool-mechanics error such as an edit of a file not read yet, not a call the user refused),
or hook feedback (a Stop hook refusing to end the turn, a hook blocking a call). It is **fixed** only
when a later run of the *same check* passes (``commands.check_key``: the same program, subcommand and
target; the same tool on the same file) — or, for a missing program, when the next command aimed at
the same path succeeds instead, or when the same check run without the failing command's first program
(``rtk bun run test`` failed, ``bun run test`` passed) runs: passes, or fails on something else,
which is then a story of its own. A later run that got through only by skipping the check
(``git commit --no-verify``, ``HUSKY=0``, ``SKIP=…``: ``commands.check_bypass``) fixed nothing: the
story is "not fixed — the check was bypassed by `<that command>`", outcome failure, so what reaches
staging is already true and no reader has to re-read "fixed". What changed in between (the files
edited, the command changed) is the fix; the agent's first non-tactical sentence after the failure is
the cause. Repeated failures of the same check are one story. Each attempt's range runs from the
failing call to the passing run.

A fix is any later change or route after which the same goal succeeds (issue 26): the same check
however it is started (a script by its path or its interpreter, through ``uv run``/``npx``, a chain
of checks run again with one more), a program not installed met by the next command that succeeded
with another, a failed look by the next look of the same program, a missing test runner by a test run
of another kind. Whatever else failed between two failing runs close together (``LOOP_GAP_CALLS``)
of a check that ended fixed, or failed and went nowhere inside a story that ended fixed, is a step of
that story (a loop never fixed takes in nothing: what was got past inside it is a story of its own); a check that failed again long after its last run holds no story between the two. A status
probe that failed while a run was starting in the background, or asked again with nothing done in
between, fixed and failed nothing; nor does a run the agent puts down to other agents' unfinished work.
A look that found what the work needs missing (``ls package.json``), after which the agent changed
nothing and ended its turn saying it is blocked, is a story not fixed (``_blocked_attempts``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from ..sessions.model import Entry
from ..store.staging import Attempt
from .calls import BACKGROUND_POLL_TOOLS, Call, pair_calls
from .commands import (
    _TEST_RUNNERS,
    check_bypass,
    check_key,
    inline_script,
    is_real_failure,
    missing_tool,
    path_arguments,
    same_check,
    script_name,
    signature,
    unwrapped_key,
    written_files,
)
from .harness import (
    EDIT_MISSING_RE,
    GONE_TASK_RE,
    HARNESS_NOISE_RE,
    MECHANICS_RE,
    denied_stderr,
    escalated,
    sandbox_refused,
)
from .text import sentences, squash

_ERROR_HINT_RE = re.compile(r"error|fatal|not found|failed|failure|\bfail\b|exception|denied|cannot|can't|no such|invalid|"
                            r"unknown|unrecognized|unrecognised|unsupported|not allowed|"
                            r"traceback|refused|timed out|exceeds|expected|assert", re.IGNORECASE)
_ERROR_WORD_RE = re.compile(r"\berror\b|\bfatal\b|exception|traceback", re.IGNORECASE)
_WARNING_RE = re.compile(r"^(?:⚠|warn(?:ing)?\b)|\bwarn(?:ing)?:|will be ignored", re.IGNORECASE)
_DIAGNOSTIC_RE = re.compile(r"^(?:\S+\.\w{1,5}:\d+(?::\d+)?:\s*\S|--- FAIL:|\S+Error: )")
_NO_FAILURE_SHOWN = "no failing test in the output shown"
_PASS_MARKS = ("✓", "✔", "√", "PASS")
_UNMET_RE = re.compile(r"\bnot met\b|\bthreshold\b|\bFAIL\b|✕", re.IGNORECASE)
_PASSED_LINE_RE = re.compile(r"^(?:[✓✔√]|PASS\b|ok\s)")
_FAILED_TEST_RE = re.compile(r"^[✕✗✘]\s")  # a failing test as jest (✕) and others mark it
_NOISE_LINE_RE = re.compile(r"^(?:Exit code:? -?\d+|Wall time: .*|Output:|Process exited with code -?\d+|"
                            r"Chunk ID: .*|Original token count: .*|Total output lines: .*|[⎯─━=\-_ ]+.*[⎯─━]+|"
                            r"[-=+|: ]{8,}|\(eval\):\d+:?)$")  # (a table's rule line: `------|------|`)
# A read tool aimed at nothing readable (a missing path, a directory): a look around, not an attempt.
_MISSING_READ_RE = re.compile(r"does not exist|no such file|not found|enoent|eisdir|is a directory", re.IGNORECASE)
_READ_TOOLS = {"read", "glob", "grep", "ls", "view", "read_file", "list_dir", "search", "notebookread", "find"}
_TACTICAL_RE = re.compile(r"^(?:let me|let's|i'll|i will|now\b|first\b|next\b|ok\b|okay\b|good\b|great\b|"
                          r"perfect\b|hmm\b|i need to|i should)", re.IGNORECASE)
_HOOK_RE = re.compile(r"^(?P<hook>[\w:]+) hook (?:feedback|blocking error|error)[^:]*:\s*(?P<text>.*)", re.DOTALL)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not _NOISE_LINE_RE.match(line.strip())]



def error_line(result: Entry) -> str:
    text = result.text
    if stderr := denied_stderr(text):
        text = f"sandbox denied: {stderr}"
    lines = _lines(text.replace("\\n", "\n"))
    # A test that passed ("✓ should throw ValidationError when …") is never what failed, whatever
    # words its name holds.
    hits = [line for line in lines if _ERROR_HINT_RE.search(line) and not _PASSED_LINE_RE.match(line)]
    # What failed says more than the runner's verdict: a diagnostic (path:line: ...) or a failing
    # test line comes before "[lint] ERROR task failed".
    precise = [line for line in lines if _DIAGNOSTIC_RE.search(line)] or [
        line for line in lines if _FAILED_TEST_RE.match(line)]
    # A warning printed before the error ("⚠ Unknown setting 'byok' … will be ignored") is not what failed.
    errors = [line for line in hits if _ERROR_WORD_RE.search(line) and not _WARNING_RE.search(line)]
    hits = errors or [line for line in hits if not _WARNING_RE.search(line)] or hits
    passed = not hits and not precise and any(_PASSED_LINE_RE.match(line) for line in lines) and not any(
        _UNMET_RE.search(line) for line in lines)  # (a coverage threshold not met is what failed)
    # (only passing tests shown, the failure cut from the output: said so, not a table row in its place)
    chosen = precise[0] if precise else hits[0] if hits else _NO_FAILURE_SHOWN if passed else (
        lines[-1] if lines else "")
    if chosen.endswith(":") and chosen in lines and lines.index(chosen) + 1 < len(lines):
        # A header ("Pre-commit validation failed:") says little; its first line says what.
        chosen = f"{chosen} {lines[lines.index(chosen) + 1]}"
    code = f"exit {result.exit_code}" if result.exit_code not in (None, 0) else ""
    text = squash(re.sub(r"</?tool_use_error>", "", chosen), 160)
    return ": ".join(part for part in (code, text) if part) or "failed"


def _is_failure(call: Call) -> bool:
    if not call.failed or call.rejected or call.result is None:
        return False
    if call.name in ("ExitPlanMode", "AskUserQuestion", "EnterPlanMode", "TodoWrite", "Task", "Agent"):
        return False
    text = call.result.text
    if MECHANICS_RE.search(text) or "interrupted" in text.lower()[:80] or HARNESS_NOISE_RE.search(text[:600]):
        return False
    if call.is_shell:
        if not is_real_failure(call.command(), call.result.exit_code, text):
            return False
        # Marked failed, but what it shows is only tests that passed (the failure cut from the
        # output): no story can say what failed, so none is told. (A substring test first: cheap.)
        return not (any(mark in text for mark in _PASS_MARKS) and error_line(call.result).endswith(_NO_FAILURE_SHOWN))
    if call.name.lower() in _READ_TOOLS and _MISSING_READ_RE.search(text):
        return False  # an exploratory look at a path that is not there
    if call.is_edit and EDIT_MISSING_RE.search(text[:300]):
        return False  # an edit of a file not made yet: a slip of the tool (it is written whole instead)
    return True


def _chain(call: Call) -> list[tuple[str, ...]]:
    """The checks each statement of a shell command runs (``ruff check && ruff format --check && pytest``),
    looks (``ls``, ``cat``) left out."""
    from .commands import statements

    if not call.is_shell:
        return []
    found = [check_key(f"{program} {' '.join(args)}") for program, args, _tail in statements(call.command())
             if program not in _LOOK_PROGRAMS]
    return [k for k in found if k]


def _covers(chain: list[tuple[str, ...]], later: Call) -> bool:
    """``later`` runs every check of ``chain`` among its statements (a chain re-run with one more check)."""
    ran = _chain(later)
    return bool(chain) and all(any(same_check(k, other) for other in ran) for k in chain)


def _key(call: Call) -> tuple[str, ...]:
    if call.is_shell:
        return check_key(call.command())
    files = call.files()
    if files:
        return (call.name, *files[:1])
    data = call.entry.tool_input
    url = data.get("url") if isinstance(data, dict) else None
    if isinstance(url, str) and (host := _HOST_RE.match(url)):
        # A fetch is a check of one site: a later fetch of another site about something else is no re-run.
        return (call.name, host.group(1).lower())
    return (call.name,)


_HOST_RE = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#]+)", re.IGNORECASE)


_LOOK_PROGRAMS = {"ls", "cat", "head", "tail", "find", "grep", "rg", "wc", "stat", "file", "which", "pwd", "echo", "tree",
                  "less", "du", "date", "env", "printenv", "sed", "awk", "sort", "diff", "bd"}
_CHECK_WORDS = {"test", "tests", "lint", "check", "typecheck", "vet", "clippy", "credo", "dialyzer", "build", "compile",
                "pytest", "jest", "vitest", "tsc", "eslint", "ruff", "mypy", "pyright", "flake8", "rspec"}
_READ_VERBS = {"list", "ls", "view", "show", "status", "get", "describe", "search", "log", "logs", "diff", "info",
               "inspect", "ps", "help", "--help", "-h", "version", "--version", "whoami", "top", "history"}
_LOOK_GIT = {"status", "log", "diff", "show", "branch", "remote", "rev-parse", "add", "stash", "ls-remote",
             "for-each-ref", "show-ref", "ls-files", "rev-list", "cat-file", "describe", "reflog", "blame"}


def _shows_same_error(failed: Call, later: Call) -> bool:
    """A later run reported as passing whose output still holds the failure's error line."""
    if failed.result is None or later.result is None:
        return False
    line = re.sub(r"^exit -?\d+: ", "", error_line(failed.result)).rstrip("…").strip()
    # Only a line that says what failed: a tool's footer the failure ended on ("Use `mix credo explain`
    # to explain issues") is printed by the clean run too.
    return len(line) >= 20 and bool(_ERROR_HINT_RE.search(line) or _DIAGNOSTIC_RE.search(line)) and \
        line in " ".join(later.result.text.replace("\\n", "\n").split())


# A run that found nothing to check: it passed on nothing, so it verified no fix.
_NOTHING_CHECKED_RE = re.compile(r"\bno (?:test files|tests?|files|specs?|inputs?|sources?) (?:are |were |was )?found\b|"
                                 r"\bno tests (?:ran|to run|collected)\b|\bcollected 0 items\b|\bRan 0 tests\b|"
                                 r"\bno test suites? found\b|\bno files (?:matched|to (?:check|lint|process))\b",
                                 re.IGNORECASE)


_NOTHING_WORDS = ("found", "no tests", "collected 0", "ran 0 test", "no files")


def _checked_nothing(call: Call) -> bool:
    """A passing run whose output says it found nothing to check (a glob matching no file, no test)."""
    if call.result is None:
        return False
    head = call.result.text[:4000]
    low = head.lower()  # (substrings first: the regex runs only on an output that may hold one)
    return any(word in low for word in _NOTHING_WORDS) and bool(_NOTHING_CHECKED_RE.search(head))


_BUILD_WORDS = {"build", "compile", "bundle", "generate", "codegen", "install"}


def _changes(call: Call) -> bool:
    """A successful command that may have changed something (``mix format``), not a look around."""
    from .commands import main_statement

    program, args, _tail = main_statement(call.command())
    if not program or program in _LOOK_PROGRAMS:
        return False
    if any(arg in _BUILD_WORDS for arg in args[:2]):
        return True  # `bun run build` rebuilds what a stale check failed on: part of the fix
    if program in _CHECK_WORDS:
        return False
    if any(arg in _CHECK_WORDS for arg in args[:2]):
        return False  # another check (lint, test, build) verifies; it does not fix
    if any(arg in _READ_VERBS for arg in args[:2]):
        return False  # `gh pr list`, `kubectl get pods`, `docker ps`: a look, it changes nothing
    return not (program == "git" and args[:1] and args[0] in _LOOK_GIT)


def _acts(call: Call) -> bool:
    """A successful command that did something (changed, built, ran a check), not a look around."""
    from .commands import main_statement

    program, args, _tail = main_statement(call.command())
    if not program or program in _LOOK_PROGRAMS or any(arg in _READ_VERBS for arg in args[:1]):
        return False
    return not (program == "git" and args[:1] and args[0] in _LOOK_GIT - {"add"})


# The agent putting a failure down to other agents' work in progress (a shared checkout, parallel
# sessions): a full run that failed on what someone else is still writing is no attempt of this work.
_OTHERS_WORK_RE = re.compile(r"\b(?:from|by|of|belongs? to|owned by|caused by|due to|in|to)\s+(?:the\s+|an?\s+)?"
                             r"(?:other|another|parallel|concurrent|sibling)\s+(?:agents?|sessions?|workers?|"
                             r"teammates?|subagents?)(?:'s?)?\b", re.IGNORECASE)


def _others_work(entries: list[Entry], after: int, before: int) -> bool:
    """The agent's words between a failure and its next call put it down to other agents' work."""
    return any(after < e.index < before and e.role == "assistant" and e.kind in (None, "message", "thinking")
               and _OTHERS_WORK_RE.search(e.text) for e in entries)


def _cause(entries: list[Entry], after: int, before: int) -> str:
    """The agent's first explaining sentence between the failure and the next call."""
    for entry in entries:
        if entry.index <= after or entry.index >= before:
            continue
        if entry.role != "assistant" or entry.kind not in (None, "message"):
            continue
        for sentence in sentences(entry.text):
            if not _TACTICAL_RE.match(sentence) and len(sentence.split()) >= 5 and not sentence.endswith(":"):
                return squash(sentence, 160)
        return ""
    return ""




def _how(failed: Call, fix: Call, edited: list[str], ran: list[str] | None = None) -> str:
    if (not edited and not ran and escalated(fix) and not escalated(failed)
            and signature(failed.command()) == signature(fix.command())):
        return "run again outside the sandbox, with the escalated permissions the agent asked for"
    if failed.is_shell and fix.is_shell and signature(failed.command()) != signature(fix.command()):
        changed = f"ran `{fix.describe()}` instead"
    elif not failed.is_shell and isinstance(fix.entry.tool_input, dict) and isinstance(failed.entry.tool_input, dict):
        added = [k for k in fix.entry.tool_input if k not in failed.entry.tool_input]
        changed = f"retried with {', '.join(added)}" if added else ""
    else:
        changed = ""
    parts = [*_steps(edited, ran), changed] if changed else _steps(edited, ran)
    # Nothing was changed in between: a transient failure (a timeout, a flaky run), said as what happened.
    return "; ".join(parts) if parts else "nothing changed in between, the same call passed when run again (transient)"


def _steps(edited: list[str], ran: list[str] | None) -> list[str]:
    """What was done between a failure and its re-run: "after editing a.py", "after running `x`"."""
    files = list(dict.fromkeys(p.rsplit("/", 1)[-1] for p in edited))
    edits = f"after editing {', '.join(files[:4])}" if files else ""
    commands = list(dict.fromkeys(ran or []))
    steps = f"after running {', '.join(f'`{c}`' for c in commands[:3])}" if commands else ""
    return [p for p in (edits, steps) if p]


def _written_by_tool(call: Call) -> dict[str, str]:
    """What an edit tool wrote: a Write's content, the lines an apply_patch adds to a new file."""
    data = call.entry.tool_input
    if isinstance(data, dict):
        content = data.get("content")
        return {f: content if isinstance(content, str) else "" for f in call.files()}
    if isinstance(data, str):
        found: dict[str, str] = {}
        for match in re.finditer(r"^\*\*\* Add File: (?P<path>.+)\n(?P<body>(?:\+.*\n?)*)", data, re.MULTILINE):
            found[match.group("path")] = "\n".join(line[1:] for line in match.group("body").splitlines())
        return found or {f: "" for f in call.files()}
    return {}


def _runs_same_script(interpreter: str, script: str, later: Call, written: dict[str, str]) -> bool:
    """``later`` runs, with the same interpreter, a file written since with much the same text as the
    script that failed inline."""
    from .commands import main_statement

    key = check_key(later.command())  # a script's run is keyed by the script: ("convert.py",)
    if len(key) != 1 or main_statement(later.command())[0] != interpreter:
        return False
    body = next((text for path, text in written.items() if path.rsplit("/", 1)[-1] == key[0]), None)
    return body is not None and bool(body) and fuzz.token_set_ratio(script, body) >= 60


_NOTE_SUFFIXES = (".md", ".txt", ".rst")


def _is_mcp(call: Call) -> bool:
    """A call of an MCP server's tool (Claude Code names it ``mcp__<server>__<tool>``)."""
    return call.name.startswith("mcp__")


def _targets(call: Call) -> set[str]:
    """What a command is aimed at, as refs and paths: its positionals after the subcommand, a
    remote and branch given apart also joined (``git pull origin main`` → ``origin/main``)."""
    from .commands import main_statement

    _program, args, _tail = main_statement(call.command())
    words = [a for a in args[1:] if not a.startswith("-") and not _REDIRECT_CHARS & set(a)]  # (`2>/dev/null`)
    found = {w for w in words if "/" in w or "." in w}
    found.update(f"{one}/{two}" for one, two in zip(words, words[1:], strict=False) if "/" not in one + two)
    return found


def _other_route(failed: Call, calls: list[Call], position: int) -> Call | None:
    """A later command of the same program, another subcommand, that succeeded in changing what the
    failed one was aimed at (``git pull --ff-only origin main`` diverged → ``git reset --hard
    origin/main``): the failure fixed another way. Only when the failed check never ran again."""
    from .commands import main_statement

    if not failed.is_shell:
        return None
    program, args, _tail = main_statement(failed.command())
    targets = _targets(failed)
    if not program or not args or not targets:
        return None
    for later in calls[position + 1:]:
        if not later.is_shell:
            continue
        if same_check(_key(failed), _key(later)):
            return None
        other, other_args, _rest = main_statement(later.command())
        if (later.succeeded and other == program and other_args[:1] != args[:1] and _changes(later)
                and targets & _targets(later)):
            return later
    return None


_IN_SYNC_RE = re.compile(r"^## (?P<branch>[^\s.]+)\.\.\.\S+\s*$|\bYour branch is up to date with\b|"
                         r"^Everything up-to-date$|^\s*= \[up to date\]", re.MULTILINE)


def _pushed_after_all(failed: Call, calls: list[Call], position: int) -> Call | None:
    """A ``git push`` that failed (a timeout, no output) whose commits reached the remote all the same:
    a later ``git status`` says the branch is in step with its remote (no longer "ahead"), or a push run
    again says "up to date" — the first later look that says so is where the push is seen done."""
    from .commands import main_statement

    program, args, _tail = main_statement(failed.command())
    if program != "git" or args[:1] != ["push"]:
        return None
    for later in calls[position + 1:]:
        if not later.is_shell or later.result is None:
            continue
        other, other_args, _rest = main_statement(later.command())
        if other != "git" or other_args[:1] not in (["status"], ["push"]):
            continue
        if other_args[:1] == ["push"] and later.succeeded:
            return None  # pushed again for real: the ordinary re-run is the check
        if _IN_SYNC_RE.search(later.result.text.replace("\\n", "\n")) and (other_args[:1] == ["status"]
                                                                             and later.succeeded):
            return later
    return None


def _narrows(key: tuple[str, ...], later: tuple[str, ...], output: str) -> bool:
    """``later`` runs only the part of ``key``'s check that its output says failed: ``pytest`` failed
    on ``FAILED tests/test_io.py::test_reads``, then ``pytest tests/test_io.py`` ran."""
    if not key or len(later) != len(key) + 1 or later[:len(key)] != key or len(later[-1]) < 4:
        return False
    return bool(re.search(rf"(?<![\w.-]){re.escape(later[-1])}(?![\w-])", output))


def _missing_program(call: Call) -> str:
    """The program a shell call could not run because it is not installed ("" when it ran)."""
    from .commands import main_statement

    if call.result is None or not call.failed or not missing_tool(call.result.text, call.result.exit_code):
        return ""
    return main_statement(call.command())[0]


def _next_route(failed: Call, calls: list[Call], position: int, missing: bool) -> Call | None:
    """The need met another way at once: the next command, when it succeeded, after a program that is
    not installed (``rg`` missing, ``grep -rn`` ran; not a script run by a wrong path, whose own run is
    the check), or after a look that failed (``git ls-remote`` with no network) when the next is another
    look of the same program that answered (``git for-each-ref refs/remotes/origin``)."""
    from .commands import main_statement

    gone = _missing_program(failed) if missing else ""
    later = next((c for c in calls[position + 1:] if c.is_shell and not (gone and _missing_program(c) == gone)), None)
    if later is None or not later.succeeded:
        return None
    program, args, _tail = main_statement(failed.command())
    other, other_args, _rest = main_statement(later.command())
    if not program or not other:
        return None
    if missing:
        return later if other != program and not script_name(program) and _aimed_alike(failed, later) else None
    if program == other and other_args[:1] != args[:1] and not _changes(failed) and not _changes(later) and \
            not _checks(failed) and _aimed_alike(failed, later):
        return later
    return None


_PATHISH_RE = re.compile(r"[\w.~-]*[/.][\w./~-]+")
_REDIRECT_CHARS = set("<>|&")
_ANY_COMMANDS_PATHS = ("/dev/", "/tmp", "/bin/", "/usr/")  # where any command may write or run from
_CD_RE = re.compile(r"^\s*(?:cd|pushd|Set-Location)\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*", re.IGNORECASE)


def _aimed_alike(failed: Call, later: Call) -> bool:
    """``later`` is aimed at what ``failed`` was: a path one names appears in the other (``python -
    <<EOF`` reading a checklist, then ``awk … checklist.md``), or most of their words are shared
    (``python - <<EOF`` then ``python3 - <<EOF``). The next command after a missing program that is
    about something else (``git status``) met no need of the failed one."""
    one, two = (_CD_RE.sub("", c.command()) for c in (failed, later))  # (the folder both run in says nothing)
    if fuzz.token_set_ratio(one, two) >= 60:
        return True
    mine = {p.rstrip("/.") for p in _PATHISH_RE.findall(one) if len(p) > 3 and not p.startswith(_ANY_COMMANDS_PATHS)}
    theirs = {p.rstrip("/.") for p in _PATHISH_RE.findall(two) if len(p) > 3 and not p.startswith(_ANY_COMMANDS_PATHS)}
    if any(p in two for p in mine) or any(p in one for p in theirs):
        return True
    from .commands import main_statement

    # An operand of the failed command named again (`git ls-remote --heads origin`, then `git
    # for-each-ref refs/remotes/origin`).
    _program, args, _tail = main_statement(failed.command())
    return any(len(a) >= 4 and not a.startswith("-") and not _REDIRECT_CHARS & set(a) and a in two for a in args[1:])


_UNIT_TEST_MODULES = {"unittest", "pytest", "nose2", "doctest"}


def _tests(call: Call) -> bool:
    """A command that runs tests (a test runner, ``npm test``, ``python -m unittest``)."""
    key = check_key(call.command()) if call.is_shell else ()
    return bool(key) and (key[0] in _TEST_RUNNERS or key[0] in _UNIT_TEST_MODULES or
                          any(word in ("test", "tests") for word in key[1:2]))


_LAUNCH_TOOLS = {"Task", "Agent"}


def _relaunch(calls: list[Call], position: int) -> Call | None:
    """The next call, when it launched work again (a ``Task``/``Agent`` that started, a shell command
    started in the background) after a poll of a task the harness no longer knows."""
    later = calls[position + 1] if position + 1 < len(calls) else None
    if later is None or not later.succeeded:
        return None
    data = later.entry.tool_input
    background = later.is_shell and isinstance(data, dict) and data.get("run_in_background") is True
    return later if later.name in _LAUNCH_TOOLS or background else None


def _other_runner(failed: Call, calls: list[Call], position: int) -> Call | None:
    """A test runner that is not installed (and could not be installed) is got past by running the tests
    with another runner: the first later test run of another kind that ran — passed, or failed on
    the tests themselves, which is then a story of its own."""
    key = check_key(failed.command())
    for later in calls[position + 1:]:
        if not later.is_shell or later.result is None or not _tests(later) or same_check(key, _key(later)):
            continue
        if later.succeeded or not missing_tool(later.result.text, later.result.exit_code):
            return later
    return None


def _checks(call: Call) -> bool:
    """A command that runs a check (a test, a lint, a build), whose failure no look gets past."""
    from .commands import main_statement

    program, args, _tail = main_statement(call.command())
    return program in _CHECK_WORDS or any(arg in _CHECK_WORDS for arg in args[:2])


# What a status probe says: a one-shot watch or health check, a status subcommand.
_PROBE_FLAGS = {"--once", "--health", "--healthcheck", "--ready", "--status"}
_PROBE_VERBS = {"status", "health", "healthcheck", "ping", "ready", "readyz", "healthz", "is-ready", "wait-ready"}
_BACKGROUND_RE = re.compile(r"(?<![&|>])&\s*(?:$|\n)|^\s*(?:nohup|setsid)\b|\bnohup\s", re.MULTILINE)


def _running(call: Call) -> tuple[int, int] | None:
    """The entries during which ``call`` ran in the background: a Codex unified-exec command still running
    when it answered (until its last poll, or on if it never ended in sight), a command started with
    ``&``/``nohup``, a Claude Code call with ``run_in_background``."""
    if not call.is_shell or call.result is None:
        return None
    data = call.entry.tool_input
    if "Process running with" in call.result.text[:400] or _BACKGROUND_RE.search(call.command()) or (
            isinstance(data, dict) and data.get("run_in_background") is True):
        return (call.entry.index, 1 << 60)
    return (call.entry.index, call.end) if call.end > call.entry.index + 1 else None


def _is_probe(call: Call) -> bool:
    """A status probe: a ``--once`` watch, a ``status``/``health``/``ready`` check."""
    from .commands import main_statement

    if not call.is_shell:
        return False
    _program, args, _tail = main_statement(call.command())
    return bool(_PROBE_FLAGS & set(args) or _PROBE_VERBS & set(args[:2]))


def _probe_while_running(call: Call, calls: list[Call], position: int) -> bool:
    """A status probe (a ``--once`` watch, a ``status``/``health`` check) that failed while another
    command ran in the background: it says the run is not ready yet, the work did not fail."""
    if not _is_probe(call):
        return False
    start = call.entry.index
    return any((span := _running(other)) is not None and span[0] < start < span[1] for other in calls[:position])


def extract_attempts(entries: list[Entry], calls: list[Call]) -> list[Attempt]:
    """The attempts told by ``entries`` (cleaned) and their paired ``calls``: a log read as one chunk."""
    return _stories(entries, calls, frozenset())[0]


# A story still open this many calls after its first failure is told "not fixed" where it stands:
# what a chunk carries to the next stays bounded, however long the log.
CARRY_CALLS = 400
# A check failing again within this many calls of its last failing run is still the same fix loop: a
# failure between the two is a step of that loop (``python`` missing while a script kept failing).
LOOP_GAP_CALLS = 12
_CARRIED_KINDS = {"tool_call", "tool_result", "rejected"}


@dataclass(frozen=True)
class AttemptCarry:
    """What one chunk hands the next about the attempts still open at its end: the entries from the
    first open failure on (the calls, their results and the agent's words; a fix is whatever changed
    in between, the cause the words after the failure), and which of those calls start no story again
    (all but the open stories' own: the rest was told, taken in by a told story, or no failure)."""

    entries: tuple[Entry, ...] = ()
    told: frozenset[int] = frozenset()  # entry indices of the carried calls that start no story


def chunk_attempts(entries: list[Entry], carry: AttemptCarry | None, last: bool
                   ) -> tuple[list[Attempt], AttemptCarry | None]:
    """The attempts of one chunk of a log cut into chunks, and what to carry to the next chunk.

    A failure whose check has not passed by the chunk's end is not told yet: it is carried, with what
    followed it, into the next chunk, where the run that passes ends it "fixed" (one story, however
    many chunks its loop spans), and told "not fixed in this range" only at the last chunk (or when it
    has been open for ``CARRY_CALLS`` calls). A log read as one chunk gives what ``extract_attempts``
    gives."""
    if carry is None and last:
        return extract_attempts(entries, pair_calls(entries)), None
    window = [*carry.entries, *entries] if carry is not None else entries
    told = carry.told if carry is not None else frozenset()
    calls = pair_calls(window)
    attempts, taken, still_open = _stories(window, calls, told)
    starts = {a.range[0] for a in attempts if a.range}
    waiting = set() if last else still_open & starts  # (a story a larger one took in waits for nothing)
    call_starts = [c.entry.index for c in calls]
    while waiting and sum(1 for index in call_starts if index >= min(waiting)) > CARRY_CALLS:
        waiting.discard(min(waiting))  # open too long: told "not fixed" now
    told_now = [a for a in attempts if not a.range or a.range[0] not in waiting]
    if not waiting:
        return told_now, None
    since = min(waiting)
    kept = tuple(e for e in window if e.index >= since and (e.kind in _CARRIED_KINDS or e.role == "assistant"))
    # Every other call carried was told, taken in, or no failure at all: it starts no story again.
    going_on = {index for start in waiting for index in taken[start]}
    return told_now, AttemptCarry(entries=kept, told=frozenset(i for i in call_starts if i >= since) - going_on)


def _stories(entries: list[Entry], calls: list[Call], told: frozenset[int]
             ) -> tuple[list[Attempt], dict[int, set[int]], set[int]]:
    """The attempts, and for each story (by its first failure's entry index) the failing calls it
    took in, and the stories that ended "not fixed in this range". A failing call in ``told`` (a
    story an earlier chunk already told) starts no story."""
    attempts: list[Attempt] = []
    handled: set[int] = {position for position, call in enumerate(calls) if call.entry.index in told}
    taken: dict[int, set[int]] = {}  # first failure -> the failing calls of its story
    still_open: set[int] = set()
    # (the story, a failing run, the next failing re-run) of each check failing again and again
    loops: list[tuple[int, int, int]] = []
    fixed_spans: list[tuple[int, int]] = []  # (failure, the run that passed) of each check that was fixed
    for position, call in enumerate(calls):
        if position in handled or not _is_failure(call) or _probe_while_running(call, calls, position):
            continue
        handled.add(position)
        mine: list[int] = []  # the positions of the later failing calls this story takes in
        assert call.result is not None  # a failure has its result (_is_failure)
        key = _key(call)
        tool_missing = call.is_shell and missing_tool(call.result.text if call.result else "", call.result.exit_code
                                                      if call.result else None)
        paths = path_arguments(call.command()) if tool_missing else set()
        bare = unwrapped_key(call.command()) if call.is_shell else ()
        repeats, fix, edited, ran = 1, None, [], []
        chain = _chain(call)
        chained = bool(chain) and not tool_missing
        interpreter, script = inline_script(call.command()) if call.is_shell else ("", "")
        written: dict[str, str] = {}  # file -> what was written to it since the failure
        polled = call.result.tool_name in BACKGROUND_POLL_TOOLS  # a background command's failure, read by a poll
        for offset in range(position + 1, len(calls)):
            later = calls[offset]
            if polled and later.entry.index < call.result.index:
                continue  # run while the command was starting, before its failure was seen: no fix step
            if later.is_edit and later.succeeded:
                edited.extend(later.files())
                written.update(_written_by_tool(later))
                continue
            if later.is_shell and later.succeeded:
                changed = written_files(later.command())
                edited.extend(changed)  # `cat > f <<EOF`, `sed -i`: a change made with the shell is a change
                written.update(changed)
            if script and later.is_shell and _runs_same_script(interpreter, script, later, written):
                key = _key(later)  # the failed inline script, now written to a file: that file's run is the check
            if later.is_shell and later.succeeded and not same_check(key, _key(later)) and _changes(later):
                ran.append(later.describe())
            if chained and not same_check(key, _key(later)) and later.is_shell and _covers(chain, later) and (
                    later.succeeded or len(chain) > 1):
                key = _key(later)  # the failed chain run again with more after it: the longer chain is the check
            if tool_missing and later.is_shell and _missing_program(later) == _missing_program(call):
                mine.append(offset)  # the program still not installed, whatever it was asked: the same failure
                repeats += 1
                continue
            if _narrows(key, _key(later), call.result.text):
                if _is_failure(later):
                    mine.append(offset)  # the part that failed, run alone, failed again: still the same story
                    repeats += 1
                    continue
                if later.succeeded:
                    fix = later  # the part that failed, run alone, passed
                    break
            if same_check(key, _key(later)):
                if later.succeeded and _checked_nothing(later):
                    continue  # it found nothing to check ("No files are found"): it passed on nothing
                if _is_failure(later) or (later.succeeded and _shows_same_error(call, later)):
                    # (`cmd | sed …` exiting 0 with the same error still failed)
                    mine.append(offset)
                    repeats += 1
                    continue
                if later.succeeded or (later.is_shell and later.result is not None and later.failed):
                    fix = later  # passed, or "failed" only as a search without a match does: it ran
                    break
            elif tool_missing and later.is_shell and later.succeeded and paths & path_arguments(later.command()):
                fix = later
                break
            elif bare and later.is_shell and later.result is not None and same_check(bare, _key(later)) and (
                    later.succeeded or error_line(later.result) != error_line(call.result)):
                fix = later  # without the wrapper the check ran: passed, or failed on something else (its own story)
                break
        handled.update(mine)
        taken[call.entry.index] = {call.entry.index, *(calls[p].entry.index for p in mine)}
        failing = [position, *mine]
        # Only a re-run close after the one before keeps the loop going: what failed in such a gap was
        # a step of that loop; a check that failed again after the agent went on to other work (tens of
        # calls, other stories fixed) holds no story between its two runs.
        loops.extend((call.entry.index, calls[one].entry.index, calls[two].entry.index)
                     for one, two in zip(failing, failing[1:], strict=False) if two - one <= LOOP_GAP_CALLS)
        relaunched = False
        if fix is None and tool_missing and _tests(call):
            fix = _other_runner(call, calls, position)
        if call.name in BACKGROUND_POLL_TOOLS and not call.is_shell and GONE_TASK_RE.search(call.result.text[:300]):
            # A poll of a task or shell the harness no longer knows: mechanics, no story — unless the
            # agent then launched the work again (the launch that succeeded got past it).
            fix = _relaunch(calls, position)
            if fix is None:
                continue
            edited, ran = [], []
            relaunched = True
        if fix is None and call.is_shell:
            fix = _next_route(call, calls, position, tool_missing)
            if fix is not None:
                edited, ran = [], []
        if fix is None:
            fix = _other_route(call, calls, position)
            if fix is not None:  # what changed is what came before that command, not the rest of the log
                between = calls[position + 1:calls.index(fix)]
                edited = [f for c in between if c.is_edit and c.succeeded for f in c.files()]
                ran = []
        landed = fix is None and call.is_shell and (fix := _pushed_after_all(call, calls, position)) is not None
        if _is_mcp(call):
            if fix is None or not (edited or ran):
                # An MCP tool's error the work never changed to get past: the service answering the
                # agent's probe (a QA run trying invalid input), not a check of the work that failed.
                continue
            if not [f for f in edited if not f.lower().endswith(_NOTE_SUFFIXES)] and not ran:
                # Only notes written in between (the bug documented): the tool got through with
                # other input, nothing was fixed.
                attempts.append(Attempt(trial=f"`{call.describe()}`", result=(
                    f"failed: {error_line(call.result)}; not fixed — noted in "
                    f"{', '.join(dict.fromkeys(f.rsplit('/', 1)[-1] for f in edited))}; `{fix.describe()}` "
                    "then succeeded with other input"), outcome="failure", range=(call.entry.index, fix.end)))
                continue
        trial = f"`{call.describe()}`"
        times = f" ({repeats} times)" if repeats > 1 else ""
        error = error_line(call.result)
        next_call = calls[position + 1].entry.index if position + 1 < len(calls) else 1 << 60
        if polled:  # the words after the poll that showed the failure, before the next call
            next_call = next((c.entry.index for c in calls[position + 1:] if c.entry.index > call.result.index), 1 << 60)
        cause = _cause(entries, call.result.index, next_call)
        because = f"; cause: {cause}" if cause else ""
        if fix is None and _others_work(entries, call.result.index, next_call):
            continue
        if fix is None:
            attempts.append(Attempt(trial=trial, result=f"failed{times}: {error}{because}; not fixed in this range",
                                    outcome="failure", range=(call.entry.index, call.end)))
            still_open.add(call.entry.index)
            continue
        if _is_probe(call) and fix.is_shell and signature(fix.command()) == signature(call.command()) and not (
                edited or ran):
            continue  # the same probe asked again with nothing done in between: it waited, nothing was fixed
        if sandbox_refused(call.result) and fix.is_shell and not escalated(fix) and not (edited or ran) and \
                signature(fix.command()) == signature(call.command()):
            # The sandbox refused it and the same command then ran with nothing changed and nothing asked
            # for: the harness got the user's approval and ran it again (Codex's on-failure approval).
            # The work never failed; nothing was tried or fixed.
            continue
        flag = check_bypass(fix.command(), call.command()) if call.is_shell and fix.is_shell else ""
        if flag:
            # It got through only by skipping the check (`git commit --no-verify` after the hook
            # failed): nobody has seen the check pass, so the story ends "not fixed", said as what
            # happened. What was tried before still belongs to it.
            tried = "".join(f"{step}, " for step in _steps(edited, ran))
            attempts.append(Attempt(trial=trial, result=f"failed{times}: {error}{because}; not fixed — {tried}the "
                                    f"check was bypassed by `{fix.describe()}` (`{flag}`)", outcome="failure",
                                    range=(call.entry.index, fix.end)))
            continue
        fixed_spans.append((call.entry.index, fix.entry.index))
        if landed:
            attempts.append(Attempt(trial=trial, result=f"failed{times}: {error}{because}; fixed — the commits reached "
                                    f"the remote all the same: `{fix.describe()}` shows the branch in step with it",
                                    outcome="success", range=(call.entry.index, fix.end)))
            continue
        how = "launched the work again" if relaunched else _how(call, fix, edited, ran)
        attempts.append(Attempt(trial=trial, result=f"failed{times}: {error}{because}; fixed — {how}; "
                                f"`{fix.describe()}` then succeeded", outcome="success",
                                range=(call.entry.index, fix.end)))
    # Whatever else failed while a check was still failing again and again (between two of its failing
    # runs close together) was a step of that loop, told by the loop's story: one failing check and its
    # eventual fix is one attempt, not one more for `python` missing on the way. A loop that never got
    # fixed takes in nothing: `rg` missing and met by `find` while the CLI never ran is its own story.
    fixed = {start for start, _end in fixed_spans}
    attempts = [a for a in attempts if not any(story in fixed and first < (a.range or (0, 0))[0] < last
                                               for story, first, last in loops)]
    # And a step that failed and went nowhere inside a story that ended fixed (`pip install` refused on
    # the way to running the tests another way) is part of that story, not one more "not fixed".
    attempts = [a for a in attempts if a.outcome == "success" or not a.range or not any(
        start < a.range[0] < end for start, end in fixed_spans)]
    attempts.extend(_hook_attempts(entries, calls))
    attempts.extend(_blocked_attempts(entries, calls, attempts))
    attempts.extend(_still_there_attempts(entries, calls, attempts))
    attempts.extend(_reported_attempts(entries, calls))
    attempts.extend(a for a in _stuck_edit_attempts(calls) if a.range and a.range[0] not in told)
    # (a look an earlier chunk carried here was told there)
    attempts.extend(a for a in _look_again_attempts(calls) if a.range and a.range[0] not in taken
                    and a.range[0] not in told)
    attempts.sort(key=lambda a: a.range or (0, 0))
    return attempts, taken, still_open


def _hook_name(text: str) -> str:
    match = _HOOK_RE.match(text.strip())
    return match.group("hook") if match else "hook"


def _hook_attempts(entries: list[Entry], calls: list[Call]) -> list[Attempt]:
    """Hook feedback (a Stop hook refusing to end the turn, a hook blocking a call) as failures,
    told with cause and fix or not at all: the hook's words are the cause; it is fixed when the agent
    then changed something (edited, committed, ran a command that changes things) and the same hook
    did not complain again before the user's next message. Repeated complaints are one story; a
    complaint the agent answered without a step is no story (nothing was fixed, nothing failed)."""
    found: list[Attempt] = []
    feedback = [e for e in entries if e.kind == "hook_feedback"]
    skip: set[int] = set()
    for number, entry in enumerate(feedback):
        if number in skip:
            continue
        hook = _hook_name(entry.text)
        stop = next((e.index for e in entries if e.index > entry.index and e.role == "user"
                     and e.kind in (None, "message")), None)
        group = [entry]
        for other_number in range(number + 1, len(feedback)):
            other = feedback[other_number]
            if (stop is None or other.index < stop) and _hook_name(other.text) == hook:
                group.append(other)
                skip.add(other_number)
        last = group[-1]
        match = _HOOK_RE.match(entry.text.strip())
        lines = _lines(match.group("text") if match else entry.text)
        said = squash(lines[0], 160) if lines else "refused"
        times = f" ({len(group)} times)" if len(group) > 1 else ""
        steps = [c for c in calls if c.entry.index > last.index and (stop is None or c.entry.index < stop)
                 and c.succeeded and (c.is_edit or (c.is_shell and (_acts(c) or bool(written_files(c.command())))))]
        if steps:
            edited = [f for c in steps if c.is_edit for f in c.files()]
            ran = [c.describe() for c in steps if c.is_shell]
            how = _how(steps[-1], steps[-1], edited, ran)
            found.append(Attempt(trial=f"the {hook} hook", result=f"blocked{times}: {said}; fixed — {how}; the hook "
                                 "did not object again", outcome="success", range=(entry.index, steps[-1].end)))
        elif len(group) > 1 or any(c.entry.index > entry.index and (stop is None or c.entry.index < stop)
                                   for c in calls):
            found.append(Attempt(trial=f"the {hook} hook", result=f"blocked{times}: {said}; not fixed in this range",
                                 outcome="failure", range=(entry.index, last.index)))
    return found


# ---------------------------------------------------------------- a look that found the work blocked
# The agent ending its turn saying it cannot go on: "**Blocked** — T002 cannot proceed", "unable to
# continue", a workflow's "Préflight échoué — arrêt obligatoire" (halted).
_BLOCKED_RE = re.compile(r"\bblocked\b|\bcannot proceed\b|\bcan'?t proceed\b|\bunable to (?:proceed|continue)\b|"
                         r"\bhalt(?:ed|ing)?\b|\béchou|\barrêt\b|\bbloqué", re.IGNORECASE)


_BLOCKED_WORDS = ("blocked", "proceed", "unable to continue", "halt", "échou", "arrêt", "bloqu")


def _blocked_sentence(text: str) -> str:
    """The agent's sentence saying it is blocked, its markup dropped; a heading alone ("**Blocked**")
    with the sentence after it."""
    said = [re.sub(r"[*_#`]+", "", s).strip(" -—:") for s in sentences(text)]
    for number, sentence in enumerate(said):
        if _BLOCKED_RE.search(sentence):
            if len(sentence.split()) < 4 and number + 1 < len(said):
                sentence = f"{sentence}: {said[number + 1]}"
            return squash(" ".join(sentence.split()), 160)
    return ""


def _blocked_attempts(entries: list[Entry], calls: list[Call], told: list[Attempt]) -> list[Attempt]:
    """A look that found something the work needs missing (``ls package.json``: no such file; a search
    for the project's config that found nothing) — a look around on its own — after which the agent
    changed nothing and ended its turn saying it cannot go on: the work was tried and is blocked, a
    story not fixed. Only when no story of the turn tells a real failure already."""
    # The looks that found nothing (cheap first: most chunks have no failed shell call, fewer still a look).
    looks_all = [c for c in calls if c.is_shell and c.failed and c.result is not None and not _is_failure(c)
                 and not missing_tool(c.result.text, c.result.exit_code)]
    if not looks_all:
        return []
    users = [e.index for e in entries if e.role == "user" and e.kind in (None, "message")]
    turns: dict[int, list[Call]] = {}  # the turn (the user's next message, or none) -> its looks that found nothing
    for call in looks_all:
        turns.setdefault(bisect.bisect_right(users, call.entry.index), []).append(call)
    last_end: dict[int, int] = {}  # the turn -> the end of its last call
    for call in calls:
        turn = bisect.bisect_right(users, call.entry.index)
        if turn in turns:
            last_end[turn] = max(last_end.get(turn, -1), call.end)
    spoken = [e for e in entries if e.role == "assistant" and e.kind in (None, "message")]
    spoken_at = [e.index for e in spoken]
    found: list[Attempt] = []
    for turn, failures in turns.items():
        since = users[turn - 1] if turn > 0 else -1
        until = users[turn] if turn < len(users) else 1 << 60
        # the agent's last words of the turn, after its last call: it stopped there (checked first: cheap)
        at = bisect.bisect_left(spoken_at, until) - 1
        if at < 0 or spoken_at[at] <= last_end[turn] or (turn == len(users) and entries[-1].index != spoken_at[at]):
            continue
        head = spoken[at].text[:1500]
        low = head.lower()  # (substrings first: the regex and the sentences only for words that may say it)
        said = _blocked_sentence(head) if any(word in low for word in _BLOCKED_WORDS) and _BLOCKED_RE.search(head) else ""
        if not said:
            continue
        if any(a.range and since < a.range[0] < until for a in told):
            continue  # a story of the turn tells its real failure
        look = failures[-1]
        if any(look.entry.index < c.entry.index < until and c.succeeded and (c.is_edit or (c.is_shell and _changes(c)))
               for c in calls):
            continue  # something was changed after it: the agent got on with the work
        shown = " ".join(_lines(look.result.text if look.result else ""))
        found.append(Attempt(trial=f"`{look.describe()}`", result=f"failed: {squash(shown, 120) or 'found nothing'}; "
                             f"not fixed — the agent stopped, blocked: {said}", outcome="failure",
                             range=(look.entry.index, spoken_at[at])))
    return found


# ---------------------------------------------------------------- a problem the agent's own look found still there
# The agent's words right after a call that ran: what it looked at shows the problem is still there
# ("I found that strict mode still left long instruction text", "The go.mod still shows 1.24.0").
_STILL_THERE_RE = re.compile(r"\bstill (?:left|leaves|contains?|fails?|failing|shows?|showing|broken|errors?|"
                             r"crash(?:es|ing)?|returns?|prints?|leaks?|missing)\b", re.IGNORECASE)


def _still_there_attempts(entries: list[Entry], calls: list[Call], told: list[Attempt]) -> list[Attempt]:
    """A problem the agent's own look found still there, told in its words right after a call that
    ran, then worked on (an edit, a command that changes things) before the user spoke again: a story,
    fixed when the agent did not find it still there again before the user's next message, not fixed
    when its last words say it still is. Said in words and never acted on, it is no story; a call that
    failed is told by its own story."""
    if not any(e.role == "assistant" and "still" in e.text[:400] for e in entries):
        return []  # (cheap first: most chunks have no such words)
    found: list[Attempt] = []
    after_call: dict[int, Call] = {}  # a result's entry index -> its call
    for call in calls:
        if call.result is not None:
            after_call[call.result.index] = call
    users = [e.index for e in entries if e.role == "user" and e.kind in (None, "message")]
    last_tool = -1
    for entry in entries:
        if entry.role == "tool":
            last_tool = entry.index
            continue
        if entry.role != "assistant" or entry.kind not in (None, "message") or "still" not in entry.text[:400]:
            if entry.role != "assistant" or entry.kind not in ("thinking", None, "message"):
                last_tool = -1  # (only the agent's thinking may come between the result and its words)
            continue
        match = _STILL_THERE_RE.search(entry.text[:400])
        looked = after_call.get(last_tool)
        last_tool = -1
        if match is None or looked is None or looked.failed:  # (a redacted output says neither)
            continue
        if any(a.range and a.range[0] <= entry.index <= a.range[1] for a in told + found):
            continue  # a story already tells it
        until = next((i for i in users if i > entry.index), 1 << 60)
        steps = [c for c in calls if entry.index < c.entry.index < until and c.succeeded
                 and (c.is_edit or (c.is_shell and (_changes(c) or bool(written_files(c.command())))))]
        if not steps:
            continue  # said, never worked on: no story
        said = next((squash(s, 160) for s in sentences(entry.text[:600]) if _STILL_THERE_RE.search(s)), "")
        last_words = [e for e in entries if steps[-1].end < e.index < until and e.role == "assistant"
                      and e.kind in (None, "message")]
        again = bool(last_words) and bool(_STILL_THERE_RE.search(last_words[-1].text[:400]))
        edited = [f for c in steps if c.is_edit for f in c.files()]
        ran = [c.describe() for c in steps if c.is_shell]
        how = "; ".join(_steps(edited, ran))
        end = last_words[-1].index if last_words else steps[-1].end
        trial = f"`{looked.describe()}`" if looked.is_shell and looked.command() else "the agent's own check"
        found.append(Attempt(trial=trial, result=(f"still there: {said}; not fixed — {how}; the agent's last words "
                                                  "say it still is") if again else
                             f"still there: {said}; fixed — {how}; the agent did not find it again",
                             outcome="failure" if again else "success", range=(looked.entry.index, end)))
    return found


# ---------------------------------------------------------------- failures the user reports
# The user ran what the agent made and tells it failed: a pasted traceback or error output, or words
# ("it still goes from page 1 to 3", "it exited immediately", "doesn't work").
_PASTED_ERROR_RE = re.compile(r"Traceback \(most recent call last\)|\b\w*(?:Error|Exception)\b\s*[:=]|\berror:|"
                              r"\bfailed\b|\bpanicked at\b", re.IGNORECASE)
_STILL_RE = re.compile(r"\bstill\b(?:(?!\bwant\b|\bneed\b|\bwould\b|\blike\b).){0,60}?\b(?:not|\w+n'?t|fails?|failing|"
                       r"broken|errors?|issues?|problems?|the same|goes|skips?|skipping|crash(?:es|ing)?|happens|"
                       r"happening|shows?|showing|getting|seeing|exits?|empty|blank|wrong|nothing)\b|\b(?:issue|problem|error|bug)s? still\b",
                       re.IGNORECASE)
_BROKEN_RE = re.compile(r"\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not|won'?t|will not|never)\s+"
                        r"(?:\w+\s+)?(?:work|working|open|opened|start|started|load|loaded|show|showed|appear|"
                        r"appeared|run|ran|build|compile|launch|launched)\b|\bnot working\b|"
                        r"\bexit(?:s|ed)? immediately\b|\bsame (?:error|issue|problem)\b|"
                        r"\bi (?:got|get|see|saw) (?:this |an |the following |these )?errors?\b", re.IGNORECASE)
_WORKED_RE = re.compile(r"\b(?:this|that|it) (?:worked|works)\b|\b(?:works|working) now\b|\bthat (?:did it|fixed it)\b|"
                        r"^\W*better\b|\bnow it works\b", re.IGNORECASE)
_AGAIN_RE = re.compile(r"\bstill\b|\bsame\b|\bagain\b", re.IGNORECASE)


def _user_messages(entries: list[Entry]) -> list[Entry]:
    """What the user typed, an image sent on its own ("[image]", its words follow) left out."""
    return [e for e in entries if e.role == "user" and e.kind in (None, "message") and e.text.strip()
            and not re.fullmatch(r"(?:\[image[^\]]*\]\s*)+", e.text.strip(), re.IGNORECASE)]


def reports_failure(text: str, worked_before: bool) -> bool:
    """The user's message tells that what the agent made failed when they ran it: pasted error output
    (a traceback, "Error: …") or, after the agent worked, words saying it still fails or does not work."""
    words = text.strip()
    if not worked_before:
        return False  # the first thing the user says: a problem to work on, nothing the agent tried
    if _PASTED_ERROR_RE.search(words) and "\n" in words:
        return True
    return bool(_STILL_RE.search(words) or _BROKEN_RE.search(words))


def _same_failure(one: str, other: str) -> bool:
    """Two reports tell the same error: an error line of one (``Error: …``, ``…Exception: …``) is in
    the other, or most of their words are shared."""
    lines = [line.strip() for line in one.splitlines() if _PASTED_ERROR_RE.search(line) and len(line.strip()) >= 12]
    if any(line[:80] in other for line in lines):
        return True
    return fuzz.token_set_ratio(one[:600], other[:600]) >= 80


_STYLE_WORDS = {"lint", "format", "fmt", "typecheck", "type-check", "tsc", "eslint", "ruff", "mypy", "pyright", "flake8",
                "prettier", "clippy", "vet", "stylelint", "biome", "black", "isort", "pylint", "rubocop", "credo"}


def _style_check(call: Call) -> bool:
    """A lint, format or type check: it passing says the code is tidy, not that it works."""
    key = check_key(call.command())
    return bool(key) and (key[0] in _STYLE_WORDS or any(word in _STYLE_WORDS for word in key[1:2]))


def _records(call: Call) -> bool:
    """A command that records or ships the work (``git commit``, ``git push``): it changes nothing the
    user runs."""
    from .commands import main_statement

    program, args, _tail = main_statement(call.command())
    return program == "git"


def _reported_attempts(entries: list[Entry], calls: list[Call]) -> list[Attempt]:
    """Failures the user reports after running the agent's work, told with what the agent changed
    then: fixed when the user then says it works, or when the agent's own check passed after its
    change and the user reported nothing else failing; a report of the same failure again ("still",
    "same", or the same error line pasted again) is the same story; a report of another error pasted
    next means the user got past this one (fixed); otherwise not fixed (the user did not report back)."""
    found: list[Attempt] = []
    users = _user_messages(entries)
    number = 0
    while number < len(users):
        report = users[number]
        # The agent worked before the report: a call before it, or the window opens with the report
        # well into the log (the work is in the chunk before).
        worked_before = any(c.entry.index < report.index and c.succeeded and (c.is_edit or c.is_shell)
                            for c in calls) or (entries[0].index >= report.index - 1 and report.index >= 20)
        if not reports_failure(report.text, worked_before) or _WORKED_RE.search(report.text[:200]):
            number += 1
            continue
        start, times, checked = report.index, 1, ""
        edited: list[str] = []
        ran: list[str] = []
        end = report.index
        outcome: Literal["success", "failure"] = "failure"
        told = "the user did not report back"
        following = number + 1
        while True:
            until = users[following].index if following < len(users) else 1 << 60
            steps = [c for c in calls if report.index < c.entry.index < until and c.succeeded]
            changes = [c for c in steps if c.is_edit or (c.is_shell and not _records(c) and (
                _changes(c) or bool(written_files(c.command()))))]
            if not changes:
                break  # answered in words: nothing was tried (yet) for this report
            edited.extend(f for c in changes if c.is_edit for f in c.files())
            ran.extend(c.describe() for c in changes if c.is_shell and not _checks(c))
            last_change = changes[-1].entry.index
            passed = [c for c in steps if c.is_shell and c.entry.index > last_change and (_checks(c) or _tests(c))
                      and not _style_check(c)]  # (a lint passing says nothing of what the user saw fail)
            checked = passed[-1].describe() if passed else ""
            end = max(c.end for c in steps)
            end = max([end] + [e.index for e in entries if end < e.index < until and e.role == "assistant"
                               and e.kind in (None, "message")])
            nxt = users[following] if following < len(users) else None
            if nxt is not None and _WORKED_RE.search(nxt.text[:300]) and not _STILL_RE.search(nxt.text):
                outcome, told = "success", f"the user then reported: “{squash(nxt.text, 80)}”"
                end = nxt.index
                following += 1
                break
            if nxt is not None and reports_failure(nxt.text, True) and (_AGAIN_RE.search(nxt.text) or (
                    _PASTED_ERROR_RE.search(nxt.text) and _same_failure(report.text, nxt.text))):
                times += 1
                report = nxt
                following += 1
                continue
            if nxt is not None and _PASTED_ERROR_RE.search(nxt.text) and reports_failure(nxt.text, True) and \
                    not _same_failure(report.text, nxt.text):
                # The user ran it again and reports another error, not this one: they got past it (a
                # white page, then the next error further on). That report is a story of its own.
                outcome, told = "success", "the user's next report is of another error, past this one"
                break
            if checked:
                outcome, told = "success", f"`{checked}` then passed"
            break
        number = following
        if not edited and not ran:
            continue
        how = "; ".join(_steps(edited, ran))
        said = squash(" ".join(report.text.split()), 140)  # the latest report: what still failed
        again = f" ({times} times)" if times > 1 else ""
        result = (f"failed{again}: {said}; fixed — {how}; {told}" if outcome == "success" else
                  f"failed{again}: {said}; not fixed — {how}; {told}")
        found.append(Attempt(trial="what the user ran after the agent's work", result=result, outcome=outcome,
                             range=(start, end)))
    return found


# ---------------------------------------------------------------- a look run again that found it
_LOOK_MISSING_RE = re.compile(r"no such file or directory|cannot find path|does not exist|cannot access", re.IGNORECASE)


def _workdir(call: Call) -> str:
    data = call.entry.tool_input
    value = data.get("workdir") or data.get("cwd") if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""


def _look_again_attempts(calls: list[Call]) -> list[Attempt]:
    """A look at a path that was not there (``cat``, ``ls``, ``sed -n`` of a missing file: a look
    around, no failure on its own) that the same command, run again later, read: it was run from the
    wrong folder, or the path was made in between. The failure and what changed are a story, fixed.
    A look retried with another path is none (a look-up, not a fix)."""
    from .commands import _EXPLORE_PROGRAMS, main_statement

    found: list[Attempt] = []
    done: set[str] = set()
    for position, call in enumerate(calls):
        if not call.is_shell or not call.failed or call.result is None or call.command() in done:
            continue
        program = main_statement(call.command())[0].lower()
        if not (program in _EXPLORE_PROGRAMS or program == "sed") or missing_tool(call.result.text, call.result.exit_code):
            continue
        if not _LOOK_MISSING_RE.search(call.result.text):
            continue
        again = next((c for c in calls[position + 1:] if c.is_shell and c.command() == call.command()
                      and c.result is not None), None)
        if again is None or not again.succeeded:
            continue
        done.add(call.command())
        between = calls[position + 1:calls.index(again)]
        edited = [f for c in between if c.is_edit and c.succeeded for f in c.files()]
        moved = _workdir(again) != _workdir(call) and bool(_workdir(again))
        how = "; ".join([*_steps(edited, None), *([f"run from {_workdir(again)}"] if moved else [])]) or \
            "run again later"
        found.append(Attempt(trial=f"`{call.describe()}`", result=f"failed: {error_line(call.result)}; fixed — {how}; "
                             f"`{again.describe()}` then succeeded", outcome="success", range=(call.entry.index, again.end)))
    return found


# ---------------------------------------------------------------- an edit stuck on the same file
STUCK_EDITS = 3  # this many of the same edit mechanics failing on one file is no slip any more


def _stuck_edit_attempts(calls: list[Call]) -> list[Attempt]:
    """An edit that fails on its mechanics (apply_patch "Failed to find expected lines", "String to
    replace not found") is a slip, fixed without learning anything — but the same file refusing edit
    after edit (``STUCK_EDITS`` times, no edit of it landing between) is something the agent had to
    get past: a story, fixed by the edit of that file that then landed (a rewrite, the file deleted and
    added again), not fixed when none did."""
    found: list[Attempt] = []
    taken: set[int] = set()
    for position, call in enumerate(calls):
        if position in taken or not call.is_edit or not call.failed or call.result is None or not call.files():
            continue
        if not MECHANICS_RE.search(call.result.text):
            continue
        target = call.files()[0]
        fails = [position]
        landed: list[int] = []
        for offset in range(position + 1, len(calls)):
            later = calls[offset]
            if not later.is_edit or target not in later.files():
                if landed:
                    break
                continue
            if later.succeeded:
                landed.append(offset)  # (a delete, then the add: one change)
                continue
            if landed:
                break
            if later.failed and later.result is not None and MECHANICS_RE.search(later.result.text):
                fails.append(offset)
        taken.update(fails)
        if len(fails) < STUCK_EDITS:
            continue
        error = error_line(call.result)
        name = target.rsplit("/", 1)[-1]
        if not landed:
            found.append(Attempt(trial=f"`{call.describe()}`", result=f"failed ({len(fails)} times): {error}; not fixed "
                                 f"in this range", outcome="failure", range=(call.entry.index, calls[fails[-1]].end)))
            continue
        patches = " ".join(calls[i].patch() for i in landed)
        how = (f"{name} deleted and written again whole" if "*** Delete File:" in patches and "*** Add File:" in patches
               else f"{name} written whole" if any(calls[i].name.lower() == "write" for i in landed)
               else f"after editing {name} another way")
        found.append(Attempt(trial=f"`{call.describe()}`", result=f"failed ({len(fails)} times): {error}; fixed — {how}; "
                             f"`{calls[landed[-1]].describe()}` then succeeded", outcome="success",
                             range=(call.entry.index, calls[landed[-1]].end)))
    return found
