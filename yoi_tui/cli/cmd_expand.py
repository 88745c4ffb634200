"""``yoi expand [FILE|-]``: append the bodies of ``#slug``-referenced knowledge to a prompt."""

from __future__ import annotations

import argparse
import sys

from ..core.errors import YoiError
from .common import json_parent, print_json, workspace_from
from .session_opt import session_from, session_parent, should_record, show_library_warnings


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "expand", parents=[*parents, json_parent(), session_parent()],
        help="expand #slug references in a prompt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read a prompt and print it followed by the body of every knowledge record it "
                    "references as #slug (user_invocable: true), each inside "
                    "<yoi-knowledge slug=\"...\"> ... </yoi-knowledge>. #slug in code, URLs and headings "
                    "is not a reference. Unknown slugs are left as typed and reported on stderr. Each "
                    "expanded record is recorded as an invoke (with --session or $YOI_SESSION_ID; not with --no-record).",
        epilog="examples:\n"
               "  echo 'fix the flaky test, see #run-tests' | yoi expand\n"
               "  yoi expand prompt.md --json   # {text, expanded, unknown: [{slug, line, col, reason}], redirected}")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="prompt file (default: stdin)")
    parser.set_defaults(handler=run)


def _read_prompt(name: str) -> str:
    try:
        if name == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise YoiError(f"cannot read prompt: {exc.strerror or exc}", path=name) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise YoiError("prompt is not UTF-8 text", path="<stdin>" if name == "-" else name) from exc


def run(args: argparse.Namespace) -> int:
    from ..core.retrieval.expand import expand_prompt

    show_library_warnings()
    ws = workspace_from(args)
    session_id = session_from(args)
    result = expand_prompt(ws, _read_prompt(args.file), record=should_record(args), session_id=session_id)
    for old, new in result.redirected.items():
        print(f"yoi: #{old} is replaced by #{new}; expanded #{new}", file=sys.stderr)
    for ref in result.unknown:
        reason = result.reasons.get(ref.slug, "unknown")
        print(f"yoi: #{ref.slug} at line {ref.line}, col {ref.col} left as typed: {reason}", file=sys.stderr)
    if args.json:
        print_json(result.to_json())
    else:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    return 0
