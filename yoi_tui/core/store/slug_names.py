"""When two near-identical slugs still name different things (issue 25).

A high ``fuzz.ratio`` between slugs says they are spelled alike, not that they are about one thing:
``fix-hoge-py`` / ``fix-piyo-py`` (two files), ``support-v1`` / ``support-v2`` (two versions),
``issue-12`` / ``issue-13``, ``fix-login-page`` / ``fix-logout-page``. ``naming_difference`` compares
the slugs token by token (``-``-separated) and answers why they name different things, or None
when they may name one:

* the numbers in them differ (``12`` / ``13``, ``v1`` / ``v2``, ``py3`` / ``py2``);
* a token (or run of tokens) of one stands where a different word stands in the other — a name, a
  file name or extension, an identifier (``hoge`` / ``piyo``, ``py`` / ``js``, ``login`` /
  ``logout``). Spellings of one word are not different words: an inflection (``cache`` /
  ``caches``, ``webhook`` / ``webhooks``: one is the other plus at most three letters), a spelling
  variant (``color`` / ``colour``, ``analyze`` / ``analyse``: ratio ≥ 80), or the same letters split
  differently (``setup`` / ``set-up``).

Tokens only one slug has (``add-dark-mode`` / ``add-a-dark-mode``) do not decide it: a word added
to a title rarely changes what it is about. The rule is general — no list of names or extensions.
GC merges, Phase 2's near-identical match and the linter's ``similar-slugs`` all ask it, so what
the linter calls near-duplicates is what GC would merge.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_DIGITS_RE = re.compile(r"\d+")
INFLECTION_MAX = 3  # letters one spelling of a word may add to the other (s, es, ed, ing)
VARIANT_RATIO = 80.0


def _same_word(left: str, right: str) -> bool:
    if left == right:
        return True
    short, long = sorted((left, right), key=len)
    if short and long.startswith(short) and len(long) - len(short) <= INFLECTION_MAX:
        return True
    from rapidfuzz import fuzz

    return fuzz.ratio(left, right) >= VARIANT_RATIO


def naming_difference(first: str, second: str) -> str | None:
    """Why slugs ``first`` and ``second`` name different things; None when they may name one."""
    numbers = _DIGITS_RE.findall(first), _DIGITS_RE.findall(second)
    if numbers[0] != numbers[1]:
        return f"different numbers ({', '.join(numbers[0]) or 'none'} / {', '.join(numbers[1]) or 'none'})"
    a, b = first.split("-"), second.split("-")
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        left, right = "-".join(a[i1:i2]), "-".join(b[j1:j2])
        if not _same_word(left.replace("-", ""), right.replace("-", "")):
            return f"`{left}` and `{right}` name different things"
    return None


__all__ = ["naming_difference"]
