"""What a request record says, from what Phase 1 staged: the asked part, the "Done:" part, the title.

Phase 1 stages a request's summary (the user's words as whole sentences), its ``done`` (what the
agent reported) and a title. Before a record is written from them, this module takes out what a
teammate reading the record a month later has no use for:

* a prompt template's scaffolding (``store.prompt_template``): "User Input. You MUST consider the
  user input before proceeding (if not empty). Outline." in the summary, "Tasks Overview." opening
  the report;
* a polite or harness opener in front of each asked sentence ("Ok ultrathink and come up with …"
  → "Come up with …");
* a report that is only a greeting or an echo ("Hey Okarin!", "Done, Okarin!" before what was
  done): no "Done:" is better than one that says nothing; "Done: Done, …" says it once.

``request_title`` replaces a title that is a template heading ("User Input") with one read from
what is left: the user's own sentence when one is an instruction, else the artefact the agent
reported writing ("Task plan saved to `specs/…/tasks.md`" → "Write the task plan in tasks.md"),
else "Follow the prompt template".
"""

from __future__ import annotations

import re

from ..store import prompt_template
from ..store.titles import (
    _ANSWERED_RE,
    COMMAND_WORDS,
    IMPERATIVE_VERBS,
    MAX_TITLE,
    _imperative,
    capitalise,
    clean_title,
    decision_title,
    embedded_instruction,
    one_line,
    starts_with_verb,
    strip_front,
    without_box_drawing,
)

# A greeting or acknowledgement, with an optional name after it: "Hey Okarin!", "Done, Okarin!".
_FILLER_RE = re.compile(r"^(?:hey|hi|hello|sure|done|ok(?:ay)?|alright|great|perfect|got it|all done|here you go|"
                        r"of course|certainly|absolutely)(?:[,!.]*\s+[A-Z][\w-]*)?\s*[!.]*$", re.IGNORECASE)
_DONE_ECHO_RE = re.compile(r"^(?:all\s+)?done(?:[,!.]+\s*(?:[A-Z][\w-]*[!.]\s*)?|\s*[-—–:]\s*)", re.IGNORECASE)
_REFINED = " — refined: "
REFINED = _REFINED  # how Phase 1 joins a later part of the same request to its summary
_SAVED_RE = re.compile(r"^(?P<what>[A-Z][\w -]{2,40}?)\s+(?:saved|written|created|generated|added)\s+(?:to|at|in|as)\s+"
                       r"`?(?P<path>[\w./-]+\.\w{1,5})(?::\d+)?`?", re.IGNORECASE)


_MAX_WORDS = 12  # of an instruction read out of a run-on sentence
_RUN_ON_ENDS = {"where", "which", "so", "because", "since", "while", "when", "but", "who"}
_TICKET_URL_RE = re.compile(r"https?://\S+/(?:issues|pull|pulls|merge_requests)/(\d+)")
_NO_INPUT = prompt_template.NO_INPUT_SUMMARY
_STEP_LABEL_RE = re.compile(r"^(?:step\s*\d+|setup|set-up|prerequisites?|preparation|context|load\w*)\s*:", re.IGNORECASE)


# Filler and harness keywords in front of what was asked ("Ok ultrathink and come up with …");
# a polite "Please" or "Can you" is the user's own way of asking and stays.
_OPENER_RE = re.compile(r"^(?:(?:ok(?:ay)?|ultrathink|think\s+hard(?:er)?|alright|hey|hi|hello|yes|yeah|great|cool)"
                        r"(?:\s+and)?[\s,!.:;—–-]+)+(?:now[\s,]+)?", re.IGNORECASE)  # "Great - now delegate …"


# An effort modifier said on its own ("Think hard.", "Ultrathink", "think deeply about it"): how hard
# the agent should think, never what it should do — no title, no sentence of what was asked.
_EFFORT_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|please|now|but|just)[\s,]+)*"
    r"(?:ultra\s*-?\s*think|mega\s*-?\s*think|think\s+(?:really\s+|very\s+|extra\s+)?"
    r"(?:hard(?:er)?|deep(?:ly|er)?|carefully|thoroughly|long(?:er)?|step\s+by\s+step|a\s+lot|more))"
    r"(?:\s+(?:about|on)\s+(?:this|it|that))?(?:\s+please)?[\s.!,;:…]*$", re.IGNORECASE)


def is_effort_modifier(text: str) -> bool:
    """Whether ``text`` is only an effort modifier ("Think hard", "Ultrathink.", "ok think harder")."""
    return bool(_EFFORT_RE.match(one_line(text)))


def _asked_sentence(sentence: str) -> str:
    body = _OPENER_RE.sub("", sentence, count=1)
    if not body or body == sentence or not re.search(r"[^\W_]", body):
        return sentence
    return body[:1].upper() + body[1:]


# Phase 1's words for a proposal the user accepted ("yes — go ahead with what the agent proposed: X").
_GO_AHEAD_RE = re.compile(r"^(?P<said>[^—]{0,60}?)\s*—?\s*go ahead with what the agent proposed:\s*(?P<what>\S.*)$",
                          re.IGNORECASE)
_CONTINUATION_RE = re.compile(r"(?<=[.!?])\s+\\+\.?(?=\s|$)|\s+\\+(?=[.\s]|$)")


def asked_text(summary: str) -> str:
    """The asked part of a summary: no template scaffolding, no opener in front of a sentence. Each
    "— refined: …" part is tidied the same way."""
    parts: list[str] = []
    for part in without_box_drawing(summary).split(_REFINED):
        accepted = _GO_AHEAD_RE.match(part.strip())
        if accepted:  # "yes — go ahead with what the agent proposed: X": what was accepted is asked
            part = f"{capitalise(accepted['what'].strip().rstrip('.'))} (the agent's proposal, accepted)."
        kept = [s for s in prompt_template.sentences(prompt_template.strip_scaffolding(part))
                if re.search(r"[^\W_]", s)]
        kept = [s for s in kept if not is_effort_modifier(s)] or kept
        if prompt_template.looks_templated(part):
            # A template's own steps ("Setup: Run the prerequisites script") are not what was asked.
            kept = [s for s in kept if not _STEP_LABEL_RE.match(s)] or [_NO_INPUT]
        # A line continuation the user typed ("Save this to .claude/tickets/ \\") is no word of theirs.
        said = _CONTINUATION_RE.sub("", " ".join(_asked_sentence(s) for s in kept))
        if said and not any(said.lower().rstrip(".!") == p.lower().rstrip(".!") for p in parts):
            parts.append(said)  # a part said again ("Fix tests. — refined: Fix tests.") is said once
    return _REFINED.join(parts)


# A report's own furniture, not what was done: a leading emoji or check mark ("✅ Configured …"), a
# thanks or apology ("Good catch — thanks for the traceback."), a heading ("Fixes Applied.",
# "🔍 Deep Dive: Prompt Injection Scanner."), and at its end the opening of a list it was cut before
# ("Here's what was done: Changes Made; 1.", "What I fixed.").
_LEAD_MARK_RE = re.compile(r"^[^\w\s`\"'(\[*#~/.$@-]+\s*")
_ACK_RE = re.compile(r"^(?:thanks|thank\s+you|sorry|apologies|good\s+catch|great\s+catch|nice\s+catch|ah|oh|"
                     r"understood|got\s+it|fixed|you're\s+right|you\s+are\s+right)\b", re.IGNORECASE)
_RIGHT_RE = re.compile(r"^(?:you're|you\s+are)\s+(?:right|correct)\s*[:,—–-]+\s*(?=\S)", re.IGNORECASE)
_AGREE_RE = re.compile(r"^(?:great|good|perfect|nice|excellent)\s*[—–-]+\s*(?=\S)", re.IGNORECASE)
_SMALL_WORDS = {"of", "vs", "and", "the", "for", "to", "a", "an", "in", "on", "with", "&", "-", "—", "–", "&amp;"}
_LIST_OPENING_RE = re.compile(r"^(?:(?:here's|here\s+is)\s+what\b.*|what\s+(?:i|we)\s+\w+|"
                              r"(?:the\s+)?(?:changes|fixes|summary|details|steps)(?:\s+(?:of|for)\s+(?:the\s+)?\w+|\s+\w+)?)"
                              r"\s*[:;.]?(?:\s*\d{1,2}[.;)]?)?\s*[.:]?$", re.IGNORECASE)
_MAX_HEADING_WORDS = 7
# A line of a config block the report showed ("Timeout_minutes: 60 - 60 minute timeout per attempt."):
# a snake_case key and its value, left when the block's fence was taken out — not what was done.
_CONFIG_LINE_RE = re.compile(r"^[A-Za-z][a-z0-9]*(?:_[a-z0-9]+)+\s*:\s*\S")


def _report_heading(sentence: str) -> bool:
    """Whether a sentence of a report is a heading: a short Title Case label ("Fixes Applied",
    "Deep Dive: Prompt Injection Scanner", "Analysis of Current Setup vs Production Needs"), no code."""
    text = _LEAD_MARK_RE.sub("", sentence).strip().rstrip(".:!")
    words = text.replace(":", " ").split()
    if not 0 < len(words) <= _MAX_HEADING_WORDS or re.search(r"[`/=()\d]", text):
        return False
    return prompt_template.is_heading(sentence) or all(
        w[:1].isupper() or w.lower() in _SMALL_WORDS for w in words if w[:1].isalpha() or w in _SMALL_WORDS)


# A greeting with the user's name in front of the report's first words ("Alright La Boeuf, here's the
# plan …", "Hey Okarin, I added …"): said to the user, not what was done.
_GREETING_LEAD_RE = re.compile(r"^(?:hey|hi|hello|alright|all\s+right|ok(?:ay)?|sure|great|perfect|well|so|right)"
                               r"(?:\s+(?:[A-Z][\w'-]*|there|again|then|now)){0,3}\s*[,!—–-]+\s*(?=\S)", re.IGNORECASE)


def _report_sentences(done: str) -> list[str]:
    kept = [s for s in prompt_template.sentences(prompt_template.strip_scaffolding(done)) if not _FILLER_RE.match(s)]
    kept = [_GREETING_LEAD_RE.sub("", s, count=1) if at == 0 else s for at, s in enumerate(kept)]
    kept = [_AGREE_RE.sub("", _RIGHT_RE.sub("", _LEAD_MARK_RE.sub("", s))) for s in kept]
    kept = [s[:1].upper() + s[1:] for s in kept if s]
    # In front: thanks, apologies, headings and a config line left of a code block, while something follows.
    while len(kept) > 1 and ((_ACK_RE.match(kept[0]) and "`" not in kept[0] and len(kept[0].split()) <= 12)
                             or _report_heading(kept[0]) or _CONFIG_LINE_RE.match(kept[0])):
        kept.pop(0)
    # At the end: a heading or the opening of a list the report was cut before.
    while len(kept) > 1 and ((_report_heading(kept[-1]) and len(kept[-1].split()) > 1)  # not "Blocked."
                             or _LIST_OPENING_RE.match(kept[-1])):
        kept.pop()
    if len(kept) == 1 and _report_heading(kept[0]) and not re.search(r"\w{3,}ed\b", kept[0]):
        return []  # only a heading ("Models Available.", "Spec & Checklist."): it says nothing done
    if kept:  # "… was done: Changes Made; 1." inside the last sentence: what follows the colon goes
        head, colon, tail = kept[-1].rpartition(": ")
        # ("… the completed work: 📁 New Structure.": a heading an emoji marks, the list's, after it)
        if colon and head and (_LIST_OPENING_RE.match(tail) or (_LEAD_MARK_RE.match(tail) and _report_heading(tail))):
            kept[-1] = head.rstrip() + "."
    return kept


# The numbers of a list flattened into the report's line ("I corrected: 1; Status line: …; 2.",
# "Re-close Layer 3 Group 4 after the final fix: 2."): left of the list's layout, they say nothing.
_LIST_NUMBER_RE = re.compile(r"(?<=[:;])\s+\d{1,2}[.;)](?=\s|$)")
_BARE_END_RE = re.compile(r"\s*[:;,]\s*(?=[.;]|$)")


def _without_list_numbers(text: str) -> str:
    """``text`` without the numbers of a flattened list after a colon or semicolon, and without the
    colon or semicolon left bare in front of a full stop ("after the final fix: 2." → "… fix.")."""
    found = list(_LIST_NUMBER_RE.finditer(text))
    if not found:
        return text
    if len(found) == 1 and not found[0][0].endswith(";"):
        # One "N." alone: a list's number after a clause of prose ("after the final fix: 2."), or
        # a value after its key ("Max_attempts: 3."), which stays.
        clause = re.split(r"[.;!?]\s", text[: found[0].start()])[-1]
        if len(clause.split()) < 4 or "_" in clause or "`" in clause:
            return text
    bare = _BARE_END_RE.sub("", _LIST_NUMBER_RE.sub("", text))
    return bare if bare.endswith((".", "!", "?", "…")) else bare + "."


def done_text(done: str) -> str:
    """The agent's report without scaffolding, greetings, thanks, headings, an echo of "Done", a
    list opening it was cut before and a flattened list's numbers ("" when nothing is left: a report
    that was only "Hey Okarin!" tells nothing)."""
    text = _without_list_numbers(" ".join(_report_sentences(done)))
    echo = _DONE_ECHO_RE.match(text)
    if echo and text[echo.end():].strip():
        rest = text[echo.end():].strip()
        text = rest[:1].upper() + rest[1:]
    return "" if _FILLER_RE.match(text) else text


def is_template_title(title: str) -> bool:
    """Whether a title is a prompt template's heading or boilerplate, not an intent ("User Input"),
    or the title Phase 1 gives a template run with no input ("Follow the prompt template"): both
    are read again from what was asked or reported."""
    if title.strip() == prompt_template.NO_INPUT_TITLE:
        return True
    return bool(title.strip()) and (prompt_template.is_scaffolding(title)
                                    or prompt_template.heading_words(title) in prompt_template.SCAFFOLD_HEADINGS)


def _shortened(instruction: str) -> str:
    """An instruction read out of a longer sentence, cut at its first clause ("add another section
    where I will …" → "add another section") and to at most a dozen words."""
    words = instruction.split()
    # Not right after the verb and its object ("Tell me which variables …" asks about "which").
    # A dash standing alone opens the user's aside ("refine the plan - there are a few things …").
    cut = next((i for i in range(3, len(words)) if words[i].lower() in _RUN_ON_ENDS or words[i] in _DASHES), len(words))
    return clean_title(" ".join(words[:min(cut, _MAX_WORDS)]))


_DASHES = {"-", "–", "—"}
# "Help me refine the plan": the verb after "help me" is what is asked (any verb: "refine" is one).
_HELP_ME_RE = re.compile(r"^(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)*help\s+me\s+(?:to\s+)?(?P<rest>[a-z]\w+\s+\S.*)$",
                         re.IGNORECASE)
_LOOK_AHEAD = 4  # sentences of what was asked in which a title that is no instruction looks for one


def _instruction_in(asked: str, *, first_too: bool) -> str:
    """The first instruction among the first sentences of ``asked`` (its first part, before any
    "— refined:"): a sentence that opens with an instruction verb, or one said inside a sentence
    after "now", "please", "you need to" …; "" when there is none. ``first_too``: the first
    sentence may open with the verb (else the caller has read it already)."""
    for at, sentence in enumerate(prompt_template.sentences(asked.split(_REFINED, 1)[0])[:_LOOK_AHEAD]):
        if _STEP_LABEL_RE.match(sentence) or is_effort_modifier(sentence):
            continue
        candidate = clean_title(sentence)
        if (first_too or at) and starts_with_verb(candidate):
            return _shortened(candidate)
        helped = _HELP_ME_RE.match(one_line(sentence))
        if helped and not starts_with_verb(one_line(sentence)):
            return _shortened(capitalise(helped["rest"]))
        inner = embedded_instruction(sentence)
        if inner:
            said = _shortened(inner)
            ticket = _TICKET_URL_RE.search(sentence[: len(one_line(sentence)) - len(inner)])  # "As per <link> take …"
            return f"{said} (#{ticket[1]})" if ticket and f"#{ticket[1]}" not in said else said
    return ""


# A verdict on the agent's last change opening the message ("Better, we got X this time, but …",
# "Closer! …"): the user's report of what works, never what to do; the problem is after "but".
_VERDICT_RE = re.compile(r"^(?:fix\s+)?(?:much\s+|a\s+bit\s+|way\s+)?(?:better|worse|closer|almost|progress|nice|"
                         r"good|great|thanks|thank\s+you|cool|same)\b\s*(?:[,!.;:—–-]|$)",
                         re.IGNORECASE)
_BUT_RE = re.compile(r"\b(?:but|however|though|except)\b[\s,]*(?P<rest>.+)$", re.IGNORECASE)
_SEEN_RE = re.compile(r"^(?:(?:it\s+|this\s+)?(?:still\s+)?(?:looks|seems|feels)\s+like|there(?:'s|\s+is|\s+are)|"
                      r"(?:i\s+)?(?:still\s+)?(?:see|get|got|have)|it's|it\s+is|we\s+(?:still\s+)?(?:have|get|got))"
                      r"\s+(?:still\s+)?", re.IGNORECASE)
_CLAUSE_END_RE = re.compile(r"\s*(?:\[|\(|:|;|,|\.\s|\s+and\s+(?:the\s+)?(?:logs?|here|this|these|output)\b|"
                            r"\s+(?:here|below|attached)\b).*$", re.IGNORECASE)
_STILL_RE = re.compile(r"\s+(?:still|again|now|too|as\s+well)$", re.IGNORECASE)


def _verdict_problem(title: str, asked: str) -> str:
    """For a title that is a verdict on the last change ("Fix better, we got flood and air quality"),
    the problem the user still reports after "but" ("… but looks like a parse issue still" → "Fix a
    parse issue"), or the instruction said there; "" when the title is no verdict or names none."""
    if not _VERDICT_RE.match(title):
        return ""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    but = _BUT_RE.search(first)
    if not but:
        return ""
    rest = but["rest"].strip()
    inner = _instruction_in(rest, first_too=True)
    if inner:
        return inner
    problem = _STILL_RE.sub("", _CLAUSE_END_RE.sub("", _SEEN_RE.sub("", rest, count=1))).strip()
    words = problem.split()
    if not 1 <= len(words) <= _MAX_WORDS or not re.search(r"[^\W\d_]", problem):
        return ""
    return clean_title(f"Fix {problem}")


# A problem statement said as "Make <an error>" ("Make ImportError: cannot import …"): its fix is asked.
_MAKE_ERROR_RE = re.compile(r"^[Mm]ake\s+(?:an?\s+|the\s+)?(?:[\w.]*(?:Error|Exception)\b|Traceback\b|"
                            r"(?:[Ee]rror|[Ee]xception|[Pp]anic)\s*:)")


# A title that is the user's report of a problem with a verb put in front ("Fix they're cute, but the
# drag handle also doesn't work", "Make getting a blank screen …", "Fix i'm thinking of …"): what
# follows the verb opens a clause (a subject and its verb, a gerund of seeing), not a thing to change.
_REPORT_OPENER_RE = re.compile(
    r"^(?:fix|make|try)\s+(?:(?:i|we|they|it|this|that|you|he|she)(?:'m|'re|'s|'ve|'d|\s+(?:am|are|is|was|were|"
    r"have|had|think|thought|guess|feel|wonder|noticed|see|saw|get|got|tried|want|don't|do|did|still|also|just|"
    r"dont|didnt|doesnt|cant|wont|need|needed))(?=[\s,])|"  # ("I dont need …": typed without the apostrophe)
    r"(?:im|ive|its|theyre|thats|theres)\b|(?:getting|seeing|having|receiving|hitting|running\s+into)\b|"
    r"(?:the\s+)?same\s+(?:error|issue|problem|thing)\b)", re.IGNORECASE)
_THOUGHT_RE = re.compile(r"^(?:fix|make|try)\s+(?:i|we)(?:'m|\s+am|\s+are|'re)?\s+(?:thinking|wondering|think|guess|"
                         r"feel|want|wanted|was|were)\b", re.IGNORECASE)
_REPORT_LEAD_RE = re.compile(r"^(?:(?:but|and|so|also|now|still)[\s,]+)*(?:(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+"
                             r"(?:still\s+|now\s+|also\s+)*)?(?:getting|seeing|having|receiving|hitting|get|got|see|saw|"
                             r"have)\s+", re.IGNORECASE)
_NOT_WORKING_RE = re.compile(r"^(?P<what>.+?)\s+(?:(?:also|still|just|now)\s+)*(?:doesn't|does\s+not|don't|do\s+not|"
                             r"won't|will\s+not|can't|cannot|(?P<be>isn't|is\s+not|aren't|are\s+not))\s+(?:\w+ly\s+)?"
                             r"(?P<verb>[a-z]+)\b(?P<rest>.*)$", re.IGNORECASE)
_ERROR_WORDS_RE = re.compile(r"\b\w*(?:Error|Exception)\b|\b(?:error|exception|traceback|panic)\s*:", re.IGNORECASE)


_PRONOUNS = {"it", "they", "this", "that", "these", "those", "he", "she", "we", "i", "you", "it's", "its"}


def _gerund(verb: str) -> str:
    """"work" → "working", "move" → "moving", "run" → "running" (the form "not <verb>ing" takes)."""
    low = verb.lower()
    if low.endswith("ie"):
        return low[:-2] + "ying"
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")) and len(low) > 2:
        return low[:-1] + "ing"
    if len(low) == 3 and low[1] in "aeiou" and low[0] not in "aeiou" and low[2] not in "aeiouwxy":
        return low + low[2] + "ing"
    return low + "ing"


def _reported_problem(sentence: str) -> str:
    """The problem a sentence of the user's reports, said as its fix: "the drag handle also doesn't
    work" → "Fix the drag handle not working", "getting a blank screen: Uncaught ReferenceError: global
    is not defined" → "Fix a blank screen: Uncaught ReferenceError: global is not defined"; "" when it
    names none in a dozen words."""
    text = _REPORT_LEAD_RE.sub("", one_line(sentence).strip(" .!"), count=1)
    broken = _NOT_WORKING_RE.match(text)
    if _ERROR_WORDS_RE.search(text):
        problem = text  # the error said after a colon is the problem ("a blank screen: Uncaught …")
    elif (broken and broken["verb"].lower() not in {"be", "sure", "know", "see", "think", "want", "like", "have"}
          and broken["what"].lower() not in _PRONOUNS):  # "they are not loading" names nothing
        what = _CLAUSE_END_RE.sub("", broken["what"]).strip()
        rest = _CLAUSE_END_RE.sub("", broken["rest"]).strip()
        verb = broken["verb"].lower() if broken["be"] else _gerund(broken["verb"])  # "isn't loading", "doesn't load"
        problem = f"{what} not {verb} {rest}"
    else:
        problem = _CLAUSE_END_RE.sub("", text)
    problem = _STILL_RE.sub("", problem.strip()).strip()
    words = problem.split()
    if not 1 <= len(words) <= 2 * _MAX_WORDS or not re.search(r"[^\W\d_]", problem):
        return ""
    return clean_title(f"Fix {problem}")


def _report_title(title: str, asked: str) -> str:
    """For a title that is a problem report with a verb pasted in front ("Fix they're cute, but the
    drag handle also doesn't work"), the instruction the user said in the first sentences, else the
    problem reported (after "but" when the report opens with a verdict), said as its fix; "" when
    the title is no such report or names nothing."""
    if not _REPORT_OPENER_RE.match(title):
        return ""
    inner = _instruction_in(asked, first_too=True)
    if inner and inner.split()[:3] != title.split()[:3]:
        return inner  # (the title's own sentence read again is no other instruction)
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    if first.endswith("?") and len(first.split()) <= 2 * _MAX_WORDS:
        # "I dont have any users other than me - is it worth implementing still?": what is asked is
        # the question, whole (its words cut to a title lost "than me").
        return clean_title(first)
    if _THOUGHT_RE.match(title):
        # "I'm thinking of …" with no instruction: no problem to name either; what the agent reported
        # doing for it ("Added a calm mode toggle …") says what the thought asked for.
        return ""
    but = _BUT_RE.search(first)
    return _reported_problem(but["rest"] if but else first)


# "Python3 should point to python 3.11. Please make it so.": the instruction is the wish before it.
_MAKE_IT_SO_RE = re.compile(r"^(?:please\s+|ok(?:ay)?\s+|so\s+)*(?:make|do)(?:\s+(?:it|that|this)(?:\s+so|\s+happen)?)?"
                            r"(?:\s+please)?[\s.!]*$", re.IGNORECASE)
_WISH_RE = re.compile(r"^(?P<subject>.+?)\s+(?:should|must|needs?\s+to|has\s+to|ought\s+to)\s+(?:be\s+)?"
                      r"(?P<rest>\S.*)$", re.IGNORECASE)


def _wished_title(title: str, asked: str) -> str:
    """For a bare "Make" / "Do it" title, the wish said before "Please make it so" ("Python3 should
    point to python 3.11" → "Make python3 point to python 3.11"); "" when there is none."""
    if not _MAKE_IT_SO_RE.match(title):
        return ""
    said = prompt_template.sentences(asked.split(_REFINED, 1)[0])
    for at, sentence in enumerate(said):
        if not _MAKE_IT_SO_RE.match(sentence) or not at:
            continue
        wish = _WISH_RE.match(said[at - 1].rstrip(" .!"))
        if wish and len(wish["subject"].split()) <= 4:
            subject = wish["subject"]
            subject = subject if subject[:2].isupper() else subject[:1].lower() + subject[1:]
            return clean_title(f"Make {subject} {wish['rest']}")
    return ""


# "There is a file called nul in the work tree … Can you find it and remove that for me?": the
# thing reported, with the verbs the user asked for in place of their pronouns.
_THERE_IS_RE = re.compile(r"^there(?:'s|\s+is|\s+are)\s+", re.IGNORECASE)
_PRONOUN_VERBS_RE = re.compile(r"^(?P<first>[A-Za-z]+)\s+(?:it|that|this|them)(?:\s+(?:and|&)\s+(?P<second>[A-Za-z]+)"
                               r"(?:\s+(?:it|that|this|them))?)?(?:\s+(?:for\s+(?:me|us)|please))?$", re.IGNORECASE)


def _there_is_title(title: str, asked: str) -> str:
    """For a "Fix <thing>" title read off "There is <thing> …", the instruction said later when its
    objects are pronouns for the thing ("find it and remove that" → "Find and remove a file called
    nul in the work tree"), or said whole; "" when no later sentence asks anything."""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    if not title.lower().startswith("fix ") or not _THERE_IS_RE.match(first):
        return ""
    thing = title[4:]
    if thing.lower() not in _THERE_IS_RE.sub("", first, count=1).lower():
        return ""
    inner = _instruction_in(asked, first_too=False)
    verbs = _PRONOUN_VERBS_RE.match(inner) if inner else None
    if not verbs or not all(v.lower() in IMPERATIVE_VERBS for v in (verbs["first"], verbs["second"] or "fix")):
        return inner
    said = verbs["first"] + (f" and {verbs['second'].lower()}" if verbs["second"] else "")
    return clean_title(f"{said} {thing}")


# An opening that only hands the agent its reading ("Read CLAUDE.md and docs/plan.", "Look at
# README.md"): context for the work, never the work — what the message asks is said after it,
# often as the problem it reports ("There is one CI test that keeps failing").
_READ_FIRST_RE = re.compile(r"^(?:(?:first|please)[\s,]+)*(?:re-?read|read|review|look\s+(?:at|through|over)|go\s+through|"
                            r"load|study|check\s+out)\s+(?P<what>\S.*)$", re.IGNORECASE)
_DOC_NAME_RE = re.compile(r"^(?:`?@?[\w~-]*[./][\w./~-]*`?|(?:the\s+)?(?:docs?|readme|documentation|codebase|"
                          r"project\s+plan|plan|spec))$", re.IGNORECASE)
_NAMES_SPLIT_RE = re.compile(r"\s*(?:,|&|\band\b|\bthen\b)\s*", re.IGNORECASE)
_PROBLEM_WORDS_RE = re.compile(r"\b(?:fail\w*|broken|error\w*|crash\w*|bugs?|wrong|flaky|hangs?|"
                               r"(?:doesn't|does\s+not|don't|isn't|is\s+not)\s+work\w*|not\s+working)\b", re.IGNORECASE)
_ONE_RE = re.compile(r"^(?:one|a|an)\s+(?=\S)", re.IGNORECASE)


def _reads_only(title: str) -> bool:
    """Whether ``title`` only tells the agent what to read: "Read" (or "Review", "Look at" …) and
    nothing but names of files and documents ("claude.md and docs/project-plan")."""
    read = _READ_FIRST_RE.match(one_line(title).rstrip(" ."))
    names = [n for n in _NAMES_SPLIT_RE.split(read["what"]) if n] if read else []
    return bool(names) and all(_DOC_NAME_RE.match(n.strip(" .")) for n in names)


def _after_reading_title(title: str, asked: str) -> str:
    """For a title that only tells the agent what to read, what the message asks after it: the
    problem a later sentence reports ("There is one ci test that keeps failing" → "Fix the ci test
    that keeps failing") or a later instruction; "" when it asks nothing more (reading was it)."""
    if not _reads_only(title):
        return ""
    for sentence in prompt_template.sentences(asked.split(_REFINED, 1)[0])[1:_LOOK_AHEAD]:
        there = _THERE_IS_RE.match(sentence)
        if there and _PROBLEM_WORDS_RE.search(sentence):
            problem = _CLAUSE_END_RE.sub("", sentence[there.end():].strip(" .!")).strip()
            if 1 <= len(problem.split()) <= _MAX_WORDS:
                return clean_title(f"Fix {_ONE_RE.sub('the ', problem, count=1)}")
        candidate = clean_title(sentence)
        if starts_with_verb(candidate):
            return _shortened(candidate)
    return ""


# A belief the user voices as a question ("I thought we already planned phase 9?"): what is asked is
# to check it — never the user's thought as a title.
_BELIEF_RE = re.compile(r"^(?:(?:but|hmm+|wait|so)[\s,]+)*i\s+(?:thought|assumed|believed|figured|was\s+sure)\s+"
                        r"(?:that\s+)?(?P<rest>(?:we|you|it|this|that|the|there|they|[\w.-]+\s+(?:was|were|is|are|had|has))\b.*?)"
                        r"[\s?.!]*$", re.IGNORECASE)


def _belief_title(title: str, asked: str) -> str:
    """"Check whether we already planned phase 9" for a message opening "I thought we already
    planned phase 9?"; "" when the title is no such belief."""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    belief = _BELIEF_RE.match(one_line(title))
    if not belief or not first.rstrip().endswith("?") or len(belief["rest"].split()) > _MAX_WORDS:
        return ""
    rest = belief["rest"]
    rest = rest if rest[:2].isupper() else rest[:1].lower() + rest[1:]
    return clean_title(f"Check whether {rest}")


# A question said without its mark ("How can I install the generated casks so i can test it.").
_QUESTION_OPENER_RE = re.compile(r"^(?:how|what|why|which|where|when|who|whose|is\s+there|are\s+there|"
                                 r"(?:can|could|should|would|do|does|did|am|is|are)\s+(?:i|we|you|it|this|that|they))\b",
                                 re.IGNORECASE)


def _whole_question(title: str, asked: str) -> str:
    """The question the user asked, whole, for a title that is its first words ("Which conda
    environment am" of "Which conda environment am i in?": its last words were taken as dangling);
    "" when the title is no such cut."""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    words, said = title.lower().split(), re.findall(r"\S+", first.lower().rstrip("?. "))
    asks = first.endswith("?") or bool(_QUESTION_OPENER_RE.match(first))
    if not asks or not words or len(words) >= len(said) or said[: len(words)] != words:
        return ""
    question = clean_title(first.rstrip(". ") + "?")
    return question if len(question.split()) > len(words) else ""


# "Fix for the C1 issue": a fix named as a noun ("a fix for …"), the thing to fix is its object.
_FIX_FOR_RE = re.compile(r"^(?P<verb>Fix|fix)\s+for\s+(?=(?:the|this|that|these|those|a|an|my|our|its|their)\s)")
# The user's aside after the instruction ("… the C1 issue i don't want …", "… faster I think it's the
# images"): what they feel about it, not what is asked; the title ends before it.
_ASIDE_RE = re.compile(r"[,;]?\s+(?:i|we)\s+(?:(?:don't|do\s+not|didn't)\s+(?:want|think|know|like|care)|think|thought|guess|"
                       r"feel|hope|wonder|believe|'m\s+not\s+sure|am\s+not\s+sure)\b.*$", re.IGNORECASE)
_MIN_BEFORE_ASIDE = 3  # words an instruction keeps before an aside is cut off


def _without_aside(title: str) -> str:
    """``title`` with "Fix for the …" said as "Fix the …" and the user's aside after the
    instruction cut off ("Fix for the C1 issuem i don't want" → "Fix the C1 issuem")."""
    title = _FIX_FOR_RE.sub(lambda m: f"{m['verb']} ", title, count=1)
    aside = _ASIDE_RE.search(title)
    if aside and len(title[: aside.start()].split()) >= _MIN_BEFORE_ASIDE:
        return clean_title(title[: aside.start()])
    return title


# A command said to report problems ("mise run lint throws issues"): fixing what it reports is asked.
_COMMANDS = "|".join(sorted(COMMAND_WORDS))
_COMMAND_REPORTS_RE = re.compile(r"^(?P<cmd>(?:" + _COMMANDS + r")\b[^,.;:]{0,40}?)\s+(?:throws|gives|shows|reports|returns|produces|"
                                 r"outputs|prints|spits\s+out|has|is\s+(?:throwing|giving|showing|reporting))\s+"
                                 r"(?:some\s+|a\s+few\s+|many\s+|lots\s+of\s+|a\s+lot\s+of\s+)?"
                                 r"(?P<what>issues|errors|warnings|failures|problems|an?\s+error|an?\s+warning)\s*$",
                                 re.IGNORECASE)
# A title that is only an id or a path ("FND-001", ".codex/prompts/implement.md"): no words of intent.
_ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*-\d+$|^#\d+$")
_PATH_RE = re.compile(r"^[\w.~/-]*/[\w.-]+\.(?:md|mdx|txt|prompt)$|^[\w.-]+\.(?:md|mdx|prompt)$", re.IGNORECASE)
_PAST_RE = re.compile(r"^(?:I've\s+|I\s+have\s+|I\s+)?(?P<verb>[A-Za-z]+ed)\b", re.IGNORECASE)


def _present(past: str) -> str:
    """"Implemented" → "implement", "Fixed" → "fix", "Added" → "add" ("" when it is no instruction verb)."""
    low = past.lower()
    for verb in (low[:-1], low[:-2], low[:-3] if len(low) > 4 and low[-3] == low[-4] else ""):
        if verb in IMPERATIVE_VERBS:
            return verb
    return ""


# "Brews is being phased out in favor of homebrew_casks": the move from one to the other is asked.
_PHASED_OUT_RE = re.compile(r"^(?P<old>\S+(?:\s+\S+){0,3}?)\s+(?:is|are|has\s+been|have\s+been|was|were)\s+(?:being\s+|now\s+)?"
                            r"(?:phased\s+out|deprecated|removed|retired|superseded|replaced)\s+in\s+favou?r\s+of\s+"
                            r"(?P<new>\S+(?:\s+\S+){0,3}?)\s*(?:[,.;:]|$)", re.IGNORECASE)


def _deprecation_title(title: str) -> str:
    """"Brews is being phased out in favor of homebrew_casks" → "Replace brews with homebrew_casks"."""
    moved = _PHASED_OUT_RE.match(title)
    if not moved or starts_with_verb(title):
        return ""
    old = moved["old"] if moved["old"][:2].isupper() else moved["old"][:1].lower() + moved["old"][1:]
    return clean_title(f"Replace {old} with {moved['new']}")


def _bare_name_title(title: str, asked: str, done: str) -> str:
    """For a title that is a command said to report problems, the fix of them ("mise run lint throws
    issues" → "Fix the issues `mise run lint` reports"); for one that is only an id, the verb the
    report opens with ("FND-001" + "Implemented `FND-001` …" → "Implement FND-001"); for one that is
    only the path of instructions the user pointed at, following them; else ""."""
    reports = _COMMAND_REPORTS_RE.match(title)
    if reports:
        return f"Fix the {reports['what'].lower()} `{reports['cmd'].strip()}` reports"
    name = title.strip().strip("`")
    if _ID_RE.match(name):
        past = _PAST_RE.match(done)
        verb = _present(past["verb"]) if past and name.lower() in done.lower()[:80] else ""
        return f"{verb.capitalize()} {name}" if verb else ""
    if _PATH_RE.match(name) and asked.strip().rstrip(".").strip("`").lower() == name.lower():
        return f"Follow the instructions in `{name}`"
    return ""


# A saved prompt expanded from its own heading ("# /butler-exec — Execute a ButlerSpec", as a Codex
# custom prompt or a command file opens): what the command does is what running it asked, never a
# line of the template's body ("… sanity check (expected shape)").
_COMMAND_HEADING_RE = re.compile(r"^/(?P<name>[\w:.-]+)\s+[—–-]+\s+(?P<what>[A-Za-z]\w+\s+[^.!?]{2,80}?)[.!]?$")


def _command_heading_title(asked: str) -> str:
    """"Execute a ButlerSpec (/butler-exec)" for what was asked opening with a prompt's heading
    "/butler-exec — Execute a ButlerSpec." (its description an instruction); "" otherwise."""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    heading = _COMMAND_HEADING_RE.match(first)
    if heading is None or not starts_with_verb(heading["what"]):
        return ""
    return clean_title(f"{capitalise(heading['what'].strip())} (/{heading['name']})")


# What the agent reported doing, in the past tense ("Added a calm mode toggle …", "I've created the
# ticket system in `.claude/tickets/`", "Wrote the guide to docs/guide.md").
_DID_RE = re.compile(r"^(?:(?:i|we)(?:'ve|\s+have)?\s+)?(?:(?:now|also|just|successfully|finally)\s+)*"
                     r"(?P<verb>[a-z]{3,})\s+(?P<rest>\S.{4,}?)[.!]?$", re.IGNORECASE)
_IRREGULAR = {"wrote": "write", "built": "build", "made": "make", "ran": "run", "set": "set", "put": "put",
              "split": "split", "cut": "cut", "kept": "keep", "found": "find", "took": "take", "gave": "give",
              "rewrote": "rewrite", "moved": "move"}


def _base_verb(word: str) -> str | None:
    """The instruction verb of a past tense ("added" → "add", "created" → "create", "stopped" →
    "stop", "wrote" → "write"), or None when it is none."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if not low.endswith("ed"):
        return None
    stem = low[:-2]
    for verb in (stem, low[:-1], stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "",
                 stem[:-1] + "y" if stem.endswith("i") else ""):
        if verb in IMPERATIVE_VERBS:
            return verb
    return None


def _done_title(done: str) -> str:
    """The work the agent's report (already read by ``done_text``) opens with, said as an
    instruction ("Added a calm mode toggle to the settings." → "Add a calm mode toggle to the
    settings"); "" when its first two sentences tell no such work."""
    for sentence in prompt_template.sentences(done)[:2]:
        did = _DID_RE.match(sentence.strip())
        verb = _base_verb(did["verb"]) if did else None
        if did and verb:
            return _shortened(capitalise(f"{verb} {did['rest'].rstrip(' :')}"))
    return ""


# A title whose object names nothing ("Go ahead: implement this solution", "Apply the fix", "Do
# it"): what it was is what the agent's report says it did with the same verb ("I've implemented the
# `skipPermissions` setting …" → "Implement the `skipPermissions` setting …").
_VAGUE_OBJECT_RE = re.compile(r"^(?:go\s+ahead(?:\s*:\s*|\s+and\s+))?(?P<verb>[a-z]+)\s+(?:(?:this|that|the|your|the\s+proposed|"
                              r"the\s+suggested)\s+)?(?:solution|plan|fix|approach|change|changes|proposal|idea|suggestion|"
                              r"one|it|this|that)[.!]?$", re.IGNORECASE)


def _vague_object_title(title: str, done: str) -> str:
    """For a title whose object names nothing, the work the report opens with when it is told with
    the title's own verb; "" otherwise (another verb may be other work)."""
    vague = _VAGUE_OBJECT_RE.match(one_line(title))
    if not vague or vague["verb"].lower() not in IMPERATIVE_VERBS:
        return ""
    said = _done_title(done).split(": ", 1)[0]  # "Ran the tests: 3 passed": the work, not its result
    return said if said.split(" ", 1)[0].lower() == vague["verb"].lower() and len(said.split()) >= 3 else ""


# A title that ran past its sentence's end into one or two words of the next ("Try logging in
# again. error", the pasted error's first word): the sentence is the title.
_TRAILING_FRAGMENT_RE = re.compile(r"^(?P<sentence>\S+(?:\s+\S+)+?[.!?])\s+(?P<rest>\S+(?:\s+\S+)?)$")


def _without_trailing_fragment(title: str) -> str:
    """``title`` without one or two words after its sentence's full stop ("Try logging in again.
    error" → "Try logging in again"), when the sentence before is an instruction; as it is otherwise
    (a version or a path holds dots of its own: "Bump to 1.2. now" is left alone unless it says
    an instruction first)."""
    cut = _TRAILING_FRAGMENT_RE.match(one_line(title))
    if cut is None or not starts_with_verb(cut["sentence"]) or re.search(r"\d[.]$", cut["sentence"]):
        return title
    return cut["sentence"].rstrip(".!")


def request_title(title: str, asked: str, done: str) -> str:
    """``title``, or (when it is template scaffolding) one read from ``asked`` and ``done``; a
    title that is no instruction ("I came from the future", an effort modifier "Think hard")
    takes the instruction said in the first sentences of ``asked`` when there is one."""
    if is_effort_modifier(title):
        return _instruction_in(asked, first_too=True) or title
    title = _without_trailing_fragment(title)
    vague = _vague_object_title(title, done)  # "Go ahead: implement this solution": what was implemented
    if vague:
        return vague
    command = _command_heading_title(asked)
    if command:
        return command
    title = _without_aside(title)
    if _ANSWERED_RE.match(title):  # "Voice system - Yes, we'll use the existing …": the answer, as an instruction
        title = decision_title(title)
    if not is_template_title(title):
        verdict = _verdict_problem(title, asked)  # "Fix better, we got X, but …": the problem after "but"
        if verdict:
            return verdict
        if _MAKE_ERROR_RE.match(title):  # "Make ImportError: …": an error is fixed, not made
            return "Fix" + title[4:]
        # A problem the user reported, a wish before "make it so", a "there is X" with its ask later.
        said = (_report_title(title, asked) or _wished_title(title, asked) or _there_is_title(title, asked)
                or _whole_question(title, asked) or _bare_name_title(title, asked, done)
                or _deprecation_title(title))
        if said:
            return said
        if _THOUGHT_RE.match(title):  # a thought, nothing asked: what the agent did for it, if it said
            return _done_title(done) or title
        after_reading = _after_reading_title(title, asked)  # "Read X and Y. There is one test failing …"
        if after_reading:
            return after_reading
        if starts_with_verb(title) or title.split(" ", 1)[0] in COMMAND_WORDS:
            return title
        # "I came from the future" of "I came from the future … now add another section …".
        return _instruction_in(asked, first_too=False) or _belief_title(title, asked) or title
    for sentence in prompt_template.sentences(asked.split(_REFINED, 1)[0]):
        if _STEP_LABEL_RE.match(sentence):
            continue  # a template's own step ("Setup: Run the prerequisites script"), not the intent
        candidate = clean_title(sentence)
        if starts_with_verb(candidate):
            return candidate
    for sentence in prompt_template.sentences(done):
        match = _SAVED_RE.match(sentence)
        if match:
            what = match["what"].strip()
            what = what if what[:2].isupper() else what[:1].lower() + what[1:]
            name = match["path"].rsplit("/", 1)[-1]
            return capitalise(f"Write the {what} in {name}")
    return _done_title(done) or prompt_template.NO_INPUT_TITLE  # (the work done says what the run was for)


# The label of output the user pasted ("Stderr: error: …"), never the thing the request is about.
_OUTPUT_LABELS = {"stderr", "stdout", "output", "log", "logs", "console", "terminal", "traceback", "error", "errors",
                  "result", "results", "trace", "stack", "stacktrace"}


def _words(text: str) -> list[str]:
    """Lower-case words without the dots around them ("file." of a sentence's end is "file")."""
    return [w for w in (w.strip(".") for w in re.findall(r"[\w.'-]+", text.lower())) if w]


_SENTENCE_PIECE = 3  # words of the request's opening a bracketed target's head holds when it is a cut sentence


def names_a_target(target: str, summary: str) -> bool:
    """Whether a staged target names a thing: not a template heading ("## User Input"), not a
    polite or harness opener ("ultrathink"), not the first words the request opens with ("Hello I
    want" of "Hello I want to have some test conversation …")."""
    words = _words(target)
    if not words or is_template_title(target.lstrip("#* ")) or set(words) <= _OUTPUT_LABELS:
        return False
    if _VAGUE_OBJECT_RE.match(one_line(target)):
        return False  # "implement this solution": an object that names nothing
    rest, _fix = strip_front(target)
    if not re.search(r"[^\W_]", rest):
        return False
    # "brews is being phased (goreleaser.com, homebrew_casks)": the words before the bracket are the opening's.
    opening = _words(summary)
    head = _words(target.split("(", 1)[0])
    if "(" in target and len(head) >= _SENTENCE_PIECE and set(head) <= set(opening[: len(head) + 2]):
        return False  # a piece of the first sentence, with names in brackets after it
    return not set(words) <= set(opening[: len(words) + 2])


def slug_text(title: str, *texts: str) -> str:
    """What a record's file name is made from: ``title``, or when it has no letters a slug can
    hold (a title in Chinese or Japanese), the Latin words of ``texts`` (its target, summary and
    report: "status", "doctor"), so the file is not named "untitled"."""
    if re.search(r"[A-Za-z0-9]", title):
        return title
    said = " ".join(texts).replace(_REFINED.strip(), " ")
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z]", said)
             if not w.lower().startswith(("http", "www"))]
    return " ".join(words[:6]) or title


_PRONOUN_OBJECT_RE = re.compile(r"^(?P<verb>\w+)\s+(?:it|this|that|this one|that one|(?:this|that|the)\s+file)"
                                r"(?=\s+(?:and|to|so|with|too)\b|$)", re.IGNORECASE)
_NOT_A_FILE_VERBS = {"push", "commit", "merge", "ship", "land", "revert", "undo", "rebase", "deploy", "release", "run"}
_MADE_RE = re.compile(r"\b(?:created|wrote|written|added|made|generated|saved)\b[^.`]*?`(?P<path>[\w./-]+\.\w{1,5})`",
                      re.IGNORECASE)


def resolve_pronoun(title: str, before_done: str) -> str:
    """A title whose object is a bare pronoun or "that file" ("Edit it and add some content") names the file the
    request just before reported making ("I've created `test-file.txt` …" → "Edit test-file.txt
    and add some content"); unchanged when that report names no file it made."""
    match = _PRONOUN_OBJECT_RE.match(title)
    if not match or not starts_with_verb(title) or match["verb"].lower() in _NOT_A_FILE_VERBS:
        return title
    made = _MADE_RE.search(before_done)
    if not made:
        return title
    name = made["path"].rsplit("/", 1)[-1]
    return f"{match['verb']} {name}{title[match.end():]}"


# A follow-up that only says the last problem is back ("same error", "Still the same issue.", "same
# error again: <the paste>"): no request of its own, the request before it not yet done.
_SAME_AGAIN_RE = re.compile(r"^(?:(?:ok(?:ay)?|hmm+|nope|no|sadly|unfortunately)[\s,.!]+)*(?:(?:it's|it\s+is|i'm|i\s+am|"
                            r"i|we|still)\s+)*(?:(?:still\s+)?(?:getting|seeing|get|got|see|have)\s+)?(?:the\s+)?same\s+"
                            r"(?:error|issue|problem|thing|failure|result|exception|crash|message)s?"
                            r"(?:\s+(?:again|still|as\s+before|here|now))*\s*(?:[.!:;,-]|$)", re.IGNORECASE)


def is_same_again(summary: str) -> bool:
    """Whether a request only reports that the problem of the request before it happened again."""
    return bool(_SAME_AGAIN_RE.match(one_line(summary)))


def is_resume_of(request: object, before: object) -> bool:
    """Whether ``request`` takes up ``before`` again after it stopped ("continue" staged as
    "Continue: <what was asked>"): one request, not two — what ``before`` reported when it stopped
    ("I can see you have modified files that need to be committed before pushing") was no outcome."""
    summary = one_line(getattr(request, "summary", "") or "")
    asked = one_line(getattr(before, "summary", "") or "").split(_REFINED)[0]
    return (getattr(request, "intent", "") == "continue"
            and summary.lower().startswith("continue:") and bool(asked)
            and summary[len("continue:"):].strip().startswith(asked[:60]))


# The agent's report asking the user to hand something over, without a question mark ("Please paste
# the full output of `docfx`, then I can fix them", "Bitte poste die beiden Warnungen …", "Share the
# email address to use"): the work waits on the user's reply.
_ASKS_TO_GIVE_RE = re.compile(
    r"^(?:(?:please|bitte|kindly|(?:could|can|would)\s+you)\s+)*(?:(?:just|also|einmal|mir|noch)\s+)*"
    r"(?:share|send|paste|post|poste|provide|give\s+me|tell\s+me|show\s+me|schick\w*|sende|gib\s+mir|zeig\w*)\b",
    re.IGNORECASE)
_ASK_SENTENCES = 2  # of the report's end, where an ask that the reply answers stands


def asks_to_give(done: str) -> bool:
    """Whether the report ``done`` ends asking the user for something (one of its last two sentences
    opens with an ask to share, paste, send, post … it)."""
    said = prompt_template.sentences(one_line(done))
    return any(_ASKS_TO_GIVE_RE.match(s) for s in said[-_ASK_SENTENCES:])


def answers_the_ask(request: object, before: object) -> bool:
    """Whether ``request`` is the user handing over what the report of ``before`` asked for (the
    warnings pasted after "Please post both warnings in full"): no instruction and no question of its
    own, so it is detail of ``before``, its report that request's outcome."""
    if not asks_to_give(getattr(before, "done", "") or ""):
        return False
    title = one_line(getattr(request, "title", "") or getattr(request, "summary", "") or "")
    first = next(iter(prompt_template.sentences(one_line(getattr(request, "summary", "") or ""))), "")
    return bool(title) and not starts_with_verb(title) and "?" not in first and not title.endswith("?")


_CONTENT_RE = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_FUNCTION_WORDS = {"the", "a", "an", "of", "to", "in", "on", "for", "with", "and", "or", "it", "this", "that", "them",
                   "these", "those", "is", "are", "be", "as", "at", "by", "from", "into", "me", "us", "my", "our"}
_MIN_CUT_WORDS = 15  # a summary this long may have been cut before the instruction; a short one was said whole


def with_instruction(asked: str, title: str) -> str:
    """``asked``, ending with the instruction its title was read from when Phase 1's summary was cut
    before it ("… two stray scratch files …: `a.json` and `b.txt`." + "Remove them with a small cleanup
    commit."): a summary that never says what was asked is no summary of a request. Unchanged when
    the title is no instruction, a slash command's, or its words are in ``asked``."""
    said = clean_title(title) if title else ""
    if (not said or not starts_with_verb(said) or "(" in said or asked.lstrip().startswith("/")
            or len(asked.split()) < _MIN_CUT_WORDS or _REFINED in asked):
        return asked
    words = [w.lower() for w in _CONTENT_RE.findall(said)[1:] if w.lower() not in _FUNCTION_WORDS]
    present = {w.lower() for w in _CONTENT_RE.findall(asked)}
    if not words or sum(w in present for w in words) * 2 >= len(words):
        return asked
    return f"{asked.rstrip()} {said}."


_MIN_SENT_AGAIN = 3


def is_sent_again(request: object, earlier: object) -> bool:
    """Whether ``request`` is ``earlier`` sent again: the same words asked (case and spacing aside)."""
    said = one_line(getattr(request, "summary", "") or "").lower()
    # Three words at least: "continue" or "try again" said twice are two turns of work, not one.
    return len(said.split()) >= _MIN_SENT_AGAIN and said == one_line(getattr(earlier, "summary", "") or "").lower()


# Where a phrase cut off a title ends: the sentence's end, a comma or semicolon, a bracket, a clause
# opener ("if", "so", "which", "und" …), or "to" before a verb (a purpose: "… to get a strong …").
_CLAUSE_OPENERS = {"if", "so", "because", "since", "which", "where", "when", "while", "that", "but", "then", "who",
                   "und", "oder", "e", "o", "et", "y", "ou", "pero", "aber", "ma"}
_PLAIN_WORD_RE = re.compile(r"^[\w'’.-]+[,;.!?]?$")
_MAX_REST = 5  # words a cut phrase may take back


def whole_phrase(title: str, asked: str) -> str:
    """``title`` with the words it was cut before given back, when it is the opening words of the
    first sentence of ``asked`` cut in mid-phrase and at most five plain words finish that phrase
    ("Use context7 and review te linear docs both sdk" of "… both sdk and regular to get a strong
    understanding" → "… both sdk and regular"; "Work on phase 4 … for US2" of "… for US2 from t103a to
    t103n." → "… from t103a to t103n"); as it is otherwise, and never over the title's length."""
    first = next(iter(prompt_template.sentences(asked.split(_REFINED, 1)[0])), "")
    words, said = title.split(), first.split()
    if not words or len(said) <= len(words) or ":" in title:
        return title
    if [w.lower().strip(".,;") for w in said[: len(words)]] != [w.lower().strip(".,;") for w in words] \
            or said[len(words) - 1][-1:] in ",;:.!?)":
        return title  # no cut of that sentence, or cut where a clause ends already
    rest: list[str] = []
    for at, word in enumerate(said[len(words):]):
        low = word.lower().strip(",;.!?")
        after = said[len(words) + at + 1].lower().strip(",;.!?") if len(words) + at + 1 < len(said) else ""
        if (low in _CLAUSE_OPENERS or word.startswith(("(", "[", "\"", "`"))
                or (low == "to" and (after in IMPERATIVE_VERBS or after in {"get", "be", "have", "see", "know"}))
                or (low in {"and", "or"} and (after in IMPERATIVE_VERBS or _imperative(after)))):  # "… and logging …"
            break
        if not _PLAIN_WORD_RE.match(word) or len(rest) >= _MAX_REST:
            return title  # a pasted path or prompt, or a phrase too long to take back
        rest.append(word.rstrip(",;.!?"))
        if word[-1:] in ",;.!?":
            break
    longer = " ".join([*words, *rest])
    return longer if rest and len(longer) <= MAX_TITLE else title
