"""``yoi phase1``: extract what happened in agent session logs into staging files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, json_parent, print_json, workspace_from
from .team_notice import tell_staging_notice


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "phase1", parents=[*parents, json_parent()], help="extract session logs into memory/_staging/",
        description="Read agent session logs (Claude Code transcripts, Codex rollouts, yoi native JSONL; the "
                    "format is detected from content), take the entries after each session's pointer, redact "
                    "secrets and drop injected text, and write what happened (decisions, discussions, attempts, "
                    "requests) as staging JSON for Phase 2. Runs only when the session consumed at least "
                    "phase1.token_threshold input tokens since the pointer, unless --force.",
        epilog="Example: yoi phase1 ~/.claude/projects/my-repo/*.jsonl --force\n"
               "Exit status: 0 done (including nothing to do), 1 when the llm engine stopped (the model gave no\n"
               "valid answer, or llm.token_budget was spent: the staging written before is kept), 2 when a log\n"
               "could not be read or the model could not be reached.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", metavar="LOG", help="session log files")
    parser.add_argument("--force", action="store_true", help="ignore the token threshold")
    parser.add_argument("--engine", choices=("rules", "llm"), help="extraction engine (default: phase1.engine)")
    parser.set_defaults(handler=run, trailing_words="logs")


def run(args: argparse.Namespace) -> int:
    from ..core.phase1.runner import run_phase1
    from .progress import steps, wanted

    ws = workspace_from(args)
    tell_staging_notice(ws)
    results = []
    with steps("Phase 1", len(args.logs), wanted(args)) as shown:
        for log in args.logs:  # one log at a time, so the bar moves per log
            shown.describe(Path(log).name)
            results += run_phase1(ws, [Path(log)], force=args.force, engine=args.engine, progress=shown.describe)
            shown.advance()
    if args.json:
        print_json([r.to_json() for r in results])
    for result in results:
        for problem in result.problems:
            print(f"{result.log}:{problem.line}: skipped: {problem.message}", file=sys.stderr)
        if result.status in ("error", "stopped"):
            print(f"yoi: {result.log}: {result.message}", file=sys.stderr)
            continue
        if args.json:
            continue
        print(f"{result.log} [{result.format}, session {result.session_id}]: {result.status} — {result.message}")
        if result.clock_tokens:
            print(f"  token clock +{result.clock_tokens:,} input tokens (recorded in the log)")
        for staging in result.staging:
            counts = ", ".join(f"{n} {k}" for k, n in staging.counts.items() if n)
            print(f"  wrote {ws.rel(ws.staging_dir / (staging.id + '.json'))} "
                  f"(entries {staging.range[0]}-{staging.range[1]}): {counts}")
    if any(r.status == "error" for r in results):
        return EXIT_USAGE
    return EXIT_FINDINGS if any(r.status == "stopped" for r in results) else EXIT_OK
