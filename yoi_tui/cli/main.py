"""``yoi`` entry point: builds the parser from the command modules and maps errors to exit codes.

Each subcommand lives in ``cmd_<name>.py`` with ``register(subparsers, parents)`` and keeps its
heavy imports inside its handler. Start-up is measured (``yoi search`` runs on every agent prompt),
so ``main`` imports only the module of the subcommand that runs: the others are listed from
``SUMMARIES`` (their one-line help) as placeholders, which is all ``yoi --help`` shows of them —
and when argv names a known command, not even built (16 parsers, ~5 ms).
``tests/test_cli_startup.py`` checks that ``SUMMARIES`` matches each module's own help.
"""

from __future__ import annotations

import os
import sys

from .server_client import SERVED
from .server_client import enabled as server_enabled

# Not typing's: a served call's client imports no typing, which costs 3 ms (12 ms on a loaded
# machine) of its ~20 ms CPU (issue 24, measured with -X importtime).
TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse is imported when a parser is built: a served command needs none
    import argparse
    from collections.abc import Sequence

# SPEC 14 in order; a module that does not exist yet is simply not offered.
COMMANDS = ("init", "lint", "search", "context", "expand", "phase1", "phase2", "gc", "revert", "usage",
            "status", "mcp", "hook", "install", "uninstall", "import", "export", "merge-driver", "resolve", "new",
            "server")


def _version_action() -> type[argparse.Action]:
    import argparse

    class Version(argparse.Action):
        """``--version``: read from the installed metadata only when asked (keeps start-up fast)."""

        def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
            super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)  # type: ignore[arg-type]

        def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
            from importlib.metadata import PackageNotFoundError, version

            try:
                found = version("yoi-tui")
            except PackageNotFoundError:  # running from a source tree that was never installed
                found = "unknown"
            print(f"yoi {found}")
            parser.exit()

    return Version


# The ``help=`` each ``cmd_<name>.register`` gives its parser. A command missing here is imported
# to be listed (correct, just slower).
SUMMARIES: dict[str, str] = {
    "init": "create memory/, knowledge/ and .yoi/ in a project",
    "lint": "check records against the record rules",
    "search": "search knowledge/ or memory/ (an agent's hits are recorded as invokes)",
    "context": "print the resident context (summary, model_invokation descriptions, listings)",
    "expand": "expand #slug references in a prompt",
    "phase1": "extract session logs into memory/_staging/",
    "phase2": "consolidate staging into decisions, requests, knowledge and the summary",
    "gc": "re-evaluate the records: drop superseded ones, merge near-duplicates, trim sources",
    "revert": "undo an applied Phase 2 or GC run (exact bytes), or list runs",
    "usage": "record usage frequency, protection, candidate report",
    "status": "show the hooks' background work: pending Phase 1/2 jobs, failures, recent outcomes",
    "mcp": "run the stdio MCP server (knowledge_search, memory_search, read_record)",
    "hook": "entry point for agent harness hooks (Claude Code)",
    "install": "wire yoi's hooks and MCP server into Claude Code or Codex",
    "uninstall": "remove yoi's hooks and MCP server from Claude Code or Codex",
    "import": "import Cursor rules, Claude skills/commands, CLAUDE.md/AGENTS.md, notes into knowledge/",
    "export": "publish knowledge records as Agent Skills (.claude/skills, .agents/skills)",
    "merge-driver": "git merge driver for records (git runs it; see docs/team.md)",
    "resolve": "settle records git left deleted on one side, changed on the other (modify/delete)",
    "new": "write a new record from a template (lint-clean)",
    "server": "show or stop the background server that answers yoi search / yoi lint",
}


def _register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], name: str) -> None:
    import importlib

    module_name = f"{__package__}.cmd_{name.replace('-', '_')}"  # merge-driver → cmd_merge_driver
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return
        raise
    module.register(subparsers, parents)


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs: its first word (top-level options take no value)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``yoi`` parser. With ``argv``, only the subcommand it names is imported and complete."""
    from .common import YoiParser, common_parent

    parser = YoiParser(
        prog="yoi",
        description="File-based project memory for coding agents: records in memory/ and knowledge/, "
                    "a linter, search, #slug expansion, usage metrics, Phase 1/2 and GC.",
        epilog="Exit status: 0 success, 1 findings (lint errors, conflicts), 2 usage or environment error. "
               "Run 'yoi COMMAND --help' for each command.",
    )
    parser.add_argument("--version", action=_version_action(), help="show the installed version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parents = [common_parent()]
    running = _command_in(argv) if argv is not None else None
    top_level_help = argv is not None and any(word in ("-h", "--help") for word in argv[:argv.index(running)]) \
        if running in COMMANDS else True
    for name in COMMANDS:
        if argv is not None and name != running and name in SUMMARIES:
            if not top_level_help:
                continue  # argv runs a known command: no other is listed, parsed or imported
            # A placeholder: listed in --help and valid as a choice; never run (argv names another).
            subparsers.add_parser(name, help=SUMMARIES[name], add_help=False)
        else:
            _register(subparsers, parents, name)
    return parser


def _fewer_full_collections() -> None:
    """Let the cyclic garbage collector look at the old objects seldom in a one-shot command.

    A lint reads its per-file cache (hundreds of thousands of small lists) and each full
    collection walks all of them: 30 % of a lint after one edit at 50,000 records (1.8 s -> 1.25 s
    without them, same peak memory). Young objects are still collected as usual, so short-lived
    cycles are freed; only the walks over what lives until the process exits become rare.
    """
    import gc

    gc.set_threshold(100_000, 100, 100)


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` and run its command here, mapping expected errors to exit codes."""
    from ..core.errors import YoiError
    from .common import EXIT_USAGE

    parser = build_parser(argv)
    args = _parse(parser, argv)
    try:
        return int(args.handler(args) or 0)
    except YoiError as exc:
        print(f"yoi: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("yoi: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # The environment failed a write or read no command expected to fail (a full disk, a
        # read-only or quota-limited file system, permissions, out of descriptors): a message
        # naming the file and exit 2 (SPEC 14) — never 1, which means findings or a conflict.
        print(f"yoi: {os_error_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except RecursionError:
        print("yoi: input nested too deeply to process (a file of yoi's state or a record); "
              "run with YOI_SERVER=0 and report it if it persists", file=sys.stderr)
        return EXIT_USAGE


def os_error_message(exc: OSError) -> str:
    """``exc`` as one line naming its file(s): ``PATH: No space left on device``."""
    what = exc.strerror or str(exc)
    names = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    if not names:
        return what
    return f"{' -> '.join(names)}: {what}"


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parse_args``, except that words after an option still join a command's trailing list
    (``set_defaults(trailing_words=DEST)``): argparse gives ``yoi search knowledge --json quokka``
    no place for ``quokka``, because ``query`` (``nargs="*"``) was already matched, empty, before
    ``--json``."""
    args, extras = parser.parse_known_args(argv)
    dest = getattr(args, "trailing_words", None)
    words = [word for word in extras if word == "-" or not word.startswith("-")]
    if extras and (dest is None or len(words) != len(extras)):
        unknown = extras if dest is None else [word for word in extras if word not in words]
        parser.error("unrecognized arguments: " + " ".join(unknown))
    if words:
        setattr(args, dest, [*(getattr(args, dest) or []), *words])
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(argv)
    # A --fix writes records: it runs here, in the caller's process, never in the shared server.
    served = command in SERVED and not any(word in ("-h", "--help", "--fix") for word in argv) and server_enabled()
    if served:
        stdin = None
        if command == "hook" and "codex-notify" not in argv:  # the hook's event arrives on stdin
            stdin = sys.stdin.read()
        answered = _ask_server(argv, stdin)
        if answered is not None:
            return answered
        if stdin is not None:  # read already: the command running here reads it again from memory
            import io

            sys.stdin = io.StringIO(stdin)
    if command != "mcp":  # a one-shot command, not the long-running server
        _fewer_full_collections()
    code = run_command(argv)
    if served:
        from .server_client import start_server

        start_server()  # the next call is answered by it (docs/performance.md, "The command server")
    return code


def run() -> None:
    """The ``yoi`` console script: ``main()``, then the process ends without the interpreter's
    teardown, which frees every object and module one by one (~20 ms after a cold lint of 10,000
    records, 2% of it). The output is flushed first; yoi registers no exit handlers and never
    leaves a file half-written (every write is a temporary file renamed into place), so nothing
    waits for the teardown. An exception still ends the process the usual way. Measured on a served
    ``yoi search``, whose client is this process (issue 24; 40 interleaved pairs, noisy machine):
    19 ms CPU with ``os._exit``, 21 ms with ``sys.exit`` (+11 % on every agent prompt)."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or a stream was closed: nothing to add
        pass
    os._exit(code)


def _ask_server(argv: list[str], stdin: str | None = None) -> int | None:
    """The exit status of ``argv`` run by the command server, its output written here; None when
    no server answered (nothing was written)."""
    from .server_client import ask

    try:
        reply = ask(argv, stdin)
    except KeyboardInterrupt:
        print("yoi: interrupted", file=sys.stderr)
        return 130
    if reply is None:
        return None
    code, output = reply
    try:
        for is_stderr, text in output:  # in the order the command wrote them
            stream = sys.stderr if is_stderr else sys.stdout
            stream.write(text)
            stream.flush()
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":  # pragma: no cover
    run()
