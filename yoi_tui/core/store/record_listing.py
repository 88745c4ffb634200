"""Where the records are and how their folders are listed: the one record listing.

Every consumer that needs "all the records" — lint and its caches, search and its index, the
resident context, GC, Phase 2's llm engine, the export, the app's model, the record feed —
iterates what this module gives, so the folders are named once (``kinds.RECORD_FOLDERS``, built
from ``workspace``'s ``*_REL`` names) and one rule says which entries are records: a name ending
in ``.md`` directly in a record folder (files, links and anything else so named: what a consumer
makes of a link or a FIFO is its own rule, through ``store.reader``), plus ``memory/summary.md``.

Three shapes of the same listing, because their costs differ at 50,000 records:

* ``iter_record_path_strings`` / ``iter_record_paths``: every path, sorted (GC, lint's one-shot path);
* ``record_files``: ``(rel, path)`` strings, sorted, with no ``Path`` per file (lint's cache);
* ``md_dir_entries`` (the ``os.DirEntry`` of one folder, unsorted: its ``d_type`` and cached
  ``lstat``) and ``open_folder`` + ``md_entries`` (one descriptor, each entry ``lstat``-ed relative to
  it — ``fstatat``: the kernel does not walk the parent folders again for each file), over the
  folders ``record_folders`` names, for the listings that keep signatures (the search index, the
  lint signatures, the listings cache, the resident context's stamps, the app's change poll).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from .kinds import RECORD_FOLDERS, RecordKind
from .workspace import SUMMARY_REL, Workspace


def is_record_name(name: str) -> bool:
    """The one rule for which entries of a record folder are records."""
    return name.endswith(".md")


def record_folders(ws: Workspace) -> list[tuple[str, RecordKind, str]]:
    """``(prefix, kind, folder)`` of each record folder, in path order: ``("memory/decisions/",
    DECISION, "/…/memory/decisions")``. Plain strings: joined once per folder, never per file."""
    root = str(ws.root)
    return [(prefix, kind, os.path.join(root, *prefix.strip("/").split("/"))) for prefix, kind in RECORD_FOLDERS]


def summary_path_string(ws: Workspace) -> str:
    return os.path.join(str(ws.root), *SUMMARY_REL.split("/"))


def md_dir_entries(folder: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    """The record entries of one folder, in the order the folder lists them. Raises as
    ``os.scandir`` does (``FileNotFoundError`` / ``NotADirectoryError``: no such folder)."""
    with os.scandir(folder) as entries:
        return [entry for entry in entries if entry.name.endswith(".md")]


def record_files(ws: Workspace) -> list[tuple[str, str]]:
    """``(rel, path)`` of every record path (the summary, then each folder's ``*.md``), sorted by rel."""
    found: list[tuple[str, str]] = []
    summary = summary_path_string(ws)
    if os.path.lexists(summary):
        found.append((SUMMARY_REL, summary))
    for prefix, _kind, folder in record_folders(ws):
        try:
            found.extend((prefix + entry.name, entry.path) for entry in md_dir_entries(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
    found.sort()
    return found


def iter_record_path_strings(ws: Workspace) -> list[str]:
    """Every path where a record may live, sorted, as strings (no ``Path`` per file: GC reads 50,000).

    Sorting the strings sorts as the paths do: each folder's entries are single names, and the
    folders (``knowledge``, ``memory/decisions``, ``memory/requests``, ``memory/summary.md``) already
    differ in their first letter.
    """
    found: list[str] = []
    summary = summary_path_string(ws)
    if os.path.lexists(summary):
        found.append(summary)
    for _prefix, _kind, folder in record_folders(ws):
        try:
            found.extend(entry.path for entry in md_dir_entries(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
    return sorted(found)


def iter_record_paths(ws: Workspace) -> list[Path]:
    """``iter_record_path_strings`` as paths (files, folders and links named ``*.md``), sorted."""
    return [Path(p) for p in iter_record_path_strings(ws)]


def open_folder(folder: str) -> int:
    """A descriptor of ``folder`` for ``md_entries`` (the caller closes it). Raises
    ``FileNotFoundError`` / ``NotADirectoryError`` when there is no such folder, another ``OSError``
    when it cannot be opened."""
    return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))


def md_entries(fd: int) -> Iterator[tuple[str, os.stat_result | None]]:
    """``(name, lstat)`` of every record entry of the open folder ``fd``; ``None`` for one that
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
