"""Hooks: what yoi does when an agent harness calls ``yoi hook`` — each event's work (``events``:
resident context at SessionStart, ``#slug`` expansion at UserPromptSubmit, Phase 1 / Phase 2 queued
at Stop and PreCompact) and the detached background worker that runs the queued work (``jobs``).

Installing the hooks into a harness's config files is ``core.integrations``' part. Imports store,
retrieval, usage, sessions, phase1 and phase2 (the worker runs the pipeline); nothing imports it
but the CLI. Kept empty: ``yoi hook`` is timed from process start and pays only for what an event needs.
"""
