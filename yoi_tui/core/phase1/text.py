"""Reading the prose of a message for the rules extractor: code removed, sentences, short titles.

Owns what the rules engine takes as "the sentence" of a message (never a code block, a pasted log
or a path in a temporary folder) and how a title is cut: short, imperative when the sentence is,
never mid-word, never ending on a dangling "of the".
"""

from __future__ import annotations

import re

_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
# Lines that are pasted code or output rather than prose: indented blocks, stack frames, prompts,
# lines dense in code punctuation.
_CODE_LINE_RE = re.compile(r"^(?:\s{4,}|\t|\s*(?:at |File \"|Traceback|\$ |>>> |[{}\[\]<]|//|#include|import |from \S+ import|def |class |function |const |let |var |return\b))")
_CODE_DROP = str.maketrans("", "", "{}();=<>[]|\\")  # counting code punctuation by deleting it (fast)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(@])|\n+|(?<=\?)\s+")
_POLITE_RE = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you|will you|i want you to|i'd like you to|i need you to|let's|lets|"
    r"now|then|also|and|ok(?:ay)?|so|hey|hi|great|cool|alright|next)[\s,!.:]+)+", re.IGNORECASE)
_STOP_TAIL = {"the", "a", "an", "of", "to", "in", "on", "for", "with", "and", "or", "that", "which", "is", "are", "by",
              "at", "from", "as", "into", "it", "its", "it's", "this", "so", "but", "if", "when", "be", "we", "i", "you",
              "who", "was", "were", "not", "no", "my", "our", "your", "their", "then", "up", "out"}
_CLAUSE_WORDS = {"which", "who", "that", "because", "so", "when", "where", "while", "since", "but", "and", "then", "if",
                 "unless", "until", "though", "although", "—", "-", "–"}
_COMMAND_WORDS = {"cd", "git", "npm", "pnpm", "yarn", "ls", "make", "mix", "cargo", "pip", "uv", "docker", "kubectl", "gh",
                  "bd", "yoi", "pytest", "python", "node", "bun"}
_LEAD_SYMBOLS_RE = re.compile(r"^[^\w`\"'(@#/.~-]+")  # "⨯ release failed", "• running": bullets and marks
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
    parts = [" ".join(p.split()) for p in _SENTENCE_RE.split(text)]
    return [p.lstrip("-*> ").strip() for p in parts if p and p.strip(" -*>")]


def strip_polite(sentence: str) -> str:
    return _POLITE_RE.sub("", sentence.strip()).strip()


def short_title(sentence: str, max_words: int = 9) -> str:
    """A title from a sentence: at most ``max_words`` words, cut at a clause boundary when one is
    near, without a dangling function word, capitalised, no trailing punctuation."""
    words = _LEAD_SYMBOLS_RE.sub("", strip_polite(sentence)).rstrip(" .!?;:").split()
    # A path at the end says where, not what ("... of the search in apps/app/src/Sidebar.tsx").
    while len(words) > 3 and "/" in words[-1] and words[-2].lower() in ("in", "at", "from", "to", "of", "into"):
        words = words[:-2]
    if len(words) <= max_words + 3:
        pass  # a sentence a few words over the limit is kept whole: cutting it leaves it dangling
    elif len(words) > max_words:
        cut = max_words
        # Cut at a clause boundary only when what is left still says something ("Add a test that
        # checks ..." is not cut to "Add a test").
        for position in range(max_words, 4, -1):
            word = words[position].lower().strip(",;:")
            if word in _CLAUSE_WORDS or words[position - 1].endswith((",", ";", ":")):
                cut = position
                break
        words = words[:cut]
    while len(words) > 1 and words[-1].lower().strip(",;:") in _STOP_TAIL:
        words.pop()
    title = " ".join(words).rstrip(" ,;:-—(")
    if title.count("(") > title.count(")"):
        title = title[: title.rfind("(")].rstrip()
    if title.split(" ", 1)[0] in _COMMAND_WORDS:
        return title  # "cd to myapp and run ...": a command name keeps its case
    return title[:1].upper() + title[1:]
