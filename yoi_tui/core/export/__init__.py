"""``yoi export skills``: knowledge records published as Agent Skills (``SKILL.md``) for harnesses
that load skills natively, and the check (``--check``, lint ``stale-export``) that they are current."""
