"""What a decision record says, from what Phase 1 staged: the choice, its options, whether it is one.

* ``chosen_text`` and ``option_text``: no Markdown bold marks ("**Option B**");
* ``chosen_text``: a choice stated in the first person is said as the choice ("I believe we should
  keep the doctor command as it serves …" → "Keep the doctor command as it serves …"), whole;
* ``option_text``: an option cut on a dangling word ("attempting a login when") loses that word;
* ``is_document_heading``: a document's heading staged as a choice ("Feature Specification: …
  (specs/…/spec.md)") is no choice either;
* ``is_working_step``: the agent's way of working staged as a choice ("Acknowledge the agent's
  completion and wait for their input", "Update the plan before proceeding", "Escalate this step",
  "Use a Python script for editing") is how the agent went about the work, no project decision;
* ``is_change_summary``: a commit or PR subject whose "rationale" is the list of what it changed
  ("Phase 2 Performance Optimization (#377)", "Enhanced tracking - Early ID validation - …") tells
  no choice — the request record says what was done — so it makes no decision record.
"""

from __future__ import annotations

import re
from typing import Any

from ..store.titles import (
    _FIRST_PERSON_RE,
    CUT_TAIL,
    IMPERATIVE_VERBS,
    MAX_TITLE,
    STOP_TAIL,
    _imperative,
    decision_title,
    one_line,
    starts_with_verb,
)

_BOLD_RE = re.compile(r"(?<!\w)\*\*|\*\*(?!\w)")  # a bold mark at a word's edge


def without_emphasis(text: str) -> str:
    """``text`` (one line) without Markdown bold marks ("**Option B** — keep …"): debris in a
    record's field, which says the choice in plain words."""
    return one_line(_BOLD_RE.sub("", text).replace("**", " "))  # not "__": "__init__.py" is a name


# The agent telling what it sees before it says the choice ("Now I can see the full conflict
# structure.", "Looking at the file, …"), and "Let me…" after it: narration, not the choice.
_SEEN_RE = re.compile(r"^(?:(?:ok(?:ay)?|now|so|good|great)[\s,]+)*(?:i\s+can\s+(?:now\s+)?see|i\s+see|i've\s+(?:found|read|"
                      r"looked|checked)|looking\s+at|having\s+(?:read|looked))\b", re.IGNORECASE)
_LET_ME_TAIL_RE = re.compile(r"\s*(?:let\s+me|i'll\s+now|now\s+i'll)\b[^.!?]*…?$", re.IGNORECASE)


def _without_narration(flat: str) -> str:
    """``flat`` (a staged chosen) without a leading sentence telling what the agent sees and a
    trailing "Let me…" ("Now I can see the structure. I need to keep both sections - … Let me…" →
    "I need to keep both sections - …"); as it is when nothing else would be left."""
    said = _SENTENCE_SPLIT_RE.split(flat)
    while len(said) > 1 and _SEEN_RE.match(said[0]):
        said.pop(0)
    kept = " ".join(said)
    tail = _LET_ME_TAIL_RE.search(kept)
    if tail and tail.start() > 0 and re.search(r"[^\W_]", kept[: tail.start()]):
        kept = kept[: tail.start()].rstrip()
    return kept or flat


def chosen_text(chosen: str) -> str:
    flat = _without_narration(without_emphasis(one_line(chosen)))
    body = _FIRST_PERSON_RE.sub("", flat, count=1)
    if body == flat or not re.search(r"[^\W_]", body):
        return flat
    first, _, rest = body.partition(" ")
    verb = _imperative(first)
    body = f"{verb} {rest}".strip() if verb else body
    return body[:1].upper() + body[1:]


def option_text(option: str) -> str:
    words = without_emphasis(one_line(option)).split()
    while len(words) > 2 and words[-1].lower().strip(",;:.") in STOP_TAIL:
        words.pop()
    return " ".join(words).rstrip(",;:")


_LIST_SPLIT_RE = re.compile(r"\s+-\s+|\s*;\s+|\s+•\s+")


def is_change_summary(decision: Any) -> bool:
    """A decision that only names a change: no options, a chosen that repeats its title, a title
    that is no instruction, and a rationale that is a list of changes (three items or more)."""
    title = one_line(decision.title)
    chosen = one_line(decision.chosen)
    if decision.options or chosen.lower() != title.lower() or starts_with_verb(title):
        return False
    items = [i for i in _LIST_SPLIT_RE.split(one_line(decision.rationale)) if i.strip()]
    return len(items) >= 3


# A document's heading ("Feature Specification: Extension Injection Platform (specs/001-…/spec.md)",
# "Implementation Plan: …", a spec-kit `plan.md`'s title): the name of a file the agent wrote, no choice.
_DOC_KIND_RE = re.compile(r"^(?:feature\s+)?(?:specification|spec|implementation\s+plan|plan|tasks?|task\s+list|"
                          r"research|data\s+model|quickstart|checklist|constitution|design(?:\s+doc(?:ument)?)?|"
                          r"requirements|prd|rfc|adr|proposal)\s*:\s+\S", re.IGNORECASE)
_DOC_PATH_RE = re.compile(r"\(\s*`?[\w./-]+\.(?:md|mdx|rst|txt|adoc)`?\s*\)\s*$", re.IGNORECASE)


def _names_its_own_file(heading: str) -> bool:
    """Whether ``heading`` is "<a file's name> (<its path>)" ("PROJECT_PLAN.md (docs/PROJECT_PLAN.md)")
    or a line of a template file ("… (.specify/templates/tasks-template.md)"): what a document
    holds, never a choice of the project's (a template's text is its author's, not this work's)."""
    path = _DOC_PATH_RE.search(heading)
    if path is None:
        return False
    named = path[0].strip(" ()`").replace("\\", "/")
    name = named.rsplit("/", 1)[-1].lower()
    before = heading[: path.start()].strip().strip("`").lower()
    return before == name or bool(re.search(r"(?:^|/)templates?/|[-_.]template\.", named.lower()))


def is_document_heading(decision: Any) -> bool:
    """A decision that is only a document's heading: no options, a chosen that repeats its title,
    and a title that is a document's kind and name ("Feature Specification: X") or ends with the
    document's path ("… (specs/001-extension-system/spec.md)") with no rationale — or both, whatever
    the rationale (then it is a line of the document)."""
    title, heading = one_line(decision.title), one_line(decision.chosen)
    if not decision.options and heading.lower() == title.lower() and _names_its_own_file(heading):
        return True  # its "rationale" is the document's first line of prose
    kind = _DOC_KIND_RE.match(heading)
    # The title may be the heading without its kind ("Implementation Plan: X (…/plan.md)" titled
    # "X (…/plan.md)": the kind read as a label): the same heading, when it names the document's path
    # ("Plan: keep X" titled "Keep X" may be a choice told with a label).
    named = kind is not None and heading[kind.end() - 1:].strip().lower() == title.lower() \
        and _DOC_PATH_RE.search(heading) is not None
    if decision.options or (heading.lower() != title.lower() and not named):
        return False
    if kind and _DOC_PATH_RE.search(heading):
        return True  # "Tasks: IdeaVault MVP (specs/…/tasks.md)": its "rationale" is the document's own text
    return not one_line(decision.rationale) and bool(kind or _DOC_PATH_RE.search(heading))


# The agent saying what it does next ("Next, I'll locate the table definitions", "Let me check …",
# "Also adding error states …"): narration of its next step, no reason for a choice.
_NEXT_STEP_RE = re.compile(
    r"^(?:(?:next|now|then|first|after\s+that|afterwards|also|and|ok(?:ay)?|so)\b[\s,]*)*"
    r"(?:i'll|i\s+will|i'm\s+going\s+to|i\s+am\s+going\s+to|i'm\s+now|i\s+now|i\s+need\s+to|i\s+want\s+to|"
    r"let\s+me|let's|we'll|we\s+will|i'm\s+(?:adding|checking|looking|going|updating|moving|starting)\b)\b",
    re.IGNORECASE)
_NEXT_GERUND_RE = re.compile(r"^(?:next|now|then|also|and)\b[\s,]*(?P<verb>\w+ing)\b", re.IGNORECASE)
_FILLER_OPENER_RE = re.compile(r"^(?:(?:good|great|ok(?:ay)?|perfect|nice|alright|right|cool)\s*[-—–:,!.]+\s*)+",
                               re.IGNORECASE)
_THEN_STEP_RE = re.compile(r"[,;]\s*(?:and\s+)?then\s+(?=(\w+)\b)", re.IGNORECASE)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")


def is_next_step(sentence: str) -> bool:
    """Whether ``sentence`` narrates what the agent does next ("Next, I'll locate …")."""
    flat = one_line(sentence)
    if _NEXT_STEP_RE.match(flat):
        return True
    gerund = _NEXT_GERUND_RE.match(flat)
    return bool(gerund and _imperative(gerund["verb"]))


_QUOTED_RE = re.compile(r'"[^"]*"|“[^”]*”|`[^`]*`')


def rationale_text(rationale: str) -> str:
    """A rationale as a reason: the sentences that narrate the agent's next step go, and so does a
    next step tacked on after the reason (", then push the branch …", "… slow API) and also add
    it …" after an unpaired bracket); a filler opener ("Good - ") goes. Quoted words (the
    question a user answered) are read as they are. "" when no reason is left."""
    quoted: list[str] = []

    def hide(match: re.Match[str]) -> str:
        quoted.append(match[0])
        return f"\x00{len(quoted) - 1}\x00"

    flat = _QUOTED_RE.sub(hide, one_line(rationale))
    depth = 0
    for at, ch in enumerate(flat):  # a reason cut out of "(… reason) and also …": the part in the brackets
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            flat = flat[:at].rstrip()
            break
    kept = []
    for sentence in _SENTENCE_SPLIT_RE.split(flat):
        sentence = _FILLER_OPENER_RE.sub("", sentence.strip(), count=1)
        if not sentence or is_next_step(sentence):
            continue
        then = _THEN_STEP_RE.search(sentence)
        if then and then.group(1).lower() in IMPERATIVE_VERBS and then.start() > 0:
            sentence = sentence[: then.start()].rstrip()
        kept.append(sentence)
    said = " ".join(s for s in kept if re.search(r"[^\W_]", s))
    return re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m[1])], said)


# A choice told with its reason in one sentence ("add retry logic using `nick-fields/retry`, which is
# the standard approach for GitHub Actions:"): the reason is the rationale.
_WHICH_IS_RE = re.compile(r"^(?P<choice>.{8,}?),\s+(?:which\s+is|as\s+(?:it|this)\s+is|since\s+(?:it|this)\s+is|"
                          r"because\s+(?:it|this)\s+is)\s+(?P<why>\S.*?)[\s:;,.]*$", re.IGNORECASE)


def split_reason(chosen: str, rationale: str) -> tuple[str, str]:
    """``chosen`` and ``rationale``, with a reason said inside the choice (", which is the standard
    approach …") moved to the rationale when there is none; a trailing colon (the list the choice
    opened) goes either way."""
    flat = one_line(chosen).rstrip(" :")
    said = _WHICH_IS_RE.match(flat)
    if said and not one_line(rationale) and "`" not in said["why"][:1]:
        return said["choice"], f"it is {said['why']}"
    return flat, rationale


# The agent's way of working, said as what it does ("Acknowledge the agent completion and wait for
# their input", "Update the plan based on findings before proceeding", "Escalate this step",
# "Finish the required worktree preflight: `pnpm install` …"): its conversation with the user, its
# own plan, the harness's permission steps and its set-up routine, none a choice a teammate keeps.
_WORKING_STEP_RE = re.compile(
    r"^(?:(?:so|then|now|first|next)[\s,]+)*(?:acknowledge\b|wait\s+(?:for|until|on)\b|escalate\b|"
    r"(?:update|revise|adjust|refresh|amend)\s+(?:the|my|our)\s+(?:current\s+|working\s+|task\s+)?plan\b"
    r"(?![\w.-]|\s+(?:template|document|doc|file|section|page)\b)|"
    r"(?:finish|complete|do|run)\s+(?:the\s+)?(?:required\s+|usual\s+)?(?:[\w-]+\s+)?(?:pre-?flight|"
    r"bootstrap\s+steps?|setup\s+steps?)\b|"
    r"(?:request|ask\s+for)\s+(?:an?\s+)?(?:escalat\w*|approval|permission|elevated)\b)", re.IGNORECASE)
# How the agent edits files ("Use a Python script for editing", "rewrite the file … via a
# delete-and-add apply_patch"): the tool of its edit, not what the project chose.
_EDIT_TOOL_RE = re.compile(
    r"\b(?:apply_patch|(?:python|shell|bash|node|perl|sed|awk)\s+(?:script|one-?liner|command)s?\s+(?:for|to)\s+"
    r"(?:edit|editing|patch|patching|rewrite|rewriting|apply|applying|modify|modifying|update|updating|replace|replacing|"
    r"write|writing)\b|(?:for|when)\s+(?:the\s+)?(?:file\s+)?(?:edits|editing)\b)", re.IGNORECASE)


def is_working_step(decision: Any) -> bool:
    """Whether a staged choice is the agent's way of working (see ``_WORKING_STEP_RE`` and
    ``_EDIT_TOOL_RE``), told by its title or its chosen, with no options weighed."""
    if decision.options:
        return False  # options weighed against each other: a choice, whatever its words
    said = [decision_title(one_line(decision.title)), chosen_text(one_line(decision.chosen))]
    return any(_WORKING_STEP_RE.match(s) or _EDIT_TOOL_RE.search(s) for s in said if s)


# What a choice puts aside ("Configure the venv's python rather than aliasing it", "X instead of Y").
_PUT_ASIDE_RE = re.compile(r"\b(?:rather\s+than|instead\s+of)\s+(?P<aside>[^,;.()]{3,60})", re.IGNORECASE)
_ASIDE_STOP = {"a", "an", "the", "it", "them", "this", "that", "to", "of", "for", "in", "on", "with", "and", "or",
               "just", "only", "any", "its", "their", "our", "my"}


def _stems(text: str) -> set[str]:
    """The content words of ``text``, each cut to a rough stem ("aliasing", "aliased", "aliases" →
    "alias"), so a choice and a later one are compared on their words, whatever the tense."""
    stems = set()
    for word in re.findall(r"[a-z][a-z0-9_-]+", text.lower()):
        if word in _ASIDE_STOP:
            continue
        for end in ("ing", "ed"):
            if word.endswith(end) and len(word) - len(end) >= 3:
                word = word[: -len(end)]
                break
        stems.add(word)
    return stems


def _takes(aside: set[str], words: set[str]) -> bool:
    """Whether every word of ``aside`` is among ``words``, a word matching one it opens
    ("alias" and "aliases", "pin" and "pinned": a stem is only roughly cut)."""
    return all(any(w == a or (min(len(w), len(a)) >= 4 and (w.startswith(a) or a.startswith(w))) for w in words)
               for a in aside)


def _put_aside(decision: Any) -> list[tuple[str, set[str]]]:
    """Each way ``decision`` put aside, said after "rather than" / "instead of" in its title or
    chosen: its first word's stem and the stems of all its words (at most three)."""
    asides = [m["aside"] for text in (one_line(decision.title), one_line(decision.chosen))
              for m in _PUT_ASIDE_RE.finditer(text)]
    found = []
    for aside in asides:
        words = [w for w in re.findall(r"[a-z][a-z0-9_-]+", aside.lower()) if w not in _ASIDE_STOP]
        stems = _stems(aside)
        if words and 0 < len(stems) <= 3:
            found.append((next(iter(_stems(words[0]))), stems))
    return found


def _first_stem(text: str) -> str:
    words = [w for w in re.findall(r"[a-z][a-z0-9_-]+", text.lower()) if w not in _ASIDE_STOP]
    return next(iter(_stems(words[0])), "") if words else ""


def settled(decisions: list[Any]) -> list[Any]:
    """``decisions`` without a choice a later one of the same chunk went back on: when a later
    decision does what an earlier one put aside ("Configure the venv … rather than aliasing", then
    "Alias python to python3": it opens with the way's verb and holds all its words), the earlier
    was a way considered, not the one taken; the later keeps it among its options."""
    kept = list(decisions)
    for at, earlier in enumerate(decisions):
        asides = _put_aside(earlier)
        if not asides:
            continue
        for later in decisions[at + 1:]:
            said = one_line(later.chosen) or one_line(later.title)
            took = _stems(f"{one_line(later.title)} {said}")
            own = [o for _, o in _put_aside(later)]
            # the later choice does the way put aside: it opens with that way's verb ("Alias …")
            opens = {_first_stem(chosen_text(said)), _first_stem(decision_title(one_line(later.title)))}
            if any(_takes({first}, opens) and _takes(a, took) and not any(_takes(a, o) for o in own)
                   for first, a in asides):
                if earlier in kept:
                    kept.remove(earlier)
                options = [*later.options] or [said]
                gone = one_line(earlier.chosen) or one_line(earlier.title)
                if gone and gone not in options:
                    options.append(gone)
                kept[kept.index(later)] = later.model_copy(update={"options": options})
                break
    return kept


# A topic heading for a title ("Netlify form integration", "JSON clock columns": the bold heading a
# Codex reasoning summary opens with), the choice said after it as what the agent does ("add a hidden
# static form …, then update …"): the title names the subject, never what was chosen.
_HEADING_WORD_RE = re.compile(r"^[\w'./+-]*[^\W_][\w'./+-]*$")
_NOT_A_HEADING = {"for", "if", "when", "to", "with", "in", "on", "at", "by", "from", "of", "the", "a", "an", "this",
                  "that", "these", "it", "we", "i", "you", "they", "no", "not", "keep", "leave", "stay", "avoid", "skip",
                  "stick", "wrap", "go", "is", "are", "was", "were", "be", "will", "should", "can", "do", "does", "don't"}
_MAX_HEADING_WORDS = 6
# Where the chosen's first step ends: a comma or semicolon, "then", a purpose ("to enable …"), "and"
# before a gerund ("… and emitting …").
_STEP_END_RE = re.compile(r"[,;:]\s|\s(?:and\s+)?then\s|\s+to\s+(?P<verb>[a-z]+)\b(?![\w-])|\s+and\s+(?=\w+ing\b)|…",
                          re.IGNORECASE)
_PURPOSE_VERBS = {"enable", "keep", "ensure", "allow", "avoid", "send", "support", "prevent", "get", "be", "have", "let"}


def _first_step(flat: str) -> str:
    """The first step of a chosen that lists several ("add X to enable Y, then update Z" → "add X"):
    up to a comma, "then", "and" before a gerund, or "to" before a verb (a purpose)."""
    for end in _STEP_END_RE.finditer(flat):
        verb = end["verb"]
        if verb is None or verb.lower() in IMPERATIVE_VERBS or verb.lower() in _PURPOSE_VERBS:
            return flat[: end.start()]
    return flat


def _is_topic_heading(title: str) -> bool:
    """Whether ``title`` is a short noun phrase naming a subject ("Queue-cleared event emission"): two
    to six plain words, no punctuation of a sentence, no article, no verb or pronoun opening it."""
    words = title.split()
    if not 2 <= len(words) <= _MAX_HEADING_WORDS or starts_with_verb(title) or _FIRST_PERSON_RE.match(title):
        return False
    low = [w.lower() for w in words]
    return (low[0] not in _NOT_A_HEADING and not {"the", "a", "an"} & set(low)
            and all(_HEADING_WORD_RE.match(w) for w in words) and not _imperative(words[0]))


def topic_title(title: str, chosen: str) -> str:
    """For a title that is a topic heading, the chosen's first step said as an instruction
    ("JSON clock columns" + "adding clock columns as JSON-text fields to inbox_items, allowing nulls"
    → "Add clock columns as JSON-text fields to inbox_items"), when that step starts with an
    instruction verb and names a word of the heading; ``title`` as it is otherwise."""
    if not _is_topic_heading(one_line(title)):
        return title
    flat = without_emphasis(one_line(chosen))
    step = decision_title(_first_step(flat).strip(" .")) if flat else ""
    if not step or not starts_with_verb(step) or len(step.split()) < 3:
        return title
    heading = _stems(title)
    if not any(_takes({h}, _stems(step)) for h in heading):
        return title  # the first step names nothing of the subject: it is no title for it
    return step


_CLAUSE_WORDS = {"that", "which", "who", "to", "so"}
_CLAUSE_LOOK_BACK = 4  # words before the dangling one in which the unfinished clause opens


def with_object(title: str, options: list[str], chosen: str) -> str:
    """``title`` when it ends on a preposition with no object ("… emit the event using", "… a
    setting called `x` that switches between"): finished by the option chosen when the choice is
    that object ("… using" + chosen "IDs from all batches" → "… using IDs from all batches"), else
    without the clause left unfinished ("… called `x`"); as it is when it ends otherwise."""
    words = title.split()
    if len(words) < 3 or words[-1].lower().strip(",;:") not in CUT_TAIL:
        return title
    said = option_text(chosen)
    if (said and len(said.split()) <= _MAX_HEADING_WORDS and said.lower() not in title.lower()
            and any(one_line(o).lower() == one_line(chosen).lower() for o in options)):
        longer = f"{title} {said}"
        if len(longer) <= MAX_TITLE:
            return longer
    opens = [at for at in range(max(1, len(words) - 1 - _CLAUSE_LOOK_BACK), len(words) - 1)
             if words[at].lower() in _CLAUSE_WORDS]
    if opens and opens[-1] >= 3:
        return " ".join(words[: opens[-1]]).rstrip(",;:")
    return title


# A gerund that is the subject of what it needs ("Deleting it requires the `\\?\` path prefix, …"):
# the gerund made the verb would read "Delete it requires …"; what it needs is how the thing is
# done ("Delete it with the `\\?\` path prefix, …").
_GERUND_SUBJECT_RE = re.compile(r"^(?P<gerund>[A-Za-z]+ing)\s+(?P<object>[^,;:]{1,40}?)\s+"
                                r"(?P<verb>requires|needs)\s+(?P<rest>\S.*)$")


def gerund_statement(title: str) -> str:
    """``title`` said as an instruction when it is a statement of what a gerund needs: "<doing X>
    requires / needs Y" → "<Do X> with Y"; "" when it is no such statement (``decision_title``
    reads the rest: "Keeping the flag is clearer" → "Keep the flag")."""
    said = _GERUND_SUBJECT_RE.match(one_line(title))
    verb = _imperative(said["gerund"]) if said else None
    if said is None or verb is None:
        return ""
    return f"{verb.capitalize()} {said['object']} with {said['rest']}"


# A config line staged as the choice, its comment as both title and reason ("scan_prompt_timeout:
# ${SCAN_PROMPT_TIMEOUT:120}" under "Increased for model loading"): the setting is what was chosen.
_CONFIG_LINE_RE = re.compile(r"^(?P<key>[A-Za-z][\w-]*(?:[_.][\w-]+)+)\s*[:=]\s*(?P<value>[^\s`][^`]{0,60})$")


def config_title(title: str, chosen: str, rationale: str) -> str:
    """"Set `key` to `value`" for a decision whose chosen is one config line and whose title only
    repeats its reason (the line's comment); "" otherwise."""
    line = _CONFIG_LINE_RE.match(one_line(chosen))
    if line is None or one_line(title).lower().rstrip(".") != one_line(rationale).lower().rstrip("."):
        return ""
    return f"Set `{line['key']}` to `{line['value'].strip()}`"
