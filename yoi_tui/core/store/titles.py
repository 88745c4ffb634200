"""What a record's title is: a short imperative sentence of what was asked or decided.

Owns the cleaning every title gets before it is written, whoever made it (Phase 1's rules, an older
staging file, a model): a leading heading mark, bullet, "Implement the following plan:", a
"Plan:"/"Feature:"/"feat(ui):" label, a ticket id ("ABC-123:", "[ABC-123]", "#123:"), a polite
opener ("Please", "Can you", "Ok now", "Ultrathink and") and a "Re:" are taken off the front; a
"Fix:"/"Bug fix:" label becomes the verb "Fix" unless what follows starts with a verb of its own
(``Fix: confirm the eval still works`` → ``Confirm the eval still works``); trailing punctuation,
an unbalanced bracket or quote and a dangling function word ("of the", "and") are taken off the
end; the first letter is capitalised unless the title opens with a command (``git push``).

A title is **never cut inside a word**: ``fit`` shortens at whitespace only, so every word of a
title is a whole word of what it was made from (the tests check this for any input).
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_TITLE = 100  # characters: what a title may hold at most

# Labels in front of a title that say what kind of text it was, not what it asks.
_PLAN_RE = re.compile(r"^(?:please\s+)?(?:implement|execute|carry out|follow|apply)\s+(?:the|this)\s+(?:following\s+)?"
                      r"plan\b\s*:?\s*", re.IGNORECASE)
_FIX_LABEL_RE = re.compile(r"^(?:bug\s*fix|hot\s*fix|bugfix|hotfix|fix|bug)(?:\([^)\s]{0,40}\))?\s*[:—–]\s*",
                           re.IGNORECASE)
_LABEL_RE = re.compile(r"^(?:(?:implementation\s+)?plan|proposal|feature|feat|task|todo|chore|docs?|refactor|perf|"
                       r"style|build|ci|test|tests|wip|note|request|story|epic|spike|issue|ticket|re|fw|fwd|"
                       r"summary|goal|objective|remember|reminder|important|nb|ps)(?:\([^)\s]{0,40}\))?\s*[:—–]\s*",
                       re.IGNORECASE)
_TICKET_RE = re.compile(r"^(?:\[[A-Za-z][A-Za-z0-9]*-\d+\]|\(?[A-Z][A-Z0-9]+-\d+\)?\s*[:—–-]|#\d+\s*[:—–-])\s*")
# An ellipsis or a lone dot before a space is a mark too ("... please fix it"); a dot before a word
# is not (".env", "./run.sh").
_MARK_RE = re.compile(r"^(?:#{1,6}(?=\s)|\[[ xX]?\](?=\s)|[-*+•>◦▪_]+(?=\s)|\d{1,2}[.)](?=\s)|\.+(?=\s)|"
                      r"[^\w\s`\"'(\[@#/.~$-]+)\s*")
_POLITE_RE = re.compile(
    r"^(?:please|pls|plz|kindly|can you|could you|would you|will you|can u|could u|i want you to|i'd like you to|"
    r"i would like you to|i need you to|i'd love you to|let's|lets|ok(?:ay)?|now|then|also|and|so|hey|hi|hello|"
    r"great|cool|alright|next|ultrathink|think hard(?:er)?|yes|yeah|sure|right|well|oh|ah|hmm+|btw|fyi)"
    r"(?=[\s,!:;]|[.](?:\s|$)|$)[\s,!.:;]*", re.IGNORECASE)
_LONE_QUOTE_RE = re.compile(r"(?:(?<=\s)|^)['’‘`\"“”](?=\s|$)")  # a quote mark standing alone between spaces
_EMPHASIS_EDGE_RE = re.compile(r"(?<!\w)(?:\*\*|__)|(?:\*\*|__)(?!\w)")  # **Bold** marks at a word's edge
_TAIL_CHARS = " \t.,;:!?…-—–/\\|=*&^~_<([{"
STOP_TAIL = {"the", "a", "an", "of", "to", "in", "on", "for", "with", "and", "or", "that", "which", "is", "are", "by",
             "at", "from", "as", "into", "it", "its", "it's", "this", "so", "but", "if", "when", "be", "we", "i", "you",
             "who", "was", "were", "not", "no", "my", "our", "your", "their", "then", "up", "out", "also", "please",
             "like", "than", "can", "will", "would", "should", "could", "just", "very", "e.g", "i.e", "etc", "via",
             "whether", "because", "since", "about", "some", "any", "all", "more", "me", "us", "them", "these", "those",
             "rather"}
# Words that dangle only at the end of a title that was shortened ("… the existing voice system through"):
# a title the user said whole may end on them ("Walk me through").
CUT_TAIL = {"through", "over", "across", "between", "within", "without", "after", "before", "under", "using", "toward",
            "towards", "around", "against", "among", "along", "onto", "upon", "until", "while", "where", "how", "what",
            "whose", "instead", "inside", "outside", "beyond", "during", "per", "except", "unless", "although"}
_PARTICLES = {"up", "out", "down", "off", "back", "over", "through", "away"}
_IN_ON_VERBS = {"log", "sign", "check", "plug", "opt", "turn", "switch", "zoom", "hand", "fill", "carry", "move"}
# An object pronoun keeps its verb company when the verb would be left alone ("Fix it", "… to run this").
_OBJECT_PRONOUNS = {"it", "this", "that", "them", "these", "those", "me", "us"}
# A first word that is a command keeps its case ("git push ..."), unless English follows ("make a ...").
COMMAND_WORDS = {"cd", "git", "npm", "pnpm", "yarn", "ls", "make", "mix", "cargo", "pip", "uv", "docker", "kubectl",
                 "gh", "bd", "yoi", "pytest", "python", "node", "bun", "npx", "mise", "rg", "go"}
_ENGLISH_AFTER = {"a", "an", "the", "it", "this", "that", "these", "those", "some", "sure", "me", "us", "them", "another",
                  "all", "every", "my", "our", "your", "its", "their", "one", "two", "more", "no", "any", "each", "to",
                  "home", "ahead", "back", "on", "through", "over", "into", "further", "up"}
# Words an instruction opens with (what a "Fix:" label may already be followed by).
IMPERATIVE_VERBS = frozenset("""
add address adjust align allow analyse analyze apply ask audit avoid bump build bundle call cancel capture change check
choose clarify clean clear close collect combine commit compare complete configure confirm connect convert copy correct
create cut debug decide declare define delete deploy describe design detect disable document drop edit enable ensure
exclude execute expand explain explore export expose extend extract figure find finish fix follow format generate get
give group guard handle hide implement import improve include increase inline inspect install integrate introduce
investigate keep kill launch let limit link list load lock log look make mark measure merge migrate mock modify move
name normalise normalize open optimise optimize output parse pass pick pin port prefer prepare prevent print propagate
protect prune publish pull push put raise read rebase rebuild record reduce refactor refresh register reload remove
rename reorder repair replace report reproduce request require reset resolve restart restore restructure retry return
reuse revert review rewrite run save scaffold search select send set setup share show simplify skip sort speed split
squash start stop store strip support switch sync take tell test tidy trace track translate trim try turn tweak undo
unify update upgrade use validate verify wait wire word wrap write
""".split())


_BOX_RE = re.compile(r"[\u2500-\u259f]+(?:\s*[.,;:]?(?=\s*[\u2500-\u259f]))?")


def without_box_drawing(text: str) -> str:
    """``text`` without box-drawing characters: the frame of a terminal's input box pasted with
    the prompt ("take Phase 2 to PR   │ │ with …")."""
    if not any("\u2500" <= ch <= "\u259f" for ch in text):
        return text
    return one_line(_BOX_RE.sub(" ", text))


def starts_with_verb(text: str) -> bool:
    """Whether ``text`` opens with an instruction verb ("confirm the eval works", "Add a retry")."""
    first = text.split(" ", 1)[0].lower().strip(",.;:!?") if text.strip() else ""
    return first in IMPERATIVE_VERBS


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def fit(text: str, limit: int = MAX_TITLE) -> str:
    """``text`` (one line) in at most ``limit`` characters, shortened at whitespace only; a first
    word longer than ``limit`` is kept whole (a title is never cut inside a word)."""
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit + 1]
    if " " not in cut:
        return flat.split(" ", 1)[0]
    return cut[: cut.rfind(" ")].rstrip()


def _balanced(text: str) -> str:
    """``text`` without a trailing unbalanced bracket part or an unpaired quote or code mark."""
    for opening, closing in ("()", "[]", "{}"):
        while text.count(opening) > text.count(closing) and opening in text:
            head = text[: text.rfind(opening)].rstrip()
            if not head:
                text = text.replace(opening, " ", 1).strip()
                break
            text = head
        while text.count(closing) > text.count(opening) and text.endswith(closing):
            text = text[:-1].rstrip()
    for mark in ("`", '"'):
        if text.count(mark) % 2:  # the unpaired one (a space in its place: no two words become one)
            position = text.rfind(mark)
            text = one_line(text[:position] + " " + text[position + 1:])
    if text.count("“") != text.count("”"):
        text = one_line(text.replace("“", " ").replace("”", " "))
    return text


def _dangles(words: list[str], cut: bool) -> bool:
    """Whether the last of ``words`` dangles: a function word (or, in a shortened title, a
    preposition), but not an object pronoun right after an instruction verb ("Fix it")."""
    last = words[-1].lower().strip(",;:.!?")
    before = words[-2].lower().strip(",;:")
    if (last in _OBJECT_PRONOUNS and before in IMPERATIVE_VERBS
            and (len(words) == 2 or words[-3].lower() == "to")):
        return False  # "Fix it", "… to run this"; "… and merge this" reads whole without it
    if (last in _PARTICLES or (last in {"in", "on"} and before in _IN_ON_VERBS)) and (before in IMPERATIVE_VERBS or (
            before in _OBJECT_PRONOUNS and len(words) > 2 and words[-3].lower() in IMPERATIVE_VERBS)):
        return False  # a phrasal verb's particle: "Wrap up", "Set it up"
    return last in STOP_TAIL or (cut and last in CUT_TAIL)


def _strip_tail(text: str, *, cut: bool = False, question: bool = False) -> str:
    """Trailing punctuation and dangling function words off the end, until nothing changes;
    ``cut``: the text was shortened, so a preposition at its end lost its object too; ``question``:
    a whole question, whose last words never dangle ("Which environment am I in?"): punctuation only."""
    while True:
        before = text
        text = text.rstrip(_TAIL_CHARS).rstrip()
        text = _balanced(text)
        words = text.split()
        while not question and len(words) > 1 and _dangles(words, cut):
            words.pop()
        text = " ".join(words)
        if len(text) > 1 and text[-1] in "'’" and text.count(text[-1]) % 2 and not re.search(r"\w'$", text[-3:]):
            text = text[:-1]
        if text == before:
            return text


def strip_front(text: str) -> tuple[str, bool]:
    """``text`` without the labels, marks, ticket ids and polite openers in front of it; and whether
    one of them was a "Fix:" label (what follows is then a fix)."""
    fix = False
    while True:
        before = text
        text = text.lstrip()
        for pattern in (_PLAN_RE, _TICKET_RE, _LABEL_RE, _MARK_RE, _POLITE_RE):
            text = pattern.sub("", text, count=1)
        for opening, closing in ("()", "[]", "{}"):  # an opening bracket never closed: debris ("( Please")
            if text.startswith(opening) and text.count(opening) > text.count(closing):
                text = text[1:]
        for mark in ("`", '"'):  # an unpaired code mark or quote in front: debris too ("` Please")
            if text.startswith(mark) and text.count(mark) % 2:
                text = text[1:]
        fixed = _FIX_LABEL_RE.sub("", text, count=1)
        if fixed != text:
            fix, text = True, fixed
        if text == before:
            return text, fix


def capitalise(title: str) -> str:
    """The first letter upper case, unless the title opens with a command (``git push``, ``make test``)."""
    words = title.split(" ", 2)
    first = words[0]
    if first in COMMAND_WORDS and not (len(words) > 1 and words[1].lower() in _ENGLISH_AFTER):
        return title
    return title[:1].upper() + title[1:]


def clean_title(text: str, *, is_instruction: Callable[[str], bool] = starts_with_verb, limit: int = MAX_TITLE) -> str:
    """``text`` as a record title (see the module docstring). ``is_instruction`` says whether what
    follows a "Fix:" label is an instruction already (then the label goes, else it becomes "Fix").
    An input with nothing left after cleaning keeps its own words (never an empty title)."""
    flat = one_line(_EMPHASIS_EDGE_RE.sub("", one_line(without_box_drawing(text))).replace("**", " ").replace("__", " "))
    flat = one_line(_LONE_QUOTE_RE.sub(" ", flat))  # "we dont need this ' recovery-help.md": a quote of nothing
    body, fix = strip_front(flat)
    # A whole question asked (not "Can you add a retry?"): its last words never dangle ("am I in?").
    question = body.rstrip().endswith("?") and len(one_line(body)) <= limit and not starts_with_verb(body)
    while True:  # the end's cleaning can bare a new front (an unpaired "`" taken out), and back
        before = body
        shortened = fit(body, limit)
        body, more = strip_front(_strip_tail(shortened, cut=shortened != one_line(body), question=question))
        fix = fix or more
        if body == before:
            break
    if fix and body and not is_instruction(body):
        rest = body if body[:2].isupper() or body.split(" ", 1)[0] in COMMAND_WORDS else body[:1].lower() + body[1:]
        body = _strip_tail(fit(f"Fix {rest}", limit))
    if not body:
        body = fit(" ".join(re.findall(r"[^\W_]+(?:['’.-][^\W_]+)*", flat)), limit) or "Untitled"  # a label alone: its words
    return capitalise(body)


# A first-person opener of a stated choice ("I believe we should keep …", "I'll use …").
_FIRST_PERSON_RE = re.compile(
    r"^(?:(?:i|we)\s+(?:believe|think|guess|feel|agree|suggest|propose|recommend)\s+(?:that\s+)?(?:we|i|you)\s+"
    r"(?:should|could|can|will|would|need\s+to|must)\s+|(?:i|we)\s+(?:should|will|would|could|can|must|need\s+to|"
    r"want\s+to|plan\s+to|decided\s+to|chose\s+to|opted\s+to|am\s+going\s+to|are\s+going\s+to|'m\s+going\s+to|"
    r"'re\s+going\s+to)\s+|(?:i|we)'(?:ll|d)\s+|i'm\s+going\s+to\s+|we're\s+going\s+to\s+|let\s+me\s+|let's\s+)",
    re.IGNORECASE)
# A reason inside a title ("Keep the doctor command as it serves …", "… because …").
_REASON_RE = re.compile(r"\s+(?:because|since|so\s+that|as\s+(?:it|this|that|they)\s+\w{3,}s)\b.*$", re.IGNORECASE)
# A gerund's verdict after it ("Keeping the explicit flag is clearer"): the reason, not the choice.
_VERDICT_TAIL_RE = re.compile(r"\s+(?:is|are|was|would\s+be|will\s+be|seems|feels|looks)\s+(?:much\s+|a\s+bit\s+|"
                              r"far\s+|way\s+)?(?:the\s+)?(?:\w+er|\w+est|better|best|worse|safer|simpler|"
                              r"cleaner|clearer|easier|fine|enough|ok(?:ay)?|right|correct|preferable|"
                              r"more\s+\w+|less\s+\w+)\b.*$", re.IGNORECASE)


def _imperative(word: str) -> str | None:
    """The instruction verb a gerund stands for ("Making" → "Make", "Using" → "Use", "Running" →
    "Run"), or None when it stands for none of them."""
    low = word.lower()
    if not low.endswith("ing") or len(low) < 6:
        return None
    stem = low[:-3]
    for verb in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb in IMPERATIVE_VERBS:
            return verb
    return None


# A question's header with the user's answer after it ("Voice system - Yes, we'll use the existing
# voice system …"): the answer is the choice, the header only what it is about.
_ANSWERED_RE = re.compile(r"^[^\W\d_][\w /&+.'-]{0,40}?\s+[-—–:]\s+(?:yes|yeah|yep|sure|ok(?:ay)?|no|nope)\b[,.!:;]?\s+"
                          r"(?P<rest>\S.*)$", re.IGNORECASE)


# A choice named as a noun phrase: "X instead of Y" (what is used), "Merge conflict in X" (how it was resolved).
_INSTEAD_RE = re.compile(r"^[^\s].{0,60}?\s+(?:instead\s+of|rather\s+than|over)\s+\S", re.IGNORECASE)
_BE_WORDS = {"is", "are", "was", "were", "be", "been", "will", "would", "should", "can", "could", "must", "may"}
_CONFLICT_RE = re.compile(r"^(?:merge|rebase)\s+conflicts?\s+in\s+", re.IGNORECASE)


def decision_title(text: str, limit: int = MAX_TITLE) -> str:
    """A decision's title as what was chosen, said as an instruction: a question's header and a
    "Yes," in front of the answer off ("Voice system - Yes, we'll use …" → "Use …"), a first-person
    opener off the front ("I believe we should keep X" → "Keep X"), a gerund made the verb
    ("Making it …" → "Make it …"), a reason clause off the end; then ``clean_title``."""
    flat = one_line(text)
    answered = _ANSWERED_RE.match(flat)
    if answered and len(answered["rest"].split()) >= 2:
        flat = answered["rest"]
    flat = _CONFLICT_RE.sub("Resolve the merge conflict in ", flat, count=1)
    first = flat.split(" ", 1)[0]
    third = first.lower()
    rest = flat.split()[1:]
    # a verb in the third person with its object after it (not "Tests pass in CI", a subject and its verb)
    verb_s = next((v for v in (third[:-1], third[:-2]) if third.endswith("s") and v in IMPERATIVE_VERBS
                   and len(rest) >= 2 and rest[0].lower() not in IMPERATIVE_VERBS | _BE_WORDS), "")
    if verb_s:  # "Uses the identify endpoint …": the instruction "Use the identify endpoint …"
        flat = verb_s + flat[len(first):]
    elif (_INSTEAD_RE.match(flat) and not starts_with_verb(flat) and not _FIRST_PERSON_RE.match(flat)
            and not first.lower().endswith("ing")):
        # "homebrew_casks instead of brews": the one used (an identifier keeps its own case)
        flat = f"Use {first[:1].lower() + first[1:] if '_' in first and first[1:].islower() else first}{flat[len(first):]}"
    body = _FIRST_PERSON_RE.sub("", flat, count=1)
    if body != flat and not re.search(r"[^\W_]", body):
        body = flat
    words = body.split(" ", 1)
    verb = _imperative(words[0]) if words and words[0] else None
    if verb:
        body = verb + (" " + words[1] if len(words) > 1 else "")
        said = _VERDICT_TAIL_RE.sub("", body)
        body = said if len(said.split()) >= 2 else body
    head = _REASON_RE.sub("", body)
    if len(head.split()) >= 2:
        body = head
    return clean_title(body, limit=limit)


_SIGNAL_RE = re.compile(r"(?:^|\s)(?:now|please|so please|then|just|(?:with|for|to)\s+you|"
                        r"(?:you|we)\s+(?:need|have|ought)\s+to|you\s+(?:should|must))\s+(?=(\w+)\b)"
                        r"|^(?:as\s+per|per|following|according\s+to|based\s+on|see)\s+\S+[,:]?\s+(?=(\w+)\b)",
                        re.IGNORECASE)


def embedded_instruction(sentence: str) -> str:
    """The instruction inside a sentence that opens otherwise ("I came from the future … now add
    another section …" → "add another section …", "As per <link> take Phase 2 to PR" → "take Phase 2
    to PR"): the words from an instruction verb that follows "now", "please", "then", "with you" or
    a leading reference ("as per X", "following X"), or "you need to" / "you should" ("I think you
    need to confirm the entry points" → "confirm the entry points"); "" when there is none."""
    flat = one_line(sentence)
    for match in _SIGNAL_RE.finditer(flat):
        if (match.group(1) or match.group(2)).lower() in IMPERATIVE_VERBS:
            return flat[match.end():]
    return ""


def _words_of(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[^\W_]+(?:['’.-][^\W_]+)*", text)]


_CUT_PROBE = 4  # the last words of a title looked for in the text it was cut from


def trim_cut(title: str, *texts: str) -> str:
    """``title`` without the prepositions it ends on when it is a piece of one of ``texts`` cut
    before their object ("… the existing voice announcement system through" of "… system through the
    speaker"); as it is when it ends where the text it came from ends, or is no piece of it."""
    words = title.split()
    tail = _words_of(" ".join(words[-_CUT_PROBE:]))
    if len(words) <= 2 or not tail or words[-1].lower().strip(",;:.!?") not in CUT_TAIL:
        return title
    for said in (_words_of(s) for text in texts for s in re.split(r"[.!?;:](?:\s|$)", one_line(text))):
        for at in range(len(said) - len(tail)):
            if said[at: at + len(tail)] == tail:  # found, and the text goes on after it: it was cut
                while len(words) > 2 and words[-1].lower().strip(",;:.!?") in CUT_TAIL | STOP_TAIL:
                    words.pop()
                return " ".join(words).rstrip(_TAIL_CHARS)
    return title
