"""``yoi context``: print the resident context block for an agent's system prompt."""

from __future__ import annotations

import argparse
import sys

from .common import json_parent, print_json, workspace_from
from .session_opt import report_problems, session_from, session_parent, should_record, show_library_warnings


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "context", parents=[*parents, json_parent(), session_parent()],
        help="print the resident context (summary, model_invokation descriptions, listings)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Print the text a harness puts into a normal agent's system prompt, between <yoi-context>\n"
                    "and </yoi-context>:\n"
                    "  - the body of memory/summary.md as written (by a person or Phase 2);\n"
                    "  - two listings computed from memory, never stored (empty ones left out):\n"
                    "      ## Open decisions   live decisions with status open, most recently updated first\n"
                    "      ## Recent requests  the 10 most recently updated live requests\n"
                    "    shortened, longest first, to end '… and N more in FOLDER/' (search reaches the rest);\n"
                    "  - one line '#slug — description' per knowledge record with model_invokation: true\n"
                    "    that is not replaced (the resident knowledge; nothing of the other knowledge).\n"
                    "The whole block stays within [context] max_tokens: the summary first, then the resident\n"
                    "descriptions (most recently updated first; a closing line counts those left out and\n"
                    "names knowledge_search), then the listings.\n"
                    "Records an 'inject' event with the block's estimated token cost (with --session or\n"
                    "$YOI_SESSION_ID; not with --no-record). Prints nothing when there is nothing to inject.",
        epilog="examples:\n"
               "  yoi context > /tmp/system-extra.md\n"
               "  yoi context --json   # {text, slugs, tokens}")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.retrieval.resident_context import build_resident_context, record_injection

    show_library_warnings()
    ws = workspace_from(args)
    session_id = session_from(args)
    built = build_resident_context(ws)
    report_problems(built.problems)
    if should_record(args):
        record_injection(ws, built, session_id)
    if args.json:
        print_json(built.to_json())
    elif built.text:
        sys.stdout.write(built.text)
    else:
        print("yoi: nothing to inject (no summary body, no model_invokation knowledge)", file=sys.stderr)
    return 0
