"""``yoi status``: what the hooks' background work is doing and did (``core/hooks/jobs``)."""

from __future__ import annotations

import argparse
import time

from .common import json_parent, print_json, workspace_from


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status", parents=[*parents, json_parent()],
        help="show the hooks' background work: pending Phase 1/2 jobs, failures, recent outcomes",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The Stop and PreCompact hooks hand Phase 1 (and PreCompact's Phase 2 flush) to a "
                    "detached background worker. This shows whether a worker is running, the jobs still "
                    "pending (a failed job stays pending with its error and is retried at the next hook), "
                    "and the last outcomes from .yoi/state/hook-jobs/log.jsonl. Exit status 1 when a "
                    "pending job has failed.",
        epilog="examples:\n  yoi status\n  yoi status --json   # {pending, worker_running, recent, worker_output}")
    parser.set_defaults(handler=run)


def _when(stamp: object) -> str:
    if not isinstance(stamp, int | float):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def run(args: argparse.Namespace) -> int:
    from ..core.hooks.jobs import status

    ws = workspace_from(args)
    found = status(ws)
    failed = [job for job in found["pending"] if job["attempts"]]
    if args.json:
        print_json(found)
        return 1 if failed else 0
    print(f"background worker: {'running' if found['worker_running'] else 'not running'}")
    if not found["pending"]:
        print("pending jobs: none")
    for job in found["pending"]:
        line = f"pending: {job['job']} ({job['event']}, queued {_when(job['queued_at'])})"
        if job["attempts"]:
            line += f" — failed {job['attempts']}x, retried at the next hook: {job['last_error']}"
        print(line)
    if found["recent"]:
        print("recent:")
        for entry in found["recent"]:
            print(f"  {_when(entry.get('at'))} {entry.get('job')} {entry.get('event') or ''} "
                  f"{entry.get('status')}: {entry.get('message') or ''}".rstrip())
    if found["worker_output"].strip():
        print("worker output (.yoi/state/hook-jobs/worker.log, last lines):")
        for line in found["worker_output"].strip().splitlines()[-10:]:
            print(f"  {line}")
    return 1 if failed else 0
