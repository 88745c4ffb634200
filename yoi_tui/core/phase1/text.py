"""Reading the prose of a message for the rules extractor: code removed, sentences, short titles.

Owns what the rules engine takes as "the sentence" of a message (never a code block, a pasted log
or a path in a temporary folder) and how a title is cut: short, imperative when the sentence is,
never mid-word, never ending on a dangling "of the".
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..store.titles import IMPERATIVE_VERBS, clean_title, one_line, strip_front

_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
# Lines that are pasted code or output rather than prose: indented blocks, stack frames, prompts,
# lines dense in code punctuation.
_CODE_LINE_RE = re.compile(r"^(?:\s{4,}|\t|\s*(?:at |File \"|Traceback|\$ |>>> |[{}\[\]<]|//|#include|import |from \S+ import|def |class |function |const |let |var |return\b))")
_CODE_DROP = str.maketrans("", "", "{}();=<>[]|\\")  # counting code punctuation by deleting it (fast)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(@])|\n+|(?<=\?)\s+")
_POLITE_RE = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you|will you|i want you to|i'd like you to|i need you to|let's|lets|"
    r"now|then|also|and|ok(?:ay)?|so|hey|hi|great|cool|alright|next)[\s,!.:]+)+", re.IGNORECASE)
_CLAUSE_WORDS = {"which", "who", "that", "because", "so", "when", "where", "while", "since", "but", "if", "unless",
                 "until", "though", "although", "—", "-", "–"}
_WEAK_CLAUSE_WORDS = {"and", "then", "or"}
TEMP_PATH_RE = re.compile(r"(?:^|/)(?:var/folders|private/var|tmp|TemporaryItems|AppData/Local/Temp)/|Screenshot ",
                          re.IGNORECASE)


def squash(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


# Several rules read the same message's prose and sentences; the rules engine reads them once per
# chunk and forgets them after it (``forget_chunk``), the cap bounds any other caller.
_MEMO = 4096


def forget_chunk() -> None:
    """Drop the prose and sentences kept while one chunk was read (their memory is the chunk's)."""
    prose.cache_clear()
    _sentences.cache_clear()


@lru_cache(maxsize=_MEMO)
def prose(text: str) -> str:
    """``text`` without fenced code, pasted code/log lines and quoted temp-file paths."""
    text = _FENCE_RE.sub(" ", text)
    kept: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            kept.append("")
            continue
        dense = (len(stripped) - len(stripped.translate(_CODE_DROP))) / max(len(stripped), 1)
        if _CODE_LINE_RE.match(line) or dense > 0.12:
            continue
        kept.append(line)
    return "\n".join(kept).strip()


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@lru_cache(maxsize=_MEMO)
def _sentences(text: str) -> tuple[str, ...]:
    # Line by line: a line break always ends a sentence, and a line with no ".", "!" or "?" is one
    # sentence, so the look-behind split (slow over a long message) only reads the lines that need it.
    parts: list[str] = []
    for line in text.split("\n"):
        if "." in line or "!" in line or "?" in line:
            parts.extend(_SENTENCE_RE.split(line))
        else:
            parts.append(line)
    flat = [" ".join(p.split()) for p in parts]
    return tuple(p.lstrip("-*> ").strip() for p in flat if p and p.strip(" -*>"))


def strip_polite(sentence: str) -> str:
    return _POLITE_RE.sub("", sentence.strip()).strip()


def short_title(sentence: str, max_words: int = 9) -> str:
    """A title from a sentence: at most ``max_words`` words (a few more when the sentence is whole),
    cut at a clause boundary when one is near, never inside a word, without labels, polite openers,
    a trailing reason clause ("…, it will not clash"), pasted code or a dangling function word;
    capitalised, no trailing punctuation (``store.titles.clean_title``)."""
    front, _fix = strip_front(one_line(sentence))
    words = (front if re.search(r"[^\W_]", front) else one_line(sentence)).split()  # a label alone ("Fix:") is its own title
    # A path at the end says where, not what ("... of the search in apps/app/src/Sidebar.tsx").
    while len(words) > 3 and "/" in words[-1] and words[-2].lower() in ("in", "at", "from", "to", "of", "into"):
        words = words[:-2]
    # Pasted code or a log field ends the title ("release failed after 0s error=notarize: ..."), and
    # with it a remnant after a comma ("…, check https://…" keeps its link; "…, see key=value" does not).
    for position in range(3, len(words)):
        if _CODE_TOKEN_RE.search(words[position]) and not _URL_RE.match(words[position]):
            words = words[:position]
            comma = next((p for p in range(len(words) - 1, max(len(words) - 3, 2), -1) if words[p - 1].endswith(",")),
                         None)
            words = words[:comma] if comma is not None else words
            break
    # A reason or aside after a comma is not what to do ("Rename X to Y, it will not clash ...").
    for position in range(3, len(words)):
        if words[position - 1].endswith((",", ";")) and _ASIDE_RE.match(" ".join(words[position:position + 3])):
            words = words[:position]
            break
    if len(words) > max_words + 3:
        # Cut at the first clause boundary that leaves something said ("Add a test that checks
        # ..." is not cut to "Add a test"); "and"/"then" part clauses only before a verb ("... and
        # push it", not "cause and effect").
        cut = next((position for position in range(5, max_words + 1)
                    if words[position].lower().strip(",;:") in _CLAUSE_WORDS
                    or words[position - 1].endswith((",", ";", ":"))
                    or (words[position].lower() in _WEAK_CLAUSE_WORDS and position + 1 < len(words)
                        and words[position + 1].lower().strip(",.") in _CLAUSE_VERBS)), max_words)
        words = words[:cut]
        if len(words) > 5 and words[-2].lower() in _WEAK_CLAUSE_WORDS and words[-1].lower() in _CLAUSE_VERBS:
            words = words[:-2]  # "... in this directory and determine": a verb cut from its object
    return clean_title(" ".join(words))


_URL_RE = re.compile(r"^<?https?://", re.IGNORECASE)
_CLAUSE_VERBS = IMPERATIVE_VERBS | {"determine", "see", "know", "understand", "tell", "let", "then"}
# A word that is code or a log field, not prose: "error=notarize:", "key:value", a long path.
_CODE_TOKEN_RE = re.compile(r"=|^\w+:\S|^\S*/\S*/\S{20,}|^[\[{<]\d")
# What follows a comma when it is a reason or an aside, not more of the instruction.
_ASIDE_RE = re.compile(r"^(?:(?:it|this|that|which|i|we|they|there)\s+(?:will|would|won'?t|is|isn'?t|'s|was|should|"
                       r"can|could|might|may|does|doesn'?t|has|had|must|needs?)\b|it'?s\b|(?:can|could|should|will|"
                       r"would|must|may|might)\s|since\b|because\b|as\s+(?:it|this|that|we|i)\b|so\s+that\b|"
                       r"otherwise\b|in other words\b|i\.e\.|e\.g\.|e\.g\b|for example\b|for instance\b|"
                       r"like\s+(?:we|i)\b|thanks\b|thank you\b)", re.IGNORECASE)


_LOWER_BREAK_RE = re.compile(r"(?<=[a-z0-9)`]{3})[.!?]\s+(?=[a-z])")
_LINK_RE = re.compile(r"\[([^\]\n]{1,120})\]\((?:[^)\s]{1,400})\)")
_CLAUSE_CUT_RE = re.compile(r"[,;:]\s+|\s+[—–]\s+|\s+-\s+")


def _plain(sentence: str) -> str:
    """A sentence without Markdown emphasis, link targets, heading marks or a list marker."""
    text = _LINK_RE.sub(r"\1", sentence).replace("**", "").replace("__", "")
    text = re.sub(r"^(?:#{1,6}\s+|[-*+•]\s+|\d{1,2}[.)]\s+)", "", text.strip())
    return " ".join(text.split())


def _as_sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?:…" else text + "."


def whole_sentences(parts: list[str], limit: int) -> str:
    """As many of ``parts`` (sentences) as fit in ``limit`` characters, each whole. A first sentence
    longer than ``limit`` is kept to its last clause boundary that fits (", ", "; ", " — "), else
    left out: never a sentence cut inside with an ellipsis. "" when none fits."""
    kept: list[str] = []
    used = 0
    for part in parts:
        part = _as_sentence(part)
        if not part:
            continue
        if used + len(part) + (1 if kept else 0) <= limit:
            kept.append(part)
            used += len(part) + (1 if len(kept) > 1 else 0)
            continue
        if not kept:
            cuts = [m.start() for m in _CLAUSE_CUT_RE.finditer(part) if 0.3 * limit <= m.start() <= limit - 1]
            if cuts:
                kept.append(_as_sentence(part[: cuts[-1]].rstrip(" ,;:—–-")))
        break
    return " ".join(kept)


def message_sentences(text: str) -> list[str]:
    """The sentences of a message's prose, Markdown marks removed; a user's lowercase sentence
    breaks ("done. now push") count."""
    found: list[str] = []
    for sentence in sentences(prose(text)):
        found.extend(p for p in _LOWER_BREAK_RE.split(sentence) if p.strip())
    return [plain for plain in (_plain(s) for s in found) if plain]


def summary_of(text: str, limit: int, lead: str = "") -> str:
    """What a user message asked, in whole sentences within ``limit`` characters (``lead``, a
    sentence of yoi's own, first: "Carry out the plan “X”."). A message whose first sentence alone
    is too long is said by ``lead`` alone, or by its first clause."""
    parts = ([lead] if lead else []) + message_sentences(text)
    return whole_sentences(parts, limit) or _as_sentence(short_title(text, 12))


# An agent's sentence that says what it is about to do, not what it did.
_NARRATION_RE = re.compile(r"\b(?:i'?m|i am|i'?ll|i will|let me|let's|going to|next,? i|now i|i need to|i want to|"
                           r"i'?d like to|i can now|i should|i must|i still need|will|would you|want me to|"
                           r"shall i|should i)\b|^i (?:now )?(?:have|got|see|found) (?:the|a|an)\b", re.IGNORECASE)
# An absolute path in a report is shortened to its last two parts (the reader knows the project).
_ABS_PATH_RE = re.compile(r"(?<![\w.])(?:/|~/)(?:[\w.@-]+/){2,}([\w.@-]+/[\w.@-]+)")
_FILLER_RE = re.compile(r"^(?:done|perfect|great|excellent|all set|all done|got it|sure|ok(?:ay)?|awesome|nice|good|"
                        r"finished|complete|completed|success|there we go|alright|"
                        # a heading over the report ("## Summary"), not a sentence of it
                        r"(?:a\s+)?summary(?: of (?:the )?changes)?|changes(?: made)?|overview|results?|what changed|"
                        r"what i did|status|notes?|next steps|verification|details)\s*[.!:]*$", re.IGNORECASE)


_REFUSAL_RE = re.compile(r"\bI(?: will not|'ll not| won't| am not going to|'m not going to| can't| cannot| could not|"
                         r" couldn't| did not| didn't) [^.;:!?\n]{3,160}", re.IGNORECASE)


def refusals_in(message: str) -> list[str]:
    """The agent's clauses saying what it will not or could not do ("I will not push directly to
    `main` because this repo forbids that"): an outcome a teammate must know, even when said in
    the middle of the work."""
    return [_ABS_PATH_RE.sub(r"\1", " ".join(m.group(0).split())) for m in _REFUSAL_RE.finditer(prose(message.replace("’", "'")))]


def report_of(message: str, limit: int, also: list[str] | None = None) -> str:
    """What an agent's message says it did, in whole sentences within ``limit`` characters: its
    narration of what comes next ("I'm running the tests now"), fillers ("Done!") and questions
    left out; a sentence that introduces a list ("The fix makes sure that:") keeps its first items.
    ``also``: clauses said earlier that belong to the outcome (``refusals_in``), added after the
    message's own sentences when they fit and it does not say them already."""
    lines = [_ABS_PATH_RE.sub(r"\1", line) for line in message_sentences(message.replace("’", "'"))]
    said: list[str] = []
    listed: set[int] = set()  # the items a sentence ending with ":" took in
    for position, line in enumerate(lines):
        if position in listed:
            continue
        if _FILLER_RE.match(line) or line.rstrip().endswith("?") or _NARRATION_RE.search(line):
            continue
        if not re.search(r"[A-Za-z]{2}", re.sub(r"`[^`]*`", " ", line)):
            continue  # a path or a value on its own line, not a sentence
        if line.endswith(":"):
            items = []
            for offset, item in enumerate(lines[position + 1:position + 4], start=position + 1):
                if item.endswith(":") or _NARRATION_RE.search(item):
                    break
                items.append(item.rstrip(". "))
                listed.add(offset)
            if not items:
                continue
            line = f"{line} {'; '.join(items)}."
        said.append(line)
        if len(said) >= 4:
            break
    said += [clause for clause in also or [] if not any(clause in line for line in said)]
    return whole_sentences(said, limit)
