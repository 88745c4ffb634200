"""Text that reads as instructions to an agent: prompt-injection phrases and invisible Unicode.

Memory is put back into agents' prompts, so a record must not carry text that hijacks them. For
people this is a warning; for an agent's write it is an error (the write is turned back).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..text.markers import FORGED_MARKER_RE, HARNESS_TAG_RE, HARNESS_TAGS
from ..text.prefilter import NeedlePlan, fold

# (pattern, reason, needles, requires): any match holds one of the lower-case ``needles`` and all of
# ``requires`` (a tuple there: one of its words; core.text.prefilter), so a text lacking them is
# not scanned with that pattern.
_PHRASES: list[tuple[str, str, tuple[str, ...], tuple[str | tuple[str, ...], ...]]] = [
    (r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding)"
     r"\s+(?:instructions?|prompts?|rules|messages?|context)", "asks to ignore earlier instructions",
     ("ignore", "disregard", "forget", "override"), ()),
    (r"\byou\s+are\s+now\s+(?:an?\s+|the\s+)?(?:unrestricted|jailbroken|DAN|developer\s+mode|system|root|admin)\b",
     "role hijack ('you are now ...')",
     ("unrestricted", "jailbroken", "dan", "developer", "system", "root", "admin"), ("now",)),
    (r"^\s*(?:system|assistant)\s*:\s*\S", "a line posing as a system/assistant turn", ("system", "assistant"), ()),
    (r"<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<</?SYS>>", "chat-template control tokens",
     ("<|", "inst]", "sys>>"), ()),
    (r"\bnew\s+(?:system\s+)?instructions\s*:", "announces new instructions", ("instructions",), ()),
    (r"\b(?:reveal|print|exfiltrate|send)\s+(?:your|the)\s+(?:system\s+prompt|api\s+keys?|secrets?|credentials)",
     "asks to reveal the system prompt or secrets", ("system", "api", "secret", "credentials"),
     (("reveal", "print", "exfiltrate", "send"),)),
]
_PHRASE_RES = [(re.compile(pattern, re.IGNORECASE | re.MULTILINE), why, needles, requires)
               for pattern, why, needles, requires in _PHRASES]
# Tags that would end or forge a block yoi injects, or pose as the agent harness speaking.
_PHRASE_RES += [
    (FORGED_MARKER_RE, "a yoi injection marker (it would end or forge the block this record is put in)",
     ("yoi-context", "yoi-knowledge"), ()),
    (HARNESS_TAG_RE, "an agent-harness tag (text posing as the harness, e.g. <system-reminder>)",
     tuple(sorted({t.lower().split()[0] for t in HARNESS_TAGS})), ("<",)),
]

NEEDLES = [(needles, requires) for _p, _w, needles, requires in _PHRASE_RES]
_PLAN = NeedlePlan(NEEDLES)

# Zero-width, bidi overrides/isolates, word joiners, BOM inside text, and Unicode tag characters.
_INVISIBLE_RE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")


def find_injections(text: str, ranks: list[int] | None = None) -> Iterator[tuple[int, str]]:
    """(offset, reason) of each injection-shaped span in ``text``. ``ranks``: the phrases the
    prefilter admits, when the caller asked it already (``NEEDLES``, in a ``JointPlan``)."""
    for index in _PLAN.candidates(fold(text)) if ranks is None else ranks:
        pattern, why, _needles, _requires = _PHRASE_RES[index]
        for match in pattern.finditer(text):
            yield match.start(), why
    if text.isascii():
        return  # every invisible character is outside ASCII
    invisible = _INVISIBLE_RE.search(text)
    if invisible is not None:
        yield invisible.start(), f"invisible Unicode character U+{ord(invisible.group()):04X}"
