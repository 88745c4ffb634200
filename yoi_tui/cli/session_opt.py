"""Options and output helpers shared by the retrieval commands (search, expand, context, usage, mcp).

``--session ID`` names the usage session the command's events go to (else ``$YOI_SESSION_ID``);
``--no-record`` reads without recording usage. A read command run with neither is a person's use,
and records nothing (``should_record``): one file per call would count each command as an agent
session and inflate the metrics GC and Phase 2 act on (docs/usage.md). Library warnings
(``logging``, e.g. "usage not recorded") are shown on stderr as ``yoi: ...`` lines.
"""

from __future__ import annotations

import argparse
import sys


def session_parent(*, no_record: bool = True) -> argparse.ArgumentParser:
    from .common import YoiParser

    parent = YoiParser(add_help=False)
    parent.add_argument("--session", metavar="ID",
                        help="usage session id for recorded events (default: $YOI_SESSION_ID; read commands "
                             "with neither record nothing)")
    if no_record:
        parent.add_argument("--no-record", action="store_true",
                            help="do not record usage events (read only)")
    return parent


def session_from(args: argparse.Namespace) -> str | None:
    """The validated ``--session`` value, or None to use the environment / process default."""
    from ..core.usage.log import validate_session_id

    value = getattr(args, "session", None)
    return validate_session_id(value) if value else None


def should_record(args: argparse.Namespace) -> bool:
    """Record usage for a read command: not ``--no-record``, and a session named by flag or env."""
    import os

    if getattr(args, "no_record", False):
        return False
    return bool(getattr(args, "session", None) or os.environ.get("YOI_SESSION_ID", "").strip())


def show_library_warnings() -> None:
    """Route ``yoi.*`` log warnings to stderr, formatted like other CLI messages (logging itself is
    imported only when a warning comes: ``core.notices``)."""
    from ..core.notices import print_warnings_to_stderr

    print_warnings_to_stderr()


def report_problems(problems: list[str]) -> None:
    for problem in problems:
        print(f"yoi: warning: {problem}", file=sys.stderr)
