"""``yoi usage``: per-record frequency, protection and the knowledge candidate report (SPEC 6).

Also ``yoi usage record-tokens N``: the harness's token-clock tick for a session.
"""

from __future__ import annotations

import argparse
import sys

from .common import YoiParser, json_parent, print_json, workspace_from
from .session_opt import session_from, session_parent, show_library_warnings


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "usage", parents=[*parents, json_parent()],
        help="record usage frequency, protection, candidate report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read .yoi/usage/*.jsonl and print, per record: invokes, distinct sessions, frequency "
                    "(invokes per million input tokens over the last [usage] window invokes, denominator at "
                    "least [usage] denominator_floor tokens) and whether it is protected from GC "
                    "(frequency >= [usage] protect_threshold). --candidates prints the knowledge candidate "
                    "report Phase 2 reads: decisions, requests and knowledge invoked from at least "
                    "candidate_min_sessions sessions, at least candidate_min_invokes times counting "
                    "consecutive invokes within one session as one (counts, not the token clock: the same "
                    "in every clone that has the same usage files; [usage] candidate_threshold above 0 adds "
                    "a frequency floor on top). Malformed usage lines are reported "
                    "on stderr and skipped.",
        epilog="examples:\n"
               "  yoi usage\n"
               "  yoi usage --candidates --json\n"
               "  yoi usage record-tokens 1834 --session $SESSION   # advance the token clock")
    parser.add_argument("--candidates", action="store_true", help="only the knowledge candidate report")
    parser.add_argument("--all", action="store_true", help="also list records that were never invoked")
    parser.set_defaults(handler=run)
    sub = parser.add_subparsers(dest="usage_command", metavar="[record-tokens|compact]",
                                title="subcommand (optional)")
    tokens = sub.add_parser(
        "record-tokens", parents=[_suppressed_parent(), session_parent(no_record=False)],
        help="record input tokens a session consumed since its last event (the token clock)",
        description="Append a 'tokens' event to .yoi/usage/<session>.jsonl: the input tokens this session "
                    "consumed since its previous event. 0 records nothing.",
        epilog="example: yoi usage record-tokens 1834 --session 3f2a...   (or set YOI_SESSION_ID)")
    tokens.add_argument("input_tokens", type=int, metavar="N", help="input tokens since the last event")
    tokens.set_defaults(handler=run_record_tokens)
    compact = sub.add_parser(
        "compact", parents=[_suppressed_parent()],
        help="fold closed sessions' usage files into one file per month (metrics unchanged)",
        description="Move the events of every session whose last event is older than --older-than-days into "
                    ".yoi/usage/_month-YYYY-MM.jsonl (a line per session, its events in a short form), then "
                    "remove the session files. Every metric (clock, frequencies, sessions, candidates) is "
                    "exactly what it was; the command checks that. See docs/usage.md.",
        epilog="example: yoi usage compact --older-than-days 30 --dry-run")
    compact.add_argument("--older-than-days", type=int, default=30, metavar="N",
                         help="a session is closed when its last event is older than N days (default 30)")
    compact.add_argument("--dry-run", action="store_true", help="only say what would be folded")
    compact.set_defaults(handler=run_compact)


def _suppressed_parent() -> argparse.ArgumentParser:
    """--workspace/--json again after the subcommand, without defaults that would overwrite the
    values given before it (argparse copies a sub-parser's defaults over the parent's)."""
    parent = YoiParser(add_help=False)
    parent.add_argument("--workspace", "-w", metavar="PATH", default=argparse.SUPPRESS,
                        help="project root holding memory/ and .yoi/")
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output on stdout")
    return parent


def run_record_tokens(args: argparse.Namespace) -> int:
    from ..core.usage.log import UsageLog

    ws = workspace_from(args)
    usage_log = UsageLog(ws, session_from(args))
    event = usage_log.record_tokens(args.input_tokens)
    if args.json:
        print_json({"session_id": usage_log.session_id, "event": event})
    return 0


def run_compact(args: argparse.Namespace) -> int:
    from ..core.usage.compact import compact

    ws = workspace_from(args)
    result = compact(ws, older_than_days=args.older_than_days, dry_run=args.dry_run)
    if getattr(args, "json", False):
        print_json(result.to_json())
        return 0
    for name, why in sorted(result.skipped.items()):
        print(f"yoi: .yoi/usage/{name}: {why}", file=sys.stderr)
    verb = "would fold" if result.dry_run else "folded"
    if not result.sessions:
        print(f"nothing to compact: no closed session older than {args.older_than_days} day(s)")
        return 0
    print(f"{verb} {len(result.sessions)} session file(s), {result.events} event(s), into "
          f"{len(result.months)} month file(s) ({', '.join(result.months)}); usage files "
          f"{result.files_before} -> {result.files_after}" + ("" if result.dry_run else "; metrics unchanged"))
    return 0


def _fmt_freq(value: float) -> str:
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


def run(args: argparse.Namespace) -> int:
    from ..core.usage.log import usage_report

    show_library_warnings()
    ws = workspace_from(args)
    stats, summary = usage_report(ws)
    for problem in summary.problems:
        print(f"yoi: warning: {problem.path}:{problem.line}: {problem.message}", file=sys.stderr)
    if args.candidates:
        rows = sorted((s for s in stats if s.candidate), key=lambda s: (-s.candidate_frequency, s.kind, s.slug))
    else:
        rows = [s for s in stats if args.all or s.invokes]
    if args.json:
        print_json({
            "clock": summary.clock, "sessions": summary.sessions, "events": summary.events,
            "invokes": summary.invokes, "injects": summary.injects, "inject_tokens": summary.inject_tokens,
            "records": [s.to_json() for s in rows],
            "problems": [p.to_json() for p in summary.problems],
        })
        return 0
    _print_table(rows, candidates=args.candidates)
    print(f"clock: {summary.clock:,} input tokens · {summary.sessions} session(s) · {summary.invokes} invoke(s) · "
          f"{summary.injects} injection(s) ({summary.inject_tokens:,} tokens)")
    return 0


def _print_table(rows: list, *, candidates: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    if not rows:
        print("no candidates" if candidates else "no invoked records (use --all to list every record)")
        return
    console = Console(width=None if sys.stdout.isatty() else 200, highlight=False)
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("slug", no_wrap=True)
    table.add_column("kind")
    table.add_column("invokes", justify="right")
    table.add_column("sessions", justify="right")
    table.add_column("freq/Mtok", justify="right")
    table.add_column("protected")
    if candidates:
        table.add_column("collapsed", justify="right")
        table.add_column("cand. freq", justify="right")
    for stat in rows:
        cells = [stat.slug + ("" if stat.exists else " (missing)"), stat.kind, str(stat.invokes),
                 str(stat.sessions), _fmt_freq(stat.frequency), "yes" if stat.protected else "no"]
        if candidates:
            cells += [str(stat.collapsed_invokes), _fmt_freq(stat.candidate_frequency)]
        table.add_row(*cells)
    console.print(table)
