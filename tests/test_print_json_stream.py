"""``print_json`` writes streamed lists (``gc.model.StreamedList``) item by item: the same text as
one ``json.dumps`` of the whole (``yoi gc --json`` at 50,000 records: 41,000 operations, 11,000 diffs)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from yoi_tui.cli.common import print_json
from yoi_tui.core.gc.model import StreamedList

TEXT = st.text(st.sampled_from(list("ab \n\t\"\\é\u2028{}[],:") + ["😀"]), max_size=8)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), TEXT)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(TEXT, inner, max_size=3)), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(TEXT, VALUE, max_size=5), st.data())
def test_streamed_lists_print_as_one_dump(data: dict[str, Any], draw: st.DataObject) -> None:
    import io
    import sys

    streamed: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, list) and draw.draw(st.booleans()):
            items = list(value)
            streamed[key] = StreamedList(len(items), lambda items=items: iter(items))
        else:
            streamed[key] = value
    if not any(isinstance(v, StreamedList) for v in streamed.values()):
        streamed["extra"] = StreamedList(0, lambda: iter(()))
        data = {**data, "extra": []}
    out = io.StringIO()
    real, sys.stdout = sys.stdout, out
    try:
        print_json(streamed)
    finally:
        sys.stdout = real
    assert out.getvalue() == json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
