"""User requests, as the rules extractor reads them.

A typed user message is a request unless it is a question (it becomes a discussion), a greeting or
acknowledgement, pasted code or output with no sentence of its own, harness text, or a **correction**:
a short message right after the user interrupted the agent or refused a call, or one opening with
"not"/"no,"/"actually"/"instead"/"I meant"... refines the request before it (its summary and range
grow) rather than starting a new one; so does a short answer to the agent's question ("option 2"),
unless it is itself an instruction. A reply accepting the agent's proposal ("Sure, put it in
test-secrets."), a bare follow-up with no verb ("origin/main") and a prompt sent again word for word
(after a hook blocked it) refine the request before it too. "Can you add X?" and "move X?" are
instructions with a question mark, so requests, not questions. A turn asking to remember something
("Yes, and remember that for the future") is a request carrying what it points at
(``rules_remember``).

Intent and target are read from the directive sentence — the first sentence that tells the agent
what to do ("We should use the initials from the username" after a problem statement), never from a
code block or a temporary path; a problem statement alone ("mix phx.server doesnt seem to start")
is a ``fix``. The title is that sentence, short and imperative (``text.short_title``).
"""

from __future__ import annotations

import re

from ..sessions.model import Entry
from ..store import prompt_template
from ..store.staging import Request
from ..store.titles import clean_title, strip_front
from .rules_remember import asks_to_remember, remember_request
from .text import (
    TEMP_PATH_RE,
    prose,
    refusals_in,
    report_of,
    sentences,
    short_title,
    squash,
    strip_polite,
    summary_of,
)

MAX_SUMMARY = 300  # characters of what was asked (whole sentences)
MAX_DONE = 240  # characters of what the agent reported it did
_TRIVIAL = {"ok", "okay", "yes", "y", "no", "n", "thanks", "thank you", "thx", "ty", "continue", "go on", "go ahead",
            "proceed", "sure", "great", "perfect", "nice", "lgtm", "done", "k", "yep", "yup", "nope", "cool",
            "good", "awesome", "hi", "hello", "hey", "sounds good", "looks good", "do it", "keep going"}
_GREETING_RE = re.compile(r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|cheers)\b[\s!,.]*"
                          r"(?:there|claude|codex|again|so much|a lot)?[\s!.]*$", re.IGNORECASE)
_REDACTED_RE = re.compile(r"^\[REDACTED_[A-Z]+ len=\d+ sha=[0-9a-f]+\]$")
# Harness text posing as a user line: notifications, command echoes, and the note Claude Code writes
# when a UserPromptSubmit hook blocks the prompt ("Operation stopped by hook: ...").
_HARNESS_RE = re.compile(r"^\s*(?:<(?:task-notification|command-message|command-name|bash-input|bash-stdout|bash-stderr|"
                         r"user-prompt-submit-hook|system-reminder|local-command-std(?:out|err)|environment_context|"
                         r"user_instructions|turn_aborted)|operation stopped by hook:|\[request interrupted by user|"
                         r"[\w:]+ hook (?:feedback|blocking error|error)\b|caveat: the messages below were generated|"
                         r"# agents\.md instructions for |this session is being continued from a previous conversation|"
                         r"your task is to create a detailed summary of the conversation|"
                         r"base directory for this skill:|full transcript available at:|"
                         r"read the output file to retrieve the result:)", re.IGNORECASE)
# A block the harness wraps in a tag of its own (``<task-notification>``, ``<bash-notification>``,
# ``<user_shell_command>``, ``<turn_aborted>``, a newer version's tag): a lowercase name with a "-"
# or "_" in it (no HTML tag has one), opening a line and closed by its own closing tag. A user's
# words are what is left around such blocks; none of it is theirs.
_TAG_BLOCK_RE = re.compile(r"^[ \t]*<(?P<tag>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^<>\n]*)?>.*?</(?P=tag)>[ \t]*$",
                           re.DOTALL | re.MULTILINE)


def without_harness_blocks(text: str) -> str:
    """``text`` without the blocks a harness wrapped in its own tags (``_TAG_BLOCK_RE``)."""
    if "</" not in text:  # a plain test before the regex: most messages carry no closing tag
        return text
    return _TAG_BLOCK_RE.sub("", text).strip()
# Accepting what the agent proposed, then saying how: "Sure, put it in test-secrets.", "yeah merge from main".
_ACCEPT_RE = re.compile(r"^(?:sure|yes|yeah|yep|yup|ok(?:ay)?|alright|fine|right|correct|exactly|agreed)\b[\s,.!:-]+\S",
                        re.IGNORECASE)
# Talking about something rather than asking for work: "Let's talk about secrets."
_CHAT_RE = re.compile(r"^(?:let'?s|can we|could we|i'?d like to|i want to)\s+(?:talk|chat|discuss|brainstorm|think)\b",
                      re.IGNORECASE)
# A pasted terminal: each line a command the user ran or what it printed ("brew tap ...", "Error: ...").
_OUTPUT_LINE_RE = re.compile(r"^(?:\s+\S|(?:error|fatal|warning|usage|hint|note|failed|info|debug)\b\W|[!=<>|~+*•⨯✓✗-]{1,3}\s|"
                             r"\S+:\d+(?::\d+)?:)", re.IGNORECASE)
_SHELL_WORDS = {"brew", "git", "npm", "pnpm", "yarn", "npx", "make", "mix", "cargo", "pip", "uv", "docker", "kubectl",
                "gh", "go", "python", "python3", "node", "bun", "deno", "mise", "just", "curl", "ssh", "sudo", "ls",
                "cd", "cat", "rm", "mv", "cp", "bash", "sh", "zsh", "pytest", "ruby", "rails", "bundle", "terraform"}
_ASK_TO_RE = re.compile(r"^(?:(?:can|could|would|will) you|can we|could we)\s+(?:(?:please|also|just|maybe|now)\s+)*",
                        re.IGNORECASE)
# "Is there a way to avoid that?": asking for the work, as "can you avoid that?" does.
_WAY_TO_RE = re.compile(r"^(?:is there (?:a|any) way to|any way to|is it possible to)\s+", re.IGNORECASE)
# Asked with a question mark but answered by talking, not by doing: "can you explain why ...?".
_TALK_VERBS = {"explain", "describe", "tell", "summarize", "summarise", "compare"}
_CORRECTION_RE = re.compile(r"^(?:not\b|no[,.!]|no\s+(?:not|the|it|that|this|i|we|you)\b|nope|actually|instead|"
                            r"rather|i meant|i mean|that's not|thats not|that is not|wrong|completely|only|just\b|"
                            r"don't|dont|do not|stop|undo|revert that|wait)", re.IGNORECASE)
# A correction with no instruction verb of its own ("it should be included into constant", "this isn't
# needed"), said after the agent acted: it refines the request it corrects (the decision is rules_evidence's).
_SHOULD_BE_RE = re.compile(r"\b(?:it|this|that|they|these|those|the \w+) should(?:n'?t| not)? (?:be|use|go|live|stay|"
                           r"come|have)\b|\b(?:is|are|was)(?:n'?t| not) (?:needed|necessary|required|wanted)\b",
                           re.IGNORECASE)
# The user reporting back on the work (a result, their setup), not asking for new work: "This is what
# I got: …", "OK, this worked: …", "I'm on Ubuntu 22.04." With no instruction of its own it refines the
# request (a new problem, "I tried X and it exited immediately", is a request of its own).
_REPORT_RE = re.compile(r"^(?:ok(?:ay)?[,!.]?\s+|thanks[,!.]?\s+)?(?:(?:this|that|it|here)(?:'s| is| was)? (?:what i (?:got|get|see)|"
                        r"(?:now )?works?|worked|(?:the )?output)|i(?:'m| am) (?:on|using|running)\b)",
                        re.IGNORECASE)
_QUESTION_START_RE = re.compile(r"^(?:what|why|how|where|when|which|who|whose|is|are|does|do|did|can|could|should|"
                                r"would|will|was|were|has|have|isn't|aren't|doesn't)\b", re.IGNORECASE)
_DIRECTIVE_RE = re.compile(r"^(?:we|you|i)\s+(?:do\s+|really\s+|also\s+)*(?:should|need to|must|have to|want to|"
                           r"want you to|'d like to|would like to|'d like you to|would like you to)(?:\s+also)?\s+",
                           re.IGNORECASE)
# A condition before the instruction: "if my api key is X give me the build command".
_CONDITION_RE = re.compile(r"^(?:if|when|once|since|because|as|after|before)\b", re.IGNORECASE)
_PROBLEM_RE = re.compile(r"\b(?:doesn'?t|does not|don'?t|isn'?t|is not|won'?t|can'?t|cannot|not working|broken|"
                         r"fails?|failing|failed|error|crash(?:es|ed)?|still|wrong|says|shows|missing|bug)\b",
                         re.IGNORECASE)
INTENTS: list[tuple[str, tuple[str, ...]]] = [
    ("add", ("add", "create", "implement", "make", "build", "write", "introduce", "generate", "scaffold", "set up",
             "setup", "support", "allow", "enable", "include", "extend")),
    ("fix", ("fix", "repair", "resolve", "debug", "solve", "correct", "handle", "avoid", "prevent")),
    ("remove", ("remove", "delete", "drop", "get rid", "clean up", "cleanup", "disable", "strip")),
    ("change", ("move", "rename", "refactor", "change", "update", "replace", "give", "set", "use", "switch",
                "convert", "migrate", "port", "improve", "rewrite", "modify", "tweak", "adjust", "increase",
                "decrease", "reduce", "simplify", "split", "merge", "upgrade", "bump", "restructure", "reorder",
                "align", "center", "style", "format", "translate", "link", "mention")),
    ("run", ("run", "execute", "start", "launch", "cd", "install", "deploy", "commit", "push", "test", "build and",
             "restart", "stop", "kill", "release", "publish", "export", "import", "dump", "save", "upload",
             "download", "fetch", "send", "sync", "backup", "back up", "restore")),
    ("continue", ("finish", "complete", "continue", "resume", "work on", "keep working", "pick up", "proceed with",
                  "carry on")),
    ("review", ("review", "check", "confirm", "ensure", "look", "analyze", "analyse", "investigate", "find", "search", "websearch", "read",
                "summarize", "summarise", "list", "show", "explain", "document", "describe", "compare", "explore",
                "audit", "verify", "trace", "figure out")),
]
_PATH_RE = re.compile(r"@?((?:[\w.-]+/)*[\w.-]+\.[A-Za-z][\w]{0,5})\b")
_CODE_RE = re.compile(r"`([^`\n]{1,60})`")
_IDENT_RE = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+_[a-z_]+[a-z])\b")
_TRAILING_PARTICLES = {"up", "down", "just", "also", "back", "out", "over", "away", "here", "there", "now", "again",
                       "too", "please", "right", "only", "even"}
_OBJECT_STOP = {"to", "in", "into", "on", "for", "from", "with", "so", "because", "when", "where", "which", "that",
                "if", "by", "at", "as", "and", "but", "then", "like", "after", "before", "without"}


def is_trivial(text: str) -> bool:
    flat = text.strip().lower().strip(".!?")
    return (not flat or flat in _TRIVIAL or len(flat) < 4 or bool(_REDACTED_RE.match(text.strip()))
            or bool(_GREETING_RE.match(text.strip())) or bool(_HARNESS_RE.match(text)))


def is_question(text: str) -> bool:
    """A question and nothing more (a directive after the question mark makes it a request)."""
    parts = sentences(prose(text))
    if not parts:
        return False
    last = parts[-1].rstrip()
    if last.endswith("?"):
        return not _instruction_question(last)
    if re.match(r"^do (?:it|this|that|so|both|all)\b", strip_polite(last), re.IGNORECASE):
        return False  # "do it": an instruction, not a question
    return len(parts) == 1 and bool(_QUESTION_START_RE.match(strip_polite(last))) and not _verb(last)


def _instruction_question(sentence: str) -> bool:
    """An instruction with a question mark: "can you add a retry?", "move the message up?", a
    problem then "…, is there a way to avoid that?" (the last clause asks for the work)."""
    body = sentence.rstrip(" ?")
    clause = re.split(r",\s+", body)[-1]
    if clause is not body and _WAY_TO_RE.match(clause):
        body = clause
    body = _WAY_TO_RE.sub("can you ", body)
    asked = _ASK_TO_RE.match(body)
    if asked is None and _QUESTION_START_RE.match(body):
        return False  # "is it ...?", "does it ...?"
    found = _verb(body[asked.end():] if asked else body)
    return found is not None and found[1] not in _TALK_VERBS


# A compiler's or linter's diagnostic line: `README.md(46,1): warning InvalidFileLink: …` (MSBuild,
# DocFX), `src/a.ts:3:7: error …`.
_DIAGNOSTIC_LINE_RE = re.compile(r"^\s*\S+?(?:\(\d+(?:,\d+)?\)|:\d+(?::\d+)?):?\s*(?:warning|error|note)\b",
                                 re.IGNORECASE)


def pasted_diagnostics(text: str) -> bool:
    """Only a tool's diagnostic lines pasted, no sentence of the user's own (the warnings the user was
    asked to paste, or announced in the message before)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return bool(lines) and all(_DIAGNOSTIC_LINE_RE.match(line) for line in lines)


def pasted_terminal(text: str) -> bool:
    """Output pasted with no sentence of the user's own: a shell command line, then only what it
    printed (error/warning lines, indented or marker lines) or more command lines."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2 or lines[0].split()[0].lstrip("$").lower() not in _SHELL_WORDS:
        return False
    return all(_OUTPUT_LINE_RE.match(line) or line.split()[0].lstrip("$").lower() in _SHELL_WORDS for line in lines[1:])


_RESUME = {"continue", "go on", "keep going", "resume", "carry on", "proceed", "please continue"}
_YES = {"yes", "y", "ok", "okay", "sure", "yep", "yup", "yeah", "do it", "go ahead", "sounds good", "looks good", "lgtm",
        "proceed", "go for it", "perfect", "great", "agreed", "please do", "let's do it", "lets do it", "ship it"}


def accepts(text: str) -> bool:
    """The user's reply agrees to what the agent proposed ("do it", "Sure, put it in test-secrets.")."""
    flat = prose(text).strip().lower().rstrip(".!")
    return flat in _YES or bool(_ACCEPT_RE.match(prose(text).strip()))


_STOP_WORDS = {"the", "a", "an", "it", "is", "to", "of", "in", "on", "and", "or", "this", "that", "be", "not", "no",
               "do", "please", "just", "now", "so", "for", "with", "right", "code", "instead"}


def shares_subject(body: str, other: str) -> bool:
    """``body`` is about what ``other`` is about (a content word in common)."""
    def words(text: str) -> set[str]:
        return {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9_.-]{2,}", text.lower())} - _STOP_WORDS
    return bool(words(body) & words(other))


def _shares_subject(body: str, previous: Request) -> bool:
    """The message is about what the previous request was about."""
    return shares_subject(body, f"{previous.summary} {previous.target}")


# The agent asked or proposed something the user's next message can accept.
_PROPOSAL_RE = re.compile(r"\?(?:\s|$)|\b(?:let me know|would you like|shall i|should i|do you want|want me to|i'?d (?:recommend|suggest)|"
                          r"i (?:recommend|suggest)|(?:cleaner|better|simpler|safer) (?:approach|option|way))\b",
                          re.IGNORECASE)


def _takes_up_offer(body: str, said: str) -> bool:
    """``body`` ("yes, please create a detailed plan …") does what the agent's offer ("Should I create a
    detailed plan for X?") said, by the offer's own verb."""
    offer = list(_OFFER_RE.finditer(prose(said)[-600:]))
    if not offer:
        return False
    offered = _verb(offer[-1].group("what"))
    mine = _verb(re.sub(r"^\W*\w+[\s,.!:-]+(?:please\s+)?", "", body))  # (the accepting word dropped)
    return offered is not None and mine is not None and offered[1] == mine[1]


def _refines_previous(body: str, previous: Request | None, said: str) -> bool:
    """A message that continues the request before it rather than starting one: accepting what the
    agent just proposed ("Ok ..." after a report of done work is a new request), a bare follow-up
    with no verb, or the same prompt sent again."""
    if previous is None:
        return False
    words = body.split()
    if len(words) <= 15 and _ACCEPT_RE.match(body) and bool(said) and bool(_PROPOSAL_RE.search(prose(said))):
        # "yes, please create the plan" to "Should I create a plan?": the offer taken up in its own
        # words is the go-ahead, a request of its own ("Sure, put it in X" answers a detail of it).
        return not _takes_up_offer(body, said)
    if len(words) <= 3 and _verb(body) is None and not body.rstrip().endswith("?") and not _DOCUMENT_RE.match(body.strip()):
        return True  # (a document's path alone is handed over to be followed: a run of its own)
    first = previous.summary.split(_REFINED)[0]  # the request as first typed
    return _same_words(body, first) or _same_words(summary_of(body, MAX_SUMMARY), first)


# The agent asking the user for something it needs: a question, or a plain ask ("Please share the
# email address to use", "I need your project ID", "let me know which environment").
_ASKS_FOR_RE = re.compile(r"\?|\b(?:please (?:provide|share|send|tell me|give me|paste|confirm|let me know)|let me know|"
                          r"(?:could|can|would) you (?:provide|share|send|tell me|give me|paste|confirm)|"
                          r"i (?:need|'ll need|will need) (?:your|the|a|an|to know))\b", re.IGNORECASE)
# A reply that hands over a value ("My email is …", "our project id is …", "It's the staging one",
# "the second one"): an answer, not an instruction.
_GIVES_RE = re.compile(r"^(?:(?:yes|yeah|yep|no|ok(?:ay)?|sure)[,.!]?\s+)?(?:(?:my|our)\s+\S+(?:\s+\S+){0,3}?\s+"
                       r"(?:is|are|=)\s+\S|(?:it'?s|it is|that'?s|that is|they'?re|they are)\s+\S|the\s+[\w-]+\s+one\b)",
                       re.IGNORECASE)


def answers_ask(body: str, said: str) -> bool:
    """The user's reply hands over what the agent just asked for ("My email is …" after "What email
    should I use for the commits?" or "Please share your email"): it refines the request the agent
    asked it for. A reply with an instruction sentence of its own, or telling a problem, is a request still."""
    flat = body.strip()
    if not said or len(flat.split()) > 25 or not _GIVES_RE.match(flat) or _PROBLEM_RE.search(flat) or "?" in flat:
        return False  # ("it's still broken": a report on the work, a request of its own)
    if _JUDGES_RE.match(flat) or re.search(r"\bbut\b", flat, re.IGNORECASE):
        return False  # "That's great, …", "It's good but …": a judgement of the work, not a value handed over
    if not _ASKS_FOR_RE.search(prose(said)[-400:]):
        return False
    clauses = [c for sentence in sentences(flat) for c in _CLAUSE_RE.split(sentence) if c.strip()]
    return all(_verb(_LEAD_RE.sub("", c.strip())) is None for c in clauses)


# An answer's clauses ("…, now add X", "… and use those") and the words that may lead an instruction in one.
_CLAUSE_RE = re.compile(r"[,;:]\s+|\s+(?:and|then|so)\s+", re.IGNORECASE)
_LEAD_RE = re.compile(r"^(?:(?:now|also|then|please|just|so|and)\s+)+", re.IGNORECASE)
_JUDGES_RE = re.compile(r"^(?:(?:yes|yeah|ok(?:ay)?)[,.!]?\s+)?(?:it'?s|it is|that'?s|that is|they'?re|they are)\s+"
                        r"(?:(?:really|very|so|all|looking|pretty)\s+)?(?:great|good|fine|perfect|nice|awesome|cool|"
                        r"better|right|correct|wrong|amazing|excellent|ok(?:ay)?|done|working|close)\b", re.IGNORECASE)


def names_nothing(body: str) -> bool:
    """One plain word that is no instruction ("Shell", "exit", "next"): it asks for nothing and
    names nothing a request could be about (a path, a branch, a number, an identifier would)."""
    word = body.strip().rstrip(".!")
    return word.isalpha() and _verb(word) is None


# A document given on its own (a prompt file, a spec, a checklist): the user hands it over to be
# followed, which a source file or a word on its own does not ask.
_DOCUMENT_RE = re.compile(r"^@?\S+\.(?:md|mdx|markdown|txt|rst|prompt)$", re.IGNORECASE)


def _no_instruction(body: str) -> bool:
    """At most two words and no instruction verb ("dark mode", "src/app/main.py"): with no request
    before it to continue, nothing was asked. A document's path alone is handed over to be followed."""
    flat = body.strip()
    return (len(flat.split()) <= 2 and _verb(flat) is None and not flat.endswith("?")
            and not _DOCUMENT_RE.match(flat))


def foreign(text: str) -> bool:
    """Most of the message's letters are outside the Latin script (a follow-up in Chinese, Japanese,
    Russian...): the English cues these rules read (a correction's "no,", "a bare follow-up with no
    verb", a word count) say nothing about it, so it is never folded into the request before it."""
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    other = sum(1 for c in text if c.isalpha() and not c.isascii() and not "\u00c0" <= c <= "\u024f")
    return other > latin


def _picks_option(body: str, said: str) -> bool:
    """The user's reply names the option the agent's question offered by the option's own verb
    ("Would you like me to: 1. Simplify recently modified code 2. Simplify specific files …" →
    "Simplify the code added in this branch"): it answers the question, the same request."""
    if not said.rstrip().rstrip("*_`").endswith("?"):
        return False
    leads = {found[1] for line in said.splitlines()
             if (item := re.match(r"^\s*(?:\d+[.)]|[-*•])\s+(?:\*\*)?(?P<text>[^*\n]+)", line))
             and (found := _verb(item.group("text"))) is not None}
    mine = _verb(body)
    return mine is not None and mine[1] in leads and len(body.split()) <= 12


def _same_words(one: str, other: str) -> bool:
    def norm(text: str) -> str:
        return " ".join(re.findall(r"[\w']+", text.lower()))
    return norm(one) == norm(other)


def instruction_verb(sentence: str) -> tuple[str, str] | None:
    """(intent, verb) when ``sentence`` starts with an instruction verb ("fix the test …"), else None."""
    return _verb(sentence)


_FRESH_COMMANDS = {"/clear", "/exit", "/quit", "/new", "/reset"}
_TRY_RE = re.compile(r"^(?:try|attempt) (?:to|and) (?=\w)", re.IGNORECASE)  # "I want to try to publish this": publish


def _verb(sentence: str) -> tuple[str, str] | None:
    """(intent, verb) when the sentence starts with an instruction verb."""
    lowered = strip_polite(sentence).lower()
    lowered = _TRY_RE.sub("", _DIRECTIVE_RE.sub("", lowered))
    for intent, verbs in INTENTS:
        for verb in verbs:
            if lowered == verb or re.match(rf"{re.escape(verb)}\b", lowered):
                return intent, verb
    return None


_LOWER_BREAK_RE = re.compile(r"(?<=[a-z0-9)]{3})[.!?]\s+(?=[a-z])|,\s+(?=please\s)")


def directive(text: str) -> tuple[str, str]:
    """(intent, sentence): the sentence that says what to do, and its intent. A problem stated before
    the instruction makes it a fix ("X still does not work? search for Y" is about fixing X)."""
    # Users rarely capitalise: "i've enabled entire. please push to pr" is two sentences.
    parts = [p for s in sentences(prose(text)) for p in _LOWER_BREAK_RE.split(s) if p.strip()]
    problem = ""
    for sentence in parts:
        if sentence.rstrip().endswith("?") and _instruction_question(sentence):
            lead, _, clause = sentence.rstrip(" ?").rpartition(", ")
            if lead and _WAY_TO_RE.match(clause):  # "there is X in Y, is there a way to avoid that?"
                found = _verb(_WAY_TO_RE.sub("", clause))
                if found is not None and found[0] == "fix":
                    return "fix", lead
                sentence = clause
            sentence = _ASK_TO_RE.sub("", _WAY_TO_RE.sub("", sentence.rstrip(" ?")))
        found = _verb(sentence) if not sentence.rstrip().endswith("?") else None
        if found is None and not sentence.rstrip().endswith("?"):
            asked = _asked_to(sentence)
            if asked is not None:
                return asked
            # A reason, then the instruction: "it's not needed, remove that configuration".
            # (A short statement only: "In the X branch, commit 5cf0 …" and "…, check <link>" are not.)
            for comma in re.finditer(r"[,;]\s+", sentence):
                lead, rest = sentence[:comma.start()].split(), sentence[comma.end():]
                if not lead or len(lead) > 5 or len(rest.split()) < 3 or lead[0].lower() in _OBJECT_STOP | {"since", "after"}:
                    break
                found = _verb(rest)
                if found is not None:
                    sentence = rest
                    break
        if found:
            if problem and found[0] in ("review", "other", "continue"):
                return "fix", problem
            intent = "fix" if problem and found[0] in ("change", "add") else found[0]
            return intent, _DIRECTIVE_RE.sub("", strip_polite(sentence))
        if not problem and _PROBLEM_RE.search(sentence):
            problem = re.sub(r"\s*\([^)]*\)?\??$", "", sentence).rstrip("?")
        conditional = _after_condition(sentence)
        if conditional is not None:
            return conditional
    if problem:
        return "fix", problem
    # No verb leads a sentence: the first that is not a question ("why did i ask about toml?" is the
    # user's aside; "it's not needed, remove that configuration" is what they want).
    plain = [p for p in parts if not p.rstrip().endswith("?")] or parts
    return "other", _DIRECTIVE_RE.sub("", strip_polite(plain[0])) if plain else text.strip()


_ASKED_RE = re.compile(r"^(?:please|pls|kindly|(?:can|could|would) you(?: please)?|i(?:'d| would) like (?:you )?to|"
                       r"i want you to|i need you to|we (?:should|need to|must)|you (?:should|need to|must))\s+"
                       r"(?P<verb>[a-z][a-z-]+)\b", re.IGNORECASE)
_NOT_VERBS = {"a", "an", "the", "it", "this", "that", "be", "have", "not", "also", "just", "really", "maybe", "me", "us",
              "all", "some", "any", "there", "here", "so", "very", "more", "much", "only", "still", "being"}


def _asked_to(sentence: str) -> tuple[str, str] | None:
    """(intent, instruction) for an instruction whose verb yoi does not know, asked politely or as
    what to do ("please confirm X", "I'd like to word the section better"): intent ``other``, the
    sentence from its verb on."""
    text = sentence.strip()
    match = _ASKED_RE.match(text)
    if match is None or match.group("verb").lower() in _NOT_VERBS:
        return None
    return "other", text[match.start("verb"):]


def _after_condition(sentence: str) -> tuple[str, str] | None:
    """The instruction after a leading condition ("if my api key is X, give me ..."), if any."""
    if not _CONDITION_RE.match(sentence):
        return None
    words = sentence.split()
    for position in range(2, len(words)):
        if sum(w.count('"') for w in words[:position]) % 2:
            continue  # inside a quotation ('if "entire session list" is sending "list" ...')
        rest = " ".join(words[position:])
        previous = words[position - 1].lower().strip(",")
        if previous in ("to", "i", "we", "you", "it", "is", "are", "be") and not words[position - 1].endswith(","):
            continue
        found = _verb(rest)
        if found:
            return found[0], rest
    return None


def _target(sentence: str, intent_verb: str | None) -> str:
    text = _CODE_RE.sub(lambda m: m.group(1), sentence)
    anchors: list[str] = []
    for path in _PATH_RE.findall(sentence):
        if TEMP_PATH_RE.search(path) or path.startswith("http") or re.fullmatch(r"[\d.]+", path):
            continue
        if "/" in path or re.search(r"\.[a-z]{1,5}$", path):
            anchors.append(path.rsplit("/", 1)[-1] if len(path) > 40 else path)
    anchors += [c for c in _CODE_RE.findall(sentence) if not TEMP_PATH_RE.search(c)]
    anchors += list(_IDENT_RE.findall(_PATH_RE.sub(" ", _CODE_RE.sub(" ", sentence))))
    words = _TRY_RE.sub("", strip_polite(_DIRECTIVE_RE.sub("", strip_polite(text)))).split()
    if intent_verb:
        words = words[len(intent_verb.split()):]
    else:
        # A problem statement is about its subject: "mix phx.server doesnt seem to start".
        problem = _PROBLEM_RE.search(text)
        if problem and problem.start() > 0:
            words = text[: problem.start()].split()
            words = [w for w in words if w.lower() not in ("seem", "seems", "to")] or words
    phrase: list[str] = []
    for word in words:
        bare = word.lower().strip(",.;:!?")
        if phrase and (bare in _OBJECT_STOP or word.startswith("@") or "/" in word):
            break
        phrase.append(word.strip(",.;:!?"))
        if len(phrase) >= 6:
            break
    while len(phrase) > 1 and phrase[-1].lower() in _TRAILING_PARTICLES:
        phrase.pop()  # "move the message up just before ..." is about "the message"
    obj = " ".join(phrase)
    unique = [a for a in dict.fromkeys(anchors) if a.lower() not in obj.lower()][:2]
    if obj and unique:
        return squash(f"{obj} ({', '.join(unique)})", 100)
    return squash(obj or ", ".join(unique) or sentence, 100)


TITLE_WORDS = 9  # a request's title: a short sentence


def _title(intent: str, sentence: str) -> str:
    """The request's title: its directive sentence, short; a problem statement said as the fix it
    asks for ("mise run lint fails" → "Fix mise run lint failing")."""
    found = _verb(sentence)
    if intent != "fix" or (found is not None and (found[0] == "fix" or not _states_problem(sentence))):
        return short_title(sentence, TITLE_WORDS)  # "release failed after 0s" opens with a noun, not a verb
    return short_title(problem_title(sentence), TITLE_WORDS)


_LOG_PREFIX_RE = re.compile(r"^(?:\[[^\]]{1,40}\]\s*|(?:stderr|stdout|error|fatal|warning|warn|exception|panic)\s*[:>]\s*)+",
                            re.IGNORECASE)
_FEEDBACK_RE = re.compile(r"^(?:i|we)\s+(?:just\s+)?(?:got|have|received|get)\s+(?:this|some|the|a|these|two|new)\s+"
                          r"(?:review\s+)?(?:feedback|review|comments?|notes?|remarks?)\b\s*(?P<rest>(?:on|for|from|in)\b.*)?$",
                          re.IGNORECASE)
_NEGATION_RE = re.compile(r"^(?P<s>.+?)\s+(?:still\s+)?(?P<neg>doesn'?t|does not|don'?t|do not|won'?t|will not|can'?t|"
                          r"cannot|can not|isn'?t|is not|aren'?t|are not)\s+(?:seem to\s+|really\s+|actually\s+|"
                          r"always\s+|even\s+|properly\s+)*(?P<rest>\S.*)$", re.IGNORECASE)
_FAILS_RE = re.compile(r"^(?P<s>.+?)\s+(?:still\s+|is\s+|are\s+|keeps\s+|keep\s+)*(?P<v>fails|failed|failing|crashes|"
                       r"crashed|crashing|errors|errored|erroring|breaks|broke|throws|threw|hangs|hung|panics|panicked|"
                       r"says|shows|showed|returns|returned|gives|gave|prints|printed|times out|timed out)\b(?P<rest>.*)$",
                       re.IGNORECASE)
_BROKEN_RE = re.compile(r"^(?P<s>.+?)\s+(?:is|are|seems?|looks?)\s+(?:still\s+)?(?:broken|not working|wrong)\b",
                        re.IGNORECASE)
_THERE_IS_RE = re.compile(r"^there(?:'s|\s+is|\s+are)\s+(?P<s>.+)$", re.IGNORECASE)
_GERUNDS = {"fails": "failing", "failed": "failing", "failing": "failing", "crashes": "crashing", "crashed": "crashing",
            "crashing": "crashing", "errors": "erroring", "errored": "erroring", "erroring": "erroring",
            "breaks": "breaking", "broke": "breaking", "throws": "throwing", "threw": "throwing", "hangs": "hanging",
            "hung": "hanging", "panics": "panicking", "panicked": "panicking", "says": "saying", "shows": "showing",
            "showed": "showing", "returns": "returning", "returned": "returning", "gives": "giving",
            "gave": "giving", "prints": "printing", "printed": "printing", "times out": "timing out",
            "timed out": "timing out"}
_PRONOUNS = {"i", "we", "you", "it", "this", "that", "they", "he", "she", "there", "nothing", "something", "everything"}


def _subject(text: str) -> str | None:
    """``text`` when it reads as the subject of a problem ("mix phx.server", "the release"), else None."""
    words = text.split()
    if not words or len(words) > 8 or words[0].lower() in _PRONOUNS or _CONDITION_RE.match(text):
        return None
    if {w.lower().strip(",") for w in words} & (_CLAUSE_SUBJECT_STOP | _PRONOUNS):
        return None  # "use the initials if name isn't present": a condition, not a subject
    return text


_CLAUSE_SUBJECT_STOP = {"if", "when", "unless", "because", "since", "while", "that", "which", "so", "but", "and", "or",
                        "once", "after", "before", "until"}


def _states_problem(sentence: str) -> bool:
    """Whether ``sentence`` says what is wrong with something ("release failed after 0s")."""
    text = strip_front(" ".join(sentence.split()))[0]
    short = 3 if _verb(text) else 8  # "release failed": a verb word as a subject only when it is short
    return any(match is not None and _subject(match.group("s")) is not None and len(match.group("s").split()) <= short
               for match in (_BROKEN_RE.match(text), _NEGATION_RE.match(text), _FAILS_RE.match(text)))


def problem_title(problem: str) -> str:
    """A problem statement said as the fix it asks for: "X doesn't start" → "Make X start", "X fails
    after 0s" → "Fix X failing after 0s", "X is broken" → "Fix X", "I got this feedback on Y" →
    "Address the feedback on Y"; anything else → "Fix " and the statement."""
    text = _LOG_PREFIX_RE.sub("", strip_front(" ".join(problem.split()))[0]).rstrip(" .!?:;")
    feedback = _FEEDBACK_RE.match(text)
    if feedback:
        return f"Address the feedback {feedback.group('rest') or ''}".rstrip()
    broken = _BROKEN_RE.match(text)
    if broken and _subject(broken.group("s")):
        return f"Fix {broken.group('s')}"
    negation = _NEGATION_RE.match(text)
    if negation and _subject(negation.group("s")):
        rest = negation.group("rest")
        if re.match(r"(?:working|work)\b", rest, re.IGNORECASE) and negation.group("neg").lower().startswith(("is", "are")):
            return f"Fix {negation.group('s')}"
        return f"Make {negation.group('s')} {rest}"
    fails = _FAILS_RE.match(text)
    if fails and _subject(fails.group("s")):
        return f"Fix {fails.group('s')} {_GERUNDS[fails.group('v').lower()]}{fails.group('rest')}"
    there = _THERE_IS_RE.match(text)
    if there:
        return f"Fix {there.group('s')}"
    return "Fix " + (text if text[:2].isupper() else text[:1].lower() + text[1:])


# Slash commands that work the harness, not the project: never a request.
_HARNESS_COMMANDS = {"clear", "ide", "exit", "quit", "model", "mcp", "compact", "login", "logout", "cost", "help",
                     "resume", "config", "status", "permissions", "doctor", "bug", "vim", "terminal-setup", "hooks",
                     "release-notes", "agents", "add-dir", "export", "context", "usage", "plugin", "plugins",
                     "statusline", "theme", "privacy-settings", "upgrade", "rewind", "todos", "bashes", "tasks",
                     "output-style", "fast", "effort", "memory", "approvals", "new", "diff", "mention",
                     "feedback", "extra-usage", "install-github-app", "migrate-installer", "sandbox", "skills",
                     "keybindings", "copy", "stats"}


def slash_request(entry: Entry) -> Request | None:
    """A slash command the user typed, as a request: ``/init`` (write the project's instructions),
    a project command with its arguments (``/orchestrator <what to do>``, in any language) or
    without; harness commands (``/clear``, ``/model``, ``/ide``...) are not requests."""
    text = entry.text.strip()
    if not text.startswith("/"):
        return None
    name, _, args = text.partition(" ")
    bare = name[1:].lower()
    args = prose(args) or args.strip()
    if not bare or bare in _HARNESS_COMMANDS:
        return None
    span = (entry.index, entry.index)
    if bare == "init" and not args:
        return Request(intent="add", target="project instructions (CLAUDE.md / AGENTS.md)", summary=text,
                       title="Write the project instructions (/init)", range=span)
    if not args:
        return Request(intent="run", target=name, summary=text, title=f"Run {name}", range=span)
    if all(word.startswith("-") for word in args.split()):  # `/specify --help`: the command run with its flags
        return Request(intent="run", target=squash(text, 100), summary=text, title=squash(f"Run {text}", 120),
                       range=span)
    intent, sentence = directive(args)
    found = _verb(sentence)
    title = _title(intent, sentence) if found else f"{name}: {short_title(args, TITLE_WORDS)}"
    return Request(intent=intent if found else "run", target=_target(sentence, found[1] if found else None),
                   summary=summary_of(text, MAX_SUMMARY), title=clean_title(title), range=span)


_TYPED_SLASH_RE = re.compile(r"/[a-z][\w.:-]*")  # `/specify`, `/prompts:review` (a path has more slashes)
_SKILL_RE = re.compile(r"\$[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")  # `$skill-installer` (`$HOME/x`, `$ ls`: no skill)


def typed_command(entry: Entry) -> Request | None:
    """A message that is a command in the client's syntax: a slash command typed as text (its first
    word ``/name``, no further slash) or a skill named alone or with what to do (``$skill-installer``),
    as the request to run it; None for anything else."""
    text = entry.text.strip()
    first, _, rest = text.partition(" ")
    if first[:1] == "/" and _TYPED_SLASH_RE.fullmatch(first):
        return slash_request(entry)
    if first[:1] != "$" or not _SKILL_RE.fullmatch(first):
        return None
    name = first[1:]
    span = (entry.index, entry.index)
    if not prose(rest).strip():
        return Request(intent="run", target=first, summary=text, title=f"Run the {name} skill", range=span)
    return Request(intent="run", target=first, summary=summary_of(text, MAX_SUMMARY),
                   title=clean_title(f"Run the {name} skill: {short_title(prose(rest), TITLE_WORDS)}"), range=span)


def _suggested_command(text: str, said: str) -> str:
    """``text`` when it is one command line the agent's last message showed (in a code block or in
    backticks) — the user typing it back asks to run it — else ""."""
    line = text.strip().lstrip("$ ").strip()
    if not said or "\n" in line or not 2 <= len(line) <= 200 or len(line.split()) > 12:
        return ""
    shown = {part.strip().lstrip("$ ").strip() for part in re.findall(r"`([^`\n]+)`", said)}
    shown.update(raw.strip().lstrip("$ ").strip() for block in re.findall(r"```[^\n]*\n(.*?)```", said, re.DOTALL)
                 for raw in block.splitlines())
    return line if line in shown and re.match(r"^[\w./-]+(?:\s|$)", line) else ""


def _expanded(command: Request, prompt: str, index: int) -> Request:
    """A slash command's request with the prompt it expanded to: the range covers both; a command
    typed without arguments (``/review-pr``) takes what to do from its prompt."""
    start = command.range[0] if command.range else index
    update: dict[str, object] = {"range": (start, index)}
    typed = prompt_template.user_input(prompt)
    if typed is not None:
        # A template's prompt: what to do is what was typed into it (nothing: "Run /x" says it all),
        # never the template's own steps ("Setup: Run check-prerequisites.sh").
        prompt = typed
    if (command.title or "").startswith("Run /") and prose(prompt):
        intent, sentence = directive(plan_heading(prompt) or prompt)
        found = _verb(sentence)
        if found is not None:
            update.update(intent=intent, target=_target(sentence, found[1]),
                          title=squash(f"{_title(intent, sentence)} ({command.target})", 120),
                          summary=squash(f"{command.summary}: {prose(prompt)}", MAX_SUMMARY))
    return command.model_copy(update=update)


_PLAN_HANDOFF_RE = re.compile(r"^\s*(?:please\s+)?(?:implement|execute|carry out|follow|apply)\s+(?:the|this)\s+"
                              r"(?:following\s+)?plan\s*:?\s*\n+\s*#{1,3}\s+(?P<heading>[^\n]+)", re.IGNORECASE)
_PLAN_PREFIX_RE = re.compile(r"^(?:(?:implementation\s+)?plan|bug\s*fix|fix|feature|task)\s*[:—–-]\s*", re.IGNORECASE)


def plan_heading(text: str) -> str:
    """The subject of a plan handed over to be carried out ("Implement the following plan:" and
    the plan's "# Plan: Update the README" heading, as Claude Code writes after plan mode), else ""."""
    match = _PLAN_HANDOFF_RE.match(text)
    if match is None:
        return ""
    heading = match.group("heading").strip().strip("*_`").strip()
    if re.match(r"^bug\s*fix\s*:", heading, re.IGNORECASE):
        return "Fix " + _PLAN_PREFIX_RE.sub("", heading)
    return _PLAN_PREFIX_RE.sub("", heading)


def extract_requests(entries: list[Entry]) -> list[Request]:
    requests: list[Request] = []
    interrupted = False  # the user stopped the agent (interrupt, refused call) since the last request
    asked = False  # the agent's last message ended with a question
    said = ""  # the agent's last message (did it ask or propose something the user can accept?)
    said_index: int | None = None
    acted = False  # the agent called a tool since the user last spoke
    expanding: Request | None = None  # a slash command's request, the agent not answered yet
    stopped = False  # the agent's work stopped (interrupt, refused call, API error) since the user last spoke
    after_command = False  # the last entry (its output aside) was a slash command the user typed
    fresh = False  # the conversation started over (/clear, /exit) since the user last spoke
    for entry in entries:
        if entry.kind not in ("command_output", "api_error"):
            after_command = entry.kind == "command"
        if entry.role == "assistant" and entry.kind in (None, "message") and entry.text.strip():
            expanding = None
            asked = entry.text.rstrip().rstrip("*_`").endswith("?")
            said, said_index = entry.text, entry.index  # read only if the user accepts or asks to remember
            continue
        if entry.kind == "api_error" and after_command and entry.text.strip().rstrip(".").lower() == \
                "no response requested":
            continue  # the harness's non-answer to a local command (/exit): nothing was cut off
        if entry.kind in ("interrupt", "rejected", "api_error"):
            interrupted = True
            stopped = True
            continue
        if entry.kind == "tool_call":
            acted = True
            continue
        if entry.kind == "command":  # the user moved on to something else (/mcp, /model...)
            interrupted = False
            # /clear, /exit, /new: the conversation starts over, so the next message continues nothing
            fresh = fresh or entry.text.strip().split(" ", 1)[0].lower() in _FRESH_COMMANDS
            command = slash_request(entry)
            if command is not None:
                requests.append(command)
            expanding = command
            continue
        if entry.role != "user" or entry.kind not in (None, "message"):
            continue
        starts_over, fresh = fresh, False
        text = without_harness_blocks(entry.text)
        if not text:
            continue  # only harness text: a notification, a tagged echo of a command
        if expanding is not None and requests and requests[-1] is expanding and prose(text):
            # The command's prompt, sent right after it (custom commands, Claude Code 1.x): one request.
            requests[-1] = _expanded(expanding, text, entry.index)
            expanding = None
            continue
        expanding = None
        command = typed_command(entry)
        if command is not None:
            # A command in the client's own syntax sent as a message (Codex passes a `/specify --help` it
            # does not know on as text; `$skill-installer` names a skill): a run of it, as a slash
            # command the client read itself is.
            requests.append(command)
            interrupted = asked = acted = stopped = False
            said = ""
            continue
        typed = prompt_template.user_input(text)
        if typed is not None:
            # A prompt template expanded into the message (spec-kit's /speckit.tasks, a Codex custom
            # prompt): its headings, steps and "You MUST …" are the template author's words; the
            # request is what the user typed into it. A new request, as a slash command is.
            requests.append(_template_request(typed, entry.index))
            interrupted = asked = acted = stopped = False
            said = ""
            continue
        # "Yes, and remember that for the future": what it points at, not its words (rules_remember).
        if asks_to_remember(text):
            remembered = remember_request(text, entry.index, said, said_index)
            if remembered is not None:  # None: it points at nothing; its own words are no request
                requests.append(remembered)
            interrupted = asked = False
            said = ""
            continue
        resumed, stopped = stopped and bool(requests) and text.strip().lower().strip(".!") in _RESUME, False
        if resumed:  # "continue" after the work stopped: a request to take the stopped work up again
            previous = requests[-1]
            requests.append(Request(intent="continue", target=previous.target,
                                    summary=squash(f"Continue: {previous.summary.split(_REFINED)[0]}", MAX_SUMMARY),
                                    title=clean_title(squash(f"Continue: {previous.title}", 120)),
                                    range=(entry.index, entry.index)))
            interrupted = asked = acted = False
            said = ""
            continue
        if said and _bare_yes(text) and _offers(said):
            # "yes" to "Would you like me to implement this?": go ahead with what the agent proposed.
            requests.append(_go_ahead(text, said, entry.index))
            interrupted = asked = acted = False
            said = ""
            continue
        if is_question(text) and not is_trivial(text) and not _CHAT_RE.match(prose(text).strip()):
            # The user asks the agent something ("why won't you run it?", "which environment am I
            # in?"): a request to answer it (its answer is also told as a discussion).
            requests.append(_question_request(text, entry.index))
            interrupted = asked = acted = False
            said = ""
            continue
        if is_trivial(text) or _CHAT_RE.match(prose(text).strip()) or pasted_terminal(text) or (
                requests and pasted_diagnostics(text)):  # (pasted first, the warnings are what to fix)
            continue
        suggested = _suggested_command(text, said)
        if suggested:  # the user typed back a command the agent just showed: run it
            requests.append(Request(intent="run", target=squash(suggested, 100), summary=squash(suggested, MAX_SUMMARY),
                                    title=squash(f"Run `{suggested}`", 120), range=(entry.index, entry.index)))
            interrupted = asked = acted = False
            said = ""
            continue
        body = prose(text)
        if not body or not sentences(body):
            continue  # pasted code or output with no sentence of its own
        words = len(body.split())
        if foreign(body):  # no English cue can be read in it: a new request unless sent again word for word
            if requests and _same_words(body, requests[-1].summary.split(_REFINED)[0]):
                continue
            interrupted = asked = acted = False
            said = ""
            requests.append(_new_request(text, body, entry.index))
            continue
        cue = bool(_CORRECTION_RE.match(strip_polite(body)))
        # After an interrupt or a refused call, a short message corrects the request only when it is
        # about the same thing: "explore more of the repo" after a refused "show tools" is a new request.
        correction = bool(requests) and words <= 30 and (cue or (interrupted and _shares_subject(body, requests[-1]))
                                                          or (acted and bool(_SHOULD_BE_RE.search(body))
                                                              and directive(text)[0] == "other"))
        correction = correction or (bool(requests) and words <= 40 and bool(_REPORT_RE.match(strip_polite(body)))
                                    and directive(text)[0] == "other")
        acted = False
        # A short reply to the agent's question ("option 2", "the second one") answers it; an
        # instruction ("continue until all are done") is still a request.
        answer = (asked and ((words <= 8 and _verb(body) is None) or _picks_option(body, said))) or \
            answers_ask(body, said)
        interrupted = asked = False
        if answer and not requests:
            continue
        bare = not answer and not correction and names_nothing(body)
        answer = answer or _refines_previous(body, requests[-1] if requests else None, said)
        said = ""
        if bare or (not requests and not answer and not correction and _no_instruction(body)):
            # "Shell", "exit", "next", a lone path with nothing asked of it: no request, and no part
            # of the one before (an answer to the agent's question was taken above).
            continue
        if (correction or answer) and not starts_over:
            previous = requests[-1]
            start = previous.range[0] if previous.range else entry.index
            summary = _refined(previous.summary, summary_of(body, MAX_SUMMARY // 2))
            requests[-1] = previous.model_copy(update={"summary": summary, "range": (start, entry.index)})
            continue
        requests.append(_new_request(text, body, entry.index))
    return _with_reports(requests, entries)


# A yes/no question about what was done or should be done ("Did you run the tests?", "should we
# close it?") asks for a check; any other question for an explanation.
_CHECK_QUESTION_RE = re.compile(r"^(?:did|have|has|should|shall|were|was)\b", re.IGNORECASE)


def _question_request(text: str, index: int) -> Request:
    """The request a question asked of the agent makes: to answer it (intent ``explain``, or
    ``review`` for "did you …?" / "should we …?"), titled by the question itself."""
    question = prose(text).strip() or text.strip()
    asked = sentences(question)[-1].strip() if sentences(question) else question
    intent = "review" if _CHECK_QUESTION_RE.match(strip_polite(asked)) else "explain"
    found = _verb(re.sub(r"^(?:let'?s\s+)?(?:go ahead and\s+)", "", strip_polite(asked), flags=re.IGNORECASE))
    if found is not None and found[1] not in _TALK_VERBS:
        intent = found[0]  # "let's go ahead and push this, the remote is right?": an instruction asked
    title = clean_title(squash(asked[:1].upper() + asked[1:], 120))
    return Request(intent=intent, target=squash(asked, 100), summary=summary_of(question, MAX_SUMMARY),
                   title=title, range=(index, index))


def _bare_yes(text: str) -> bool:
    """A reply that only agrees ("yes", "Yes please", "ok, go ahead"), nothing of its own."""
    flat = re.sub(r"[\s,.!]+", " ", prose(text).strip().lower()).strip()
    flat = re.sub(r" (?:please|thanks|thank you)$", "", flat)
    return bool(flat) and (flat in _YES or flat in ("yes go ahead", "ok go ahead", "yes do it", "ok do it",
                                                    "sure go ahead", "yes sure", "please"))


# What the agent offers to do: "Would you like me to implement this solution?" -> "implement this
# solution"; "I'd focus on X" / "I recommend X" -> "X".
_OFFER_RE = re.compile(r"\b(?:would you like me to|do you want me to|want me to|shall i|should i)\s+(?P<what>[^?\n]+)\?",
                       re.IGNORECASE)
_RECOMMEND_RE = re.compile(r"\b(?:i'?d|i would|i) (?:recommend|suggest|focus on|propose)\s+(?P<what>[^\n]+)",
                           re.IGNORECASE)
# An offer made on a condition, as Codex ends its reports: "If useful, I can lay out the remaining
# commands in order." -> "lay out the remaining commands in order".
_IF_OFFER_RE = re.compile(r"\bif (?:useful|helpful|you(?:'d)? (?:want|like)(?: it)?|you prefer)[^,.\n]{0,30},?\s+"
                          r"I can\s+(?P<what>[^.?\n]+)", re.IGNORECASE)


def _offers(said: str) -> bool:
    """The agent's message ends by offering to do something ("Want me to create a plan?") or
    recommending a way ("I'd focus on X"), which a bare "yes" takes up."""
    tail = prose(said)[-600:]
    return bool(_OFFER_RE.search(tail) or _RECOMMEND_RE.search(tail) or _IF_OFFER_RE.search(tail))


def _go_ahead(text: str, said: str, index: int) -> Request:
    """The request a bare "yes" to the agent's proposal makes: carry out what was proposed."""
    body = prose(said)
    offer = list(_OFFER_RE.finditer(body))
    found = offer[-1] if offer else _RECOMMEND_RE.search(body) or _IF_OFFER_RE.search(body[-600:])
    what = squash(found.group("what").strip().rstrip(".:"), 100) if found else ""
    if not what:  # no offer in words: the agent's last sentence that is not a question
        plain = [s for s in sentences(body) if not s.rstrip().endswith("?")]
        what = squash(plain[-1].rstrip(".:"), 100) if plain else "what the agent proposed"
    return Request(intent="continue", target=what,
                   summary=squash(f"{prose(text).strip() or text.strip()} — go ahead with what the agent proposed: "
                                  f"{what}", MAX_SUMMARY),
                   title=clean_title(squash(f"Go ahead: {what}", 120)), range=(index, index))


def _new_request(text: str, body: str, index: int) -> Request:
    """The request a user message starts (its prose ``body``): intent, target, title and summary."""
    heading = plan_heading(text)
    intent, sentence = directive(heading or text)
    found = _verb(sentence)
    summary = _plan_summary(text, heading) if heading else summary_of(body, MAX_SUMMARY)
    return Request(intent=intent, target=_target(sentence, found[1] if found else None),
                   summary=summary, title=_title(intent, sentence), range=(index, index))


def _template_request(typed: str, index: int) -> Request:
    """The request of a prompt template run: what the user ``typed`` into it, read as any message
    is; with nothing typed, "A prompt template run with no input of its own." (Phase 2 titles that
    from what the agent reported writing)."""
    body = prose(typed)
    if body and sentences(body):
        return _new_request(typed, body, index)
    if typed.strip():  # a path or a bit of code, no sentence: said as it is
        return Request(intent="other", target=squash(typed, 100), summary=squash(typed, MAX_SUMMARY),
                       title=clean_title(squash(f"{prompt_template.NO_INPUT_TITLE}: {typed}", 120)),
                       range=(index, index))
    return Request(intent="run", target="", summary=prompt_template.NO_INPUT_SUMMARY,
                   title=prompt_template.NO_INPUT_TITLE, range=(index, index))


_REFINED = " — refined: "


def _refined(summary: str, more: str) -> str:
    """The request's summary with a refinement added; when too long, the middle refinements go
    (the request as first asked and the latest word stay), never a sentence cut inside."""
    parts = [*summary.split(_REFINED), more]
    while len(_REFINED.join(parts)) > 2 * MAX_SUMMARY and len(parts) > 2:
        del parts[1]
    return _REFINED.join(parts)


def _plan_summary(text: str, heading: str) -> str:
    """A plan handed over from plan mode: "Carry out the plan “X”." and the first sentences of the
    plan's own text (its headings left out)."""
    body = _PLAN_HANDOFF_RE.sub("", text, count=1)
    body = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    return summary_of(body, MAX_SUMMARY, lead=f"Carry out the plan “{heading}”.")


# A preamble line: among the first lines of at least this many of the agent's messages, and of at
# least three quarters of them (a line some reports share, "All tests pass.", is not).
_PREAMBLE_MESSAGES = 3
_PREAMBLE_HEAD_LINES = 10


def preamble_lines(entries: list[Entry]) -> frozenset[str]:
    """Lines the agent opens (nearly) every message with - rules its instructions tell it to repeat
    at the top of each response ("AI operating principles. 1st principle: …"): they say nothing of
    what was done, so no report is made of them."""
    messages = [entry.text for entry in entries
                if entry.role == "assistant" and entry.kind in (None, "message") and entry.text.strip()]
    if len(messages) < _PREAMBLE_MESSAGES:
        return frozenset()
    counts: dict[str, int] = {}
    for text in messages:
        for line in {line.strip() for line in text.split("\n", _PREAMBLE_HEAD_LINES)[:_PREAMBLE_HEAD_LINES]}:
            if len(line) >= 4:
                counts[line] = counts.get(line, 0) + 1
    least = max(_PREAMBLE_MESSAGES, -(-3 * len(messages) // 4))
    return frozenset(line for line, count in counts.items() if count >= least)


def _without_preamble(text: str, preamble: frozenset[str]) -> str:
    if not preamble:
        return text
    return "\n".join(line for line in text.split("\n") if line.strip() not in preamble)


def _with_reports(requests: list[Request], entries: list[Entry]) -> list[Request]:
    """Each request with what the agent reported it did (``done``): its last message before the
    user's next request, in whole sentences, without its narration of next steps or its questions
    (``text.report_of``: "The branch is pushed. I'm doing a final check" says "The branch is
    pushed."), nor the preamble it opens every message with (``preamble_lines``); none when that
    message reports nothing."""
    preamble = preamble_lines(entries)
    starts = [r.range[0] if r.range else None for r in requests]
    reported: list[Request] = []
    for position, request in enumerate(requests):
        if request.range is None:
            reported.append(request)
            continue
        after = request.range[1]
        until = next((s for s in starts[position + 1:] if s is not None and s > after), None)
        last, last_index = "", after
        refusals: list[str] = []  # what the agent said it would not do of what was asked, any time in the turn
        for entry in entries:
            if entry.index <= after:
                continue
            if until is not None and entry.index >= until:
                break
            if entry.role == "user" and entry.kind in (None, "message") and is_question(entry.text):
                break  # the user asked something else: what follows answers that
            if entry.role == "assistant" and entry.kind in (None, "message") and entry.text.strip():
                text = _without_preamble(entry.text, preamble)
                if not text.strip():
                    continue  # nothing but the preamble: the report is in an earlier message
                last, last_index = text, entry.index
                refusals.extend(r for r in refusals_in(text) if r not in refusals)
        done = report_of(last, MAX_DONE, also=refusals) if last or refusals else ""
        # The report's lines are part of what the record cites (its source reaches the message).
        reported.append(request.model_copy(update={"done": done, "range": (request.range[0], max(after, last_index))})
                        if done else request)
    return reported
