"""How a writer run picks its engine: ``--engine rules|llm`` (or ``[phase2] engine`` / ``[gc] engine``).

An engine computes a run's changes on the scratch copy: ``Engine.run(ctx)`` with the run's context
(``run_context.RunContext``, or Phase 2's / GC's own). Each pipeline names its two engines — classes
of its own package, ``module.Class`` — in an ``Engines`` (``phase2.runner.ENGINES``,
``gc.runner.ENGINES``); a module is imported only when its engine is picked, the ``llm`` one after
``require_llm_libraries`` has said what to install, before any import fails. An unknown name is a
``YoiError`` before the run takes the lock, so it leaves nothing behind.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..errors import YoiError

ENGINE_NAMES = ("rules", "llm")

Ctx_contra = TypeVar("Ctx_contra", contravariant=True)


class Engine(Protocol[Ctx_contra]):
    name: str

    def run(self, ctx: Ctx_contra) -> None: ...


@dataclass(frozen=True)
class Engines:
    """A pipeline's engines: ``rules`` (made with no argument) and ``llm`` (made with ``model``: a
    test's scripted model, or None for the configured one), each ``module.Class`` inside ``package``
    (the pipeline's own: the registry imports nothing outside it), named ``what`` in errors."""

    what: str
    package: str
    rules: str
    llm: str

    def make(self, name: str, model: Any = None) -> Engine[Any]:
        if name == "rules":
            return self._load(self.rules)()
        if name == "llm":
            from .llm import require_llm_libraries

            require_llm_libraries()  # the llm extra: say what to install, before any import fails
            return self._load(self.llm)(model)
        raise YoiError(f"unknown {self.what} engine '{name}' (use {' or '.join(ENGINE_NAMES)})")

    def _load(self, where: str) -> Any:
        module, _, cls = where.rpartition(".")
        return getattr(importlib.import_module(f"{self.package}.{module}"), cls)


__all__ = ["ENGINE_NAMES", "Engine", "Engines"]
