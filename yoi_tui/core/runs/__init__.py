"""Runs wing: a writer run and its safety — change sets (scratch, apply, journal, revert), the consolidation lock, crash points, the LLM model factory.

Imports ``core.store`` (and errors/diagnostics) only; phase2 and gc drive it from above.
"""
