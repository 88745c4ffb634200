"""Regenerate docs/gc.md's "merge, before and after" example from a real GC run.

    .venv/bin/python scripts/gc_merge_example.py          # rewrite the section in docs/gc.md
    .venv/bin/python scripts/gc_merge_example.py --check  # exit 1 when the page is stale

Two hard-wrapped near-duplicate decisions are written into a fresh workspace, ``run_gc`` merges
them, and the section between the markers shows both records before, the kept record and the stub
after, and the operation's reason. tests/test_gc_merge_doc.py checks that the page holds exactly
what this produces.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "gc.md"
BEGIN = "<!-- gc-merge-example:begin (generated: scripts/gc_merge_example.py) -->"
END = "<!-- gc-merge-example:end -->"
FIXED_NOW = "2026-12-01T09:00:00+00:00"

KEEPER = """\
---
created_at: 2026-11-02T09:00:00+00:00
updated_at: 2026-11-02T09:00:00+00:00
sources:
  - session_id: 0197a1-session-one
    range: [10, 24]
  - session_id: 0197a1-session-one
    range: [31, 40]
status: resolved
---

# Retry webhooks with exponential backoff

## Chosen
Five attempts: 1 min, 5 min, 30 min, 2 h, 12 h. After that the
delivery is marked failed and the tenant is e-mailed.

## Options
- a fixed delay of one minute
- exponential backoff
"""

OTHER = """\
---
created_at: 2026-11-20T15:00:00+00:00
updated_at: 2026-11-20T15:00:00+00:00
sources:
  - session_id: 0197c4-session-three
    range: [3, 9]
status: open
---

# Retry webhook deliveries

A second note on webhook retries, written in another session;
probably the same subject as the other one.

## Options
- exponential backoff
- a queue per tenant, so one slow endpoint
  cannot hold back the others

```
retry(delays=[60, 300, 1800, 7200, 43200])
```
"""


def render() -> str:
    """The generated section (markers included)."""
    from datetime import datetime

    from yoi_tui.core.gc import prepare_gc
    from yoi_tui.core.store.workspace import init_workspace

    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = init_workspace(Path(tmp))
        # The keeper is the preferred slug (the shorter one), whatever the records hold (issue 30).
        keeper = ws.decisions_dir / "retry-webhook-with-backoff.md"
        other = ws.decisions_dir / "retry-webhooks-with-backoff.md"
        keeper.write_text(KEEPER, encoding="utf-8")
        other.write_text(OTHER, encoding="utf-8")
        prepared = prepare_gc(ws, now=datetime.fromisoformat(FIXED_NOW))
        merge = next(o for o in prepared.report.proposed if o.op == "merge")
        prepared.apply()
        kept, stub = keeper.read_text(encoding="utf-8"), other.read_text(encoding="utf-8")
    fence = "````"
    parts = [BEGIN, "",
             "Before: `memory/decisions/retry-webhook-with-backoff.md`", "", f"{fence}markdown", KEEPER.rstrip("\n"),
             fence, "", "and `memory/decisions/retry-webhooks-with-backoff.md`", "", f"{fence}markdown",
             OTHER.rstrip("\n"), fence, "", f"`yoi gc` proposes `{merge.id}`:", "", f"> {merge.reason}", "",
             "After: the kept record", "", f"{fence}markdown", kept.rstrip("\n"), fence, "",
             "and the stub it leaves (a replaced record: references to it keep working)", "", f"{fence}markdown",
             stub.rstrip("\n"), fence, "", END]
    return "\n".join(parts)


def with_section(text: str) -> str:
    section = render()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{PAGE}: the markers {BEGIN!r} … {END!r} are missing")
    return pattern.sub(lambda _m: section, text, count=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/gc.md is stale")
    args = parser.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    new = with_section(text)
    if args.check:
        return 0 if new == text else 1
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
