"""A package's public names imported from their modules on first use (PEP 562 ``__getattr__``).

``yoi lint`` on an unchanged workspace must not import the rules, pydantic or the secret patterns,
and the secret rule must not import the session-log adapters: packages whose ``__init__`` re-exports
such modules hand their names to ``lazy_names`` instead of importing them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, homes: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps each name to its submodule; a name,
    once imported, is stored in ``namespace`` (the package's globals) so it is looked up once."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
