"""Text wing: scanning text for what must not pass — secrets (find, redact), yoi's injection markers,
and the literal prefilters that let a few hundred patterns skip text that cannot match.

* ``secrets``: the secret pattern table Phase 1 redacts session logs with and the linter's
  ``secret`` rule reports (with detect-secrets' patterns, ``secret_library``, when installed);
* ``markers``: the markers around injected context and expanded knowledge, and their removal;
* ``prefilter``: needle plans (case-folded literals every match must contain).

Imports ``core.store`` (the cache-file helper) and the shared modules only: sessions, lint and
retrieval all use it.
"""
