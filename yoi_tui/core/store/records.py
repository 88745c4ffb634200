"""What a record is, and its text → record step: frontmatter mapping (with key line numbers) + body.

``parse_record_text`` splits the frontmatter, parses it with a YAML loader that refuses aliases
("billion laughs") and keeps the line of every top-level key so diagnostics can point at it.
Problems come back as ``Diagnostic``s; the file is never changed. Reading a record file — its
bytes, the binary and byte-order-mark rules, the decoding — is ``store/reader.py``, the one reader
every consumer goes through (``read_record`` and the fast paths live there).

``Record`` is an immutable value (a frozen, slotted dataclass; its ``path`` always a ``Path``);
``RecordHead`` is what a bulk reader keeps of one instead (GC: no text, the frontmatter it needs,
the size and BLAKE2b digest of the bytes it was read from, to know them again in any process).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic, Severity
from .kinds import RecordKind, slug_of
from .simple_yaml import parse_simple

if TYPE_CHECKING:
    import yaml

    from .meta_cache import MetaCache


def _yaml() -> tuple[Any, type]:
    """PyYAML and its safe loader, imported on first need: the frontmatter yoi writes is read by
    ``simple_yaml`` (search, hooks and a lint of such records never import PyYAML, ~25 ms)."""
    import yaml

    try:  # The C loader is several times faster; fall back where libyaml is missing.
        return yaml, yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - depends on the PyYAML build
        return yaml, yaml.SafeLoader

MAX_FRONTMATTER_CHARS = 64 * 1024
_MAX_YAML_NODES = 20_000
FENCE = "---"


class _Frontmatter:
    """What a record's frontmatter says, typed: shared by ``Record`` and ``RecordHead`` (both have
    ``kind`` and ``meta``)."""

    __slots__ = ()
    kind: RecordKind
    meta: dict[str, Any]

    @property
    def replaced_by(self) -> str | None:
        value = self.meta.get("replaced_by")
        return value if isinstance(value, str) and value else None

    @property
    def status(self) -> str | None:
        value = self.meta.get("status")
        return value if isinstance(value, str) else None

    @property
    def is_replaced(self) -> bool:
        return self.replaced_by is not None or self.status == "replaced"

    @property
    def description(self) -> str:
        value = self.meta.get("description")
        return value if isinstance(value, str) else ""

    @property
    def knowledge_kind(self) -> str | None:
        value = self.meta.get("kind")
        return value if isinstance(value, str) else None

    @property
    def model_invokation(self) -> bool:
        return self.meta.get("model_invokation") is True

    @property
    def user_invocable(self) -> bool:
        # SPEC 3 default: user_invocable true.
        return self.meta.get("user_invocable", True) is not False


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Record(_Frontmatter):
    """A parsed record, an immutable value. ``meta`` keeps the frontmatter's key order (treat it as
    read-only: writers build new texts with ``writer.render_record``); ``text`` is the file as read
    (byte-order mark dropped, ``bom`` says whether it had one).

    ``body`` and ``frontmatter_lines`` are positions in ``text`` when they are a part of it (every LF
    file: ``body_at``, ``fm_span``) and are cut out on each access: holding them besides the text
    doubled what a workspace of records costs in memory. A CRLF file's parts, with LF endings, are
    not parts of its text and are kept (``lf_parts``). ``parse_record_text`` builds records;
    ``from_parts`` builds one from its body and frontmatter lines. Equal records have equal values
    (kind, slug, path, rel, meta, text, body, frontmatter lines, key lines, body line, newline, BOM),
    however they are kept.
    """

    kind: RecordKind
    slug: str
    path: Path  # absolute
    rel: str
    meta: dict[str, Any]
    text: str
    key_lines: dict[str, tuple[int, int]]  # the (line, column) of every top-level frontmatter key
    body_line: int = 1  # the 1-based line the body starts on
    newline: str = "\n"
    bom: bool = False
    body_at: int = 0  # the body is ``text[body_at:]`` (unless ``lf_parts``)
    fm_span: tuple[int, int] | None = None  # the frontmatter lines are ``text[start:end]`` split (None: none)
    lf_parts: tuple[str, tuple[str, ...]] | None = None  # body and frontmatter lines kept apart

    @classmethod
    def from_parts(cls, kind: RecordKind, slug: str, path: Path | str, rel: str, meta: dict[str, Any], body: str,
                   text: str, key_lines: dict[str, tuple[int, int]] | None = None,
                   frontmatter_lines: list[str] | None = None, body_line: int = 1, newline: str = "\n",
                   bom: bool = False) -> Record:
        """The record of ``text`` whose body and frontmatter lines are these (kept as positions in
        ``text`` when they are parts of it)."""
        lines = frontmatter_lines or []
        at = len(text) - len(body)
        joined = "\n".join(lines)
        start = text.find(joined) if lines else -1
        if at >= 0 and text.endswith(body) and (start >= 0 or not lines):
            return cls(kind, slug, as_path(path), rel, meta, text, key_lines if key_lines is not None else {},
                       body_line, newline, bom, at, (start, start + len(joined)) if lines else None)
        return cls(kind, slug, as_path(path), rel, meta, text, key_lines if key_lines is not None else {}, body_line,
                   newline, bom, lf_parts=(body, tuple(lines)))

    @property
    def body(self) -> str:
        return self.text[self.body_at:] if self.lf_parts is None else self.lf_parts[0]

    @property
    def body_length(self) -> int:
        """``len(self.body)`` without copying the body out of the text."""
        return len(self.text) - self.body_at if self.lf_parts is None else len(self.lf_parts[0])

    @property
    def frontmatter_lines(self) -> list[str]:
        """The lines between the fences (a new list on each access)."""
        if self.lf_parts is not None:
            return list(self.lf_parts[1])
        if self.fm_span is None:
            return []
        start, end = self.fm_span
        return self.text[start:end].split("\n")

    def _values(self) -> tuple[Any, ...]:
        return (self.kind, self.slug, self.path, self.rel, self.meta, self.text, self.body, self.frontmatter_lines,
                self.key_lines, self.body_line, self.newline, self.bom)

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if isinstance(other, Record) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal by value, and ``meta`` is a dict: not hashable

    def __repr__(self) -> str:
        return (f"Record(kind={self.kind!r}, slug={self.slug!r}, path={self.path!r}, rel={self.rel!r}, "
                f"meta={self.meta!r}, body_line={self.body_line!r})")

    def sources(self) -> list[dict[str, Any]]:
        key = "last_sources" if self.kind is RecordKind.KNOWLEDGE else "sources"
        value = self.meta.get(key)
        return [s for s in value if isinstance(s, dict)] if isinstance(value, list) else []

    def line_of(self, key: str) -> tuple[int, int]:
        return self.key_lines.get(key, (1, 1))


@dataclass(frozen=True, slots=True)
class RecordHead(_Frontmatter):
    """What a bulk reader keeps of a record instead of the record (GC holds one per record of the
    workspace: 50,000 of them): no text, and only the frontmatter it asks for. ``size`` and
    ``digest`` (``reader.content_digest``: BLAKE2b of the file's bytes, BOM included) say which bytes
    it was read from, so a reader that needs the whole record again can tell whether the file is
    still those bytes (``describes``), in any process. ``path`` is the absolute path as a string:
    heads are sent back from forked workers, and a ``Path`` per record cost more to unpickle (and
    to build) than GC's reading of a workspace spends on anything else of a head."""

    kind: RecordKind
    slug: str
    path: str
    rel: str
    meta: dict[str, Any]
    bom: bool
    size: int
    digest: bytes

    @classmethod
    def of(cls, record: Record, size: int, digest: bytes, *, meta: dict[str, Any] | None = None) -> RecordHead:
        """The head of ``record`` read from ``size`` bytes with this digest; ``meta``: the
        frontmatter to keep (default: all of it)."""
        return cls(record.kind, record.slug, str(record.path), record.rel, record.meta if meta is None else meta,
                   record.bom, size, digest)

    def describes(self, size: int, digest: bytes | None) -> bool:
        """True when bytes of this ``size`` and ``digest`` are the ones this head was read from."""
        return digest is not None and size == self.size and digest == self.digest


@dataclass(slots=True)
class ReadResult:
    """A record (None when it could not be parsed) and what was found on the way."""

    record: Record | None
    diagnostics: list[Diagnostic]


def _diag(rel: str, rule: str, message: str, *, line: int = 1, col: int = 1,
          severity: Severity = "error", hint: str | None = None) -> Diagnostic:
    return Diagnostic(rel, line, col, rule, severity, message, hint)


_FOLDER_PATHS: dict[str, Path] = {}


def _child_path(folder: str, name: str) -> Path:
    """``Path(folder + "/" + name)`` built on a shared ``Path`` of the folder, so the records of a
    folder share its components instead of each holding its own copies (GC and the app hold every
    record's path)."""
    parent = _FOLDER_PATHS.get(folder)
    if parent is None:
        if len(_FOLDER_PATHS) > 64:
            _FOLDER_PATHS.clear()
        parent = _FOLDER_PATHS[folder] = Path(folder)
    return parent / name


def as_path(path: Path | str) -> Path:
    """``path`` as a ``Path`` (a string built on a shared ``Path`` of its folder: ``_child_path``)."""
    if isinstance(path, Path):
        return path
    folder, _, name = path.rpartition("/") if os.sep == "/" else ("", "", path)
    return _child_path(folder, name) if folder else Path(path)


_CONFLICT_LINE_RE = re.compile(r"^(<{7}|>{7}|\|{7})( .*)?\r?$", re.MULTILINE)


def conflict_marker_diagnostics(text: str, rel: str) -> list[Diagnostic]:
    """``conflict-markers`` for every git conflict-marker line (for a record whose frontmatter a
    conflict made unreadable: the record rules never see it, the markers must still be reported)."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text and "|||||||" not in text:
        return []
    return [_diag(rel, "conflict-markers", f"git merge-conflict marker '{m.group(1)}'",
                  line=text.count("\n", 0, m.start()) + 1,
                  hint="resolve the merge (keep the right lines, delete the markers), then run `yoi lint`")
            for m in _CONFLICT_LINE_RE.finditer(text)]


def parse_record_text(text: str, *, kind: RecordKind, path: Path | str, rel: str, bom: bool = False,
                      meta_cache: MetaCache | None = None) -> tuple[Record | None, list[Diagnostic]]:
    """Split and parse a record's text (BOM already removed)."""
    record, diags = _parse_record_text(text, kind=kind, path=path, rel=rel, bom=bom, meta_cache=meta_cache)
    if record is None:
        diags = conflict_marker_diagnostics(text, rel) + diags
    return record, diags


# A line that closes the frontmatter: '---' or '...' and trailing whitespace (as ``line.rstrip()``),
# matched from the line break before it (a literal first: found by search, not tried everywhere).
_CLOSE_RE = re.compile(r"\n(?:---|\.\.\.)[^\S\n]*(?=\n|\Z)")
_BLANK_LINES_RE = re.compile(r"(?:[^\S\n]*\n)*")


def _parse_record_text(text: str, *, kind: RecordKind, path: Path | str, rel: str, bom: bool = False,
                       meta_cache: MetaCache | None = None) -> tuple[Record | None, list[Diagnostic]]:
    newline = "\r\n" if "\r\n" in text else "\n"
    normalized = text.replace("\r\n", "\n") if newline == "\r\n" else text
    if not normalized or normalized.isspace():  # as `not normalized.strip()`, without copying the text
        return None, [_diag(rel, "frontmatter-invalid", "empty file; a record starts with a '---' frontmatter block",
                            hint="create records with `yoi-tui` (n) or copy a template")]
    # Positions, not a list of every line: the body is the rest of the text after the closing fence.
    first_end = normalized.find("\n")
    if (normalized[:first_end] if first_end >= 0 else normalized).rstrip() != FENCE:
        return None, [_diag(rel, "frontmatter-invalid", "missing frontmatter: the first line must be '---'",
                            hint="start the file with '---', the YAML keys, then '---'")]
    found = _CLOSE_RE.search(normalized, first_end) if first_end >= 0 else None
    if found is None:
        return None, [_diag(rel, "frontmatter-invalid", "frontmatter block is not closed by a '---' line")]
    fence_at = found.start() + 1  # where the closing line starts
    close = normalized.count("\n", 0, fence_at)  # the closing fence's 0-based line
    fm_text = normalized[first_end + 1:fence_at - 1] if close > 1 else ""
    fm_lines = fm_text.split("\n") if close > 1 else []
    body_start = normalized.find("\n", fence_at)
    body_line = close + 2
    if len(fm_text) > MAX_FRONTMATTER_CHARS:
        return None, [_diag(rel, "frontmatter-invalid", f"frontmatter is over {MAX_FRONTMATTER_CHARS} characters")]
    # The simple frontmatter yoi writes is parsed without PyYAML; anything else (and every error)
    # goes through PyYAML, or the cache of what it parsed before.
    cached = parse_simple(fm_text, fm_lines)
    if cached is None and meta_cache is not None:
        cached = meta_cache.get(fm_text)
    if cached is not None:
        meta, key_lines = cached
    else:
        meta, key_lines, problem = _parse_yaml_mapping(fm_text, rel)
        if problem is not None:
            return None, [problem]
        if meta_cache is not None:
            meta_cache.put(fm_text, meta, key_lines)
    diags: list[Diagnostic] = []
    second = None
    if body_start >= 0 and normalized.startswith(
            FENCE, _BLANK_LINES_RE.match(normalized, body_start + 1).end()):  # type: ignore[union-attr]  # matches the empty string: never None
        second = _second_frontmatter_line(normalized.split("\n"), close + 1)  # rare: look closer
    if second is not None:
        diags.append(_diag(rel, "frontmatter-invalid", "more than one frontmatter block", line=second,
                           hint="merge the keys into the first block and delete the second"))
    slug = slug_of(path) if kind is not RecordKind.SUMMARY else "summary"
    body_at = body_start + 1 if body_start >= 0 else len(normalized)
    if newline == "\n":  # the text is the normalized text: the parts are positions in it
        fm_span = (first_end + 1, first_end + 1 + len(fm_text)) if fm_lines else None
        record = Record(kind, slug, as_path(path), rel, meta, text, key_lines, body_line, "\n", bom, body_at, fm_span)
    else:
        record = Record(kind, slug, as_path(path), rel, meta, text, key_lines, body_line, newline, bom,
                        lf_parts=(normalized[body_at:], tuple(fm_lines)))
    return record, diags


def _second_frontmatter_line(lines: list[str], start: int) -> int | None:
    """1-based line of a second '---' block holding a YAML mapping right after the first."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i].rstrip() != FENCE:
        return None
    end = next((j for j in range(i + 1, min(len(lines), i + 200)) if lines[j].rstrip() == FENCE), None)
    if end is None or end == i + 1:
        return None
    yaml, loader = _yaml()
    try:
        data = yaml.load("\n".join(lines[i + 1:end]), Loader=loader)  # noqa: S506 - safe loader
    except yaml.YAMLError:
        return None
    return i + 1 if isinstance(data, dict) and data else None


def _parse_yaml_mapping(fm_text: str, rel: str) -> tuple[dict[str, Any], dict[str, tuple[int, int]], Diagnostic | None]:
    yaml, loader_class = _yaml()
    loader = loader_class(fm_text)
    try:
        node = loader.get_single_node()
        if node is None:  # an empty block: every required key is reported missing by the linter
            return {}, {}, None
        alias_problem = _find_alias(node)
        if alias_problem:
            return {}, {}, _diag(rel, "frontmatter-invalid", alias_problem, line=2)
        if not isinstance(node, yaml.MappingNode):
            return {}, {}, _diag(rel, "frontmatter-invalid", "frontmatter is not a mapping of keys to values",
                                 line=node.start_mark.line + 2, col=node.start_mark.column + 1)
        key_lines: dict[str, tuple[int, int]] = {}
        for key_node, _value in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            line, col = key_node.start_mark.line + 2, key_node.start_mark.column + 1
            if not isinstance(key, str):
                return {}, {}, _diag(rel, "frontmatter-invalid", "frontmatter keys must be plain strings",
                                     line=line, col=col)
            if key in key_lines:
                return {}, {}, _diag(rel, "frontmatter-invalid", f"duplicate key '{key}'", line=line, col=col,
                                     hint=f"'{key}' is first set on line {key_lines[key][0]}")
            key_lines[key] = (line, col)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        return {}, {}, _yaml_error(exc, rel, fm_text)
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an impossible date 2026-02-31
        return {}, {}, _diag(rel, "frontmatter-invalid", f"YAML value cannot be read: {exc}", line=2)
    finally:
        loader.dispose()
    return dict(data), key_lines, None


def _find_alias(root: yaml.Node) -> str | None:
    """Aliases let a few lines expand to gigabytes; records never need them, so refuse any."""
    yaml, _ = _yaml()
    seen: set[int] = set()
    stack = [root]
    count = 0
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return "YAML anchors/aliases are not allowed in frontmatter"
        seen.add(id(node))
        count += 1
        if count > _MAX_YAML_NODES:
            return f"frontmatter has more than {_MAX_YAML_NODES} YAML nodes"
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def _yaml_error(exc: yaml.YAMLError, rel: str, fm_text: str) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 2 if mark is not None else 2
    col = mark.column + 1 if mark is not None else 1
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    lines = fm_text.split("\n")
    bad_line = lines[mark.line] if mark is not None and mark.line < len(lines) else ""
    hint = "YAML does not allow tabs for indentation; use spaces" if "\t" in bad_line else None
    return _diag(rel, "frontmatter-invalid", f"frontmatter is not valid YAML: {problem}", line=line, col=col,
                 hint=hint)


def as_timestamp(value: Any) -> datetime | None:
    """A timezone-aware datetime from a YAML value, or None when it is not one."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return parsed if parsed.tzinfo is not None else None
    return None


def timestamp_problem(value: Any) -> str | None:
    """Why ``value`` is not an ISO 8601 timestamp with a UTC offset (None when it is one)."""
    if as_timestamp(value) is not None:
        return None
    if isinstance(value, datetime) or (isinstance(value, str) and _parses_naive(value)):
        return "timestamp has no UTC offset"
    if isinstance(value, date):
        return "a date without a time and UTC offset"
    return f"expected an ISO 8601 timestamp with a UTC offset, got {type(value).__name__} {value!r}"


def _parses_naive(value: str) -> bool:
    try:
        datetime.fromisoformat(value.strip())
    except ValueError:
        return False
    return True
