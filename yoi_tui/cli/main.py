"""``yoi`` entry point: builds the parser from the command modules and maps errors to exit codes.

Each subcommand lives in ``cmd_<name>.py`` with ``register(subparsers, parents)`` and keeps its
heavy imports inside its handler, so ``yoi --help`` and ``yoi lint`` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..core.errors import YoiError
from .common import EXIT_USAGE, common_parent

# SPEC 14 in order; a module that does not exist yet is simply not offered.
COMMANDS = ("init", "lint", "search", "context", "expand", "phase1", "phase2", "gc", "revert", "usage",
            "mcp", "hook", "merge_driver")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yoi",
        description="File-based project memory for coding agents: records in memory/ and knowledge/, "
                    "a linter, search, #slug expansion, usage metrics, Phase 1/2 and GC.",
        epilog="Exit status: 0 success, 1 findings (lint errors, conflicts), 2 usage or environment error. "
               "Run 'yoi COMMAND --help' for each command.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parents = [common_parent()]
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.cmd_{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__package__}.cmd_{name}":
                continue
            raise
        module.register(subparsers, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
