#!/usr/bin/env python3
"""Cut a real public session log down to a small benchmark file, as PROVENANCE.md describes.

``python bench/extraction/cut.py SOURCE OUT [--lines A-B] [--replace OLD=NEW ...]``

* only lines ``A``-``B`` (1-based, inclusive) are kept when ``--lines`` is given (a Phase 1 run
  reads a window after its pointer, so a window is a realistic input);
* Claude Code ``progress`` and ``file-history-snapshot`` lines (bookkeeping every adapter skips)
  are dropped, and each ``toolUseResult`` (the harness's structured copy of a tool result) keeps
  only its ``interrupted`` flag;
* every JSON string longer than 1,200 characters keeps its first 600 and last 400 characters
  around ``…[trimmed for the benchmark]…``; a string that itself holds JSON (a Codex tool output
  ``{"output": …, "metadata": {"exit_code": …}}``) is trimmed inside and stays valid JSON, so its
  exit code is still read;
* each ``--replace OLD=NEW`` is applied to every string (user names in paths, e-mail addresses).

A line that is not JSON is kept as it is (the adapters report it; the benchmark should too).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

LONG = 1200
HEAD, TAIL = 600, 400
MARK = "…[trimmed for the benchmark]…"
DROPPED_TYPES = {"progress", "file-history-snapshot"}


def _nested_json(value: str) -> Any:
    """The object or array a string holds as JSON (Codex writes tool outputs so), else None."""
    stripped = value.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        nested = json.loads(stripped)
    except ValueError:
        return None
    return nested if isinstance(nested, (dict, list)) else None


def _trim(value: Any, replacements: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for old, new in replacements:
            value = value.replace(old, new)
        if len(value) > LONG:
            nested = _nested_json(value)
            if nested is not None:  # a JSON string (Codex tool output): trim inside, keep it JSON
                return json.dumps(_trim(nested, []), ensure_ascii=False, separators=(",", ":"))
            value = value[:HEAD] + MARK + value[-TAIL:]
        return value
    if isinstance(value, list):
        return [_trim(v, replacements) for v in value]
    if isinstance(value, dict):
        return {k: _trim(v, replacements) for k, v in value.items()}
    return value


def cut_line(line: str, replacements: list[tuple[str, str]]) -> str | None:
    """The benchmark's copy of one log line, or None when it is bookkeeping to drop."""
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    if record.get("type") in DROPPED_TYPES:
        return None
    if "toolUseResult" in record:
        result = record["toolUseResult"]
        kept = {"interrupted": result.get("interrupted")} if isinstance(result, dict) and "interrupted" in result else {}
        record["toolUseResult"] = kept
    return json.dumps(_trim(record, replacements), ensure_ascii=False, separators=(",", ":"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", help="1-based inclusive window, e.g. 120-380")
    parser.add_argument("--replace", action="append", default=[], help="OLD=NEW applied to every string")
    args = parser.parse_args(argv)
    replacements = [tuple(r.split("=", 1)) for r in args.replace]
    lines = args.source.read_text(encoding="utf-8").splitlines()
    if args.lines:
        first, last = (int(x) for x in args.lines.split("-"))
        lines = lines[first - 1:last]
    kept = [c for c in (cut_line(line, replacements) for line in lines if line.strip()) if c is not None]
    args.out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(kept)} lines, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
