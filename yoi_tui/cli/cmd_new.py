"""``yoi new KIND SLUG``: write a new record from the templates the app's ``n`` uses (lint-clean)."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_OK, EXIT_USAGE, json_parent, print_json, workspace_from

KINDS = ("decision", "request", "knowledge")


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "new", parents=[*parents, json_parent()], help="write a new record from a template (lint-clean)",
        description="Write a new decision, request or knowledge record from the template the app's 'n' uses: "
                    "every required key filled in (timestamps now, no sources yet, a decision 'open', "
                    "knowledge not model-invoked), so `yoi lint` passes as written. Then edit its text. "
                    "Exit 0 when written, 2 when the slug is not valid or the file already exists.",
        epilog="A knowledge record's kind comes from --kind, else the slug's prefix (howto-deploy: howto), "
               "else the first of records.knowledge_kinds. The path written is printed on stdout "
               "(--json: {path, kind, slug}). Key by key: docs/record-format.md.")
    parser.add_argument("kind", choices=KINDS, metavar="KIND", help="decision, request or knowledge")
    parser.add_argument("slug", metavar="SLUG",
                        help="the file name: lowercase letters, digits and single hyphens, at most 64 characters")
    parser.add_argument("--title", metavar="T", help="the heading (default: from the slug)")
    parser.add_argument("--kind", dest="knowledge_kind", metavar="K",
                        help="knowledge only: one of records.knowledge_kinds (term, policy, rule, fact, howto)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.errors import YoiError
    from ..core.store.kinds import RecordKind, path_for
    from ..core.store.templates import knowledge_kind_for, record_template, slug_problem
    from ..core.store.writer import save_text

    ws = workspace_from(args)
    kind = RecordKind(args.kind)
    problem = slug_problem(ws, kind, args.slug)
    if problem is not None:
        print(f"yoi: new {kind.value} {args.slug!r}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    kinds = list(ws.config.records.knowledge_kinds)
    if args.knowledge_kind is not None:
        if kind is not RecordKind.KNOWLEDGE:
            print("yoi: --kind applies to knowledge records only", file=sys.stderr)
            return EXIT_USAGE
        if args.knowledge_kind not in kinds:
            print(f"yoi: --kind {args.knowledge_kind!r} is not one of {', '.join(kinds)} "
                  "(records.knowledge_kinds in .yoi/config.toml)", file=sys.stderr)
            return EXIT_USAGE
        knowledge_kind = args.knowledge_kind
    else:
        knowledge_kind = knowledge_kind_for(args.slug, kinds, kinds[0] if kinds else "fact")
    path = path_for(ws, kind, args.slug)
    text = record_template(kind, args.slug, knowledge_kind=knowledge_kind, title=args.title)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        save_text(path, text, expected_before=None)  # atomic, under the write lock; never over a file
    except YoiError as exc:
        print(f"yoi: {exc}", file=sys.stderr)
        return EXIT_USAGE
    rel = ws.rel(path)
    if args.json:
        print_json({"path": rel, "kind": kind.value, "slug": args.slug})
    else:
        print(rel)
        print(f"yoi: wrote {rel}; edit its text, then `yoi lint {rel}`", file=sys.stderr)
    return EXIT_OK
