"""Runs wing: a writer run and its framework — the safety (change sets: scratch, apply, journal,
revert; the consolidation lock, how a run starts, leftovers) and what Phase 2's and GC's engines share
(the engine registry, the run context, the linted writer, the llm engines' file and agent tools, the
body merge, the report lifecycle, the LLM model factory).

Imports ``core.store``, ``core.lint`` (the write-time check), ``core.retrieval`` (search, ``#slug``
lines) and ``core.usage`` (the tokens an llm run spends) — nothing of phase1, phase2 or gc, which
drive it from above.
"""
