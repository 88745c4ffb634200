"""Crash points live in ``core/crashpoints.py`` (shared, so the store's atomic writes can mark a step);
this module keeps the old import path working."""

from __future__ import annotations

from ..crashpoints import PAUSE_LIMIT_SECONDS, crashpoint

__all__ = ["PAUSE_LIMIT_SECONDS", "crashpoint"]
