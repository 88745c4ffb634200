"""GC (SPEC 10): periodic re-evaluation of the records, proposed as a reviewable change set.

``prepare_gc(ws)`` / ``PreparedGc.apply(operations=...)`` for a reviewed run (the app),
``run_gc(ws, engine=, dry_run=)`` headless (``yoi gc``). Each proposal is a ``GcOperation`` with an
operation (drop, merge, split, trim, rewrite), categories (outdated, superseded, unused, noisy) and
a one-line reason; the files it changes carry the same category and reason in the change set.
"""

from .model import CATEGORIES, OPERATIONS, STATES, GcOperation
from .runner import GcReport, PreparedGc, make_gc_engine, prepare_gc, run_gc

__all__ = ["CATEGORIES", "OPERATIONS", "STATES", "GcOperation", "GcReport", "PreparedGc", "make_gc_engine",
           "prepare_gc", "run_gc"]
