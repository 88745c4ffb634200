"""``yoi search knowledge|memory``: the retrieval tools of SPEC 5 on the command line."""

from __future__ import annotations

import argparse
import sys

from .common import json_parent, print_json, workspace_from
from .session_opt import report_problems, session_from, session_parent, should_record, show_library_warnings


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "search", parents=[*parents, json_parent(), session_parent()],
        help="search knowledge/ or memory/ (an agent's hits are recorded as invokes)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Scan the record files for QUERY: every whitespace-separated term must occur "
                    "(case-insensitive; frontmatter included). Hits come in path order with the lines "
                    "around the first match. 'knowledge' searches knowledge/*.md; 'memory' searches "
                    "memory/summary.md, memory/decisions/ and memory/requests/. Each hit is recorded as "
                    "one invoke in .yoi/usage/ (with --session or $YOI_SESSION_ID: an agent's use; a person's plain call records nothing).",
        epilog="examples:\n"
               "  yoi search knowledge pytest fixtures\n"
               "  yoi search knowledge --slug run-tests --json\n"
               "  yoi search memory --kind decision --limit 5 sqlite\n"
               "JSON output is a list of {slug, kind, description, model_invokation, excerpt} (knowledge) "
               "or {slug, kind, description?, status?, excerpt} (memory).")
    parser.add_argument("target", choices=("knowledge", "memory"), help="which records to search")
    parser.add_argument("query", nargs="*", default=[], metavar="QUERY", help="terms that must all occur (default: any record)")
    parser.add_argument("--slug", metavar="S", help="exact slug: at most that record")
    parser.add_argument("--kind", metavar="K",
                        help="knowledge: its kind (term, policy, ...); memory: summary, decision or request")
    parser.add_argument("--limit", type=int, metavar="N", help="at most N hits (default: [search] limit)")
    parser.add_argument("--context", type=int, metavar="N", dest="context_lines",
                        help="lines of context around the match (default: [search] context_lines)")
    parser.add_argument("--include-replaced", action="store_true", help="also return replaced records")
    parser.set_defaults(handler=run, trailing_words="query")


def run(args: argparse.Namespace) -> int:
    from ..core.retrieval.search import knowledge_search, memory_search

    show_library_warnings()
    ws = workspace_from(args)
    session_id = session_from(args)
    search = knowledge_search if args.target == "knowledge" else memory_search
    problems: list[str] = []
    hits = search(ws, " ".join(args.query), slug=args.slug, kind=args.kind, limit=args.limit,
                  include_replaced=args.include_replaced, record=should_record(args),
                  context_lines=args.context_lines, session_id=session_id, problems=problems)
    report_problems(problems)
    if args.json:
        print_json([hit.to_json() for hit in hits])
        return 0
    if not hits:
        print("no matching records", file=sys.stderr)
        return 0
    for number, hit in enumerate(hits):
        if number:
            print()
        where = f"{hit.path}:{hit.line}" if hit.line else hit.path
        tags = [hit.kind] if hit.kind else []
        if getattr(hit, "model_invokation", False):
            tags.append("resident")
        status = getattr(hit, "status", None)
        if status:
            tags.append(status)
        if hit.replaced_by:
            tags.append(f"replaced by {hit.replaced_by}")
        print(f"{where}  #{hit.slug}  [{', '.join(tags)}]")
        if hit.description:
            print(f"  {hit.description}")
        for line in hit.excerpt.split("\n"):
            print(f"  | {line}".rstrip())
    return 0
