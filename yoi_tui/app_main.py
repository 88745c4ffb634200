"""``yoi-tui`` entry point: ``yoi-tui [--workspace PATH] [--demo]`` and ``yoi-tui compose``.

``compose`` opens only the prompt composer and prints the expanded prompt to stdout on ctrl+j,
so it can be substituted into an agent's command line: ``claude "$(yoi-tui compose)"`` (Textual
draws on stderr, so capturing stdout does not capture the screen). ``--demo`` builds the sample
workspace of ``model.demo`` in a temporary folder and removes it on exit.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .core.errors import YoiError

EXIT_OK, EXIT_CANCELLED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yoi-tui",
        description="Browse and edit the project memory with live lint, and compose prompts with "
                    "#slug completion.",
        epilog="Examples:\n"
               "  yoi-tui --demo                  try it on a generated sample workspace\n"
               "  yoi-tui                         the workspace found from the current folder\n"
               "  claude \"$(yoi-tui compose)\"     write a prompt, expand #slugs, hand it to an agent\n"
               "\nKeys: F1 help, ctrl+p command palette, ctrl+q quit.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--workspace", "-w", metavar="PATH",
                        help="project root holding memory/ and .yoi/ (default: found by walking up from here)")
    parser.add_argument("--demo", action="store_true",
                        help="open a generated sample workspace in a temporary folder (your files are untouched)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    compose = sub.add_parser(
        "compose", help="compose a prompt and print it, #slugs expanded, to stdout",
        description="Open the prompt composer. ctrl+j prints the expanded prompt to stdout and exits; "
                    "Esc exits without printing (exit status 1).",
        epilog="Example: claude \"$(yoi-tui compose)\"", formatter_class=argparse.RawDescriptionHelpFormatter)
    compose.add_argument("--workspace", "-w", metavar="PATH", dest="compose_workspace",
                         help="project root (default: found by walking up from here)")
    compose.add_argument("--demo", action="store_true", dest="compose_demo", help="use the sample workspace")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    mode = "compose" if args.command == "compose" else "browse"
    workspace_arg = getattr(args, "compose_workspace", None) or args.workspace
    demo = args.demo or getattr(args, "compose_demo", False)
    demo_root: Path | None = None
    try:
        from .app import make_app
        from .core.store.workspace import find_workspace

        if demo:
            from .model.demo import create_demo_workspace

            demo_root = Path(tempfile.mkdtemp(prefix="yoi-demo-"))
            create_demo_workspace(demo_root)
            workspace, label = demo_root, "demo workspace (temporary)"
        else:
            ws = find_workspace(explicit=workspace_arg) if workspace_arg else find_workspace()
            workspace, label = ws, None
        folders = [demo_root / "sessions"] if demo_root is not None else []
        driver = None
        if mode == "compose":
            from .terminal import driver_for_captured_stdout

            driver = driver_for_captured_stdout()  # stdout captured: size the screen from stderr
        app = make_app(workspace, mode=mode, label=label, log_folders=folders, driver_class=driver)
        result = app.run()
    except YoiError as exc:
        print(f"yoi-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    finally:
        if demo_root is not None:
            shutil.rmtree(demo_root, ignore_errors=True)
    if app.return_code not in (None, 0):
        return int(app.return_code)
    if mode == "compose":
        if result is None:
            return EXIT_CANCELLED
        sys.stdout.write(result if result.endswith("\n") else result + "\n")
        sys.stdout.flush()
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
