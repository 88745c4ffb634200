"""What a shell command's exit status means, and which later command re-runs the same check.

Owns the per-command knowledge of the rules extractor:
- ``is_real_failure``: a non-zero exit is not always a failure — ``grep``/``rg`` exit 1 means "no
  match", ``diff``/``cmp`` 1 means "they differ", ``test``/``[`` 1 means "false", ``git commit``
  with "nothing to commit" changed nothing, a merge/rebase/cherry-pick/pull that stops on conflicts
  hands over the conflict to resolve (its resolution is a decision, not a fix); an exploratory command (``ls``, ``cat``, ``find``...,
  or an inline ``python -c`` probe) that fails is a look around, not an attempt — unless the
  program itself is missing (``tree: command not found`` is worth remembering);
- ``check_bypass``: the switch (``--no-verify``, ``git commit -n``, ``HUSKY=0``, ``SKIP=…``, a forced
  push) with which a later run of a failed check got through by skipping the check, read on the
  command's own statements (the lexicon is ``store.check_bypass``);
- ``check_key``: the identity of the check a command runs (program + subcommand + target, with
  ``python3`` = ``python``), so a fix is paired with a later run of the *same* check, never with
  an unrelated command whose text merely looks alike.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from ..store.check_bypass import new_bypass, statement_bypasses, variable_bypass

_SPLIT_RE = re.compile(r"\s*(?:&&|\|\||;|\n)\s*")
_PIPE_RE = re.compile(r"(?<!\|)\|(?!\|)")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SETUP = {"cd", "export", "set", "source", ".", "echo", "true", "sleep", "pushd", "popd", "env", "unset", "clear",
          "printf", "mkdir"}
_WRAPPERS = {"sudo", "time", "nice", "nohup", "command", "exec", "xargs", "timeout"}
_SUBCOMMAND = {"git", "npm", "pnpm", "yarn", "cargo", "mix", "go", "uv", "poetry", "make", "bd", "docker", "kubectl",
               "gh", "bun", "deno", "dotnet", "bundle", "rake", "npx", "pip", "brew", "apt", "apt-get", "rails",
               "gradle", "mvn", "swift", "flutter", "dart", "rustup", "terraform", "helm", "pdm", "hatch", "tox",
               "nox", "just", "task", "composer", "php", "elixir", "iex", "yoi"}
_RUNNERS = {"python", "node", "ruby", "bash", "sh", "zsh", "perl", "pytest", "jest", "vitest", "ts-node", "tsx",
            "deno", "php", "java", "go", "cargo", "rspec", "phpunit"}
_TEST_RUNNERS = {"pytest", "jest", "vitest", "rspec", "phpunit", "mocha", "ava", "tox", "nox"}
_TEST_WORDS = {"test", "tests", "run", "exec", "check", "spec"}
_VALUE_FLAGS = {"-m", "--message", "-C", "-c", "-F", "-u", "-n", "-e", "--filter", "-p", "-k", "--prefix", "-w",
                "--workspace", "-f", "--file", "-t", "--target", "--set-upstream-to"}
_NO_MATCH_PROGRAMS = {"grep", "rg", "egrep", "fgrep", "ag", "ack", "pgrep", "git-grep"}
_DIFF_PROGRAMS = {"diff", "cmp", "colordiff"}
_TEST_PROGRAMS = {"test", "[", "[["}
_EXPLORE_PROGRAMS = {"ls", "cat", "head", "tail", "find", "stat", "file", "wc", "du", "readlink", "realpath", "less",
                     "more", "tree", "which", "type", "whereis", "pwd", "bat", "exa", "eza", "fd", "locate",
                     # PowerShell's looks (cat, ls, test -e, grep), as Codex on Windows runs them
                     "get-content", "gc", "get-childitem", "gci", "dir", "test-path", "select-string",
                     "get-item", "resolve-path",
                     # reading a file another way (Codex's `nl -ba f | sed -n …`, a dump, a checksum, a
                     # query of a JSON/YAML file): a look too
                     "nl", "tac", "sort", "uniq", "cut", "column", "xxd", "hexdump", "od", "strings", "df", "uname",
                     "sha256sum", "shasum", "md5sum", "md5", "basename", "dirname", "jq", "yq", "awk"}
_INLINE_RUNNERS = {"python", "node", "ruby", "perl", "jq", "php"}
_MISSING_RE = re.compile(r"no such file or directory|cannot access|does not exist|not a directory|cannot open",
                         re.IGNORECASE)
_MISSING_PATH_RE = re.compile(r"no such file or directory|cannot access|does not exist", re.IGNORECASE)
_NOT_FOUND_RE = re.compile(r"command not found|not recognized as an internal|is not recognized as the name of a "
                           r"cmdlet|: not found\b|exit code 127|exit 127",
                           re.IGNORECASE)
_CONFLICT_RE = re.compile(r"^CONFLICT \(|Automatic merge failed|could not apply [0-9a-f]{7,}|Resolve all conflicts",
                          re.MULTILINE)
_MERGING = {"merge", "rebase", "cherry-pick", "pull", "revert", "am", "stash"}
_NOTHING_TO_COMMIT_RE = re.compile(r"nothing to commit|no changes added to commit|nothing added to commit",
                                   re.IGNORECASE)


_QUOTED_RE = re.compile(r"'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\"")


def _split_unquoted(pattern: re.Pattern[str], text: str) -> list[str]:
    """``pattern.split(text)`` that leaves quoted text alone: ``rg "a|b" src`` is one command, not a
    pipe into ``b``, and ``git commit -m "x; y"`` one statement."""
    masked = _QUOTED_RE.sub(lambda m: "\0" * len(m.group()), text)
    if masked == text:
        return pattern.split(text)
    parts: list[str] = []
    start = 0
    for match in pattern.finditer(masked):
        parts.append(text[start:match.start()])
        start = match.end()
    parts.append(text[start:])
    return parts


def _tokens(segment: str) -> list[str]:
    return list(_split(segment))


@lru_cache(maxsize=4096)
def _split(segment: str) -> tuple[str, ...]:
    # Cached: a failure is compared with every later command of its chunk.
    try:
        return tuple(shlex.split(segment, posix=True))
    except ValueError:
        return tuple(segment.split())


def normalise_program(word: str) -> str:
    base = word.rsplit("/", 1)[-1]
    return re.sub(r"(?<=[a-z])\d+(?:\.\d+)*$", "", base)  # python3.11 -> python, pip3 -> pip


# A wrapper's own operand before the command it runs: `timeout 10 npm run dev`, `nice -n 5 make`.
_DURATION_RE = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")
_VALUE_WRAPPERS = {"timeout", "gtimeout"}


def _program_and_args(tokens: list[str]) -> tuple[str, list[str]]:
    rest = list(tokens)
    while rest and (_ENV_RE.match(rest[0]) or rest[0] in _WRAPPERS or rest[0] in _VALUE_WRAPPERS):
        word = rest.pop(0)
        if word in _VALUE_WRAPPERS or word in ("nice", "timeout"):
            while rest and rest[0].startswith("-"):  # `timeout -s KILL 10 …`, `nice -n 5 …`
                flag = rest.pop(0)
                if flag in ("-s", "-k", "-n", "--signal", "--kill-after") and rest:
                    rest.pop(0)
            if word != "nice" and rest and _DURATION_RE.match(rest[0]):
                rest.pop(0)
    if not rest:
        return "", []
    return normalise_program(rest[0]), rest[1:]


def _strip_bodies(command: str) -> str:
    """Heredoc bodies and ``$(...)`` substitutions (commit messages) are text, not commands."""
    command = re.sub(r"<<-?\s*['\"]?(\w+)['\"]?.*?\n\s*\1\b", "", command, flags=re.DOTALL)
    command = re.sub(r"\$\((?:[^()]|\([^()]*\))*\)", "SUBST", command, flags=re.DOTALL)
    # A quoted multi-line argument (an inline script) is one argument, not several statements.
    return re.sub(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'", lambda m: "STR" if "\n" in m.group(0) else m.group(0), command,
                  flags=re.DOTALL)


def statements(command: str) -> list[tuple[str, list[str], list[str]]]:
    """(program, args, pipe-tail programs) of each statement, setup statements (cd, export...) left out."""
    return [(program, list(args), list(tail)) for program, args, tail in _statements(command)]


@lru_cache(maxsize=8192)
def _statements(command: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    # Cached: every failure compares its check with every later command of its chunk.
    found: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    for statement in _split_unquoted(_SPLIT_RE, _strip_bodies(command)):
        if not statement.strip():
            continue
        pipeline = _split_unquoted(_PIPE_RE, statement)
        program, args = _program_and_args(_tokens(pipeline[0]))
        tail = [_program_and_args(_tokens(p))[0] for p in pipeline[1:]]
        if not program or program in _SETUP or (program == "git" and args[:1] == ["add"]):
            continue
        found.append((program, tuple(args), tuple(tail)))
    return tuple(found)


def main_statement(command: str) -> tuple[str, list[str], list[str]]:
    """The statement whose result the command is about: the last one that is not setup."""
    found = statements(command)
    return found[-1] if found else ("", [], [])


_REDIRECTION_RE = re.compile(r"^(?:\d*|&)(?:>>?|<)(?:&\d)?")  # `2>/dev/null`, `>out.txt`, `&>log`, `<in`, `2>&1`


def _positionals(args: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _VALUE_FLAGS:
            skip = True
            continue
        if redirect := _REDIRECTION_RE.match(arg):
            skip = redirect.end() == len(arg) and not arg.endswith(("&1", "&2"))  # `> out.txt`: its file too
            continue
        if arg.startswith("-") or arg == "&":
            continue
        out.append(arg)
    return out


def _bypasses(command: str) -> list[str]:
    """The switches that skip a check in any statement of ``command``: an ``export HUSKY=0`` before
    it counts as much as ``HUSKY=0 git commit``, a ``git commit --no-verify`` before a push as much
    as one alone. Messages and heredoc bodies are text (``_strip_bodies``), never switches."""
    found: list[str] = []
    for statement in _split_unquoted(_SPLIT_RE, _strip_bodies(command)):
        for segment in _split_unquoted(_PIPE_RE, statement):
            tokens = _tokens(segment)
            if tokens[:1] == ["export"]:
                found.extend(b for b in (variable_bypass(t) for t in tokens[1:]) if b)
                continue
            env: list[str] = []
            while tokens and (_ENV_RE.match(tokens[0]) or tokens[0] in _WRAPPERS or tokens[0] == "env"):
                word = tokens.pop(0)
                if _ENV_RE.match(word):
                    env.append(word)
            if tokens:
                found.extend(statement_bypasses(env, normalise_program(tokens[0]), tokens[1:]))
    return found


def check_bypass(command: str, failed: str) -> str:
    """The switch with which ``command`` (a later run of the check ``failed`` ran into) skips that
    check instead of passing it — ``--no-verify``, ``-n`` on ``git commit``, ``HUSKY=0``, ``SKIP=…``,
    a forced push; "" when it has none the failed command did not have already."""
    return new_bypass(_bypasses(command), _bypasses(failed))


# Interpreters whose first operand is the script they run: ``python3 tools/gen.py`` and
# ``./tools/gen.py`` (or ``tools/gen.py`` from another folder) run the same script.
_INTERPRETERS = {"python", "node", "ruby", "bash", "sh", "zsh", "perl", "ts-node", "tsx", "php", "bun", "deno"}
_SCRIPT_RE = re.compile(r"^[\w.@+-]+\.(?:py|sh|bash|zsh|js|mjs|cjs|ts|mts|rb|pl|php)$")


def script_name(word: str) -> str:
    """The script file ``word`` names (its base name), "" when it names no script file."""
    base = word.rsplit("/", 1)[-1]
    return base if _SCRIPT_RE.match(base) else ""


# Launchers that run another command in the project's environment: ``uv run pytest`` (``pixi run
# pytest``) runs pytest, ``npx vitest`` vitest, ``pnpm exec tsc`` tsc — the check is the command they run.
_ENV_RUNNERS = {"uv", "poetry", "pdm", "hatch", "pipenv", "rye", "pixi"}
_PACKAGE_EXECUTORS = {"npx", "bunx", "pnpx"}
_SCRIPT_RUNNERS = {"npm", "pnpm", "yarn"}


def _wrapped(program: str, args: list[str]) -> list[str]:
    """The command a launcher runs (its words), [] when ``program`` is no launcher."""
    if program in _ENV_RUNNERS and "run" in args[:3]:
        rest = args[args.index("run") + 1:]
    elif program in _PACKAGE_EXECUTORS:
        rest = list(args)
    elif program in ("pnpm", "yarn", "bundle") and args[:1] == ["exec"]:
        rest = args[1:]
    else:
        return []
    while rest and rest[0].startswith("-"):
        rest = rest[1:]  # the launcher's own switches (`npx --yes`, `uv run --frozen`)
    return rest


@lru_cache(maxsize=8192)
def check_key(command: str) -> tuple[str, ...]:
    """What check the command runs: ``("pnpm", "test", "NavUser.test.tsx")``, ``("git", "push")``,
    ``("hoge.py",)`` for a script, however it is started (``python hoge.py``, ``python3 src/hoge.py``,
    ``./hoge.py``); ``python -m pytest`` is ``pytest``, and a test's node id (``test_io.py::test_x``)
    is its file's run. Empty for a command with nothing but setup."""
    program, args, _tail = main_statement(command)
    if not program:
        return ()
    if program == "python" and "-m" in args[:-1] and not {"-c", "-"} & set(args[:args.index("-m")]):
        module = args[args.index("-m") + 1]
        return check_key(" ".join(shlex.quote(a) for a in [module, *args[args.index("-m") + 2:]]))
    inner = _wrapped(program, args)
    if inner:
        return check_key(" ".join(shlex.quote(a) for a in inner))
    positional = [p.split("::", 1)[0] for p in _positionals(args)]
    if (program in _SCRIPT_RUNNERS or program in _TEST_RUNNERS) and positional[:1] == ["run"] and (
            len(positional) > 1 or program in _TEST_RUNNERS):
        positional = positional[1:]  # `npm run test` is `npm test`, `vitest run` is `vitest`
    if program == "unittest" and positional[:1] == ["discover"]:
        # `python -m unittest discover -s tests/unit`: the folder it discovers in is the check's target
        start = args[args.index("-s") + 1] if "-s" in args[:-1] else positional[1] if len(positional) > 1 else ""
        return ("unittest", "discover", *([start.rstrip("/")] if start and start != "." else []))
    if script_name(program):
        return (script_name(program),)  # a script run by its path: the script is the check
    if program in _INTERPRETERS and positional[:1] and script_name(positional[0]):
        return (script_name(positional[0]),)
    if program in _NOUN_VERB_PROGRAMS and len(positional) >= 2 and positional[0].isalpha() and \
            positional[1].replace("-", "").isalpha():
        # `gh pr create` and `gh pr view`, `docker compose up` and `docker compose logs`: two checks
        return (program, positional[0], positional[1])
    if program in _SUBCOMMAND:
        key: tuple[str, ...] = (program, *positional[:1])
        if positional[:1] and positional[0] in _TEST_WORDS and len(positional) > 1 and program != "git":
            key += (positional[1].rstrip("/").rsplit("/", 1)[-1],)
        return key
    if program in _RUNNERS:
        return (program, *(p.rstrip("/").rsplit("/", 1)[-1] for p in positional[:1]))  # (`tests/` is `tests`)
    return (program, *positional[:1])


def unwrapped_key(command: str) -> tuple[str, ...]:
    """The check the command runs once its first program is dropped: ``rtk bun run test`` and
    ``poetry run pytest`` run ``bun run test`` and ``pytest`` through a wrapper the project may not
    need. Empty when nothing is left."""
    _program, args, _tail = main_statement(command)
    return check_key(" ".join(args)) if args and not args[0].startswith("-") else ()


def same_check(earlier: tuple[str, ...], later: tuple[str, ...]) -> bool:
    """True when ``later`` re-runs ``earlier``'s check (running the whole suite covers one test)."""
    if not earlier or not later:
        return False
    if earlier == later:
        return True
    # A broader run covers a narrower one: `pnpm test` re-runs `pnpm test NavUser.test.tsx`, `pytest`
    # re-runs `pytest tests/test_io.py` (a bare program counts only for test runners).
    covers = len(later) >= 2 or (len(later) == 1 and later[0] in _TEST_RUNNERS)
    return covers and len(later) < len(earlier) and earlier[: len(later)] == later


def missing_tool(output: str, exit_code: int | None) -> bool:
    """The command failed because a program is not installed."""
    return exit_code == 127 or bool(_NOT_FOUND_RE.search(output))


def is_real_failure(command: str, exit_code: int | None, output: str) -> bool:
    """Whether a shell call that the log marks as failed really failed (see the module docstring)."""
    program, args, tail = main_statement(command)
    if program == "git":
        args = _git_subcommand(args)  # `git --no-pager diff`, `git -C repo grep`: the subcommand first
        if args[:1] == ["grep"]:
            program, args = "git-grep", args[1:]
    last = tail[-1] if tail else program
    if exit_code is None and _silent(output):
        # A failure that printed nothing and whose code the log does not give (Codex 0.4x: "failed in
        # sandbox: " and nothing after it) is what exit 1 is for a search, a diff, a test: "no".
        exit_code = 1
    if exit_code == 1 and (last in _NO_MATCH_PROGRAMS or (program in _NO_MATCH_PROGRAMS and not tail)):
        return False
    if exit_code == 1 and (program in _DIFF_PROGRAMS or program in _TEST_PROGRAMS):
        return False
    if program == "git" and args[:1] == ["diff"] and exit_code == 1:
        return False
    if program == "git" and args[:1] == ["commit"] and _NOTHING_TO_COMMIT_RE.search(output):
        return False
    if program == "git" and set(args[:1]) & _MERGING and _CONFLICT_RE.search(output):
        return False  # stopped on conflicts: see stopped_on_conflicts
    if (program.lower() in _EXPLORE_PROGRAMS or (program == "sed" and not any(a.startswith("-i") for a in args))) \
            and not missing_tool(output, exit_code):
        return False  # a look around (ls of a missing folder, cat | jq, sed -n 1,80p f) is not an attempt
    if any(p in _INLINE_RUNNERS and ({"-c", "-e"} & set(a)) for p, a, _t in statements(command)) or \
            any(t in _INLINE_RUNNERS for t in tail):
        return False  # an ad-hoc inline script probing data is exploration too
    if program == "which" or (program in ("command", "type") and exit_code == 1):
        return False
    if (exit_code == 1 or (exit_code == 128 and args[:1] == ["rev-parse"]) or (
            exit_code == 2 and args[:1] == ["ls-remote"])) and _answers_by_exit(program, args):
        return False  # `ps -p 41` (not running), `kill -0`, `git merge-base --is-ancestor`: the exit is the answer
    if program in ("curl", "wget", "nc") and any(_LOCAL_URL_RE.search(a) for a in args) and exit_code in (1, 7, 22, 52, 56):
        return False  # a look at a local server (health check, port probe) that is not up yet
    if program in _NO_MATCH_PROGRAMS and exit_code == 2 and _only_missing_paths(program, output):
        return False  # the search ran; one of the folders it was pointed at is not there (a look around)
    if _clears(program, args, tail) and not missing_tool(output, exit_code) and (_GONE_RE.search(output[:2000]) or (
            program in ("pkill", "killall") and exit_code == 1)):
        return False  # `rm` of a missing file, `kill` of an ended process, `git stash pop` with none: already gone
    if ((exit_code in (124, 137, 143) and _TIME_LIMIT_RE.search(command)) or _TOOL_TIMEOUT_RE.match(output)) and \
            _serves(program, args):
        # `timeout 10 npm run dev`, or the shell tool's own time limit ("Command timed out after 2m"):
        # a server meant to keep running was stopped, it did not fail
        return False
    if _looks_up(program, args) and _NO_SUCH_RE.search(output[:2000]) and not missing_tool(output, exit_code) \
            and not _CRASH_RE.search(output[:2000]):
        return False  # `gh pr view` "no pull requests found", `git show ref:path` "does not exist": its "no"
    return True


# Removing or stopping something: when what it removes is not there, the command has nothing to do.
_CLEAR_PROGRAMS = {"rm", "rmdir", "unlink", "kill", "pkill", "killall", "fuser"}
_CLEAR_SUBCOMMANDS = {"git": {"branch", "stash", "tag", "worktree", "remote"}, "docker": {"rm", "rmi", "stop", "kill"},
                      "podman": {"rm", "rmi", "stop", "kill"}, "kubectl": {"delete"}, "tmux": {"kill-session", "kill-server"}}
_CLEAR_FLAGS = {"-d", "-D", "--delete", "drop", "pop", "clear", "remove", "rm", "prune"}
_GONE_RE = re.compile(r"\bno such (?:process|file|container|object|image|session)\b|\bno stash entries\b|"
                      r"\bnot found\b|\bdoes ?n[o']t exist\b|\bno process found\b|\bno server running\b|"
                      r"\bcan't find session\b|\bis not a (?:working tree|valid)\b", re.IGNORECASE)


def _clears(program: str, args: list[str], tail: list[str]) -> bool:
    """A command that removes or stops something (``rm``, ``kill``, ``git branch -D``, ``git stash
    pop``, ``docker rm``, ``kubectl delete``; ``… | xargs kill``)."""
    if program in _CLEAR_PROGRAMS or (tail and tail[-1] in _CLEAR_PROGRAMS):
        return True
    subcommands = _CLEAR_SUBCOMMANDS.get(program)
    if not subcommands or not args:
        return False
    rest = _git_subcommand(args) if program == "git" else args
    if not rest or rest[0] not in subcommands:
        return False
    return program != "git" or bool(set(rest[1:3]) & _CLEAR_FLAGS)


_TOOL_TIMEOUT_RE = re.compile(r"\s*(?:error: )?command timed out\b", re.IGNORECASE)  # Claude Code's, Codex's
_TIME_LIMIT_RE = re.compile(r"(?:^|[;&|(]\s*)g?timeout\s", re.MULTILINE)
_SERVER_PROGRAMS = {"uvicorn", "gunicorn", "hypercorn", "daphne", "flask", "vite", "next", "nuxt", "astro", "nodemon",
                    "http-server", "serve", "live-server", "webpack-dev-server", "wrangler", "hugo", "jekyll"}
_SERVER_WORDS = {"dev", "start", "serve", "server", "preview", "watch", "up", "runserver", "s", "http.server"}


def _serves(program: str, args: list[str]) -> bool:
    """A command that runs a server or a watcher, which only stops when it is stopped."""
    words = _positionals(args)[:3]
    if program in ("npm", "pnpm", "yarn", "bun", "deno") and words[:1] == ["run"]:
        words = words[1:]  # `npm run dev`: the script is the word after `run`
    if program in _SERVER_PROGRAMS:
        return not (words[:1] and words[0] in ("build", "export", "check", "test", "lint"))
    if program == "python" and "-m" in args and args[args.index("-m") + 1:][:1] in (["http.server"], ["uvicorn"]):
        return True
    return bool(words[:1]) and words[0] in _SERVER_WORDS and program not in ("git", "docker") or (
        program == "docker" and words[:2] == ["compose", "up"] and "-d" not in args)


# A look-up's subcommand (``gh pr view``, ``git show``, ``docker inspect``, ``kubectl get``, ``npm
# view``, ``brew info``): it asks whether something is there, and "not found" is its answer.
_LOOKUP_VERBS = {"view", "show", "list", "ls", "get", "describe", "info", "inspect", "status", "log", "logs", "search",
                 "cat-file", "ls-tree", "rev-list", "blame", "doc", "whoami"}
_CHECK_PROGRAMS = {"pytest", "jest", "vitest", "tsc", "eslint", "ruff", "mypy", "make", "just", "task"}
_NO_SUCH_RE = re.compile(r"\bnot found\b|\b404\b|\bno such\b|\bdoes ?n[o']t exist\b|\bcould ?n[o']t find\b|"
                         r"\bcan(?:no|')t find\b|\bno (?:\w+ ){1,2}found\b|\binvalid object name\b|\bunknown revision\b|"
                         r"\bbad revision\b|\bdid not match any\b|\(NotFound\)|\bno matching\b", re.IGNORECASE)


def _looks_up(program: str, args: list[str]) -> bool:
    """A command whose subcommand (first or second word: ``git show``, ``gh pr view``) is a look-up."""
    if program in _CHECK_PROGRAMS or program in _TEST_RUNNERS or script_name(program):
        return False
    words = _positionals(args)[:2]
    if words[:1] and words[0] in _LOOKUP_VERBS:
        return not (program == "go" and words[0] in ("get", "list"))  # `go get`: an install
    # `gh pr view`, `docker image inspect`: a noun, then the look-up (not a script's path or a file)
    return len(words) == 2 and words[1] in _LOOKUP_VERBS and words[0].isalpha() and program in _NOUN_VERB_PROGRAMS


_NOUN_VERB_PROGRAMS = {"gh", "glab", "docker", "podman", "kubectl", "az", "gcloud", "aws", "heroku", "fly", "flyctl",
                       "vercel", "netlify", "supabase", "stripe", "doctl", "hcloud", "oc", "helm"}
# A program that crashed says so whatever it was asked: no look-up's "no".
_CRASH_RE = re.compile(r"Traceback \(most recent call last\)|\b\w+Error\b|\bexception\b|\bpanicked\b", re.IGNORECASE)


_SILENT_PREFIXES = ("failed in sandbox:", "exit code: 1", "exit code 1")


def _silent(output: str) -> bool:
    """The command printed nothing of its own (at most the harness's "failed in sandbox:" prefix)."""
    text = output.strip()
    if len(text) > 40:
        return False
    lowered = text.lower()
    for prefix in _SILENT_PREFIXES:
        if lowered.startswith(prefix):
            lowered = lowered[len(prefix):].strip()
    return not lowered


# Commands whose exit status 1 is their answer (a yes/no question), not a failure.
_ANSWER_PROGRAMS = {"ps", "pidof", "lsof", "fuser", "id", "getent"}
_ANSWER_GIT = {"merge-base": "--is-ancestor", "show-ref": "", "ls-files": "--error-unmatch", "diff-index": "",
               "diff-files": "", "check-ignore": "", "rev-parse": "--verify", "config": "",
               "ls-remote": "--exit-code"}
_GIT_GLOBAL_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}


def _git_subcommand(args: list[str]) -> list[str]:
    """git's arguments from its subcommand on, its global options (``--no-pager``, ``-C dir``) left out."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in _GIT_GLOBAL_VALUE else rest[1:]
    return rest
_LOCAL_URL_RE = re.compile(r"^(?:https?://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::\d+)?(?:/|$)|"
                           r"^(?:localhost|127\.0\.0\.1)$")


def _answers_by_exit(program: str, args: list[str]) -> bool:
    if program in _ANSWER_PROGRAMS:
        return True
    if (program == "pip" and args[:1] == ["show"]) or (program in ("npm", "pnpm") and args[:1] in (["ls"], ["list"])):
        return True  # "is it installed?": exit 1 says no
    if program == "kill" and args[:1] in (["-0"], ["-s", "0"]):
        return True
    if program == "systemctl" and args[:1] and args[0].startswith("is-"):
        return True
    if program == "jq" and any(a in ("-e", "--exit-status") for a in args):
        return True
    if program == "git" and args[:1] == ["rev-parse"] and "--is-inside-work-tree" in args:
        return True
    if program == "git" and args[:1] and args[0] in _ANSWER_GIT:
        flag = _ANSWER_GIT[args[0]]
        return not flag or flag in args
    return False


def _only_missing_paths(program: str, output: str) -> bool:
    errors = [line for line in output.splitlines() if line.startswith(f"{program}: ")]
    return bool(errors) and all(_MISSING_PATH_RE.search(line) for line in errors)


def stopped_on_conflicts(command: str, output: str) -> bool:
    """A git merge/rebase/cherry-pick/pull/stash that stopped on conflicts for the agent to resolve."""
    program, args, _tail = main_statement(command)
    return program == "git" and bool(set(args[:1]) & _MERGING) and bool(_CONFLICT_RE.search(output))


def path_arguments(command: str) -> set[str]:
    """The path-like arguments of a command (to tell an alternative tool aimed at the same place)."""
    found: set[str] = set()
    for _program, args, _tail in statements(command):
        for arg in _positionals(args):
            if ("/" in arg or "." in arg) and not set("<>|&") & set(arg) and not arg.startswith("/dev/"):
                found.add(arg.rstrip("/"))  # (a redirect, `2>/dev/null`, names no place the command is about)
    return found


def signature(command: str) -> tuple[str, ...]:
    """The main statement as written (program as typed, arguments; messages and substitutions
    dropped): two commands with one signature ran the same thing."""
    for statement in reversed(_split_unquoted(_SPLIT_RE, _strip_bodies(command))):
        tokens = _tokens(_split_unquoted(_PIPE_RE, statement)[0]) if statement.strip() else []
        while tokens and (_ENV_RE.match(tokens[0]) or tokens[0] in _WRAPPERS):
            tokens.pop(0)
        if not tokens or tokens[0] in _SETUP or tokens[:2] == ["git", "add"]:
            continue
        return (tokens[0], *_positionals(tokens[1:]), *sorted(t for t in tokens[1:] if t.startswith("-")))
    return ()


_REDIRECT_RE = re.compile(r"(?<![0-9&])>>?\s*(?P<path>[^\s;&|<>()]+)")
_HEREDOC_FILE_RE = re.compile(r">>?\s*(?P<path>[^\s;&|<>()]+)[^\n]*?<<-?\s*['\"]?(?P<tag>\w+)['\"]?[^\n]*\n"
                              r"(?P<body>.*?)\n\s*(?P=tag)\b|<<-?\s*['\"]?(?P<tag2>\w+)['\"]?\s*>>?\s*"
                              r"(?P<path2>[^\s;&|<>()]+)[^\n]*\n(?P<body2>.*?)\n\s*(?P=tag2)\b", re.DOTALL)
_INLINE_HEREDOC_RE = re.compile(r"<<-?\s*['\"]?(?P<tag>\w+)['\"]?[^\n]*\n(?P<body>.*?)\n\s*(?P=tag)\b", re.DOTALL)
_EDITING_PROGRAMS = {"sed": "-i", "perl": "-i", "ruby": "-i"}


def written_files(command: str) -> dict[str, str]:
    """See ``_written`` (cached: a failure looks at every later command of its chunk)."""
    return dict(_written(command))


@lru_cache(maxsize=4096)
def _written(command: str) -> tuple[tuple[str, str], ...]:
    """The files a shell command writes, with what it wrote when the log shows it (a heredoc):
    ``cat > f.py <<EOF`` (and ``tee f``, ``sed -i … f``, ``cp a f``, ``mv a f``). A change made with the
    shell is a change like an edit: part of a fix."""
    found: dict[str, str] = {}
    for match in _HEREDOC_FILE_RE.finditer(command):
        path = match.group("path") or match.group("path2")
        found[path] = match.group("body") if match.group("body") is not None else match.group("body2") or ""
    for program, args, tail in statements(command):
        flag = _EDITING_PROGRAMS.get(program)
        if flag and any(a.startswith(flag) for a in args):
            found.update({a: "" for a in _positionals(args)[-1:]})
        if program in ("cp", "mv", "install") and len(_positionals(args)) >= 2:
            found.setdefault(_positionals(args)[-1], "")
        if "tee" in tail:
            found.setdefault("tee", "")
    for match in _REDIRECT_RE.finditer(_strip_bodies(command)):
        path = match.group("path")
        if path not in ("/dev/null", "&1", "&2") and not path.startswith("&"):
            found.setdefault(path, "")
    found.pop("tee", None)
    return tuple((k.strip("'\""), v) for k, v in found.items())


def inline_script(command: str) -> tuple[str, str]:
    """(interpreter, script) of a script fed to an interpreter on standard input (``python3 - <<EOF``,
    ``node <<'JS'``) or written by the same command to the file it then runs, else ("", ""): its identity
    is its text, so the same script later written to a file and run there re-runs the same check."""
    program, args, _tail = main_statement(command)
    positional = _positionals(args)
    if program in _INTERPRETERS and positional[:1] and script_name(positional[0]):
        # ``cat > /tmp/t.js <<EOF … EOF`` then ``node /tmp/t.js`` in one command: a script written
        # for this run only, whose identity is its text too (rewritten as /tmp/t2.js, it is the same check).
        body = next((text for path, text in written_files(command).items()
                     if text and path.rsplit("/", 1)[-1] == script_name(positional[0])), "")
        return (program, body) if body else ("", "")
    if program not in _RUNNERS or any(not a.startswith("-") for a in positional if a != "-"):
        return "", ""
    match = _INLINE_HEREDOC_RE.search(command)
    return (program, match.group("body")) if match else ("", "")
