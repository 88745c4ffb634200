"""``yoi uninstall claude-code|codex``: remove exactly what ``yoi install`` added."""

from __future__ import annotations

import argparse

from .cmd_install import add_arguments, run
from .common import json_parent


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "uninstall", parents=[*parents, json_parent()],
        help="remove yoi's hooks and MCP server from Claude Code or Codex",
        description="Remove yoi's hook handlers and MCP server entry from the harness's config files, keeping "
                    "everything else; a file left empty that yoi created is removed. Shows the diff and asks "
                    "(unless --yes). For codex this includes the 'notify' program yoi set for Codex before 0.114.")
    add_arguments(parser, install=False)
    parser.set_defaults(handler=run, install=False)
