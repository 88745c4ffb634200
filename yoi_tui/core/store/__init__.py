"""Store wing: one record on disk — workspace, config, kinds, models, reader, writer, atomic writes, ids, staging.

Imports nothing of ours but ``core.errors`` and ``core.diagnostics``; every other part of the core builds on it.
"""
