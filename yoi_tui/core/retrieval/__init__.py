"""Retrieval wing: getting records back into a prompt — search and its index, ``#slug`` parsing and expansion, resident context.

Imports ``core.store``, ``core.freshness``, ``core.text`` and ``core.usage`` (to record invokes and
injections) only; lint, sessions, phase1, phase2 and gc sit above it.
"""
