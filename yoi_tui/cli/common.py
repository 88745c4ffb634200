"""Helpers every ``yoi`` subcommand shares: the common options, workspace lookup, JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported in workspace_from: `yoi --help` needs no workspace code
    from ..core.store.workspace import Workspace

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def common_parent() -> argparse.ArgumentParser:
    """Options accepted by every subcommand."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--workspace", "-w", metavar="PATH",
                        help="project root holding memory/ and .yoi/ (default: found by walking up from here)")
    return parent


def json_parent() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    return parent


def workspace_from(args: argparse.Namespace) -> Workspace:
    """The workspace named by --workspace or found from the current directory (raises YoiError)."""
    from ..core.store.workspace import find_workspace

    ws = find_workspace(explicit=args.workspace) if args.workspace else find_workspace()
    _ = ws.config  # validate the config early so its errors name the file and key
    return ws


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
