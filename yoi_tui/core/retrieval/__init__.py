"""Retrieval wing: getting records back into a prompt — search, ``#slug`` parsing and expansion, resident context, markers, usage metrics.

Imports ``core.store`` and ``core.freshness`` (and errors/diagnostics) only; lint, sessions, phase1, phase2 and gc sit above it.
"""
