"""Wiring yoi into agent harnesses' own config files (``yoi install`` / ``yoi uninstall``).

Owns: planning the edit of each harness file (Claude Code ``settings.json`` and ``.mcp.json``,
Codex ``config.toml`` and ``hooks.json``) as before/after text, the diff shown to the user, and the
atomic write of an accepted plan. Nothing here touches a file until every file of the plan has been
read and understood: a malformed file is refused with a message naming it, and left untouched.
Imports only the ``store`` wing (atomic writes) and the shared modules.
"""
