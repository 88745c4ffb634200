"""``yoi hook claude-code``: the entry point for Claude Code hooks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.errors import YoiError
from ..core.store.workspace import find_workspace


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook", parents=parents, help="entry point for agent harness hooks (Claude Code)",
        description="Read a Claude Code hook event as JSON on stdin and do yoi's part: SessionStart prints the "
                    "resident context; UserPromptSubmit prints the knowledge behind the prompt's #slugs; PreCompact "
                    "queues Phase 1 and a Phase 2 flush, Stop/SessionEnd queue Phase 1 (when over the token "
                    "threshold) for a detached background worker, which also moves the token clock ('yoi status' "
                    "shows it). Problems go to stderr and the hook exits 0, so it never blocks the agent.",
        epilog="Register in .claude/settings.json, e.g.\n"
               '  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "yoi hook claude-code"}]}]}\n'
               "and the same for UserPromptSubmit, PreCompact and Stop.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    # Codex (>= 0.114) sends hook events of the same shape (session_id, transcript_path, cwd,
    # hook_event_name, prompt), so one handler serves both.
    parser.add_argument("harness", choices=("claude-code", "codex", "codex-notify"),
                        help="which harness sends the event (codex-notify: Codex's legacy 'notify' program)")
    parser.add_argument("payload", nargs="?", help=argparse.SUPPRESS)  # codex-notify: the JSON argument
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.hooks.events import handle_claude_code, handle_codex_notify

    # Codex's notify passes the event as one argv argument, with stdin closed.
    raw = args.payload if args.harness == "codex-notify" else sys.stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        print(f"yoi hook: stdin is not JSON ({exc}); nothing done", file=sys.stderr)
        return 0
    if not isinstance(payload, dict):
        print("yoi hook: stdin is not a JSON object; nothing done", file=sys.stderr)
        return 0
    try:
        if args.workspace:
            ws = find_workspace(explicit=args.workspace)
        else:
            ws = find_workspace(Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else None)
        from .team_notice import ensure_merge_driver, settle_stopped_operation

        session = payload.get("session_id") or payload.get("thread-id")
        ensure_merge_driver(ws, "hook", session if isinstance(session, str) else None, prefix="yoi hook")
        settle_stopped_operation(ws, "hook", prefix="yoi hook")
        outcome = (handle_codex_notify(ws, payload) if args.harness == "codex-notify"
                   else handle_claude_code(ws, payload))
    except YoiError as exc:
        # Exit 2 would make Claude Code treat this as a blocking error; a memory problem must not.
        print(f"yoi hook: {exc}", file=sys.stderr)
        return 0
    if outcome.stdout and args.harness == "codex":
        # Codex validates a hook's stdout strictly: context goes in the JSON shape its output schema
        # names (hookSpecificOutput.additionalContext), not as plain text.
        event = str(payload.get("hook_event_name", ""))
        print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": outcome.stdout}},
                         ensure_ascii=False))
    elif outcome.stdout:
        print(outcome.stdout)
    for note in outcome.notes:
        print(f"yoi hook: {note}", file=sys.stderr)
    return 0
