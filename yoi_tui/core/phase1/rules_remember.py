""""Remember this": a user turn asking to keep something for the future (issue 25).

"Yes, and remember that for the future", "keep this in mind going forward", "note that for next
time", "from now on do it like that", 「これを覚えておいて」, "merk dir das", "recuerda esto" — a strong
signal: the user wants what was just said kept. ``remember_request`` turns such a turn into a
request whose title and summary carry **what it points at**, never the acknowledgement's words:

* the turn's own content when it has some ("Remember that the staging server is at 10.0.0.5"
  → "Remember: the staging server is at 10.0.0.5");
* else (only "yes, and remember that" — the words left after taking off the acknowledgement and
  the remember clause are pointers, fillers and time phrases) the agent's last message, which is
  what "that" names; its range is included in the request's.

With nothing to point at (no agent message before it) the turn yields no request at all. Owns
only the wording; ``rules_requests.extract_requests`` asks it first for every user message.
"""

from __future__ import annotations

import re

from ..store.staging import Request
from .text import prose, sentences, short_title, squash

MAX_SUMMARY = 240
# The ask itself, in the usual English wordings and a few other languages (cheap to recognise).
_ASK_RE = re.compile(
    r"\b(?:remember|memori[sz]e|don'?t forget|do not forget|keep (?:(?:this|that|it) )?in mind|"
    r"make a (?:mental )?note(?: of)?|take note(?: of)?|note (?:this|that|it)(?: down)?|"
    r"save (?:this|that|it) (?:to|in|for) (?:your |the )?(?:memory|later|future)|"
    r"add (?:this|that|it) to (?:your |the )?(?:memory|notes|knowledge)|for future reference|from now on)\b"
    r"|覚えて|覚えとい|忘れないで|今後は|记住|記住|以后|以後|"
    r"\b(?:merk dir|denk daran|recuerda|recuérdalo|no olvides|retiens|souviens-toi|n'oublie pas|"
    r"lembre(?:-se)?|ricorda(?:ti)?)\b",
    re.IGNORECASE)
# Words that only point or fill: what is left of "Yes, and remember that for the future".
_POINTER_WORDS = {
    "yes", "yeah", "yep", "yup", "ok", "okay", "sure", "right", "great", "perfect", "good", "nice", "thanks", "thank",
    "you", "and", "also", "please", "pls", "so", "then", "that", "this", "it", "these", "those", "one", "for", "the",
    "a", "future", "in", "from", "now", "on", "going", "forward", "next", "time", "remember", "memorize", "memorise",
    "keep", "mind", "make", "note", "of", "take", "down", "don't", "dont", "do", "not", "forget", "save", "to", "your",
    "memory", "later", "add", "notes", "knowledge", "reference", "always", "just", "exactly", "correct", "agreed",
    "all", "well", "fine", "cool", "awesome", "lgtm", "will", "like", "way", "rule", "there", "is", "are", "be",
    # other languages' pointers and fillers
    "das", "dir", "merk", "denk", "daran", "ja", "esto", "eso", "recuerda", "recuérdalo", "no", "olvides", "sí", "si",
    "ça", "cela", "retiens", "oui", "souviens-toi", "n'oublie", "pas", "lembre", "lembre-se", "disso", "isso", "sim",
    "ricorda", "ricordati", "questo", "para", "el", "futuro", "pour", "l'avenir", "avenir", "für", "die", "zukunft",
    "per", "il", "o",
}
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_CJK_POINTERS_RE = re.compile(r"(?:はい|うん|ええ|それ|これ|あれ|お願いします|お願い|します|で|を|は|も|て|ね|よ|ください|下さい|おいて|おい|"
                              r"覚えて|覚えとい|忘れないで|今後|是|的|这个|這個|那个|那個|记住|記住|以后|以後|好|对|對|"
                              r"[、。！!？?,.\s])")
_LEAD_RE = re.compile(r"^(?:that|the fact that|this:|that:)\s+", re.IGNORECASE)
# How an agent puts a proposal; the title keeps what is proposed ("keep the retry budget at five").
_PROPOSAL_LEAD_RE = re.compile(r"^(?:(?:so|ok(?:ay)?|alright|then)[,\s]+)?(?:i(?: would|'d)? (?:suggest|recommend|propose)"
                               r"(?: that)?|i think|my (?:suggestion|recommendation) is(?: to)?|let'?s|we (?:should|could|can)"
                               r"|you (?:should|could|can)|the (?:best|simplest|cleanest) (?:way|option) is(?: to)?)\s+"
                               r"(?:we\s+)?", re.IGNORECASE)


# Asking whether the agent remembers is a question, not an ask: "do you remember what we chose?".
_RECALL_RE = re.compile(r"^\s*(?:do|did|does|can|could)\s+(?:you|we)\s+(?:still\s+)?(?:remember|recall)\s+"
                        r"(?:what|how|why|where|when|which|who|if|whether)\b", re.IGNORECASE)


def asks_to_remember(text: str) -> bool:
    body = prose(text)
    return bool(_ASK_RE.search(body)) and not _RECALL_RE.match(body)


def _own_content(body: str) -> str:
    """What the turn says beyond the acknowledgement and the ask ("" when it only points back)."""
    if _CJK_RE.search(body):
        rest = _CJK_POINTERS_RE.sub("", body)
        return body.strip() if len(rest) >= 4 else ""
    words = re.findall(r"[\w'’-]+", body.lower())
    content = [w for w in words if w not in _POINTER_WORDS]
    if len(content) < 2:
        return ""
    # The sentence holding the content, without the ask around it.
    best = max(sentences(body) or [body], key=lambda s: len([w for w in re.findall(r"[\w'’-]+", s.lower())
                                                             if w not in _POINTER_WORDS]))
    rest = _ASK_RE.sub(" ", best)
    rest = re.sub(r"^[\s,.;:!—-]*(?:(?:yes|yeah|ok(?:ay)?|sure|and|also|please|so)\b[\s,.;:!—-]*)*", "", rest,
                  flags=re.IGNORECASE)
    rest = re.sub(r"\s+(?:for|in|from)\s*$", "", " ".join(rest.split())).strip(" ,.;:!—-")
    return _LEAD_RE.sub("", rest)


def remember_request(text: str, index: int, said: str, said_index: int | None) -> Request | None:
    """The request a "remember this" turn stands for (None: the turn is not one, or it points at
    nothing); see the module docstring."""
    body = prose(text)
    if not body or not asks_to_remember(body):
        return None
    own = _own_content(body)
    if own:
        summary, start = squash(own, MAX_SUMMARY), index
    else:
        pointed = prose(said)
        if not pointed or said_index is None:
            return None
        summary, start = squash(pointed, MAX_SUMMARY), said_index
    first = (sentences(summary) or [summary])[0]
    title = short_title(_PROPOSAL_LEAD_RE.sub("", first), 9)
    return Request(intent="remember", target="", summary=summary, title=f"Remember: {title[:1].lower() + title[1:]}"
                   if title and not title[:2].isupper() else f"Remember: {title}", range=(start, index))


__all__ = ["asks_to_remember", "remember_request"]
