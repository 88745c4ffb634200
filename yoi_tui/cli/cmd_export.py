"""``yoi export skills [--check]``: publish knowledge records as Agent Skills (SKILL.md folders)."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_FINDINGS, EXIT_OK, json_parent, print_json, workspace_from

_VERB = {"create": "created", "update": "updated", "remove": "removed"}


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export", parents=[*parents, json_parent()],
        help="publish knowledge records as Agent Skills (.claude/skills, .agents/skills)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write each knowledge record that a model or a person may invoke as an Agent Skill "
                    "(<slug>/SKILL.md: name = slug, description, body; model_invokation / user_invocable mapped "
                    "to Claude Code's disable-model-invocation / user-invocable) into .claude/skills/ and "
                    ".agents/skills/, so agents without yoi's hooks still find the knowledge. Files are marked "
                    "as generated; re-export is idempotent; a hand-edited or foreign skill is reported, never "
                    "overwritten; skills whose record is gone are removed.",
        epilog="--check writes nothing and exits 1 when the export is stale (for CI; 'yoi lint' reports the same "
               "as stale-export warnings once a workspace has been exported).")
    parser.add_argument("what", choices=("skills",), help="what to export")
    parser.add_argument("--check", action="store_true", help="only report; exit 1 when anything is stale")
    parser.add_argument("--to", choices=("claude", "agents", "both"), default="both",
                        help="which skills folder(s): .claude/skills, .agents/skills, or both (default)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.export.skills import TARGETS, apply_export, plan_export

    ws = workspace_from(args)
    targets = tuple(TARGETS) if args.to == "both" else (args.to,)
    plan = plan_export(ws, targets)
    done = [] if args.check else apply_export(plan)
    blocked = plan.blocked()
    if args.json:
        print_json({"check": args.check, "stale": plan.stale,
                    "actions": [{"path": ws.rel(a.path), "action": a.action, "record": a.record}
                                for a in plan.actions]})
    else:
        for action in plan.pending():
            verb = f"would {action.action}" if args.check else _VERB[action.action]
            print(f"{verb} {ws.rel(action.path)}" + (f"  ← {action.record}" if action.record else ""))
        for action in blocked:
            why = ("edited by hand since it was exported; not overwritten" if action.action == "hand-edited"
                   else "not written by yoi; left alone")
            print(f"yoi: {ws.rel(action.path)}: {why}", file=sys.stderr)
        current = sum(1 for a in plan.actions if a.action == "ok")
        if not plan.pending():
            print(f"export up to date ({current} skill(s))")
        elif not args.check:
            print(f"{len(done)} skill file(s) written or removed; {current} already current")
    if args.check:
        return EXIT_FINDINGS if plan.stale else EXIT_OK
    return EXIT_FINDINGS if any(a.action == "hand-edited" for a in blocked) else EXIT_OK
