"""Export wing: ``yoi export skills`` — knowledge records published as Agent Skills (``SKILL.md``)
for harnesses that load skills natively, and the plan of what an export would write, which
``--check`` and the linter's ``stale-export`` rule (``core.lint.stale_export``) read.

Imports ``core.store`` (and the shared modules) only; the lint sits above it.
"""
