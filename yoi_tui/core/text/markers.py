"""Markers around text that yoi itself injects into an agent's prompt.

Resident context and expanded ``#slug`` blocks are wrapped in these markers so that Phase 1 can
strip them from session logs: memory must never learn from its own output.

Text placed *inside* a block must not be able to end it or open a forged one. ``escape_markers``
neutralises every spelling an HTML/XML parser or a model would read as one of our tags — any case,
whitespace or a newline after ``<``, ``/`` or before ``>``, attributes or none — by turning its
``<`` into ``&lt;``, visibly (no invisible characters). ``FORGED_MARKER_RE`` and
``HARNESS_TAG_RE`` are what the linter's ``injection-pattern`` rule warns about in a record.
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


# The tag name after "<", optional "/" and whitespace (newlines too), in any case; a name
# continuing with a word character or "-" is another tag ("<yoi-contextual>").
FORGED_MARKER_RE = re.compile(r"<\s*/?\s*yoi-(?:context|knowledge)(?![\w-])", re.IGNORECASE)

# Tags agent harnesses wrap around text they inject into a conversation (Claude Code, Codex): in a
# record they would pose as the harness speaking. Opening or closing, any case and spacing.
HARNESS_TAGS = ("system-reminder", "environment_context", "user_instructions", "INSTRUCTIONS",
                "permissions instructions", "collaboration_mode", "skills_instructions", "local-command-caveat",
                "local-command-stdout", "local-command-stderr", "command-name", "command-message", "command-args",
                "user-prompt-submit-hook", "function_calls", "function_results", "system", "tool_result")
HARNESS_TAG_RE = re.compile(
    r"<\s*/?\s*(?:" + "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in HARNESS_TAGS) + r")\s*>",
    re.IGNORECASE)


def escape_markers(text: str) -> str:
    """``text`` with every yoi marker spelling neutralised (``<`` → ``&lt;``); linear in ``text``."""
    return FORGED_MARKER_RE.sub(lambda m: "&lt;" + m.group()[1:], text)
