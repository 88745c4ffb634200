"""What a decision record says, from what Phase 1 staged: the choice, its options, whether it is one.

* ``chosen_text``: a choice stated in the first person is said as the choice ("I believe we should
  keep the doctor command as it serves …" → "Keep the doctor command as it serves …"), whole;
* ``option_text``: an option cut on a dangling word ("attempting a login when") loses that word;
* ``is_change_summary``: a commit or PR subject whose "rationale" is the list of what it changed
  ("Phase 2 Performance Optimization (#377)", "Enhanced tracking - Early ID validation - …") tells
  no choice — the request record says what was done — so it makes no decision record.
"""

from __future__ import annotations

import re
from typing import Any

from ..store.titles import _FIRST_PERSON_RE, STOP_TAIL, _imperative, one_line, starts_with_verb


def chosen_text(chosen: str) -> str:
    flat = one_line(chosen)
    body = _FIRST_PERSON_RE.sub("", flat, count=1)
    if body == flat or not re.search(r"[^\W_]", body):
        return flat
    first, _, rest = body.partition(" ")
    verb = _imperative(first)
    body = f"{verb} {rest}".strip() if verb else body
    return body[:1].upper() + body[1:]


def option_text(option: str) -> str:
    words = one_line(option).split()
    while len(words) > 2 and words[-1].lower().strip(",;:.") in STOP_TAIL:
        words.pop()
    return " ".join(words).rstrip(",;:")


_LIST_SPLIT_RE = re.compile(r"\s+-\s+|\s*;\s+|\s+•\s+")


def is_change_summary(decision: Any) -> bool:
    """A decision that only names a change: no options, a chosen that repeats its title, a title
    that is no instruction, and a rationale that is a list of changes (three items or more)."""
    title = one_line(decision.title)
    chosen = one_line(decision.chosen)
    if decision.options or chosen.lower() != title.lower() or starts_with_verb(title):
        return False
    items = [i for i in _LIST_SPLIT_RE.split(one_line(decision.rationale)) if i.strip()]
    return len(items) >= 3
