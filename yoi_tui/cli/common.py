"""Helpers every ``yoi`` subcommand shares: the common options, workspace lookup, JSON output."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # not typing's: `yoi --help` imports this module, and typing costs ~3 ms
if TYPE_CHECKING:  # imported in workspace_from: `yoi --help` needs no workspace code
    from typing import Any

    from ..core.store.workspace import Workspace

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def terminal_width() -> int:
    """``shutil.get_terminal_size().columns - 2``, as argparse's help formatter computes it, without
    importing ``shutil`` (which loads the bz2, lzma and zlib modules: ~3-9 ms on every ``yoi`` call,
    since argparse builds a formatter for each option it adds)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns if columns > 0 else 80) - 2


class YoiParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose help formatters get the terminal width from
    ``terminal_width`` (every ``yoi`` parser and subparser is one)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=terminal_width())


def common_parent() -> argparse.ArgumentParser:
    """Options accepted by every subcommand."""
    parent = YoiParser(add_help=False)
    parent.add_argument("--workspace", "-w", metavar="PATH",
                        help="project root holding memory/ and .yoi/ (default: found by walking up from here)")
    return parent


def json_parent() -> argparse.ArgumentParser:
    parent = YoiParser(add_help=False)
    parent.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    return parent


def workspace_from(args: argparse.Namespace) -> Workspace:
    """The workspace named by --workspace or found from the current directory (raises YoiError)."""
    from ..core.store.workspace import find_workspace

    ws = find_workspace(explicit=args.workspace) if args.workspace else find_workspace()
    _ = ws.config  # validate the config early so its errors name the file and key
    if getattr(args, "command", None) != "init":  # init registers the driver itself
        from .team_notice import ensure_merge_driver, settle_stopped_operation

        ensure_merge_driver(ws, getattr(args, "command", None), getattr(args, "session", None))
        settle_stopped_operation(ws, getattr(args, "command", None))
    return ws


def print_json(data: Any) -> None:
    import json

    # One text, written in 1 MiB slices: json.dump with an indent writes each token separately
    # (360,000 writes for GC at 10k), and one write of the whole text (39 MB for GC at 50k) held it
    # again with its newline and again as encoded bytes.
    if isinstance(data, dict) and any(getattr(v, "streamed", False) for v in data.values()):
        _print_json_streamed(data)
        return
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    for start in range(0, len(text), _JSON_SLICE):
        sys.stdout.write(text[start:start + _JSON_SLICE])
    sys.stdout.write("\n")


def _print_json_streamed(data: dict[str, Any]) -> None:
    """``print_json`` of a mapping whose streamed lists (``gc.model.StreamedList``) are written item
    by item: the same text as ``json.dumps(data, indent=2, ...)`` (JSON escapes every line break
    inside a string, so indenting a nested dump is replacing its newlines)."""
    import json

    def dumps(value: Any, indent: str) -> str:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str).replace("\n", "\n" + indent)

    out = sys.stdout
    if not data:
        out.write("{}\n")
        return
    for number, (key, value) in enumerate(data.items()):
        out.write(("{\n  " if number == 0 else ",\n  ") + json.dumps(key, ensure_ascii=False) + ": ")
        if not getattr(value, "streamed", False):
            out.write(dumps(value, "  "))
            continue
        empty = True
        for item in value:
            out.write(("[\n    " if empty else ",\n    ") + dumps(item, "    "))
            empty = False
        out.write("[]" if empty else "\n  ]")
    out.write("\n}\n")


_JSON_SLICE = 1 << 20
