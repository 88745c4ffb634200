"""The ``*.md`` entries of one record folder with their ``lstat``, listed the fast way.

The folder is opened once and each entry ``lstat``-ed relative to it (``fstatat``: the kernel does
not walk the parent folders again for each of 50,000 files). The lint signatures
(``lint.stored.record_signatures``) and the search index (``retrieval.search_index``) both list
record folders this way; what they make of an entry that vanished differs, so they get ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def open_folder(folder: str) -> int:
    """A descriptor of ``folder`` for ``md_entries`` (the caller closes it). Raises
    ``FileNotFoundError`` / ``NotADirectoryError`` when there is no such folder, another ``OSError``
    when it cannot be opened."""
    return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))


def md_entries(fd: int) -> Iterator[tuple[str, os.stat_result | None]]:
    """``(name, lstat)`` of every ``*.md`` entry of the open folder ``fd``; ``None`` for one that
    vanished or cannot be ``lstat``-ed. An error listing the folder itself propagates."""
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            if name.endswith(".md"):
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    info = None
                yield name, info
