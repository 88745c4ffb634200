"""The app's model: what ``yoi-tui`` shows, computed without Textual — the record store, grouping,
fuzzy filter and ``#slug`` ranking the screens draw (``browse``), and the demo workspace
``yoi-tui --demo`` opens (``demo``).

Beside the app, outside the core: it imports ``yoi_tui.core`` and nothing of the app, so it is
tested with plain pytest; the core never imports it (tests/test_architecture.py).
"""
