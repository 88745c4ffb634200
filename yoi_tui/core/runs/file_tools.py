"""The ``llm`` engines' file tools (Phase 2's and GC's): list, read and both searches, confined,
with one count of failed writes.

The tools work on the run's scratch copy and know nothing of pydantic-ai (``agent_tools`` wraps
them), so every rule is enforced — and tested — here. Each engine subclasses ``FileTools`` with its
own write tools (``phase2.tools.Phase2Tools``: write, edit, the fields mode; ``gc.llm_engine.GcTools``:
rewrite and split), writing through the run's ``LintedWriter`` (``w``).

* **Confinement.** A path is relative to the workspace root. Absolute paths and any ``..`` are
  refused outright; the rest is resolved *following symlinks* and must land inside ``memory/``
  (but not ``memory/_staging/`` or ``memory/workflow/``) or ``knowledge/``. A link pointing out of
  those folders is refused.
* **Failed writes count.** Every refused write counts (``fail``): at ``max_failed_writes`` failures
  *in total* (pydantic-ai's own per-tool counter resets on a success, so it cannot be used for
  this) ``TooManyFailedWrites`` aborts the run and nothing is kept.
* A locked (read-only) record is never written: the engine's tool says so (``locked_refusals``; not
  counted as a failure).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import YoiError
from ..store.reader import drop_bom, read_exact
from .linted_writer import LintedWriter
from .run_context import RunContext

MAX_LIST = 2000
MAX_READ_CHARS = 200_000


class ToolRefusal(Exception):
    """A tool call refused with a message meant for the model (it may retry)."""


class TooManyFailedWrites(YoiError):
    """The model's writes failed ``max_failed_writes`` times: the run aborts, nothing is kept."""


class FileTools:
    """The confined reading tools of one llm run and its failed-write count (also the pydantic-ai ``deps``)."""

    def __init__(self, ctx: RunContext, writer: LintedWriter, *, max_failed_writes: int | None = None) -> None:
        self.ctx = ctx
        self.w = writer
        self.max_failed_writes = max_failed_writes or ctx.ws.config.phase2.max_failed_writes
        self.failures: list[str] = []
        self.locked_refusals: list[str] = []
        self.root = ctx.sws.root
        self.allowed = [self.root / "memory", self.root / "knowledge"]
        self.forbidden = [self.root / "memory" / "_staging", self.root / "memory" / "workflow"]

    # ------------------------------------------------------------------ paths

    def resolve(self, path: str) -> tuple[Path, str]:
        """The real path and workspace-relative name of ``path``, or ``ToolRefusal``."""
        raw = (path or "").strip()
        if not raw:
            raise ToolRefusal("empty path; give a path such as memory/decisions/<slug>.md")
        posix = PurePosixPath(raw.replace("\\", "/"))
        if posix.is_absolute() or re.match(r"^[A-Za-z]:", raw) or raw.startswith("~"):
            raise ToolRefusal(f"refused: '{raw}' is an absolute path; use a path relative to the workspace "
                              "(memory/... or knowledge/...)")
        if ".." in posix.parts:
            raise ToolRefusal(f"refused: '{raw}' contains '..'; paths must stay inside memory/ or knowledge/")
        resolved = Path(os.path.realpath(self.root / posix))
        if not any(resolved == a or resolved.is_relative_to(a) for a in self.allowed) or \
                any(resolved == f or resolved.is_relative_to(f) for f in self.forbidden):
            link = " (after following a symlink)" if resolved != self.root / posix else ""
            raise ToolRefusal(f"refused: '{raw}' resolves outside the allowed folders{link}; the tools may touch "
                              "only memory/ (not memory/_staging/ or memory/workflow/) and knowledge/")
        return resolved, resolved.relative_to(self.root).as_posix()

    def resolve_to_write(self, path: str) -> tuple[Path, str]:
        """``resolve`` for a write: a refused path counts as a failed write."""
        try:
            return self.resolve(path)
        except ToolRefusal as exc:
            raise self.fail(str(exc)) from None

    # ------------------------------------------------------------------ reading

    def list_files(self, folder: str = "") -> list[str]:
        """Files under ``folder`` (default: every allowed folder), workspace-relative, sorted."""
        roots = [self.resolve(folder)[0]] if folder.strip() else list(self.allowed)
        found: list[str] = []
        for top in roots:
            if not top.is_dir():
                if top.is_file():
                    found.append(top.relative_to(self.root).as_posix())
                continue
            for current, dirs, files in os.walk(top):
                here = Path(current)
                dirs[:] = sorted(d for d in dirs if here / d not in self.forbidden)
                for name in sorted(files):
                    if name.startswith(".") and name.endswith(".tmp"):
                        continue
                    found.append((here / name).relative_to(self.root).as_posix())
                    if len(found) >= MAX_LIST:
                        return found
        return sorted(found)

    def read_file(self, path: str) -> str:
        resolved, rel = self.resolve(path)
        text = read_exact(resolved) if resolved.is_file() else None
        if text is None:
            raise ToolRefusal(f"no such file: {rel} (use list_files to see what exists)")
        self.w.read_paths.add(rel)
        text = drop_bom(text)
        if len(text) > MAX_READ_CHARS:
            return text[:MAX_READ_CHARS] + f"\n[... truncated at {MAX_READ_CHARS} characters]"
        return text

    def mark_read(self, rel: str) -> None:
        self.w.read_paths.add(rel)

    def knowledge_search(self, query: str = "", slug: str | None = None, kind: str | None = None,
                         limit: int | None = None) -> list[dict[str, Any]]:
        from ..retrieval.search import knowledge_search

        return self._search(knowledge_search, query, slug, kind, limit)

    def memory_search(self, query: str = "", slug: str | None = None, kind: str | None = None,
                      limit: int | None = None) -> list[dict[str, Any]]:
        from ..retrieval.search import memory_search

        return self._search(memory_search, query, slug, kind, limit)

    def _search(self, search: Callable[..., list[Any]], query: str, slug: str | None, kind: str | None,
                limit: int | None) -> list[dict[str, Any]]:
        """One search over the scratch copy (not recorded as usage); an error goes back to the model."""
        try:
            hits = search(self.ctx.sws, query, slug=slug, kind=kind, limit=limit, record=False)
        except YoiError as exc:
            raise ToolRefusal(exc.message) from exc
        return [h.to_json() for h in hits]

    # ------------------------------------------------------------------ refusing writes

    def fail(self, message: str) -> ToolRefusal:
        """Count a failed write; abort the run at the limit, else return the refusal to raise."""
        self.failures.append(message)
        if len(self.failures) >= self.max_failed_writes:
            raise TooManyFailedWrites(
                f"the llm engine's writes failed {len(self.failures)} times (limit phase2.max_failed_writes = "
                f"{self.max_failed_writes}); the run is aborted and nothing it wrote is kept. Last failure: "
                f"{message}")
        left = self.max_failed_writes - len(self.failures)
        return ToolRefusal(f"{message}\nThe file was NOT written. Fix it and write again "
                           f"({left} failed write(s) left before the run is aborted).")

    def lint_refusal(self, rel: str, errors: Sequence[Diagnostic]) -> ToolRefusal:
        """A failed write the linter refused, with its findings for the model to fix."""
        return self.fail(f"lint refused the write of {rel}:\n" + "\n".join(
            f"- {d.rule} (line {d.line}): {d.message}" + (f" — hint: {d.hint}" if d.hint else "") for d in errors))


__all__ = ["MAX_LIST", "MAX_READ_CHARS", "FileTools", "ToolRefusal", "TooManyFailedWrites"]
