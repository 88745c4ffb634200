"""Session logs: reading harness transcripts into normalised entries, and cleaning them.

SPEC section 7 (session logs) and the cleaning step of section 8. Public entry points:

- ``load_session(path) -> ParsedLog``: detect the format from content and normalise the log;
- ``detect_format(path) -> str``;
- ``clean_entries(entries) -> list[Entry]``: redact secrets (``core.text.secrets``) and drop injected text;

Adapters: ``native`` (yoi's own JSONL), ``claude_code``, ``codex``. Never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

# Names are imported from their modules on first use (PEP 562): a caller of one adapter must not
# pay for the others and their pydantic models (~40 ms).
_HOMES = {
    "clean_entries": "clean", "clean_entry": "clean", "clean_text": "clean",
    "FORMAT_EMPTY": "detect", "FORMATS": "detect", "detect_format": "detect", "load_session": "detect",
    "INJECTED_KINDS": "model", "Entry": "model", "LogProblem": "model", "ParsedLog": "model", "Role": "model",
    "SessionLogError": "model",
}

__all__ = [
    "FORMATS",
    "FORMAT_EMPTY",
    "INJECTED_KINDS",
    "Entry",
    "LogProblem",
    "ParsedLog",
    "Role",
    "SessionLogError",
    "clean_entries",
    "clean_entry",
    "clean_text",
    "detect_format",
    "load_session",
]


__getattr__ = lazy_names(__name__, _HOMES, globals())


if TYPE_CHECKING:
    from .clean import clean_entries, clean_entry, clean_text
    from .detect import FORMAT_EMPTY, FORMATS, detect_format, load_session
    from .model import INJECTED_KINDS, Entry, LogProblem, ParsedLog, Role, SessionLogError
