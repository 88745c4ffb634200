"""Markers around text that yoi itself injects into an agent's prompt.

Resident context and expanded ``#slug`` blocks are wrapped in these markers so that Phase 1 can
strip them from session logs: memory must never learn from its own output.
"""

from __future__ import annotations

import re

CONTEXT_BEGIN = "<yoi-context>"
CONTEXT_END = "</yoi-context>"


def knowledge_begin(slug: str) -> str:
    """Opening marker of an expanded ``#slug`` block."""
    return f'<yoi-knowledge slug="{slug}">'


KNOWLEDGE_END = "</yoi-knowledge>"

# One pattern for every block yoi emits; DOTALL so bodies spanning lines are matched whole.
INJECTED_BLOCK_RE = re.compile(
    r"<yoi-context>.*?</yoi-context>|<yoi-knowledge slug=\"[a-z0-9-]*\">.*?</yoi-knowledge>",
    re.DOTALL,
)


def strip_injected(text: str) -> str:
    """Remove every yoi-injected block from ``text``."""
    return INJECTED_BLOCK_RE.sub("", text)
