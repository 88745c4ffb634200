"""The one reader of record files: bytes → text → record.

Every consumer that reads a record file goes through here — search and its index, resident
context, lint (cold, cached and served), GC, Phase 2, change sets, the app's editor (its decoding) — so a file is
the same thing to all of them: a record to one is a record to every other, and a file one calls
binary every other calls binary (issue 24: search and lint had different rules).

**Bytes.** Four reads, for four jobs, each a few system calls (``read_frontmatter_bytes`` and
``is_record_text``, Phase 2's look for a session id in every decision's frontmatter, are built on
the second):

* ``read_bytes`` — search's read: one open, 64 KiB reads until EOF, at most ``MAX_RECORD_BYTES``;
  no ``fstat`` (the listing or the index gave the file's type; a read with one measured about a
  third slower over 10,000 files). A reason instead of bytes when it cannot.
* ``read_bytes_stat`` — open, ``fstat``, one read of the size it gave (``safe_read.read_to_end``),
  close: regular files only (a FIFO swapped in opens at once with ``O_NONBLOCK`` and is refused),
  within the limit, and the ``fstat`` comes back (the lint's caches key on it).
  ``follow_links=False`` opens with ``O_NOFOLLOW``: the listed read of the cold lint.
* ``read_record`` — the careful path for one named file: ``lstat`` first so every problem (a
  symlink out of the workspace, a folder named like a record, a device, a file over the limit)
  is worded as a lint diagnostic. ``read_listed_record_stat`` is the lint's fast path over files a
  listing just saw: ``read_bytes_stat`` without following links, ``read_record`` for anything else.
  ``read_record_digest`` is ``read_record`` with the size and ``content_digest`` (BLAKE2b) of the
  bytes read: GC keeps a ``RecordHead`` of every record and reads the few it rewrites again,
  refusing one whose bytes are no longer those.
* ``read_exact`` — the change sets' read: every byte kept (``surrogateescape``, the byte-order
  mark and CRLF as they are), so before → after → revert round-trips byte for byte. It decides
  nothing about records; it is here so a record file is read in one module.

**The binary rule.** A record is UTF-8 text, and no UTF-8 text a person or a model writes holds a
NUL: a file with a NUL byte *anywhere* is binary, not a record (``is_binary``). Lint once looked
at the first 8 KiB only (git's heuristic for showing a diff, made to avoid scanning big files),
search at the whole file: a file with a NUL after 8 KiB was a clean record to ``yoi lint`` and
skipped as binary by every search, so lint said all was well while agents could never find it.
The whole file wins: records are at most 1 MiB and the scan is ``memchr`` (a 1 MiB file in tens
of microseconds, an ordinary record in well under one), a NUL in the body would otherwise reach
a prompt through the context or an excerpt, and YAML itself forbids the character. Lint reports
such a file as ``file-unreadable`` (binary); search, context, GC and Phase 2 skip it.

**The byte-order-mark rule.** One leading UTF-8 BOM is taken off and remembered (``split_bom``;
``Record.bom``, written back on rewrite, and lint's ``encoding`` warning); a U+FEFF anywhere else
is text. ``read_exact`` keeps it, as every other byte; ``drop_bom`` is the same rule on such an
exact text (Phase 2's file tools, the record merge).

**Text → record** is ``records.parse_record_text``, called from here.
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..errors import YoiError
from .kinds import RECORD_FOLDERS, RecordKind, kind_for_path
from .records import ReadResult, _child_path, _diag, parse_record_text
from .safe_read import NotRegularFile, read_regular_bytes, read_to_end
from .workspace import SUMMARY_REL, Workspace

if TYPE_CHECKING:
    from .meta_cache import MetaCache

MAX_RECORD_BYTES = 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"
BINARY_REASON = "binary file (NUL bytes)"


# --------------------------------------------------------------------------- the rules


def is_binary(data: bytes) -> bool:
    """The binary rule: a NUL byte anywhere (see the module docstring for why not the first 8 KiB)."""
    return b"\x00" in data


def split_bom(data: bytes) -> tuple[bytes, bool]:
    """The byte-order-mark rule: ``data`` without one leading UTF-8 BOM, and whether it had one."""
    if data.startswith(UTF8_BOM):
        return data[3:], True
    return data, False


def drop_bom(text: str) -> str:
    """The byte-order-mark rule on a text already decoded exactly (``read_exact``: a BOM stays a
    U+FEFF): ``text`` without one leading U+FEFF."""
    return text[1:] if text.startswith("\ufeff") else text


def decode_text(data: bytes) -> tuple[str | None, str | None]:
    """A record's text (BOM dropped) or ``(None, reason)``: the one-line reasons search reports."""
    if is_binary(data):
        return None, BINARY_REASON
    data, _bom = split_bom(data)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, "not UTF-8"


def decode_record_bytes(data: bytes, rel: str) -> tuple[str | None, bool, list[Diagnostic]]:
    """A record's text (BOM dropped) or None, as lint words it: ``(text, had_bom, diagnostics)``
    (the BOM and CRLF warnings, or the error saying why there is no text)."""
    if is_binary(data):
        return None, False, [_diag(rel, "file-unreadable", f"{BINARY_REASON}; a record is UTF-8 text")]
    diags: list[Diagnostic] = []
    data, bom = split_bom(data)
    if bom:
        diags.append(_diag(rel, "encoding", "file starts with a UTF-8 byte order mark", severity="warning",
                           hint="save the file as UTF-8 without BOM"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        diags.append(_diag(rel, "file-unreadable",
                           f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded",
                           line=line, col=col, hint="re-save the file as UTF-8"))
        return None, bom, diags
    if "\r\n" in text:
        diags.append(_diag(rel, "encoding", "CRLF line endings", severity="warning",
                           hint="yoi keeps them on rewrite; configure git/your editor for LF"))
    return text, bom, diags


# --------------------------------------------------------------------------- bytes

# O_NONBLOCK: a FIFO put in a record's place does not block the open (a regular file ignores it).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
# O_NOFOLLOW: a symlink fails to open (ELOOP) and goes through read_record's checks.
# A system without O_NOFOLLOW (Windows) reads every listed record through read_record.
_NOFOLLOW_FLAGS = _OPEN_FLAGS | os.O_NOFOLLOW if hasattr(os, "O_NOFOLLOW") else None
_CHUNK = 64 * 1024
_OVER_LIMIT = f"over {MAX_RECORD_BYTES // (1024 * 1024)} MiB"


def read_bytes(path: str) -> tuple[bytes | None, str | None]:
    """A file's bytes or ``(None, reason)``: one open, 64 KiB reads until EOF, at most 1 MiB."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        return None, f"cannot open: {exc.strerror or exc}"
    try:
        # 64 KiB reads: asking for 1 MiB at once makes every read allocate (mmap) a 1 MiB buffer,
        # which made a scan 3x slower. Records are small, so the common case is one read with
        # data and one returning b"" (EOF); the loop is for the rare big file.
        data = os.read(fd, _CHUNK)
        more = os.read(fd, _CHUNK) if data else b""
        if more:
            chunks = [data, more]
            size = len(data) + len(more)
            while size <= MAX_RECORD_BYTES:
                more = os.read(fd, _CHUNK)
                if not more:
                    break
                chunks.append(more)
                size += len(more)
            if size > MAX_RECORD_BYTES:
                return None, _OVER_LIMIT
            data = b"".join(chunks)
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    return data, None


def read_bytes_stat(path: str, *, follow_links: bool = True
                    ) -> tuple[bytes | None, os.stat_result | None, str | None]:
    """A record file's bytes, the ``fstat`` of what was opened when it is a regular file (else
    None), and None — or no bytes and the one-line reason (cannot open or read, not a regular
    file, over ``MAX_RECORD_BYTES``). One open, one ``fstat``, one read of the size it gave.

    ``follow_links=False`` opens with ``O_NOFOLLOW``: a symlink is a reason, not read (the cold
    lint gives those to ``read_record``). Without ``O_NOFOLLOW`` (Windows) that is always a reason.
    """
    flags = _OPEN_FLAGS if follow_links else _NOFOLLOW_FLAGS
    if flags is None:
        return None, None, "cannot open without following links here"
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return None, None, f"cannot open: {exc.strerror or exc}"
    st: os.stat_result | None = None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, None, "not a regular file"
        if st.st_size > MAX_RECORD_BYTES:
            return None, st, _OVER_LIMIT
        data = read_to_end(fd, st.st_size)  # regular files ignore O_NONBLOCK
    except OSError as exc:
        return None, st, f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if len(data) > MAX_RECORD_BYTES:  # it grew after the fstat
        return None, st, _OVER_LIMIT
    return data, st, None


def listed_file_crc(path: str, size: int) -> int | None:
    """The CRC-32 of the regular file ``path`` (not followed if a link) when it has ``size`` bytes;
    None otherwise or when it cannot be read — the check ``read_listed_record_stat`` makes."""
    data, _st, _reason = read_bytes_stat(path, follow_links=False)
    return zlib.crc32(data) if data is not None and len(data) == size else None


# --------------------------------------------------------------------------- exact text (change sets)


def encode_exact(text: str) -> bytes:
    """The bytes ``read_exact`` read ``text`` from."""
    return text.encode("utf-8", "surrogateescape")


def read_exact(path: Path | str) -> str | None:
    """The file's bytes as text that encodes back to the same bytes (None: no such file).

    Raises ``NotRegularFile`` for a FIFO, socket, device (never blocking on one) and ``YoiError``
    for a folder or an error, naming the file."""
    try:
        data = read_regular_bytes(path)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise
    except IsADirectoryError as exc:
        raise YoiError("is a folder, not a file", path=path) from exc
    except OSError as exc:
        raise YoiError(f"cannot read: {exc.strerror or exc}", path=path) from exc
    return data.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- the frontmatter, as bytes


def read_frontmatter_bytes(path: Path | str) -> bytes:
    """The frontmatter block of a record file as bytes, from its opening ``---`` up to the line
    break before the closing one (after a BOM, by the BOM rule); b"" when there is none, the file
    is binary (the binary rule) or it is not a regular file it can read. Phase 2 looks for a
    session id in every decision's frontmatter without decoding or parsing one."""
    data, _st, _reason = read_bytes_stat(str(path))
    if data is None or is_binary(data):
        return b""
    data, _bom = split_bom(data)
    if not data.startswith(b"---"):
        return b""
    end = data.find(b"\n---", 3)
    return data[:end] if end > 0 else b""


def is_record_text(path: Path | str) -> bool:
    """True when the file's bytes are a record's text by the rules here (not binary, UTF-8)."""
    data, _st, _reason = read_bytes_stat(str(path))
    return data is not None and decode_text(data)[0] is not None


# --------------------------------------------------------------------------- bytes → record


def _file_problem(ws: Workspace, path: Path, rel: str) -> Diagnostic | None:
    """Why the file at ``path`` is not read as a record (None: it is a regular file within the limit)."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return _diag(rel, "file-unreadable", "file does not exist")
    except OSError as exc:
        return _diag(rel, "file-unreadable", f"cannot stat: {exc.strerror}")
    if stat.S_ISLNK(lst.st_mode):
        target = os.path.realpath(path)
        if not ws.contains(Path(target)):
            return _diag(rel, "file-unreadable", f"symlink points outside the workspace ({target}); not read",
                         hint="replace the link with the file itself")
    try:
        st = os.stat(path) if stat.S_ISLNK(lst.st_mode) else lst
    except OSError as exc:
        return _diag(rel, "file-unreadable", f"broken symlink or unreadable: {exc.strerror}")
    if stat.S_ISDIR(st.st_mode):
        return _diag(rel, "file-unreadable", "is a folder named like a record, not a file",
                     hint="rename the folder or move its contents")
    if not stat.S_ISREG(st.st_mode):
        return _diag(rel, "file-unreadable", "is not a regular file")
    if st.st_size > MAX_RECORD_BYTES:
        size_mb = st.st_size / (1024 * 1024)
        return _diag(rel, "file-unreadable",
                     f"file is {size_mb:.1f} MiB; records are at most {MAX_RECORD_BYTES // (1024 * 1024)} MiB, not read",
                     hint="split it into several records or move the data out of memory/")
    return None


def read_record(ws: Workspace, path: Path | str, *, text: str | None = None,
                meta_cache: MetaCache | None = None) -> ReadResult:
    """Read and parse one record. With ``text`` given, parse that instead of the file's content.

    ``meta_cache`` (``store.meta_cache``) answers for a frontmatter text parsed before (GC's full reads).
    """
    return _read_record(ws, path, text, meta_cache)[0]


def read_record_digest(ws: Workspace, path: Path | str, *, meta_cache: MetaCache | None = None
                       ) -> tuple[ReadResult, int, bytes | None]:
    """``read_record(ws, path)``, the number of bytes read and their ``content_digest`` (-1 and
    None when none were read): what a ``RecordHead`` keeps to know the bytes again."""
    result, data = _read_record(ws, path, None, meta_cache)
    return result, (len(data) if data is not None else -1), (content_digest(data) if data is not None else None)


def content_digest(data: bytes) -> bytes:
    """A digest of a file's bytes that means the same in every process (a ``hash`` of a text does
    not: its seed is per process): BLAKE2b, 16 bytes."""
    try:  # imported here: most reads never digest (and hashlib would load OpenSSL first, 2-4 ms)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - another Python implementation
        from hashlib import blake2b
    return blake2b(data, digest_size=16).digest()


def _read_record(ws: Workspace, path: Path | str, text: str | None, meta_cache: MetaCache | None
                 ) -> tuple[ReadResult, bytes | None]:
    """``read_record``'s result and the bytes it read (None: none, ``text`` was given)."""
    path, rel, kind = _locate(ws, path)
    if kind is None:
        return ReadResult(None, [_diag(rel, "file-unreadable", "not a record path (memory/summary.md, "
                                       "memory/decisions/, memory/requests/ or knowledge/)")]), None
    bom = False
    diags: list[Diagnostic] = []
    data = None
    if text is None:
        problem = _file_problem(ws, path, rel)
        if problem is not None:
            return ReadResult(None, [problem]), None
        try:
            data = read_regular_bytes(path)
        except NotRegularFile as exc:
            return ReadResult(None, [_diag(rel, "file-unreadable", exc.message)]), None
        except OSError as exc:
            return ReadResult(None, [_diag(rel, "file-unreadable", f"cannot read: {exc.strerror or exc}")]), None
        decoded, bom, diags = decode_record_bytes(data, rel)
        if decoded is None:
            return ReadResult(None, diags), data
        text = decoded
    record, parse_diags = parse_record_text(text, kind=kind, path=path, rel=rel, bom=bom, meta_cache=meta_cache)
    return ReadResult(record, diags + parse_diags), data


def read_listed_record(ws: Workspace, path: str, rel: str, kind: RecordKind) -> ReadResult:
    """``read_record(ws, Path(path))`` for a record path under the root that a folder listing has
    just seen as a regular file (``rel`` and ``kind`` as ``_locate`` gives them): the same result
    with fewer system calls and no path parsing — a cold lint reads every record this way.

    The file is opened without following a symlink and checked with ``fstat`` (no ``lstat``
    first); anything but a regular file within the size limit — a symlink, a folder, a file
    gone, any error — is left to ``read_record``, which words the problem.
    """
    return read_listed_record_stat(ws, path, rel, kind)[0]


def read_listed_record_stat(ws: Workspace, path: str, rel: str, kind: RecordKind
                            ) -> tuple[ReadResult, os.stat_result | None, int | None]:
    """``read_listed_record``, the ``fstat`` of what was read when it is a regular file (the
    ``lstat`` a listing would give: the file was opened without following a link), else None, and
    the CRC-32 of the bytes read (None when ``read_record`` read them)."""
    data, st, _reason = read_bytes_stat(path, follow_links=False)
    if data is None:
        return read_record(ws, Path(path)), st, None
    crc = zlib.crc32(data)
    decoded, bom, diags = decode_record_bytes(data, rel)
    if decoded is None:
        return ReadResult(None, diags), st, crc
    record, parse_diags = parse_record_text(decoded, kind=kind, path=path, rel=rel, bom=bom)
    return ReadResult(record, diags + parse_diags), st, crc


_KIND_OF_FOLDER = {prefix[:-1]: kind for prefix, kind in RECORD_FOLDERS}  # "memory/decisions": DECISION


def _locate(ws: Workspace, path: Path | str) -> tuple[Path, str, RecordKind | None]:
    """``path`` made absolute, its ``ws.rel`` and ``kind_for_path``, by string work when it lies
    under the root (GC and lint read every record: pathlib's parsing was a quarter of a GC run)."""
    full = os.path.abspath(path)
    root = str(ws.root)
    if os.sep == "/" and len(root) > 1 and full.startswith(root) and full[len(root):len(root) + 1] == "/":
        rel = full[len(root) + 1:]
        folder, _, name = rel.rpartition("/")
        if not name.endswith(".md"):
            kind = None
        elif rel == SUMMARY_REL:
            kind = RecordKind.SUMMARY
        else:
            kind = _KIND_OF_FOLDER.get(folder)
        return _child_path(full[:len(full) - len(name) - 1], name), rel, kind
    located = Path(full)
    return located, ws.rel(located), kind_for_path(ws, located)


__all__ = ["BINARY_REASON", "MAX_RECORD_BYTES", "UTF8_BOM", "content_digest", "decode_record_bytes", "decode_text", "drop_bom",
           "encode_exact",
           "is_binary", "is_record_text", "listed_file_crc", "read_bytes", "read_bytes_stat", "read_exact", "read_frontmatter_bytes",
           "read_listed_record", "read_listed_record_stat", "read_record", "read_record_digest", "split_bom"]
