"""Reading untrusted files safely: regular files only, JSON with a nesting limit.

Anything in a workspace or handed to a command may be hostile or broken: a FIFO named like a
record (opening it would block forever), a device, a socket, a folder where a file belongs, or
JSON nested thousands deep (the parser recurses). Readers here never block and never recurse
without bound:

* ``open_regular`` opens with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a
  writer) and checks ``fstat`` on the opened descriptor — the file actually read, not a name that
  may have been swapped — refusing anything but a regular file with ``NotRegularFile``;
* ``loads_json`` refuses nesting deeper than ``MAX_JSON_DEPTH`` before parsing, with a linear scan.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from ..errors import YoiError

MAX_JSON_DEPTH = 64
"""Deeper than any staging file, journal or session-log line yoi or a harness writes."""
_JSON_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class NotRegularFile(YoiError):
    """A path that should be a file is a FIFO, socket, device or folder."""


def kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def open_regular(path: Path | str) -> int:
    """An fd of ``path`` opened for reading, which is a regular file (``NotRegularFile`` otherwise).

    ``FileNotFoundError`` passes through; other ``OSError``s (a symlink loop, a file where a folder
    should be, permissions) also pass through for the caller to word.
    """
    return _open_regular_stat(path)[0]


def _open_regular_stat(path: Path | str) -> tuple[int, os.stat_result]:
    """``open_regular``'s fd and the ``fstat`` it checked."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"is {kind_of(st.st_mode)}, not a file; not read", path=path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_to_end(fd: int, size: int) -> bytes:
    """The rest of the open file ``fd`` whose ``fstat`` gave ``size``: one read when it still has
    that size, reading on to the end otherwise (it grew, shrank, or a file system read short)."""
    data = os.read(fd, size + 1)
    if len(data) == size:
        return data
    chunks = [data]
    while chunk := os.read(fd, max(size + 1, 4096)):
        chunks.append(chunk)
    return b"".join(chunks)


def read_regular_bytes(path: Path | str) -> bytes:
    """The bytes of the regular file ``path`` (see ``open_regular``): one read of the size its
    ``fstat`` gave, reading on if it grew meanwhile."""
    fd, st = _open_regular_stat(path)
    try:
        return read_to_end(fd, st.st_size)
    finally:
        os.close(fd)


def json_depth_ok(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """True when ``text`` nests arrays/objects at most ``max_depth`` deep (linear; strings skipped)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= max_depth:
        return True
    depth = 0
    for match in _JSON_TOKEN_RE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return False
        elif token in "]}":
            depth -= 1
    return True


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that raises ``ValueError`` for nesting deeper than ``max_depth``."""
    if not json_depth_ok(text, max_depth):
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError as exc:  # belt and braces: the scan above should make this unreachable
        raise ValueError("JSON nested too deeply") from exc


__all__ = ["MAX_JSON_DEPTH", "NotRegularFile", "json_depth_ok", "kind_of", "loads_json", "open_regular",
           "read_regular_bytes", "read_to_end"]
