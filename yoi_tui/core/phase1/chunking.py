"""Splitting cleaned entries into chunks that fit a model's context, so no session is too long.

A chunk is cut, when it can be, where a turn begins (right before a message the user typed, in the
second half of the chunk), else never between a tool call and its result: a failure and the run
that shows it fixed, or a call and its answer, then stay in one chunk, where the extractor can see
both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..sessions.model import Entry

CHARS_PER_TOKEN = 4
MAX_ENTRY_CHARS = 4_000  # one huge tool output must not crowd out the rest of a chunk


def entry_tokens(entry: Entry) -> int:
    """Rough token estimate of an entry as it will be shown to a model."""
    text_len = min(len(entry.text), MAX_ENTRY_CHARS)
    input_len = min(len(str(entry.tool_input)), MAX_ENTRY_CHARS) if entry.tool_input is not None else 0
    return (text_len + input_len) // CHARS_PER_TOKEN + 8


def _turn_start(entry: Entry) -> bool:
    return entry.role == "user" and entry.kind in (None, "message", "command")


def _cut(chunk: list[Entry]) -> int:
    """Where to end a full chunk: before the last turn start in its second half, else before a
    trailing run of tool results (keeping them with their calls), else at its end."""
    for position in range(len(chunk) - 1, len(chunk) // 2, -1):
        if _turn_start(chunk[position]):
            return position
    position = len(chunk)
    while position > 1 and chunk[position - 1].kind == "tool_call":
        position -= 1  # a call whose result would land in the next chunk goes with it
    return position if position > len(chunk) // 2 else len(chunk)


def chunk_entries(entries: Iterable[Entry], max_tokens: int) -> Iterator[list[Entry]]:
    """Consecutive runs of entries whose estimated size stays within ``max_tokens`` (at least one each)."""
    chunk: list[Entry] = []
    size = 0
    for entry in entries:
        cost = entry_tokens(entry)
        if chunk and size + cost > max_tokens and entry.kind not in ("tool_result", "rejected") or \
                (chunk and size + cost > 2 * max_tokens):
            cut = _cut(chunk)
            yield chunk[:cut]
            chunk = chunk[cut:]
            size = sum(entry_tokens(e) for e in chunk)
        chunk.append(entry)
        size += cost
    if chunk:
        yield chunk
