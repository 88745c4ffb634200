"""Resident context (SPEC 5): the block a harness puts into a normal agent's system prompt.

What the seeds allow in it, and nothing else: the summary's body (what a person or Phase 2 wrote),
the listings computed from memory now (open decisions, recent requests: ``summary_lists``; never
stored), and one line ``#slug — description`` for every knowledge record with
``model_invokation: true`` that is not replaced. A record with the flag off contributes nothing —
not its description, not its slug (docs/retrieval.md says why). The block is wrapped in
``markers.CONTEXT_BEGIN``/``END`` so Phase 1 strips it from session logs.

**Budget.** The whole block stays within ``[context] max_tokens`` (estimated tokens, as the
``inject`` event counts them). Room goes first to the summary (cut at a line, with a note, only if
it alone would not fit), then to the resident descriptions, then to the listings. When more
resident records qualify than fit, the most recently updated ones are listed (``updated_at``, then
slug) — shown in slug order, so the block changes little between sessions — and one closing line
says how many were left out and how to find them (``knowledge_search``). So the block's size does
not grow with the workspace.

Each injection is recorded as an ``inject`` event with its estimated token cost — tracked apart
from invokes, so being resident never protects a record. Only knowledge files whose raw text
mentions ``model_invokation`` have their YAML parsed, and what the block needs from each record
file is cached by its ``lstat`` signature and CRC (``listing_cache``), so a warm call reads only
the files that changed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import YoiError
from ..freshness.signature import RACY_NS
from ..notices import warn
from ..store.reader import read_record
from ..store.record_listing import md_dir_entries, record_folders
from ..store.workspace import Workspace
from ..text.markers import CONTEXT_BEGIN, CONTEXT_END, escape_markers
from ..usage.log import estimate_tokens, record_inject
from .listing_cache import ListingCache
from .summary_lists import generated_listings, scan_knowledge, strip_generated

INDEX_INTRO = ("Knowledge records (read one with the knowledge_search tool, slug=SLUG, "
               "or `yoi search knowledge --slug SLUG`):")
_FALSE_LINE_RE = re.compile(
    rb"(?m)^model_invokation:[ \t]*(?:false|False|FALSE|no|No|NO|off|Off|OFF)[ \t]*(?:#[^\n]*)?\r?$")


@dataclass(slots=True)
class ResidentContext:
    """The block, the knowledge slugs listed in it, its token estimate, and skipped files."""

    text: str
    slugs: list[str] = field(default_factory=list)
    tokens: int = 0
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "slugs": self.slugs, "tokens": self.tokens}


def surely_not_resident(data: bytes) -> bool:
    """True when the raw file cannot have ``model_invokation: true`` (so its YAML is not parsed).

    That is: the key is never mentioned (the default is false), or mentioned exactly once, as a
    top-level ``model_invokation: false`` line. Anything else is parsed and decided by YAML.
    """
    count = data.count(b"model_invokation")
    if count == 0:
        return True
    return count == 1 and _FALSE_LINE_RE.search(data) is not None


def _left_out_line(count: int) -> str:
    return (f"({count} more knowledge record{'s' if count != 1 else ''} with model_invokation are not listed "
            "here for room: find them with the knowledge_search tool, or `yoi search knowledge QUERY`.)")


def _cut_to_tokens(text: str, tokens: int) -> str:
    """``text`` cut at a line end so that it fits ``tokens`` with the note saying where the rest is."""
    note = "\n… (the summary goes on: read it with the memory_search tool, slug=summary)"
    room = tokens - estimate_tokens(note)
    lines = text.split("\n")
    kept: list[str] = []
    for line in lines:
        if estimate_tokens("\n".join([*kept, line])) > room:
            break
        kept.append(line)
    return "\n".join(kept).rstrip() + note


# In a long-running process (the command server): the last block built per workspace, with a
# subscription to the workspace's record feed (``freshness.record_feed``), which watches the record
# folders and every source file's inode. Nothing changed: the same block, with no folder listed and
# no file read — the served SessionStart costs the same at 10,000 and 100,000 records. Anything
# changed, a feed that cannot tell, or a problem to report: built again as a one-shot call does.
# Where the feed cannot vouch for the files' contents (out of inotify watches: record_feed's
# budget), a kept block is also checked against the lstat of every source file, taken before it
# was built (a write through another name of a record's inode raises no event in its folder,
# issue 27); a block built then from a file changed within RACY_NS, or from anything but regular
# files (a symlink's target may change unseen), is not kept.
_watching = False
_MEMO: dict[str, tuple[Any, ResidentContext, tuple[Any, ...] | None]] = {}
_RACY_NS = RACY_NS


def _source_stamps(ws: Workspace) -> tuple[Any, ...] | None:
    """``lstat`` stamps of every file the block is built from; None when it must not be kept."""
    import stat as stat_module
    import time

    now = time.time_ns()
    stamps: list[Any] = []

    def add(name: str, st: Any) -> bool:
        if not stat_module.S_ISREG(st.st_mode) or max(st.st_mtime_ns, st.st_ctime_ns) >= now - _RACY_NS:
            return False
        stamps.append((name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        return True

    for prefix, _kind, folder in record_folders(ws):
        try:
            for entry in md_dir_entries(folder):
                if not add(prefix + entry.name, entry.stat(follow_symlinks=False)):
                    return None
        except (FileNotFoundError, NotADirectoryError):
            stamps.append((folder, None))
        except OSError:
            return None
    for path in (ws.summary_path, ws.config_path):
        try:
            if not add(str(path), os.lstat(path)):
                return None
        except FileNotFoundError:
            stamps.append((str(path), None))
        except OSError:
            return None
    # Not sorted: the folders are listed in a fixed order and an unchanged folder lists its entries
    # in the same order, so equal stamps mean unchanged sources; a folder listed in another order
    # only costs a rebuild. (Sorting by repr was ~185 ms of a call at 100,000 records.)
    return tuple(stamps)
_MEMO_MAX = 16


def watch_for_changes(enabled: bool = True) -> None:
    """Keep the last block of each workspace while its sources are unchanged (the command server)."""
    global _watching
    _watching = enabled
    if not enabled:
        from ..freshness.record_feed import close_all

        _MEMO.clear()
        close_all()


def build_resident_context(ws: Workspace, *, cache: bool = True) -> ResidentContext:
    """Assemble the block without recording anything ("" when there is nothing to inject).

    ``cache``: take unchanged files' facts from ``listing_cache`` (False: read every file, store
    nothing — the same block, slower)."""
    if not (_watching and cache):
        return _build(ws, cache=cache)
    from ..freshness.record_feed import subscribe

    key = str(ws.root)
    memo = _MEMO.pop(key, None)
    subscription = memo[0] if memo is not None else subscribe(ws.root)
    changes = subscription.changes()  # drained before building: a change meanwhile is seen next time
    if memo is not None and changes == {}:
        _subscription, built, stamps = memo
        if subscription.vouches_for_contents or (stamps is not None and _source_stamps(ws) == stamps):
            _MEMO[key] = memo  # most recently used last
            return ResidentContext(text=built.text, slugs=list(built.slugs), tokens=built.tokens)
    # Without the feed's word on contents: the stamps, taken before building (a change meanwhile
    # makes the next check fail).
    stamps = None if subscription.vouches_for_contents else _source_stamps(ws)
    built = _build(ws, cache=cache)
    if not built.problems and (subscription.vouches_for_contents or stamps is not None):
        _MEMO[key] = (subscription, built, stamps)  # problems are reported on every run: never kept
        while len(_MEMO) > _MEMO_MAX:
            _MEMO.pop(next(iter(_MEMO)))
    return built


def _build(ws: Workspace, *, cache: bool) -> ResidentContext:
    problems: list[str] = []
    summary_body = ""
    if ws.summary_path.exists() or ws.summary_path.is_symlink():
        result = read_record(ws, ws.summary_path)
        if result.record is not None:
            # Listings an older Phase 2 stored in the file are stale: they are computed below.
            summary_body = strip_generated(result.record.body).strip()
        else:
            reason = result.diagnostics[0].message if result.diagnostics else "unreadable"
            problems.append(f"memory/summary.md: {reason}; left out")
    facts = ListingCache.load(ws) if cache else ListingCache(None)
    knowledge = scan_knowledge(ws, facts, problems)
    resident = [(slug, f) for slug, f in knowledge if f.resident is not None]
    max_tokens = ws.config.context.max_tokens
    frame = estimate_tokens(f"{CONTEXT_BEGIN}\n\n{CONTEXT_END}\n")
    left = max_tokens - frame
    if summary_body and estimate_tokens(summary_body) + 1 > left:
        summary_body = _cut_to_tokens(summary_body, left - 1)
    if summary_body:
        left -= estimate_tokens(summary_body) + 1  # and the blank line after it
    # The resident descriptions, most recently updated first, as many as the room holds (the
    # closing line's room kept back whenever not all fit).
    chosen: list[tuple[str, str]] = []
    if resident and left > 0:
        by_priority = sorted(resident, key=lambda item: (-item[1].stamp, item[0]))
        intro = estimate_tokens(INDEX_INTRO) + 1
        reserve = estimate_tokens(_left_out_line(len(resident))) + 1
        used = intro
        for slug, f in by_priority:
            line = f"#{slug} — {f.resident}" if f.resident else f"#{slug}"
            cost = estimate_tokens(line) + 1
            if used + cost > left - (reserve if len(chosen) + 1 < len(resident) else 0):
                break
            chosen.append((slug, line))
            used += cost
        if chosen:
            left -= used + (reserve if len(chosen) < len(resident) else 0) + 1
    # The listings in what is left: characters are never fewer than tokens (estimate_tokens).
    listings = ""
    room_chars = min(ws.config.cap_for("summary") - len(summary_body), max(0, left) * 4)
    while room_chars > 0:
        listings = generated_listings(ws, budget=room_chars, cache=facts)
        if estimate_tokens(listings) + 1 <= left:
            break
        room_chars = min(room_chars - 1, int(room_chars * 0.75))
        listings = ""
    facts.save()
    if not summary_body and not chosen and not listings:
        return ResidentContext(text="", problems=problems)
    parts: list[str] = []
    if summary_body:
        parts.append(summary_body)
    if listings:
        parts.append(listings)
    if chosen:
        lines = [INDEX_INTRO, *(line for _slug, line in sorted(chosen))]
        if len(chosen) < len(resident):
            lines.append(_left_out_line(len(resident) - len(chosen)))
        parts.append("\n".join(lines))
    inner = "\n\n".join(parts)
    # A marker inside a record would end the block early when Phase 1 strips it; neutralise it.
    inner = escape_markers(inner)
    text = f"{CONTEXT_BEGIN}\n{inner}\n{CONTEXT_END}\n"
    return ResidentContext(text=text, slugs=sorted(slug for slug, _line in chosen), tokens=estimate_tokens(text),
                           problems=problems)


def record_injection(ws: Workspace, built: ResidentContext, session_id: str | None = None) -> None:
    """Record ``built`` as an ``inject`` event (a failure to write is logged, never raised)."""
    if not built.text:
        return
    try:
        record_inject(ws, built.slugs, built.tokens, session_id)
    except YoiError as exc:
        warn("yoi.usage", "usage not recorded: %s", exc)


def resident_context(ws: Workspace, *, record: bool = True, session_id: str | None = None) -> str:
    """The resident context block; with ``record`` an ``inject`` event notes its token cost."""
    built = build_resident_context(ws)
    if record:
        record_injection(ws, built, session_id)
    return built.text
