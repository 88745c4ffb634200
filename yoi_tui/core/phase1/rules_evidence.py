"""Decisions the rules extractor reads from what happened around a choice, not from a cue word.

Owns ten kinds of decision evidence (each a general mechanism, none tied to one session):

- **a refused step, then the user's redirection**: the user refused a call (an edit, a command) and
  said what to do instead ("fix the test, the code is right") — the redirection is the choice, the
  refused step the option turned down;
- **a proposal the user accepted**: the agent recommended an approach ("I'd recommend a dedicated
  test file rather than the README") and the user's next message accepts it ("Sure, put it in
  test-secrets.");
- **a merge conflict and how it was resolved**: git stopped on conflicts, and the agent's account
  of the resolution before its edits is the choice;
- **a constraint the user stated with the request** ("However, I want the parameters retained. Mark
  them ignored with inline linter directive comments."), or an instruction that names the way set
  aside ("Write the parser in Rust, not Python");
- **a commit message that says why**: a commit whose body gives the reason for the change ("These
  are tool-specific directories, not project code") records a choice — the subject is what was
  chosen, the body's reason the rationale. A commit message that only lists changes is a change
  summary, not a decision, and is skipped;
- **an option weighed and set aside**: "we could even drop the flag, since --full-auto implies it,
  but keeping the explicit flag is clearer" — the clause after "but" is the choice, the option
  the agent could have taken is the one turned down;
- **a user correction**: after the agent acted, the user turned its approach down and said what to
  do (pointing at another target, "not that button, this one", refines the request instead) ("don't write python code, only change javascript", "it's not needed, remove that
  configuration", "it should be a constant"; the user's own way said against the agent's: "use pnpm,
  not npm", "actually, let's keep it in Redis", "I'd rather keep it in one file", "make it a constant
  instead of a config option" - "instead" only when the sentence instructs, since "it shows the date
  instead of the time" reports a bug) — the user's words are the choice.

- **the user's steer the agent agrees to** ("I think we should order them by X" -> "Good idea - X is
  more stable than Y"; a bug report it agrees with is none);
- **what the agent makes in place of a failed step** ("gh cannot create the issue: let me write the
  findings to FINDINGS.md instead"; a look-up retried another way is none);
- **a name the user gives** ("rename a_b to c_d, it reads better").

``stated_choice`` also reads "X is deprecated in favour of Y" (Y chosen over X).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..sessions.model import Entry
from ..store.staging import Decision
from .calls import Call
from .commands import stopped_on_conflicts
from .rules_requests import accepts, instruction_verb, is_trivial, shares_subject
from .text import prose, sentences, short_title, squash

_RECOMMEND_RE = re.compile(r"\b(?:i'?d (?:recommend|suggest)|i (?:recommend|suggest)|my recommendation|"
                           r"(?:a |the )?(?:cleaner|better|simpler|safer|more robust) (?:approach|option|way) "
                           r"(?:would be|is)|(?:i'?d|i would) (?:go with|rather|focus on|start with|prioriti[sz]e))\b",
                           re.IGNORECASE)
_AGAINST_RE = re.compile(r"\brecommend against (?P<other>[^.,;—-]{4,80})", re.IGNORECASE)
_RATHER_RE = re.compile(r"\b(?:rather than|instead of) (?P<other>[^.,;—]{3,80})", re.IGNORECASE)
_REASON_RE = re.compile(r"(?:\s[—–-]\s|\b(?:because|since|as)\b\s)(?P<why>.{6,200})$", re.IGNORECASE)
_CONSTRAINT_RE = re.compile(r"^(?:however|but)\b.{0,80}\b(?:want|need|keep|retain|preserve|leave)\b|"
                            r"\b(?:i|we) (?:want|need) (?:\S+ ){0,10}(?:retained|kept|preserved|intact|unchanged)\b|"
                            r"\b(?:keep|retain|preserve|leave) (?:\S+ ){0,6}(?:as it is|as is|intact|unchanged)\b",
                            re.IGNORECASE)
_FAVOUR_RE = re.compile(r"^(?P<before>.*?)\s+in favou?r of\s+(?P<chosen>`[^`]+`|[\w.:/-]+(?: [\w.:/-]+){0,2})",
                        re.IGNORECASE)
_SUBJECT_END_RE = re.compile(r"\s+(?:is|are|was|were|has been|have been|will be|gets?|got)\b.*$|\s+(?:deprecated|"
                             r"dropped|removed|replaced|phased out)\b.*$", re.IGNORECASE)
_CONFLICT_FILE_RE = re.compile(r"^CONFLICT \([^)]*\): (?:Merge conflict in )?(?P<path>\S+)", re.MULTILINE)
_ACCEPT_WORD_RE = re.compile(r"^(?:sure|yes|yeah|yep|ok(?:ay)?|alright|fine|right|agreed)\b[\s,.!:-]*", re.IGNORECASE)
_NO_DECISION_TOOLS = {"exitplanmode", "askuserquestion"}
_COMMIT_RE = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?commit\b")
_HEREDOC_RE = re.compile(r"<<-?\s*['\"]?(?P<tag>\w+)['\"]?\s*\n(?P<body>.*?)\n\s*(?P=tag)\b", re.DOTALL)
# "-m", "--message", and -m folded into other short flags ("git commit -am …", "-sm").
_MESSAGE_ARG_RE = re.compile(r"(?:(?<![\w-])-[a-zA-Z]*m|--message)(?:\s+|=)(?:\"(?P<dq>(?:[^\"\\]|\\.)*)\"|'(?P<sq>[^']*)')")
_CONVENTIONAL_RE = re.compile(r"^(?:[a-z]+(?:\([^)]*\))?!?:\s*|\[?[a-z]+-\d+\]?:?\s*)", re.IGNORECASE)
_TRAILER_RE = re.compile(r"^(?:co-authored-by|signed-off-by|reviewed-by|refs?|closes|fixes|see):|generated with|"
                         r"^🤖", re.IGNORECASE)
# A sentence that says why, not what: the reason a commit body gives for the change.
_WHY_RE = re.compile(r"\b(?:because|since|so that|so (?:the|it|we|they|that)|in order to|to (?:avoid|keep|prevent|"
                     r"stop|make sure|ensure|allow)|otherwise|instead of|rather than|no longer|not subject to|"
                     r"(?:these|this|they|it) (?:are|is) (?:\S+ ){0,3}(?:not|only|just|specific|generated|"
                     r"needed|required))\b", re.IGNORECASE)
_WEIGHED_RE = re.compile(r"\b(?:we|i|you) could (?:also |even |just |instead )?(?P<other>[^;:]{4,140}?),? but "
                         r"(?P<chosen>[^;:]{4,140})$", re.IGNORECASE)
_CORRECTION_RE = re.compile(r"^(?:no[,.!]|nope\b|don'?t\b|do not\b|never\b|stop\b|"
                            r"actually,? (?:don'?t|do not|use|we|it)\b)|"
                            r"\b(?:is|are|was)(?:n'?t| not) (?:needed|necessary|required|wanted)\b|\bno need (?:for|to)\b|"
                            r"\bonly (?:change|touch|edit|modify|use)\b|"
                            r"\b(?:it|this|that|they|these) should(?:n'?t| not)? (?:be|use|go|live|stay)\b|"
                            r"\bwhy did (?:you|i)\b|"
                            # the user's own way, said against the agent's: "use pnpm, not npm", "actually,
                            # let's keep it in Redis", "I'd rather keep it in one file"
                            r"^(?:please\s+|just\s+)?(?:use|prefer|pick|choose|keep|put|store|call|name)\s+[^,.;?]{1,60},\s+not\s+"
                            r"(?:the\s+|a\s+|in\s+)?[\w`'\"./-]|"
                            r"^actually,?\s+(?:let'?s|we should|i'?d (?:rather|prefer)|make|put|keep|store|switch|move|"
                            r"change|go)\b|^i'?d (?:rather|prefer)\b|^i (?:would )?prefer\b", re.IGNORECASE)
# "make it a constant instead of a config option": a steer only when the sentence instructs (an
# instruction verb or "let's" opens it); "it shows the date instead of the time" reports a bug.
_INSTEAD_WORD_RE = re.compile(r"\b(?:instead|rather than)\b", re.IGNORECASE)
_LETS_RE = re.compile(r"^(?:(?:ok(?:ay)?|so|then|actually|hmm),?\s+)?let'?s\b", re.IGNORECASE)


# What no correction is: a reminder of a step ("don't forget to run the linter"), a bare "stop" (an
# interruption), a question other than "why did you …" ("it should be faster now, right?").
_REMINDER_RE = re.compile(r"^(?:please\s+)?(?:don'?t|do not) forget\b|^remember to\b|^(?:stop|wait|hold on)\W*$",
                          re.IGNORECASE)
# "no, <a fact>" ("no, the tests are in tests/unit"): the user sets a fact right, no way of working.
_NO_FACT_RE = re.compile(r"^no[,.!]\s+(?:(?:the|this|that|these|those|our|my)\s+(?:[\w./-]+\s+){0,3}|(?:it|they|there|we|"
                         r"you)\s*)(?:'s|'re|is|are|was|were|has|have|lives?|sits?)\b", re.IGNORECASE)


def _steers(sentence: str) -> bool:
    """Whether a user's sentence turns the agent's approach down or says which way to go."""
    plain = sentence.strip()
    if _REMINDER_RE.search(plain) or (plain.endswith("?") and not re.search(r"\bwhy did (?:you|i)\b", plain, re.IGNORECASE)):
        return False
    if _NO_FACT_RE.match(plain) and not re.search(r"\b(?:should|instead|use|don'?t|only|just)\b", plain[3:], re.IGNORECASE):
        return False
    if _CORRECTION_RE.search(sentence):
        return True
    return bool(_INSTEAD_WORD_RE.search(sentence)) and (instruction_verb(sentence) is not None
                                                        or bool(_LETS_RE.match(sentence)))


def _next_user(entries: list[Entry], position: int) -> tuple[int, Entry] | None:
    for offset, entry in enumerate(entries[position + 1:], start=position + 1):
        if entry.role == "user" and entry.kind in (None, "message") and entry.text.strip():
            return offset, entry
    return None


def _first_action_after(calls: list[Call], index: int) -> int:
    return next((c.end for c in calls if c.entry.index > index), index)


def refused_then_redirected(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """A refused call followed by the user's words on what to do instead."""
    decisions: list[Decision] = []
    position_of = {e.index: p for p, e in enumerate(entries)}
    for call in calls:
        if not call.rejected or call.name.lower() in _NO_DECISION_TOOLS or call.result is None:
            continue
        found = _next_user(entries, position_of.get(call.result.index, len(entries)))
        if found is None or is_trivial(found[1].text):
            continue
        body = prose(found[1].text)
        if not body or len(body.split()) > 40:
            continue
        if not directs(body):
            continue  # "the repo is a fork of X": the user tells a fact, the way to go is not said
        refused = call.describe()
        asked = next((e.text for e in reversed(entries[:position_of.get(call.entry.index, 0)])
                      if e.role == "user" and e.kind in (None, "message") and e.text.strip()), "")
        if not shares_subject(body, f"{asked} {refused} {' '.join(call.files())}"):
            continue  # a new subject after the refusal is a new request, not the way to do the refused step
        files = [f.rsplit("/", 1)[-1] for f in call.files()]
        step = f"{call.name} {', '.join(files)}" if files else refused
        decisions.append(Decision(
            title=squash(f"{short_title(body, 8)} (not {short_title(step, 6)})", 120),
            options=[squash(body, 200), squash(refused, 200)], chosen=squash(body, 200),
            rationale=squash(f"the user refused {refused} and said: {body}", 240),
            range=(call.entry.index, _first_action_after(calls, found[1].index))))
    return decisions


# Words that say what to do: a modal, a steer, a negation ("should", "instead", "don't", "just", "only").
_STEER_WORD_RE = re.compile(r"\b(?:should|shouldn'?t|must|need(?:s)? to|have to|want|instead|rather|don'?t|do not|never|"
                            r"just|only|please|let'?s|prefer|better|no need|not that|stop)\b", re.IGNORECASE)


def directs(body: str) -> bool:
    """Whether the user's words say what to do (an instruction verb opens a sentence, or a modal or a
    steer word is in it) rather than only telling a fact ("https://… is a fork of https://…")."""
    return any(instruction_verb(s) is not None for s in sentences(body)) or bool(_STEER_WORD_RE.search(body))


def accepted_proposals(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """The agent's recommendation (since the user last spoke) that the user's next message accepts."""
    decisions: list[Decision] = []
    said: list[Entry] = []  # the agent's messages since the user last spoke
    for entry in entries:
        if entry.role == "user" and entry.kind in (None, "message") and entry.text.strip():
            if said and accepts(entry.text):  # only then are the agent's messages read (prose is costly)
                proposal: list[tuple[int, str, str]] = []
                for message in said:
                    previous = ""
                    for sentence in sentences(prose(message.text)):
                        if _RECOMMEND_RE.search(sentence) and not sentence.rstrip().endswith("?") \
                                and not _recommends_a_look(sentence):
                            proposal.append((message.index, sentence, previous))
                        previous = sentence
                if proposal:
                    decisions.append(_proposal_decision(proposal, entry, calls))
            said = []
        elif entry.role == "assistant" and entry.kind in (None, "message") and entry.text:
            said.append(entry)
    return decisions


def _proposal_decision(proposal: list[tuple[int, str, str]], reply: Entry, calls: list[Call]) -> Decision:
    _index, sentence, context = proposal[-1]
    other = next((m for _i, s, _c in proposal for m in (_AGAINST_RE.search(s) or _RATHER_RE.search(s),) if m), None)
    reason = _REASON_RE.search(sentence)
    said = _ACCEPT_WORD_RE.sub("", prose(reply.text)).strip()
    chosen = squash(said if len(said.split()) >= 3 else _recommended(sentence), 200)
    rejected = squash(other.group("other").strip(), 200) if other else ""
    options = [chosen, rejected] if rejected else []
    why = reason.group("why") if reason else (context or sentence)
    title = short_title(chosen, 8) + (f", not {short_title(rejected, 6)[:1].lower()}{short_title(rejected, 6)[1:]}"
                                      if rejected else "")
    return Decision(title=squash(title, 120), options=options, chosen=chosen,
                    rationale=squash(f"the agent recommended it ({squash(why, 150)}); the user agreed: "
                                     f"{prose(reply.text)}", 240),
                    range=(proposal[0][0], _first_action_after(calls, reply.index)))


# A look or a run recommended ("I'd recommend running the tests before pushing", "I suggest we check the
# logs first", "I'd suggest you restart your terminal"): accepted, it is a step, not a choice.
_LOOK_NEXT_RE = re.compile(r"^(?:(?:that|to|on|with)\s+)?(?:(?:we|you)\s+)?(?:should\s+|first\s+)?(?:run(?:ning)?|re-?run(?:ning)?|"
                           r"test(?:ing)?|check(?:ing)?|review(?:ing)?|look(?:ing)?|verify(?:ing)?|read(?:ing)?|"
                           r"inspect(?:ing)?|restart(?:ing)?|wait(?:ing)?|ask(?:ing)?|confirm(?:ing)?|tr(?:y|ying)|"
                           r"investigat(?:e|ing)|debug(?:ging)?)\b", re.IGNORECASE)


def _recommends_a_look(sentence: str) -> bool:
    match = _RECOMMEND_RE.search(sentence)
    rest = re.sub(r"\*\*|__", "", sentence[match.end():]).strip(" :,;—–-") if match else ""
    return bool(rest) and bool(_LOOK_NEXT_RE.match(rest))


def _recommended(sentence: str) -> str:
    """What a recommending sentence puts forward: the words after "I'd recommend" / "I'd focus on"
    ("For a quick check, I'd focus on the riskiest parts first:" -> "the riskiest parts first"); a
    lead-in before the verb is the sentence's context, not the choice."""
    match = _RECOMMEND_RE.search(sentence)
    rest = re.sub(r"\*\*|__", "", sentence[match.end():]).strip(" :,;—–-") if match else ""
    rest = re.sub(r"^(?:that|to|on|with|we|you)\s+(?:(?:we|you)\s+)?(?:should\s+)?", "", rest, flags=re.IGNORECASE)
    if match is None or match.start() == 0 or len(rest.split()) < 2 or _AGAINST_RE.search(sentence):
        return sentence
    return rest[:1].upper() + rest[1:]


def conflict_resolutions(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """How the agent resolved the conflicts a git merge/rebase stopped on."""
    decisions: list[Decision] = []
    for position, call in enumerate(calls):
        if not call.is_shell or call.result is None or "CONFLICT" not in call.result.text and \
                "onflicts" not in call.result.text or not stopped_on_conflicts(call.command(), call.result.text):
            continue
        files = list(dict.fromkeys(m.group("path") for m in _CONFLICT_FILE_RE.finditer(call.result.text)))
        names = {f.rsplit("/", 1)[-1] for f in files}
        later = calls[position + 1:]
        edits = [c for c in later if c.is_edit and (not names or any(f.rsplit("/", 1)[-1] in names for f in c.files()))]
        if not edits:
            continue
        first_edit = edits[0].entry.index
        account = [e for e in entries if call.end < e.index < first_edit and e.role == "assistant"
                   and e.kind in (None, "message") and prose(e.text)]
        if not account:
            continue
        parts = sentences(prose(account[-1].text))
        if len(parts) > 1 and len(parts[0].split()) <= 4:
            parts = parts[1:]  # "Clear picture now."
        chosen = squash(re.sub(r"\*\*|__", "", " ".join(parts)), 200)  # markdown emphasis is not the choice
        where = ", ".join(sorted(names)) or "the merge"
        decisions.append(Decision(title=squash(f"Merge conflict in {where}", 120), options=[], chosen=chosen,
                                  rationale=f"{call.describe()} stopped on conflicts in {where}",
                                  range=(call.entry.index, edits[-1].end)))
    return decisions


def stated_constraints(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """A constraint the user put on the request ("however, I want X retained"), with how to meet it."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "user" or entry.kind not in (None, "message") or is_trivial(entry.text):
            continue
        parts = sentences(prose(entry.text))
        for number, sentence in enumerate(parts):
            alternative = _NOT_ALTERNATIVE_RE.search(sentence) if ", not " in sentence or ",not " in sentence else None
            if alternative is not None and instruction_verb(sentence) is not None \
                    and not _POINTER_RE.match(alternative.group("other")):
                # "Write the parser in Rust, not Python": the user's way, the other one named and set aside
                chosen, other = sentence[: alternative.start()].strip(" ,"), alternative.group("other").strip(" .")
                decisions.append(Decision(title=short_title(chosen, 10), options=[squash(chosen, 200), squash(other, 200)],
                                          chosen=squash(chosen, 200), rationale=squash(f"the user asked: {sentence}", 240),
                                          range=(entry.index, _first_edit_after(entries, calls, entry.index))))
                break
            if not _CONSTRAINT_RE.search(sentence):
                continue
            following = parts[number + 1] if number + 1 < len(parts) else ""
            chosen = following or sentence
            decisions.append(Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                                      rationale=squash(f"the user asked: {sentence}", 240),
                                      range=(entry.index, _first_edit_after(entries, calls, entry.index))))
            break
    return decisions


# ("…, not the first one", "…, not that": another target pointed at, which refines the request.)
_POINTER_RE = re.compile(r"(?:this|that|it|these|those|here|there|now|yet|(?:the\s+)?(?:first|second|third|last|other|"
                         r"previous|next|old|new|top|bottom|left|right)(?:\s+one)?|one)\b", re.IGNORECASE)
# The alternative a user's instruction sets aside: "…, not Python", "…, not an in-memory map".
_NOT_ALTERNATIVE_RE = re.compile(r",\s*(?:and\s+)?not\s+(?P<other>(?:an?\s+|the\s+|with\s+|in\s+|via\s+|using\s+)?"
                                 r"[\w`'\"./+#-][^,;]{0,60})[.!]?$", re.IGNORECASE)


def _first_edit_after(entries: list[Entry], calls: list[Call], index: int) -> int:
    """The end of the first edit after ``index`` before the user speaks again (the change that
    carries the user's constraint out), else ``index``."""
    until = next((e.index for e in entries if e.index > index and e.role == "user"
                  and e.kind in (None, "message")), None)
    edit = next((c for c in calls if c.entry.index > index and (until is None or c.entry.index < until)
                 and c.is_edit and not c.failed and not c.rejected), None)
    return edit.end if edit is not None else index


# An objection after "but" ("…, but it adds a dependency", "but that would break the API", "but the
# request only asks for X"): the option is set aside and no other way is named - a considered-and-
# dropped option, no choice.
_OBJECTION_RE = re.compile(r"^(?:the (?:request|task|user|spec|issue|ticket) (?:only |just )?(?:asks?|wants?|needs?|"
                           r"says?|is|does(?:n'?t| not))\b|"
                           r"(?:it|that|this|there|which|they|those)(?:'s|'d|'ll| is| are| was| would| will| could| "
                           r"might| adds?| needs?| requires?| makes?| means?| breaks?| costs?| changes?| isn'?t| "
                           r"aren'?t| doesn'?t| don'?t| won'?t| wouldn'?t| can'?t)\b)", re.IGNORECASE)


def favoured(sentence: str) -> tuple[str, str] | None:
    """(chosen, rejected) from "X is being phased out in favour of Y"."""
    match = _FAVOUR_RE.search(sentence)
    if match is None:
        return None
    subject = _SUBJECT_END_RE.sub("", match.group("before")).split(",")[-1].strip(" `\"'")
    words = subject.split()
    if not words or len(words) > 4:
        return None
    return match.group("chosen").strip("`\"' "), " ".join(words)


def commit_message(command: str) -> str:
    """The message of a ``git commit`` in ``command`` (``-m`` arguments or a heredoc), else ""."""
    found = _COMMIT_RE.search(command)
    if found is None:
        return ""
    rest = command[found.end():]
    heredoc = _HEREDOC_RE.search(rest)
    if heredoc is not None:
        return heredoc.group("body").strip()
    parts = [m.group("dq") if m.group("dq") is not None else m.group("sq") for m in _MESSAGE_ARG_RE.finditer(rest)]
    return "\n\n".join(p.replace('\\"', '"').replace("\\n", "\n") for p in parts).strip()


_PR_CREATE_RE = re.compile(r"\bgh\s+pr\s+(?:create|edit)\b")
_TITLE_ARG_RE = re.compile(r"(?:--title|-t)(?:\s+|=)(?:\"(?P<dq>(?:[^\"\\]|\\.)*)\"|'(?P<sq>[^']*)')")
_BODY_ARG_RE = re.compile(r"(?:--body|-b)(?:\s+|=)(?:\"(?P<dq>(?:[^\"\\]|\\.)*)\"|'(?P<sq>[^']*)')", re.DOTALL)
# A section of a PR body that says why or how, not what: "## Why", "## Motivation", "## Design".
_WHY_HEADING_RE = re.compile(r"^#{1,4}\s*(?:why|motivation|rationale|reason(?:ing)?|design|approach|decisions?|"
                             r"context|background)\b[^\n]*\n(?P<text>.*?)(?=^#{1,4}\s|\Z)",
                             re.IGNORECASE | re.MULTILINE | re.DOTALL)


def _quoted(match: re.Match[str] | None) -> str:
    if match is None:
        return ""
    text = match.group("dq") if match.group("dq") is not None else match.group("sq")
    return text.replace('\\"', '"').replace("\\n", "\n")


def pr_text(command: str) -> tuple[str, str]:
    """(title, body) of a ``gh pr create`` in ``command`` (``--title``/``--body`` arguments, the body
    also as a heredoc or ``$(cat <<EOF …)``), else ("", "")."""
    found = _PR_CREATE_RE.search(command)
    if found is None:
        return "", ""
    rest = command[found.end():]
    heredoc = _HEREDOC_RE.search(rest)
    body = heredoc.group("body").strip() if heredoc is not None else _quoted(_BODY_ARG_RE.search(rest)).strip()
    return _quoted(_TITLE_ARG_RE.search(rest)).strip(), body


# A body sentence that tells how the bug came about ("Empty rows caused a crash because the parser
# expected a header"): the fix's diagnosis, not the reason for a choice.
_CAUSE_RE = re.compile(r"\b(?:caused|causing|crash(?:ed|es|ing)?|fail(?:ed|s|ing)|broke|breaks|threw|throws)\b[^.]*\b"
                       r"(?:because|since|as)\b", re.IGNORECASE)


def _reasons(text: str) -> list[str]:
    """The sentences of a commit or PR body that say why (trailers, change lists and a bug's cause
    left out)."""
    lines = [line for line in text.splitlines() if line.strip() and not _TRAILER_RE.search(line.strip())]
    return [s for s in sentences(" ".join(lines)) if _WHY_RE.search(s) and not _CAUSE_RE.search(s)]


def _subject_why(subject: str) -> tuple[str, str]:
    """A subject that carries its own reason: "Retry webhooks with backoff to avoid hammering
    receivers" -> ("Retry webhooks with backoff", "to avoid hammering receivers")."""
    match = _WHY_RE.search(subject)
    # (A way set aside needs fewer words before it: "Use SQLite instead of JSON files" chose SQLite.)
    least = 6 if match is not None and match.group(0).lower() in ("instead of", "rather than") else 12
    if match is None or match.start() < least:
        return subject, ""
    return subject[: match.start()].rstrip(" ,;:—-"), subject[match.start():].strip()


def commit_rationales(calls: list[Call]) -> list[Decision]:
    """A commit or a pull request whose message says why: the subject (the PR's title) is the
    choice, the reason its rationale. A message that only lists changes is a change summary."""
    decisions: list[Decision] = []
    subjects: list[str] = []
    for call in calls:
        # A commit is told unless it failed: a Codex result often carries no exit status at all.
        if not call.is_shell or call.failed or call.rejected or call.result is None:
            continue
        command = call.command()
        if "commit" not in command and "gh" not in command:
            continue  # cheap test first
        message = commit_message(command)
        pr_title, pr_body = ("", "") if message else pr_text(command)
        if not message and not pr_title:
            continue
        if message:
            subject, _, body = message.partition("\n")
            reasons = _reasons(body)
        else:
            subject, body = pr_title, pr_body
            sections = [m.group("text") for m in _WHY_HEADING_RE.finditer(body)]
            reasons = _reasons("\n".join(sections)) or [s for t in sections for s in sentences(prose(t))][:2] \
                or _reasons(body)
        chosen = _CONVENTIONAL_RE.sub("", subject.strip()).strip()
        if not reasons:
            chosen, why = _subject_why(chosen)
            reasons = [why] if why else []
        if not reasons or len(chosen.split()) < 2:
            continue  # a commit that only lists changes is a change summary, not a decision
        if any(chosen.lower() == s for s in subjects):
            continue  # the PR of a commit already told: one decision
        subjects.append(chosen.lower())
        decisions.append(Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                                  rationale=squash(" ".join(reasons), 240), range=(call.entry.index, call.end)))
    return decisions


def user_corrections(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """The user turning down what the agent just did and saying what to do instead."""
    decisions: list[Decision] = []
    acted = False  # the agent did something since the user last spoke
    for entry in entries:
        if entry.role == "user" and entry.kind in (None, "message") and entry.text.strip():
            if acted and not is_trivial(entry.text):
                decision = _correction(entry, calls)
                if decision is not None:
                    decisions.append(decision)
            acted = False
        elif entry.role == "assistant" and entry.kind in ("tool_call", None, "message"):
            acted = acted or entry.kind == "tool_call"
    return decisions


def _correction(entry: Entry, calls: list[Call]) -> Decision | None:
    parts = sentences(prose(entry.text))
    if not parts or len(" ".join(parts).split()) > 60 or not any(_steers(p) for p in parts):
        return None
    directives = [p for p in parts if not p.rstrip().endswith("?")] or parts
    chosen = squash(" ".join(directives), 200)
    return Decision(title=short_title(directives[0], 10), options=[], chosen=chosen,
                    rationale=squash(f"the user corrected the agent's approach: {prose(entry.text)}", 240),
                    range=(entry.index, _first_action_after(calls, entry.index)))


def weighed_options(entries: list[Entry]) -> list[Decision]:
    """The agent naming an option it could take and saying why it takes another ("we could X, but Y")."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "assistant" or entry.kind not in (None, "message") or not entry.text:
            continue
        lowered = entry.text.lower()
        if " could " not in lowered or " but " not in lowered:
            continue  # cheap test first: prose() of every message is the cost here
        previous = ""
        for sentence in sentences(prose(entry.text)):
            match = _WEIGHED_RE.search(sentence.rstrip(".!"))
            if match is None or sentence.endswith("?"):
                previous = sentence
                continue
            chosen, other = match.group("chosen").strip(), match.group("other").strip()
            if _OBJECTION_RE.match(chosen):
                break  # "we could use a queue, but it adds a dependency": the option dropped, none taken
            before = re.sub(r"^(?:and|but|so|also)\s+", "", sentence[:match.start()].strip(" ,"), flags=re.IGNORECASE)
            if before:  # "since --full-auto implies it, we could drop the flag": the option's own case
                other = f"{other} ({before})"
            why = previous if previous and not previous.endswith(":") else sentence
            decisions.append(Decision(title=short_title(chosen, 10), options=[squash(chosen, 200), squash(other, 200)],
                                      chosen=squash(chosen, 200), rationale=squash(why, 240),
                                      range=(entry.index, entry.index)))
            break
    return decisions


# A tag that opens a comment line ("ABOUTME:", "NOTE:", "WHY:", "SAFETY:"): a label, never the text.
COMMENT_TAG_RE = re.compile(r"^\s*[A-Z][A-Z0-9_-]{1,15}:\s*")
_COMMENT_RE = re.compile(r"^\s*(?:#+|//+|/?\*+|--|;+)\s?(?P<text>.*?)\s*(?:\*/)?$")
_PROSE_FILES = (".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".org", ".html")
# A comment that names the road not taken: "Use a mutex rather than a channel: …", "X instead of Y because …".
_ALTERNATIVE_RE = re.compile(r"\b(?:instead of|rather than|in favou?r of)\b", re.IGNORECASE)


def _added_text(call: Call) -> str:
    """The text an edit adds: an Edit's new lines, a Write's content, an apply_patch's '+' lines."""
    patch = call.patch()
    if patch:
        return "\n".join(line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    data = call.entry.tool_input
    if not isinstance(data, dict):
        return ""
    listed = data.get("edits")
    edits: list[object] = list(listed) if isinstance(listed, list) else [data]
    added: list[str] = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        new, old = edit.get("new_string") or edit.get("content"), edit.get("old_string") or ""
        if isinstance(new, str):
            before = set(old.splitlines()) if isinstance(old, str) else set()
            added.extend(line for line in new.splitlines() if line not in before)
    return "\n".join(added)


def patch_comments(calls: list[Call]) -> list[Decision]:
    """A comment the agent's change adds that names the alternative it set aside ("// Poll rather
    than subscribe: the API drops idle sockets") - a choice visible only in the patch."""
    decisions: list[Decision] = []
    for call in calls:
        if not call.is_edit or not call.succeeded or all(f.lower().endswith(_PROSE_FILES) for f in call.files()):
            continue  # a document's headings and bullets are not code comments
        added = _added_text(call)
        if not added or not _ALTERNATIVE_RE.search(added):
            continue  # cheap test first
        comment: list[str] = []
        blocks: list[str] = []
        for line in added.splitlines() + [""]:
            match = _COMMENT_RE.match(line) if line.strip() else None
            if match is not None and match.group("text"):
                text = match.group("text")
                tag = COMMENT_TAG_RE.match(text)
                if tag is not None:  # "ABOUTME: …", "NOTE: …": the tag opens a comment of its own
                    if comment:
                        blocks.append(" ".join(comment))
                    comment = []
                    text = text[tag.end():]
                if text.strip():
                    comment.append(text)
                continue
            if comment:
                blocks.append(" ".join(comment))
            comment = []
        text = next((b for b in blocks if _ALTERNATIVE_RE.search(b) and len(b.split()) >= 5), "")
        if not text:
            continue
        reason = _REASON_RE.search(text) or re.search(r"[:;]\s+(?P<why>.{6,200})$", text)
        chosen = text[: reason.start()].strip(" :;,—-") if reason else text
        if len(chosen.split()) < 3:
            continue  # "ABOUTME" before a colon: a label, no way chosen
        split = _ALTERNATIVE_RE.search(chosen)
        options = [squash(chosen[: split.start()].strip(" ,"), 200), squash(chosen[split.end():].strip(" ,."), 200)] \
            if split and split.start() > 3 and chosen[split.end():].strip() else []
        decisions.append(Decision(title=short_title(chosen, 10), options=options, chosen=squash(chosen, 200),
                                  rationale=squash(reason.group("why"), 240) if reason else "",
                                  range=(call.entry.index, call.end)))
    return decisions


# The user steering the approach: "I think we should sort by the commit order", "it should overlap".
_STEER_RE = re.compile(r"\b(?:should(?:n'?t)?|let'?s|better|instead|prefer|rather|i think|how about|what about|"
                       r"why not|maybe)\b", re.IGNORECASE)
# The agent conceding it: "You're right - …", "Good idea: …", "Agreed, …".
_AGREE_RE = re.compile(r"^(?:you'?re (?:absolutely |totally |completely |quite )?right|(?:good|great|excellent|fair) "
                       r"(?:idea|point|call|suggestion)|agreed|(?:that )?makes sense)\b[\s,.!:;—–-]*", re.IGNORECASE)


_APPROACH_RE = re.compile(r"\b(?:approach|design|than|instead|rather|better|cleaner|simpler)\b", re.IGNORECASE)


def agreed_steers(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """The user steering the approach after the agent acted or answered, and the agent agreeing
    ("I think we should order by commit" -> "Good idea - commit order is more meaningful than ...")."""
    decisions: list[Decision] = []
    for position, reply in answered_user_turns(entries):
        if _STEER_RE.search(entries[position].text):
            decision = _agreed(entries, position, reply, calls)
            if decision is not None:
                decisions.append(decision)
    return decisions


def answered_user_turns(entries: list[Entry]) -> Iterator[tuple[int, Entry]]:
    """``(position, reply)`` of each user message (not a trivial one) that came after the agent had
    said or done something, and that the agent answered in words before anyone else spoke."""
    spoke = False  # the agent said or did something since the user last spoke
    for position, entry in enumerate(entries):
        if entry.role == "user" and entry.kind in (None, "message") and entry.text.strip():
            if spoke and not is_trivial(entry.text):
                reply = next((e for e in entries[position + 1:] if e.role in ("user", "assistant")
                              and e.kind in (None, "message", "tool_call")), None)
                if reply is not None and reply.role == "assistant" and reply.kind != "tool_call":
                    yield position, reply
            spoke = False
        elif entry.role == "assistant" and entry.kind in (None, "message", "tool_call"):
            spoke = True


def _agreed(entries: list[Entry], position: int, reply: Entry, calls: list[Call]) -> Decision | None:
    steer = entries[position]
    said = prose(reply.text).strip()
    opener = _AGREE_RE.match(said)
    if opener is None:
        return None
    body = prose(steer.text)
    if not body or len(body.split()) > 60:
        return None
    if said[: opener.end()].lower().startswith(("you're", "youre", "you are")) and not _APPROACH_RE.search(said):
        return None  # "You're right, the handler is not wired": a bug report agreed with, not a steer
    parts = [c for s in sentences(body) if not s.rstrip().endswith("?") for c in re.split(r"[.;]\s+", s)] \
        or sentences(body)
    chosen = next((s for s in parts if _STEER_RE.search(s)), parts[0] if parts else body)
    chosen = re.sub(r"^(?:(?:you know|so|well|hmm|ok(?:ay)?|and|but)\b[,\s]*)?(?:(?:i think|i guess|maybe|perhaps),?\s+)?"
                    r"(?:(?:we|you) should\s+)?", "", chosen.strip(), flags=re.IGNORECASE)
    reasons = [s for s in sentences(said[opener.end():]) if len(s.split()) >= 4 and not re.match(
        r"(?:let me|let's|i'll|i will|now)\b", s, re.IGNORECASE)]
    why = reasons[0] if reasons else said
    return Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                    rationale=squash(f"the user steered it and the agent agreed: {why}", 240),
                    range=(steer.index, _first_change_after(entries, calls, reply.index)))


def _first_change_after(entries: list[Entry], calls: list[Call], index: int) -> int:
    """The end of the first change (an edit, a command) after ``index`` before the user speaks
    again: the step that carries a choice out; else the first action after it."""
    until = next((e.index for e in entries if e.index > index and e.role == "user"
                  and e.kind in (None, "message")), None)
    change = next((c for c in calls if c.entry.index > index and (until is None or c.entry.index < until)
                   and (c.is_edit or c.is_shell)), None)
    return change.end if change is not None else _first_action_after(calls, index)


# What the agent does in place of a step that failed: "Let me write a summary document instead".
_FALLBACK_RE = re.compile(r"\b(?:let me|let's|i'll|i will|we'll)\s+(?P<chosen>(?:create|write|build|add|generate|save|"
                          r"put|store|record|draft|document|compile|make|keep|commit|open|file|publish|push|land)\b"
                          r"(?:[^.;?]|\.(?=\w)){3,160}?)\s+instead\b", re.IGNORECASE)


def fallbacks(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """A step that failed and what the agent makes in its place ("gh cannot create the issue:
    let me write the findings to a summary document instead") - not a tactical retry of a look-up."""
    decisions: list[Decision] = []
    position_of = {e.index: p for p, e in enumerate(entries)}
    for call in calls:
        if not call.failed or call.result is None:
            continue
        start = position_of.get(call.result.index)
        if start is None:
            continue
        reply = next((e for e in entries[start + 1:] if e.role in ("user", "assistant")
                      and e.kind in (None, "message", "tool_call")), None)
        if reply is None or reply.role != "assistant" or reply.kind == "tool_call" or "instead" not in reply.text:
            continue
        text = prose(reply.text)
        match = next((m for s in sentences(text) for m in (_FALLBACK_RE.search(s.replace("\u2019", "'")),) if m), None)
        if match is None:
            continue
        chosen = squash(match.group("chosen").strip(" ,"), 200)
        failure = squash(call.result.text.strip().splitlines()[0] if call.result.text.strip() else "it failed", 120)
        decisions.append(Decision(title=short_title(chosen, 10), options=[chosen, squash(call.describe(), 200)],
                                  chosen=chosen, rationale=squash(f"{squash(call.describe(), 80)} failed: {failure}", 240),
                                  range=(call.entry.index, _first_action_after(calls, reply.index))))
    return decisions


# A name the user gives: "rename native_view to log_view", "rename `old.js` as `new.js`".
_NAME = r"`[^`\s]{2,80}`|[\w.-]*[_.-][\w.-]*\w"
_RENAME_RE = re.compile(rf"\brename\s+(?:the |this |that )?(?:\w+ )?(?P<old>{_NAME})\s+(?:(?:to|as|into|just|simply)\s+)*"
                        rf"(?P<new>{_NAME}|\w{{3,40}})\b(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)


_VAGUE_NAMES = {"something", "anything", "them", "this", "that", "the", "meaningful", "better", "clearer", "more",
                "proper", "sensible", "descriptive", "whatever", "match", "reflect", "use", "follow"}


def user_names(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """The user naming something ("rename native_view to log_view, it will not clash anyway"): the
    new name is chosen over the old one, the rest of the sentence its reason."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "user" or entry.kind not in (None, "message") or "rename" not in entry.text.lower():
            continue
        match = next((m for s in sentences(prose(entry.text)) for m in (_RENAME_RE.search(s),) if m), None)
        if match is None:
            continue
        old, new = match.group("old").strip("`"), match.group("new").strip("`")
        if old.lower() == new.lower() or new.lower() in _VAGUE_NAMES:
            continue  # "rename foo_bar to something clearer" asks for a name, it gives none
        rest = match.group("rest").strip(" ,;:.—-")
        decisions.append(Decision(title=squash(f"Name: {new}, not {old}", 120), options=[new, old], chosen=new,
                                  rationale=squash(f"the user named it: {rest}" if rest else "the user named it", 240),
                                  range=(entry.index, _first_action_after(calls, entry.index))))
    return decisions
