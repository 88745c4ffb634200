"""``yoi init``: create the memory layout in a project."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.store.workspace import init_workspace
from .common import json_parent, print_json


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init", parents=[*parents, json_parent()], help="create memory/, knowledge/ and .yoi/ in a project",
        description="Create the workspace layout (memory/{decisions,requests,workflow,_staging}, knowledge/, "
                    ".yoi/{config.toml,usage,state}); add .yoi/state/ and memory/_staging/ to .gitignore and the "
                    "record merge attributes to .gitattributes; in a git clone, register the record merge driver "
                    "(git config merge.yoi.driver). Safe to run again, also in a fresh clone: existing files and "
                    "entries are never changed (see docs/team.md).")
    parser.add_argument("path", nargs="?", help="project root (default: --workspace or the current directory)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.path or args.workspace or ".")
    ws, created = init_workspace(root)
    if args.json:
        print_json({"workspace": str(ws.root), "created": created})
    elif created:
        print(f"Initialised yoi workspace in {ws.root}")
        for item in created:
            print(f"  created {item}")
    else:
        print(f"Workspace {ws.root} is already initialised; nothing changed.")
    return 0
