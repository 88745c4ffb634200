"""What of a request's text is a prompt template's scaffolding, not what the user asked.

A slash command or a saved prompt (spec-kit's ``/speckit.tasks``, a Codex custom prompt, a Claude
Code command file) reaches the log expanded: headings that lay the template out (``## User
Input``, ``## Outline``, ``## Context``), a block where the arguments go (``$ARGUMENTS``, often
empty), and boilerplate addressed to the agent ("You **MUST** consider the user input before
proceeding (if not empty).", "All paths must be absolute."). None of that is the user's intent, so
none of it makes a title or opens a summary. This module owns recognising it, sentence by sentence
(the form a staged summary or "done" line has): ``is_scaffolding`` says whether one sentence is,
``strip_scaffolding`` keeps the rest of a text's sentences. On the message as the log holds it,
``user_input`` reads the part the user typed (the block under the template's "User Input" heading),
which Phase 1 stages as the request; ``NO_INPUT_SUMMARY`` and ``NO_INPUT_TITLE`` say a run with
none, and both phases know them.

It is deliberately about the *form* of the text (a heading's words, the agent addressed as "you"
with MUST/NEVER/ALWAYS, a placeholder), never about one template's wording.
"""

from __future__ import annotations

import re

from .titles import starts_with_verb

# Headings a prompt template lays itself out with: they name a part of the prompt, not a task.
SCAFFOLD_HEADINGS = frozenset("""
user input|input|arguments|args|outline|context|instructions|instruction|goal|goals|overview|steps|execution steps|
execution flow|workflow|operating constraints|constraints|guidelines|rules|notes|note|background|requirements|
prerequisites|setup|output|output format|expected output|format|examples|example|usage|task|your task|role|
purpose|behavior|behaviour|summary|report|completion|general guidelines|key rules|important|
""".replace("\n", "").split("|")) - {""}

_PLACEHOLDER_RE = re.compile(r"\$ARGUMENTS\b|\$\{?[A-Z][A-Z0-9_]{2,}\}?|\{\{\s*\w+\s*\}\}")
# The agent addressed with a rule ("You MUST …", "You **must not** …", "Always …", "NEVER …").
_ADDRESSED_RE = re.compile(r"^(?:\*\*|__)?(?:you\s+(?:\*\*|__)?(?:must|should|shall|will|are\s+to|need\s+to|may)"
                           r"(?:\s+not|\s+never)?\b|(?:\*\*)?(?:always|never|do\s+not|don't)(?:\*\*)?\s+\w+.*"
                           r"\b(?:before|unless|when|if)\b)", re.IGNORECASE)
_MUST_RE = re.compile(r"\b(?:MUST|NEVER|ALWAYS|SHALL|REQUIRED)\b")
# A rule about how paths or arguments are written: a template's fine print.
_FINE_PRINT_RE = re.compile(r"^(?:all\s+)?(?:file\s+)?paths\s+must\s+be\s+absolute\b|^for\s+single\s+quotes\s+in\s+args\b",
                            re.IGNORECASE)


def heading_words(text: str) -> str:
    return " ".join(re.sub(r"[*_#`:.!\s]+", " ", text).split()).lower()


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` is a layout heading ("User Input", "## Outline:", "Tasks Overview."):
    the words of a known heading, or a short Title Case label (at most four words, none of them
    code, not opening with an instruction verb, no verb in the past tense) that says no sentence of
    its own."""
    words = heading_words(sentence)
    if words in SCAFFOLD_HEADINGS:
        return True
    stripped = sentence.strip().strip("*_#: ").rstrip(".")
    parts = stripped.split()
    return (0 < len(parts) <= 4 and not starts_with_verb(stripped)
            and all(p[:1].isupper() for p in parts if p[:1].isalpha())
            and not re.search(r"[`/=()\d]", stripped) and not any(p.lower().endswith("ed") for p in parts)
            and stripped[-1:].isalpha())


def is_scaffolding(sentence: str) -> bool:
    """Whether one sentence of a request is template scaffolding: a layout heading, a placeholder
    for the arguments, boilerplate telling the agent how to treat them, or the template's fine print."""
    text = " ".join(sentence.split())
    if not text:
        return True
    if heading_words(text) in SCAFFOLD_HEADINGS:
        return True
    if _PLACEHOLDER_RE.fullmatch(text.strip("`'\" .")):
        return True
    if _ADDRESSED_RE.match(text) and (_MUST_RE.search(text) or "user input" in text.lower()):
        return True
    return bool(_FINE_PRINT_RE.match(text))


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*#\[])")


def sentences(text: str) -> list[str]:
    """``text`` (one line) in sentences, as a staged summary is written."""
    return [s for s in (p.strip() for p in _SENTENCE_RE.split(" ".join(text.split()))) if s]


def strip_scaffolding(text: str) -> str:
    """``text`` without its scaffolding sentences (see ``is_scaffolding``); a leading layout
    heading ("Tasks Overview." before the report) goes too when something follows it. Returns ""
    when all of it was scaffolding."""
    kept = [s for s in sentences(text) if not is_scaffolding(s)]
    while len(kept) > 1 and is_heading(kept[0]) and not kept[0].rstrip().endswith(("?", "!")):
        kept.pop(0)
    return " ".join(kept)


def looks_templated(text: str) -> bool:
    """Whether ``text`` shows a template's marks: a scaffolding sentence among its sentences."""
    return any(is_scaffolding(s) for s in sentences(text))


# A template run with nothing typed after its command: said so, in these words, by Phase 1; Phase
# 2 reads this title as no intent of its own and titles the record from what the agent reported.
NO_INPUT_SUMMARY = "A prompt template run with no input of its own."
NO_INPUT_TITLE = "Follow the prompt template"

# The heading a template puts the user's arguments under ("## User Input", "### Arguments").
_INPUT_HEADING_RE = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]*(?P<hashed>[^\n#]+?)|\*\*(?P<bold>[^\n*]+?)\*\*)[ \t]*:?[ \t]*$",
                               re.MULTILINE)
_INPUT_HEADINGS = frozenset({"user input", "input", "arguments", "args", "user arguments"})
_ANY_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S", re.MULTILINE)
_FENCE_LINE_RE = re.compile(r"^[ \t]*(?:```|~~~)[\w+-]*[ \t]*$")


def user_input(message: str) -> str | None:
    """What the user typed into an expanded prompt template: the lines under its "User Input" (or
    "Arguments") heading up to the next heading, without the fence around them, a placeholder left
    unexpanded (``$ARGUMENTS``) or the template's own boilerplate ("You **MUST** consider the user
    input …"). "" when the template ran with no input; None when ``message`` is no template
    expansion (no such heading, or no boilerplate or placeholder after it: a user's own "## Input"
    and "## Output" message stays the user's)."""
    for match in _INPUT_HEADING_RE.finditer(message):
        if heading_words(match.group("hashed") or match.group("bold") or "") not in _INPUT_HEADINGS:
            continue
        rest = message[match.end():]
        following = _ANY_HEADING_RE.search(rest)
        block = rest[:following.start()] if following else rest
        kept = [line for line in block.splitlines() if not _FENCE_LINE_RE.match(line)]
        # A template's mark after the heading: boilerplate addressed to the agent or a placeholder
        # (headings alone are not one: a user may lay out a message with "## Input", "## Output").
        if not any(is_scaffolding(sentence) and heading_words(sentence) not in SCAFFOLD_HEADINGS
                   for line in rest.splitlines() if line.strip() and not _ANY_HEADING_RE.match(line)
                   for sentence in sentences(line)):
            return None
        typed = [line for line in kept if line.strip() and not is_scaffolding(line)]
        return "\n".join(typed).strip()
    return None
