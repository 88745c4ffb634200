"""A session's entries parked on disk while its log is read as a stream (Phase 1's memory bound).

Phase 1 learns which entries are new (the session's pointer) only once the log has named its
session, and whether to extract at all only once every new entry's tokens are counted. Rather than
keeping the whole log in memory until then, each entry goes to an anonymous temporary file as it is
read (pickled in small batches) and is read back, one batch at a time, for cleaning and chunking.
What stays in memory is one batch, plus the (index, input tokens) pairs the token clock needs. A log
that fits in one batch never touches the disk: the file is made when the first batch is full.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import IO

from ..sessions.model import Entry

_BATCH = 256


class EntrySpool:
    """Entries written in order, then read back in order (once), entries at or below a bound skipped."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None  # made once a batch is full
        self._batch: list[Entry] = []
        self.tokens: list[tuple[int, int]] = []  # (index, input tokens) of the entries that have tokens
        self.last_index = -1
        self.count = 0

    def add(self, entry: Entry) -> None:
        self._batch.append(entry)
        self.count += 1
        self.last_index = entry.index
        if entry.input_tokens:
            self.tokens.append((entry.index, entry.input_tokens))
        if len(self._batch) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="yoi-phase1-")
            pickle.dump(self._batch, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._batch = []

    def tokens_after(self, index: int) -> int:
        return sum(n for i, n in self.tokens if i > index)

    def entries_after(self, index: int) -> Iterator[Entry]:
        """The entries whose index is above ``index``, in order."""
        if self._file is None:  # never spilled: the one batch is all there is
            yield from [entry for entry in self._batch if entry.index > index]
            return
        self._flush()
        self._file.seek(0)
        while True:
            try:
                batch: list[Entry] = pickle.load(self._file)  # noqa: S301 - our own temporary file
            except EOFError:
                return
            for entry in batch:
                if entry.index > index:
                    yield entry

    def first_after(self, index: int) -> int | None:
        """The index of the first entry above ``index`` (entries are numbered consecutively)."""
        return index + 1 if self.count and self.last_index > index else None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> EntrySpool:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
