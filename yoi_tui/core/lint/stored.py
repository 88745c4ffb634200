"""The last whole-workspace lint result, returned when nothing it depends on changed.

``yoi lint`` on an unchanged workspace is the common case (a pre-commit hook, the app's problems
panel, an agent checking its work). This module answers it after one ``lstat`` per record file
without importing the rules, PyYAML, pydantic or the secret patterns: it is everything of the
lint cache that the answer needs, split from ``cache.py`` (which does the real work when something
changed) so the fast path pays only for what it uses.

The stored result is keyed by ``fingerprint`` (config, linter sources, library versions) and a
digest of every record file's and usage file's signature; "racily clean" states (a file changed
within ``RACY_NS`` of the run) are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from array import array
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..freshness.signature import (
    RACY_NS,  # files changed less than 2 s before the run are re-read next time
    Signature,
    file_signature,
    regular_signature,
)
from ..store.config import Config
from ..store.json_cache import read_cache, write_cache
from ..store.record_listing import (
    md_dir_entries,
    md_entries,
    open_folder,
    record_folders,
    summary_path_string,
)
from ..store.workspace import DECISIONS_REL, KNOWLEDGE_REL, REQUESTS_REL, SUMMARY_REL, Workspace

CACHE_VERSION = 2  # 2: each file's facts keep the CRC-32 of its bytes
RESULT_NAME = "lint-v1-result.json"  # the last whole result and the state it was computed from
USAGE_CACHE_NAME = "usage-frequencies.json"
_LINTER_MODULES = ("store.config", "diagnostics", "store.kinds", "store.models", "text.prefilter",
                   "store.records", "retrieval.slugrefs", "lint.cache", "lint.stored", "lint.index",
                   "lint.injection", "lint.rules", "lint.runner", "lint.similar", "text.secrets",
                   "text.secret_library", "store.safe_read", "usage.log", "text.markers",
                   "lint.fix", "store.meta_fields")  # lint.fix: the unknown-field and missing-field hints
_FOLDERS = (DECISIONS_REL, REQUESTS_REL, KNOWLEDGE_REL)

Sig = Signature  # the one file signature (``freshness.signature``)


def record_signatures(ws: Workspace, linked: set[str] | None = None) -> list[tuple[str, str, Sig | None]]:
    """``(rel, path, file_signature(path))`` of every ``record_listing.record_files`` entry, sorted by rel: each
    folder listed once (``store.record_listing``). ``linked`` collects the rels of files with more
    than one name (``st_nlink > 1``): a write through another name raises no event in their folder."""
    found: list[tuple[str, str, Sig | None]] = []
    summary = summary_path_string(ws)
    if os.path.lexists(summary):
        found.append((SUMMARY_REL, summary, file_signature(summary)))
        if linked is not None and hard_linked(summary):
            linked.add(SUMMARY_REL)
    for prefix, _kind, folder in record_folders(ws):
        try:
            fd = open_folder(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:  # unlistable: as record_files (the listing below would fail the same way)
            found.extend((rel, path, file_signature(path)) for rel, path in _listed(folder, prefix))
            continue
        base = folder + os.sep
        try:
            for name, st in md_entries(fd):
                found.append((prefix + name, base + name, regular_signature(st)))
                if linked is not None and st is not None and st.st_nlink > 1:
                    linked.add(prefix + name)
        finally:
            os.close(fd)
    found.sort()
    return found


def _listed(folder: str, prefix: str) -> list[tuple[str, str]]:
    try:
        return [(prefix + e.name, e.path) for e in md_dir_entries(folder)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def hard_linked(path: str | Path) -> bool:
    """True when the file at ``path`` has another name (``st_nlink > 1``)."""
    try:
        return os.lstat(path).st_nlink > 1
    except OSError:
        return False


def _library_stamps() -> list[Any]:
    """Where and how big each library the rules use is: an upgrade changes it, without importing them."""
    from importlib.util import find_spec

    stamps: list[Any] = []
    for name in ("yaml", "pydantic", "pydantic_core", "rapidfuzz", "detect_secrets"):
        try:
            spec = find_spec(name)
            origin = spec.origin if spec is not None else None
            st = os.stat(os.path.join(os.path.dirname(origin), "version.py" if name == "pydantic" else
                                      os.path.basename(origin))) if origin else None
            stamps.append([name, origin, st.st_size if st else None, st.st_mtime_ns if st else None])
        except (ImportError, ValueError, OSError):
            stamps.append([name, None])
    return stamps


def fingerprint(config: Config) -> str:
    """Changes whenever a cached finding could: config, linter sources, library versions."""
    digest = hashlib.sha256()
    digest.update(json.dumps(config.as_dict(), sort_keys=True).encode("utf-8"))
    digest.update(f"{CACHE_VERSION} {sys.version_info[:3]} {_library_stamps()}".encode())
    core = Path(__file__).resolve().parents[1]  # yoi_tui/core; by path, so nothing extra is imported
    for name in _LINTER_MODULES:
        source = core.joinpath(*name.split(".")).with_suffix(".py")
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()


class UsageFrequencies(Mapping[tuple[str, str], float]):
    """``usage.frequencies_for_lint(ws)``, computed only when a rule first asks for a frequency.

    Reading every usage event is a large part of a warm lint; when nothing changed since the last
    run (``lint_workspace_cached``'s fast path) no frequency is needed at all. ``signature`` names
    the usage files' state, so a stored result is reused only while the usage log is unchanged.
    The frequencies themselves are kept in ``.yoi/state/cache/usage-frequencies.json`` under that
    signature and the ``[usage]`` settings: after an edit to one record, the next lint does not
    parse the whole usage log again (1.7 s at 50,000 records) unless the log changed.
    """

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._values: dict[tuple[str, str], float] | None = None

    def _load(self) -> dict[tuple[str, str], float]:
        if self._values is None:
            started_ns = time.time_ns()
            files = self.signature()
            key = None
            if files is not None:
                key = hashlib.sha256(json.dumps([CACHE_VERSION, files, self.ws.config.usage.as_dict()],
                                                sort_keys=True).encode()).hexdigest()
                self._values = self._cached(key)
            if self._values is None:
                from ..usage.log import frequencies_for_lint

                self._values = dict(frequencies_for_lint(self.ws))
                racy = any(max(item[2], item[3]) >= started_ns - RACY_NS for item in files or [])  # [name, *sig]
                if key is not None and not racy and self.ws.yoi_dir.is_dir():
                    write_cache(self._cache_path(), {"version": CACHE_VERSION, "key": key, "values": [
                        [k, s, f] for (k, s), f in sorted(self._values.items())]})
        return self._values

    def _cache_path(self) -> Path:
        return self.ws.state_dir / "cache" / USAGE_CACHE_NAME

    def _cached(self, key: str) -> dict[tuple[str, str], float] | None:
        data = read_cache(self._cache_path(), CACHE_VERSION, key)
        try:
            if data is not None:
                return {(str(kind), str(slug)): float(freq) for kind, slug, freq in data["values"]}
        except (ValueError, TypeError, KeyError):
            pass
        return None

    @property
    def loaded(self) -> bool:
        return self._values is not None

    def adopt(self, values: dict[tuple[str, str], float]) -> None:
        """Take the frequencies another process computed for this workspace (a cold lint's worker)."""
        self._values = values

    def __getitem__(self, key: tuple[str, str]) -> float:
        return self._load()[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __bool__(self) -> bool:  # truth-testing must not load the log
        return True

    def signature(self) -> list[Any] | None:
        """``[name, size, mtime_ns, ctime_ns, inode]`` of each usage file (None: not trackable)."""
        folder = str(self.ws.usage_dir)
        try:
            with os.scandir(folder) as found:
                names = sorted(e.name for e in found)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError:
            return None
        out: list[Any] = []
        base = folder + os.sep
        for name in names:
            sig = file_signature(base + name)
            if sig is None:
                return None
            out.append([name, *sig.to_json()])
        return out


def _usage_state(frequencies: Mapping[tuple[str, str], float] | None) -> list[Any] | None:
    """What the usage-dependent findings depend on, as JSON-able data (None: cannot tell cheaply)."""
    if frequencies is None:
        return ["none"]
    if isinstance(frequencies, UsageFrequencies):
        files = frequencies.signature()
        return None if files is None else ["usage", files]
    try:
        return ["given", sorted([list(k), float(v)] for k, v in frequencies.items())]
    except (TypeError, ValueError):
        return None


def _result_path(ws: Workspace) -> Path:
    return ws.state_dir / "cache" / RESULT_NAME


def _packed(values: list[int]) -> bytes:
    """Integers as bytes for hashing: packed when they fit 64 bits (an inode may not), else as text."""
    try:
        return array("q", values).tobytes()
    except OverflowError:
        return repr(values).encode()


def _state_digest(key: str, sigs: list[tuple[str, Sig | None]], usage: list[Any] | None,
                  started_ns: int) -> tuple[str | None, bool]:
    """Digest of everything a whole-workspace result depends on, and whether it may be stored;
    ``(None, False)`` when it may not (then no stored result can be for this state either)."""
    if usage is None or any(sig is None for _rel, sig in sigs):
        return None, False
    stamps = [sig.stamp for _rel, sig in sigs]  # type: ignore[union-attr]  # no sig is None (returned above)
    if usage and usage[0] == "usage":
        stamps += [max(item[2], item[3]) for item in usage[1]]
    if stamps and max(stamps) >= started_ns - RACY_NS:
        # Not storable, and no stored result can match: it was stored when these same stamps were
        # already older than RACY_NS, which they are not now. So no digest is needed (15 ms at 10k).
        return None, False
    digest = hashlib.sha256(key.encode())
    # Names, then every signature's integers packed (a JSON text of 50,000 signatures cost ~0.2 s).
    digest.update("\0".join(rel for rel, _sig in sigs).encode("utf-8", "surrogateescape"))
    digest.update(_packed([value for _rel, sig in sigs for value in sig]))  # type: ignore[union-attr]  # as above
    digest.update(json.dumps(usage, separators=(",", ":")).encode())
    return digest.hexdigest(), True


def _load_result(ws: Workspace, key: str, state: str) -> tuple[list[Diagnostic], int] | None:
    data = read_cache(_result_path(ws), CACHE_VERSION, key)
    if data is None or data.get("state") != state:
        return None
    try:
        return [Diagnostic(*item) for item in data["diags"]], int(data["files"])
    except (ValueError, TypeError, KeyError):
        return None


def _save_result(ws: Workspace, key: str, state: str, diags: list[Diagnostic], files: int) -> None:
    if not ws.yoi_dir.is_dir():
        return
    target = _result_path(ws)
    data = {"version": CACHE_VERSION, "key": key, "state": state, "files": files,
            "diags": [[d.path, d.line, d.col, d.rule, d.severity, d.message, d.hint] for d in diags]}
    write_cache(target, data)


Checked = tuple[tuple[list[Diagnostic], int] | None, str, list[tuple[str, str, "Sig | None"]] | None, str | None, bool,
                int]


def stored_lint(ws: Workspace, frequencies: Mapping[tuple[str, str], float] | None, started_ns: int) -> Checked:
    """The stored result if still valid, and what ``cache.py`` needs to carry on when it is not.

    Returns ``(result or None, key, [(rel, path, signature)], state digest or None, storable,
    started_ns)``; the result's findings are unfiltered (``filter_disabled`` applies the config).
    The signatures are None when no result is stored at all: the files were not listed.
    """
    key = fingerprint(ws.config)
    from . import resident  # it imports this module

    kept = resident.state_for(ws)
    if kept is None:
        if not os.path.lexists(_result_path(ws)):
            # Nothing stored to compare with (a first lint): no listing here; whoever lints the
            # files signs them (``cache.lint_workspace_cached``: a cold lint's workers take each
            # file's signature from the descriptor they read it through).
            return None, key, None, None, False, started_ns
        sigs = record_signatures(ws)
        usage = _usage_state(frequencies)
    else:  # a long-running process: the kernel says what changed since its last lint
        sigs, dirty = kept.signatures(ws)
        usage = kept.usage = _usage_state(frequencies)  # the rest of this lint reads it from there
        memory = kept.memory
        if memory is not None and dirty == set() and usage is not None and memory.key == key \
                and memory.usage == usage:
            return (memory.diags, memory.files), key, sigs, None, False, started_ns
        if memory is not None and memory.key == key and memory.facts is not None:
            # Something changed since a lint this process remembers: no stored result is for the
            # new state, and the one to store is written when idle (cache.py): no digest now.
            return None, key, sigs, None, False, started_ns
    state, storable = _state_digest(key, [(rel, sig) for rel, _path, sig in sigs], usage, started_ns)
    stored = _load_result(ws, key, state) if state is not None else None
    if kept is not None and stored is not None:  # remembered: the next unchanged lint needs no digest
        resident.remember(kept, resident.Memory(key, usage, None, None, stored[0], stored[1]))
    return stored, key, sigs, state, storable, started_ns


def filter_disabled(diags: list[Diagnostic], config: Config) -> list[Diagnostic]:
    """Findings sorted, without the rules ``[lint] disable`` names (as every lint run reports them)."""
    disabled = set(config.lint.disable)
    return sorted(d for d in diags if d.rule not in disabled) if disabled else sorted(diags)


def unstored_findings(ws: Workspace) -> list[Diagnostic]:
    """Findings no cache holds, computed on every whole-workspace lint: a file where a record folder
    belongs (``layout_problems``) and ``stale-export`` (it depends on the skills folders, not records)."""
    from ..store.kinds import layout_problems
    from .stale_export import stale_export_findings

    return [*layout_problems(ws), *stale_export_findings(ws)]
