"""Splitting cleaned entries into chunks that fit a model's context, so no session is too long."""

from __future__ import annotations

from collections.abc import Iterator

from ..sessions.model import Entry

CHARS_PER_TOKEN = 4
MAX_ENTRY_CHARS = 4_000  # one huge tool output must not crowd out the rest of a chunk


def entry_tokens(entry: Entry) -> int:
    """Rough token estimate of an entry as it will be shown to a model."""
    text_len = min(len(entry.text), MAX_ENTRY_CHARS)
    input_len = min(len(str(entry.tool_input)), MAX_ENTRY_CHARS) if entry.tool_input is not None else 0
    return (text_len + input_len) // CHARS_PER_TOKEN + 8


def chunk_entries(entries: list[Entry], max_tokens: int) -> Iterator[list[Entry]]:
    """Consecutive runs of entries whose estimated size stays within ``max_tokens`` (at least one each)."""
    chunk: list[Entry] = []
    size = 0
    for entry in entries:
        cost = entry_tokens(entry)
        if chunk and size + cost > max_tokens:
            yield chunk
            chunk, size = [], 0
        chunk.append(entry)
        size += cost
    if chunk:
        yield chunk
