"""``yoi import``: existing agent knowledge (Cursor rules, Claude Code skills and commands, sections of
CLAUDE.md / AGENTS.md, basic-memory / Obsidian notes) brought into ``knowledge/`` as a change set.

``foreign.py`` reads foreign files (frontmatter in YAML, TOML ``+++`` or JSON, via python-frontmatter)
into neutral ``ForeignNote``s; ``discover.py`` finds them; ``build.py`` maps them to knowledge records
and a ``runs.changeset.ChangeSet`` (linted, never overwriting a record) that ``runner.py`` applies
under the consolidation lock, journalled and revertible like Phase 2 and GC.
"""
