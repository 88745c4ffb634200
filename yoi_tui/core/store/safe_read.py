"""Reading untrusted files safely: regular files only, JSON with a nesting limit.

Anything in a workspace or handed to a command may be hostile or broken: a FIFO named like a
record (opening it would block forever), a device, a socket, a folder where a file belongs, or
JSON nested thousands deep (the parser recurses). Readers here never block and never recurse
without bound:

* ``open_regular`` opens with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a
  writer) and checks ``fstat`` on the opened descriptor — the file actually read, not a name that
  may have been swapped — refusing anything but a regular file with ``NotRegularFile``;
* ``loads_json`` refuses nesting deeper than ``MAX_JSON_DEPTH`` (``JsonTooDeep``): a text with few
  brackets passes at once, any other is parsed and the parsed value's depth walked;
* ``read_state_bytes`` / ``load_state_json`` are *the* readers of yoi's own local state (``.yoi/``,
  ``memory/_staging/``: journals, the lock, caches, pointers): regular files only, never through a
  symlink, non-blocking, depth-limited; ``load_cache_json`` is the one for a derived cache, which a
  broken file never fails (it is ignored — with a warning naming it when it is not a file at all —
  and rebuilt by the next write, which renames over it).
"""

from __future__ import annotations

import errno
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


_STATE_FLAGS = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
                | getattr(os, "O_NOCTTY", 0))


def read_state_bytes(path: Path | str) -> bytes | None:
    """The bytes of the local-state file ``path``; None when it does not exist.

    Opened non-blocking and without following a symlink, then checked with ``fstat``: a FIFO,
    socket, device, folder or symlink raises ``NotRegularFile`` naming the path and what it is.
    Other ``OSError``s (permissions, a file where a folder belongs, EMFILE) pass through."""
    try:
        fd = os.open(path, _STATE_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        # ELOOP: a symlink (O_NOFOLLOW); ENXIO: a socket or a device without a driver
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EOPNOTSUPP, errno.ENODEV):
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                raise exc from None
            what = "a symlink" if stat.S_ISLNK(mode) else kind_of(mode)
            raise NotRegularFile(f"is {what}, not a file; not read", path=path) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"is {kind_of(st.st_mode)}, not a file; not read", path=path)
        os.set_blocking(fd, True)
        return read_to_end(fd, st.st_size)
    finally:
        os.close(fd)


def load_state_json(path: Path | str) -> Any:
    """The JSON of the local-state file ``path`` (None: it does not exist).

    Raises ``NotRegularFile`` (see ``read_state_bytes``), ``OSError`` when it cannot be read, and
    ``ValueError`` when it is not UTF-8 JSON or nests deeper than ``MAX_JSON_DEPTH``."""
    data = read_state_bytes(path)
    if data is None:
        return None
    try:
        return loads_json(data)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8: {exc.reason}") from exc


def load_cache_json(path: Path | str | None) -> dict[str, Any] | None:
    """A derived cache file's JSON object; None when there is none or it is unusable (not a file,
    unreadable, not JSON, too deep, not an object). A cache is only a speed-up: the caller
    computes what it holds and its next write replaces it. Something that is not a file at all
    where the cache belongs is reported (a warning naming it): nobody's write made it."""
    if path is None:
        return None
    try:
        raw = read_state_bytes(path)
        # No depth pre-scan: caches are megabytes (the scan would cost a warm lint ~0.1 s at 50k
        # records) and the C parser refuses deep nesting with a clean RecursionError.
        data = None if raw is None else json.loads(raw)
    except NotRegularFile as exc:
        from ..notices import warn

        warn("yoi.cache", "warning: %s (a cache: computed without it)", exc)
        return None
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


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


class JsonTooDeep(ValueError):
    """JSON nested deeper than the limit ``loads_json`` was given."""


def value_depth_ok(value: Any, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """True when a parsed JSON value nests arrays/objects at most ``max_depth`` deep (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > max_depth:
            return False
        stack.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return True


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that raises ``JsonTooDeep`` (a ``ValueError``) for nesting deeper than
    ``max_depth`` and ``json.JSONDecodeError`` for text that is not JSON (a text both too deep and
    not JSON is too deep, as a scan before parsing would say).

    A text with few brackets cannot be too deep; otherwise it is parsed first and the parsed value's
    depth checked: walking the value visits its few nodes, where scanning the text would read every
    long string inside it (a tool result full of code). The C parser stops unbounded nesting itself
    with a ``RecursionError``."""
    few = (text.count("[") + text.count("{") <= max_depth if isinstance(text, str)
           else text.count(b"[") + text.count(b"{") <= max_depth)
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels") from exc
    except json.JSONDecodeError:
        if not few and not json_depth_ok(text, max_depth):
            raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels") from None
        raise
    if not few and not value_depth_ok(value, max_depth):
        raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels")
    return value


__all__ = ["MAX_JSON_DEPTH", "JsonTooDeep", "NotRegularFile", "json_depth_ok", "kind_of", "load_cache_json", "load_state_json",
           "loads_json", "open_regular", "value_depth_ok", "read_regular_bytes", "read_state_bytes", "read_to_end"]
