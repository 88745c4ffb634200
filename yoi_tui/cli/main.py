"""``yoi`` entry point: builds the parser from the command modules and maps errors to exit codes.

Each subcommand lives in ``cmd_<name>.py`` with ``register(subparsers, parents)`` and keeps its
heavy imports inside its handler. Start-up is measured (``yoi search`` runs on every agent prompt),
so ``main`` imports only the module of the subcommand that runs: the others are listed from
``SUMMARIES`` (their one-line help) as placeholders, which is all ``yoi --help`` shows of them —
and when argv names a known command, not even built (16 parsers, ~5 ms).
``tests/test_cli_startup.py`` checks that ``SUMMARIES`` matches each module's own help.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..core.errors import YoiError
from .common import EXIT_USAGE, YoiParser, common_parent

# SPEC 14 in order; a module that does not exist yet is simply not offered.
COMMANDS = ("init", "lint", "search", "context", "expand", "phase1", "phase2", "gc", "revert", "usage",
            "mcp", "hook", "install", "uninstall", "import", "export", "merge-driver")


class _Version(argparse.Action):
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


# The ``help=`` each ``cmd_<name>.register`` gives its parser. A command missing here is imported
# to be listed (correct, just slower).
SUMMARIES: dict[str, str] = {
    "init": "create memory/, knowledge/ and .yoi/ in a project",
    "lint": "check records against the record rules",
    "search": "search knowledge/ or memory/ (an agent's hits are recorded as invokes)",
    "context": "print the resident context (summary + #slug index)",
    "expand": "expand #slug references in a prompt",
    "phase1": "extract session logs into memory/_staging/",
    "phase2": "consolidate staging into decisions, requests, knowledge and the summary",
    "gc": "re-evaluate the records: drop superseded ones, merge near-duplicates, trim sources",
    "revert": "undo an applied Phase 2 or GC run (exact bytes), or list runs",
    "usage": "record usage frequency, protection, candidate report",
    "mcp": "run the stdio MCP server (knowledge_search, memory_search, read_record)",
    "hook": "entry point for agent harness hooks (Claude Code)",
    "install": "wire yoi's hooks and MCP server into Claude Code or Codex",
    "uninstall": "remove yoi's hooks and MCP server from Claude Code or Codex",
    "import": "import Cursor rules, Claude skills/commands, CLAUDE.md/AGENTS.md, notes into knowledge/",
    "export": "publish knowledge records as Agent Skills (.claude/skills, .agents/skills)",
    "merge-driver": "git merge driver for records (git runs it; see docs/team.md)",
}


def _register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], name: str) -> None:
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
    parser = YoiParser(
        prog="yoi",
        description="File-based project memory for coding agents: records in memory/ and knowledge/, "
                    "a linter, search, #slug expansion, usage metrics, Phase 1/2 and GC.",
        epilog="Exit status: 0 success, 1 findings (lint errors, conflicts), 2 usage or environment error. "
               "Run 'yoi COMMAND --help' for each command.",
    )
    parser.add_argument("--version", action=_Version, help="show the installed version and exit")
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if _command_in(argv) != "mcp":  # a one-shot command, not the long-running server
        _fewer_full_collections()
    parser = build_parser(argv)
    args = parser.parse_args(argv)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
