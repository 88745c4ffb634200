"""Decisions the rules extractor reads where no choice cue word is ("instead of", "we'll use"): the
shape of the text says a choice was made (issue 26: decisions on unseen sessions).

Owns five kinds of decision evidence, each a general mechanism:

- **a solution announced with its parts**: "Now let me create a solution that:" and the list under
  it ("1. Downloads the model to the disk 2. …") — the parts are the choice;
- **a recommendation under its own heading** in the agent's message ("## Recommendation" /
  "**Decision:**" / "**Key design decisions:**" followed by "Stick with the SDK, no GraphQL") — the
  line under it is the choice ("## Decisions needed" asks, it has chosen nothing);
- **a design written into a document**: an edit or a write of a prose file (a plan, a design note,
  an ADR) whose added text has a Decision / Approach / Recommendation heading or a "Decision:" line;
- **a choice with its reason in the agent's account** (its commentary or its final summary): "bumped
  the version MINOR because the flag is a new feature", "I'll deep-merge the settings file so that
  user keys survive" — a choice verb and a reason; a change listed without a reason ("Using 15.5.2
  instead of 14") stays a change summary, and a step of the agent's own work (a look-up, a one-liner,
  a docs tool) is a tactic, not a decision;
- **the agent taking up the user's correction**: "You're right! I'll read the path from the config
  instead" right after the user's message — the agent's restated plan is the choice, the user's words
  its reason; after the user challenges a step the agent refused ("why won't you run it?"), the
  conceding reply's "let me run it" is the choice too (a look, "let me check it", is not).
"""

from __future__ import annotations

import re

from ..sessions.model import Entry
from ..store.staging import Decision
from .calls import Call
from .rules_cjk import CJK_CUES, cjk_choice
from .rules_evidence import COMMENT_TAG_RE, _added_text, _first_change_after, answered_user_turns
from .text import prose, sentences, short_title, squash

# ---------------------------------------------------------------- a recommendation under a heading

_VERDICT_HEAD_RE = re.compile(
    r"^\s*(?:#{1,4}\s*|[-*]\s+)?(?:\*\*|__)?\s*(?:\d+[.)]\s*)?(?:my |our |the |final )?(?:recommendations?|recommended(?: "
    r"(?:approach|option|path|fix|solution|choice))?|(?:(?:key|main|design|technical|architectural|architecture|"
    r"implementation|important) ){0,2}(?:decisions?|choices)|(?:approach|plan)(?=\s*(?:\*\*|__)?\s*(?::|—|–|$))|verdict|bottom line|my take|proposed (?:approach|solution|fix|design)|"
    r"suggested (?:approach|solution|fix)|chosen (?:approach|option|solution|design)|my (?:suggestion|pick))\s*"
    r"(?:\*\*|__)?\s*[:—–-]?\s*(?:\*\*|__)?\s*(?P<rest>.*)$", re.IGNORECASE)
# A review's or a triage's verdict ("Approve", "LGTM", "keep #12 open") answers a question; it designs nothing.
_VERDICT_RE = re.compile(r"^(?:approve|reject|lgtm|request changes|merge|close|don'?t close|do not close|keep (?:it|this|"
                         r"the \w+|#\d+) open)\b|#\d+|\b(?:pr|pull request|issue)\b", re.IGNORECASE)
_HEADING_RE = re.compile(r"^\s*(?:#{1,6}\s+\S|(?:\*\*|__)[^*_]{2,60}(?:\*\*|__):?\s*$)")
_MARKUP_RE = re.compile(r"\*\*|__|^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
_REASON_RE = re.compile(r"\b(?:because|since|so that|to avoid|to keep|to prevent|to preserve|to ensure|given that|"
                        r"as (?:the|it|this|that|there|we|they|its|each)\b)|\s[—–]\s|:\s", re.IGNORECASE)


def _clean_line(line: str) -> str:
    return " ".join(_MARKUP_RE.sub("", line).split()).strip(" :—–-")


def _under_heading(lines: list[str], start: int) -> tuple[str, str]:
    """(the first line under the heading at ``start``, the reason in its section or "")."""
    chosen, why = "", ""
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        if _HEADING_RE.match(line) or re.match(r"^\s*#", line):
            if chosen:
                break
            continue  # "## Recommendation\n### Option B" - the sub-heading names it
        text = _clean_line(line)
        if not chosen:
            chosen = text
            continue
        why = text
        break
    return chosen, why


def _listed(below: list[str]) -> int:
    """How many list items open the lines under a heading (blank lines skipped)."""
    count = 0
    for line in below:
        if not line.strip():
            continue
        if not _ITEM_RE.match(line):
            break
        count += 1
    return count


def _work_steps(below: list[str]) -> bool:
    """Whether the list under a plan heading is the order of the agent's work: two of its steps or
    more are looks or runs ("2. Read the specs", "3. Run the suite") - a sequence of work, no design."""
    looks = 0
    for line in below:
        if not line.strip():
            continue
        if not _ITEM_RE.match(line):
            break
        looks += bool(_STEP_LOOK_RE.match(line))
    return looks >= 2


# Under a recommendation heading: follow-ups left to the user ("## Recommendations for next steps"), a
# suggestion for later ("Consider adding pagination later", "Monitor memory use"), a result reported
# ("The importer works as expected", "This looks like a flaky test") - nothing the session chose.
_FOLLOW_UPS_RE = re.compile(r"\b(?:next steps?|follow-?ups?|future|later|improvements?|further work)\b", re.IGNORECASE)
_SUGGESTION_RE = re.compile(r"^(?:consider|optionally|maybe|perhaps|you (?:may|might|could|can|should)|it may be worth|"
                            r"keep an eye|watch)\b", re.IGNORECASE)
_STATE_RE = re.compile(r"^(?:the|this|that|it|everything|all|both)\b[^,;:]{0,60}?\b(?:works?|worked|looks?|seems?|"
                       r"passe[sd]|pass|is|are|was|were)\b", re.IGNORECASE)
_MODAL_RE = re.compile(r"\b(?:should|must|needs? to|ought|would be (?:better|cleaner|safer)|is better|best)\b", re.IGNORECASE)
# The agent's own lead before the way ("I'll …", "I recommend …"): the way is what follows it.
_OWN_LEAD_RE = re.compile(r"^(?:i'll|i will|we'll|we will|let me|let's|i'd|i would|i recommend|i suggest|i'd recommend|"
                          r"i'd suggest|we should|i should)\s+", re.IGNORECASE)
# A decision heading or label that says nothing is decided yet: "none yet", "nothing so far", "TBD".
NOTHING_CHOSEN_RE = re.compile(r"^(?:none|nothing|n/?a|tbd|to be decided|pending|not yet|no decisions?)\b", re.IGNORECASE)


def _verdict(text: str) -> tuple[str, str] | None:
    lines = prose(text).splitlines()
    for number, line in enumerate(lines):
        match = _VERDICT_HEAD_RE.match(line)
        if match is None:
            continue
        rest = _clean_line(match.group("rest"))
        heading = bool(re.match(r"^\s*(?:#{1,4}\s|(?:\*\*|__))", line)) or line.rstrip().endswith(":") or bool(rest)
        if not heading or (rest and not re.match(r"^\s*(?:#{1,4}\s*)?(?:\*\*|__)?[^:]{0,40}(?:\*\*|__)?\s*[:—–-]",
                                                   line) and not line.lstrip().startswith("#")):
            continue  # "Decisions are made by the team" is a sentence, not a heading
        if re.match(r"(?:needed|required|pending|open|outstanding|to (?:make|be made)|for (?:you|the user|review))\b",
                    rest, re.IGNORECASE):
            continue  # "## Decisions needed": questions left to the user, nothing chosen yet
        if re.match(r"(?:for|on|about|regarding)\b", rest, re.IGNORECASE):
            if _FOLLOW_UPS_RE.search(rest):
                continue  # "## Recommendations for next steps": follow-ups for the user, nothing chosen
            rest = ""  # "## Recommendation for the parser": the heading's own words
        chosen, why = (rest, "") if len(rest.split()) >= 2 else _under_heading(lines, number)
        if not rest and re.search(r"\brecommendations\b", line, re.IGNORECASE) and _listed(lines[number + 1:]) >= 2:
            continue  # "## Recommendations" over a list: suggestions left to the user, one of them no choice
        if _SUGGESTION_RE.match(chosen) or (_STATE_RE.match(chosen) and not _MODAL_RE.search(chosen)):
            continue  # "Consider caching later", "The importer works as expected": a suggestion, a result
        if len(re.findall(r"[A-Za-z]{2,}", chosen)) < 3 or chosen.endswith("?") or _VERDICT_RE.search(chosen):
            continue  # "APPROVE ✓", "Don't close #12 yet": a review's verdict, not a design
        if any(re.match(rf"(?:(?:first|then),?\s+)?(?:{_LOOKUP}|{_LOOKUP_ING})\b", c, re.IGNORECASE)
               for c in (chosen, _OWN_LEAD_RE.sub("", chosen))):
            continue  # "## Plan / 1. Read the config", "## Approach / I'll read …": a look around, no way chosen
        if NOTHING_CHOSEN_RE.match(chosen):
            continue  # "**Decision:** none yet - waiting on your input": nothing chosen
        if not rest and re.search(r"\bplan\b", line, re.IGNORECASE) and _work_steps(lines[number + 1:]):
            continue  # "Plan: / 1. Finish the setup 2. Read the specs 3. Run the suite": the order of work
        parts = sentences(chosen)
        first = parts[0] if parts else chosen
        if not why and len(parts) > 1:
            why = " ".join(parts[1:])
        return first, why
    return None


def heading_recommendations(entries: list[Entry]) -> list[Decision]:
    """A recommendation or a decision the agent writes under its own heading."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "assistant" or entry.kind not in (None, "message") or not entry.text:
            continue
        lowered = entry.text.lower()
        if not any(w in lowered for w in ("recommend", "decision", "choices", "approach", "plan", "verdict", "proposed",
                                          "suggest", "chosen",
                                          "my pick", "bottom line", "my take")):
            continue  # cheap test first
        found = _verdict(entry.text)
        if found is None:
            continue
        chosen, why = found
        decisions.append(Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                                  rationale=squash(why, 240),
                                  range=(entry.index, entry.index)))
    return decisions


# ---------------------------------------------------------------- a solution announced with its parts

# "Now let me create a solution that:" / "I'll implement an approach which will:" closing a line, the
# list under it naming what the solution does - the agent's design, told before it is built.
_ANNOUNCED_RE = re.compile(r"^(?:(?:now|so|ok(?:ay)?|next|then),?\s+)?(?:let me|let's|i'll|i will|we'll|we will|i'm going to)\s+"
                           r"(?:create|implement|build|write|put together|set up|go with)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,2}"
                           r"(?:solution|approach|fix|setup|design)\s+(?:that|which)(?:\s+will)?\s*:\s*$", re.IGNORECASE)
_ITEM_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+(?P<item>\S.*)$")


def announced_solutions(entries: list[Entry]) -> list[Decision]:
    """A solution the agent announces with its parts ("Let me create a solution that:" and a list)."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "assistant" or entry.kind not in (None, "message") or not entry.text:
            continue
        lowered = entry.text.lower()
        if " that:" not in lowered and " which:" not in lowered and " will:" not in lowered:
            continue  # cheap test first: the announcing line ends "… a solution that:"
        lines = prose(entry.text).splitlines()
        for number, line in enumerate(lines):
            if not line.rstrip().endswith(":"):
                continue
            parts = sentences(_clean_line(line)) or [""]
            if _ANNOUNCED_RE.match(parts[-1] + ":") is None:  # the line's last sentence introduces the list
                continue
            before = [p for p in parts[:-1] if len(p.split()) >= 4]  # "The scanner supports X." (not "Perfect!")
            items = []
            for below in lines[number + 1:]:
                item = _ITEM_RE.match(below)
                if item is None:
                    break
                items.append(_clean_line(item.group("item")).rstrip(".;"))
            if len(items) < 2:
                continue  # one line is a step, not a solution's parts
            chosen = "; ".join(items[:4])
            decisions.append(Decision(title=short_title(items[0], 10), options=[], chosen=squash(chosen, 200),
                                      rationale=squash(before[-1], 240) if before else "",
                                      range=(entry.index, entry.index)))
            break
    return decisions


# ---------------------------------------------------------------- a design written into a document

_PROSE_FILES = (".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".org")
_DOC_HEAD_RE = re.compile(
    r"^\s*#{1,5}\s*(?:\d+(?:\.\d+)*[.)]?\s*)?(?:(?:key |design |architecture |architectural |technical )?decisions?|"
    r"(?:chosen |proposed |recommended |selected )?approach|recommendations?|design choices?|chosen (?:option|solution)|"
    r"(?:proposed |chosen )?solution)\b[^\n]*$", re.IGNORECASE)
_DOC_LABEL_RE = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)?(?:decision|chosen|choice|approach|recommendation)"
                           r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<chosen>\S.{4,})$", re.IGNORECASE)


def _doc_design(added: str) -> tuple[str, str] | None:
    lines = added.splitlines()
    for number, line in enumerate(lines):
        label = _DOC_LABEL_RE.match(line)
        if label is not None:
            chosen = _clean_line(label.group("chosen"))
            parts = sentences(chosen)
            if parts and len(parts[0].split()) >= 2:
                return parts[0], " ".join(parts[1:])
        if _DOC_HEAD_RE.match(line):
            chosen, why = _under_heading(lines, number)
            if len(chosen.split()) >= 3 and not chosen.endswith((":", "?")):
                parts = sentences(chosen)
                return parts[0], why or " ".join(parts[1:])
    return None


# A document that plans the work (a spec, a plan, a task list, a design note, an ADR, an RFC): writing
# one lays the design down even when no line says "Decision" (the spec-kit `specs/001-x/tasks.md`).
_PLAN_DOC_RE = re.compile(r"(?:^|/)(?:specs?|plans?|design|designs|adrs?|rfcs?|decisions?|proposals?)/[^/]+\.(?:md|mdx|"
                          r"markdown|rst|txt)$|(?:^|/)[\w-]*(?:plan|design|spec|tasks|adr|rfc|proposal|architecture|"
                          r"roadmap|decisions?|constitution|charter)[\w-]*\.(?:md|mdx|markdown|rst)$", re.IGNORECASE)
# A shell writing a file from a heredoc: `cat <<'EOF' > specs/tasks.md`, `cat > notes.md <<EOF`, `tee x.md <<EOF`.
_HEREDOC_WRITE_RE = re.compile(r"\b(?:cat|tee)\s+(?:-a\s+)?(?:>{1,2}\s*(?P<p1>[^\s<>|;&]+)\s+)?(?P<p0>[^\s<>|;&-][^\s<>|;&]*\s+)?"
                               r"<<-?\s*['\"]?(?P<tag>\w+)['\"]?(?:\s*>{1,2}\s*(?P<p2>[^\s<>|;&]+))?[^\n]*\n"
                               r"(?P<body>.*?)\n\s*(?P=tag)\b", re.DOTALL)
_LABEL_LINE_RE = re.compile(r"^[\w /-]{2,30}(?:\*\*|__)?\s*:")  # "**Prerequisites**: plan.md" is metadata
_TITLE_RE = re.compile(r"^#\s+(?P<title>.+)$", re.MULTILINE)
# A plan written from its title down, or at some length - not a line changed in one (the logs cut long
# strings, so characters are counted, not lines).
_MIN_PLAN_CHARS = 700


# A template is the shape other documents take (spec-kit's `.specify/templates/tasks-template.md`):
# editing one lays no design down of its own.
_TEMPLATE_RE = re.compile(r"(?:^|[/\\])templates?[/\\]|template[\w-]*\.\w+$|[\w-]+-template\.\w+$", re.IGNORECASE)
# (A ticked box only: a report's "✅ updated" beside the templates it touched is no plan ticked off.)
_DONE_MARK_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]", re.MULTILINE)
_OPEN_MARK_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]", re.MULTILINE)


def _progress_record(added: str) -> bool:
    """Whether a plan's added text ticks work off ("- [x] Create the resolver") more than it lays
    anything new down ("- [ ] T001 …"): bookkeeping of the plan, not a design."""
    if "[x]" not in added and "[X]" not in added:
        return False  # cheap test first
    done = len(_DONE_MARK_RE.findall(added))
    return done >= 2 and done > len(_OPEN_MARK_RE.findall(added))


def written_documents(call: Call) -> list[tuple[str, str]]:
    """(path, added text) of each prose file ``call`` writes: an edit's or a write's added text, or a
    shell heredoc into a file."""
    if call.is_edit:
        files = [f for f in call.files() if f.lower().endswith(_PROSE_FILES)]
        return [(files[0], _added_text(call))] if files and len(files) == len(call.files()) else []
    if not call.is_shell or "<<" not in call.command():
        return []
    found: list[tuple[str, str]] = []
    for match in _HEREDOC_WRITE_RE.finditer(call.command()):
        path = (match.group("p1") or match.group("p2") or (match.group("p0") or "")).strip().strip("'\"")
        if path.lower().endswith(_PROSE_FILES):
            found.append((path, match.group("body")))
    return found


def _plan_summary(text: str) -> tuple[str, str]:
    """What a planning document lays down, in a line: its title, and its first sentence of prose."""
    title = _TITLE_RE.search(text)
    body = re.sub(r"^\s*(?:#.*|(?:[-*]\s+)?(?:\*\*|__)[^*_\n]{1,40}(?:\*\*|__)\s*:.*)$", "", text, flags=re.MULTILINE)
    first = next((s for s in sentences(prose(body))
                  if len(s.split()) >= 6 and not s.startswith(("**", "|", "<!--", "[")) and not _LABEL_LINE_RE.match(s)), "")
    return (_clean_line(title.group("title")) if title else ""), _clean_line(first)


def document_designs(calls: list[Call], entries: list[Entry]) -> list[Decision]:
    """A design decision the agent writes into a document (a plan, a design note, an ADR, a task
    list): the line under its Decision / Approach heading, its "Decision:" line, or - for a planning
    document of some length - what the document lays down; once a file per user turn."""
    turns = [e.index for e in entries if e.role == "user" and e.kind in (None, "message", "command")]
    decisions: list[Decision] = []
    told: set[tuple[int, str]] = set()
    for call in calls:
        if call.failed or call.rejected or not (call.is_edit or call.is_shell):
            continue
        for path, added in written_documents(call):
            if "/.claude/plans/" in path.replace("\\", "/"):
                continue  # plan mode's own file is told by its ExitPlanMode
            if _TEMPLATE_RE.search(path) or _progress_record(added):
                continue  # a template others fill in, or a plan's progress ticked off: no design laid down
            found = _doc_design(added) if any(w in added.lower() for w in (
                "decision", "approach", "recommend", "solution", "chosen", "choice")) else None
            name = path.rsplit("/", 1)[-1]
            if found is None and _PLAN_DOC_RE.search(path) and (len(added.strip()) >= _MIN_PLAN_CHARS
                                                                      or _TITLE_RE.search(added)):
                title, first = _plan_summary(added)
                if title or first:
                    found = (f"{title or name} ({path})", first)
            if found is None:
                continue
            turn = sum(1 for t in turns if t <= call.entry.index)
            if (turn, path) in told:
                continue
            told.add((turn, path))
            chosen, why = found
            decisions.append(Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                                      rationale=squash(why, 240),
                                      range=(call.entry.index, call.end)))
            break
    return decisions


# ---------------------------------------------------------------- a reasoned choice in the agent's account

# ("as the …" is as often a role as a cause, and "to prevent …" names what a feature is for: neither
# makes a reason here.)
# What the agent says to the user (or asks of its harness) next: a turn of the conversation, never a
# choice about the project, whatever reason is given for it.
CONVERSE = (r"(?:acknowledge|suggest|propose|recommend|answer|respond|reply|mention|point out|clarify|apologi[sz]e|"
            r"thank|greet|escalate|let (?:the user|them|you|him|her|me|us) know|request (?:escalation|approval|permission|access)|"
            # the answer itself: "…, so I'll write a short report with the results", "keep the answer concise"
            r"(?:write|give|send|post|provide) (?:a|the|my) (?:short |brief |quick |final |concise )?(?:report|summary|"
            r"answer|reply|recap|overview)\b(?! (?:to|into|in) \S+\.\w+)|keep (?:the|my) (?:output|answer|response|reply|"
            r"summary) (?:concise|short|brief))")
# A step run for its result, "to ensure everything compiles", "to make sure the tests still pass", "to
# keep mypy happy": a check (or a tool satisfied), whatever the step ("let's build the project to
# ensure everything compiles").
VERIFIES_RE = re.compile(r"\bto (?:keep|make) (?:mypy|ruff|eslint|tsc|clippy|pyright|ci|the (?:linter|type ?checker|"
                         r"compiler|build|ci|tests?|suite)) (?:happy|green|pass(?:ing)?|clean|quiet)\b|"
                         r"\bto (?:ensure|make sure|verify|confirm|check)(?: that)? (?:everything|it|nothing|all\b|"
                         r"the (?:\w+ ){0,2}(?:build|tests?|suite|project|app|code|changes?))[^.;]{0,40}?\b(?:still )?"
                         r"(?:compiles?|builds?|works?|pass(?:es)?|runs?|succeeds?|breaks?|is (?:correct|working|fine|green)|"
                         r"are (?:correct|working|fine|green))\b", re.IGNORECASE)
# Recording the work done ("I'll commit these changes with a clear message since the tests pass",
# "let me push the fix"): a routine step, whatever reason is given; a commit of chosen paths is told
# by rules_commits.
RECORD_WORK = (r"(?:commit|push|stage|save)\s+(?:these|the|my|all|our|this|those)\s+(?:\w+\s+)?(?:changes|work|"
               r"fix(?:es)?|updates?|edits?)\b|mark (?:\S+ ){1,3}(?:as )?(?:done|complete|completed|finished|resolved)\b|"
               r"proceed\b|go ahead\b|move on\b")
# A step of the agent's own work, whatever the reason given: a look-up, a retry, a tool to use.
_LOOKUP = (r"(?:check|look|read|inspect|search|grep|verify|investigate|explore|examine|open|see|review|fetch|pull|"
           r"query|scan|list|confirm|test|debug|find|trace|dig|take|start|begin|continue|wait|ask|tell|report|"
           r"summari[sz]e|explain|figure|understand|run|re-?run|retry|try|compare|gather|collect|map|note|"
           r"double-check|probe|poll|capture|print|dump|reproduce|rebuild|build|install|clone|download|load|"
           r"analy[sz]e|examine|identify|locate|determine|evaluate|validate|focus|keep going|move on|proceed|"
           r"re-?start|reload|monitor|"
           # a turn of the conversation, or a permission asked of the harness: "…, so I should acknowledge
           # it and wait for their input", "…, so I'll suggest test areas", "…, so I'll escalate this step"
           rf"{CONVERSE}|{RECORD_WORK})")
_LOOKUP_ING = (r"(?:checking|looking|reading|inspecting|searching|grepping|verifying|investigating|exploring|"
               r"examining|opening|reviewing|fetching|pulling|querying|scanning|listing|confirming|testing|debugging|"
               r"finding|tracing|digging|taking|starting|waiting|asking|running|re-?running|retrying|trying|comparing|"
               r"gathering|collecting|mapping|probing|polling|capturing|printing|dumping|reproducing|rebuilding|"
               r"building|installing|cloning|downloading|loading|analy[sz]ing|identifying|locating|determining|"
               r"evaluating|validating|focusing|proceeding|going|getting|doing|working|thinking|considering)")
# Where the agent's own runs put their output or what flags they take ("write run artifacts under /tmp",
# "add --no-push for the remaining runs"): how it runs things, not what the project becomes. (A
# temporary folder alone is no sign: the project's own code may choose one.) Nor is the agent's own
# working plan, updated as it goes.
AGENT_RUNS = (r"for (?:the )?(?:remaining|next|later|subsequent|other|following) (?:runs?|attempts?|invocations?|calls?)|"
              r"(?:run|test|scratch) (?:artifacts|output|results)\b(?! (?:page|view|table|endpoint|api|schema))|"
              # the agent's own working plan (Codex's update_plan, Claude Code's todo list): "so I'll update
              # the plan based on findings" (a plan document is named: "the project plan", "PLAN.md")
              r"(?:update|revise|adjust|refresh) (?:the|my) (?:plan|todos?|todo list|checklist)\b(?! (?:document|file|doc)\b)|"
              # a way to run the checks ("I'll use `pytest -k import` to run only the import tests")
              r"to (?:run|rerun|re-run) (?:only |just )?(?:the |a |all )?(?:[\w-]+ ){0,2}(?:tests?|suite|specs?|checks?|linters?)")
# A step that opens with a look, a run, a turn of the conversation or recording the work ("run the
# full suite", "summarize the changes", "commit the work"): the agent's work, never a design.
LOOK_STEP_RE = re.compile(rf"^(?:(?:first|then|next|now),?\s+)?(?:{_LOOKUP})\b", re.IGNORECASE)
# A step of a plan's list that is a look or a run ("2. Read the specs", "3. Run the suite").
_STEP_LOOK_RE = re.compile(rf"^\s*(?:[-*•+]|\d{{1,2}}[.)])\s+(?:\*\*|__)?(?:(?:first|then|next),?\s+)?(?:{_LOOKUP})\b",
                           re.IGNORECASE)
_TACTIC_RE = re.compile(r"\b(?:perl|one-?liners?|context7|mcp|jq|heredoc|here-doc|sed|awk|grep|rg|ripgrep|curl|"
                        r"web ?search|web ?fetch|the (?:docs|documentation) (?:tool|server|lookup)|subagents?|"
                        r"(?:temporary|throwaway|quick|small|scratch) (?:python |shell |bash |node )?script|"
                        r"python (?:one-?liner|snippet)|the (?:\w+ )?tool\b|todo ?list|plan mode|"
                        r"the (?:read|grep|glob|bash|edit|write) tool|skills?|(?:the |a )?[\w-]+ workflow|the [\w-]+ skill|"
                        r"(?:for|in) (?:execution|isolation)|guidance|" + AGENT_RUNS + r")\b", re.IGNORECASE)
_AGENT = r"(?:i|we)"
# The choice: the agent's future step ("I'll deep-merge …") or a choice verb in its account
# ("bumped the version MINOR because …", "kept the flag since …"); never a listed change verb
# alone ("Added …", "Updated …"), which tells what changed, not what was chosen.
_CHOICE_VERB = (r"(?:chose|picked|went with|opted (?:for|to)|kept|left|used|bumped|pinned|defaulted|deep-merged|"
                r"merged|preferred|avoided|skipped|limited|capped|treated|stuck with)")
_FUTURE_RE = re.compile(rf"^(?:(?:so|then|next|instead|now),?\s+)?(?:{_AGENT}(?:'ll| will| should| am going to|'m going to|"
                        rf"'d)|let me|let's)\s+(?:also\s+|just\s+|simply\s+)?(?!{_LOOKUP}\b|be\b|need\b|have\b|get\b|want\b|do\b|"
                        rf"make sure\b|leave (?:it|that|this) (?:there|for now)\b)(?P<chosen>.+)$", re.IGNORECASE)
_PAST_CHOICE_RE = re.compile(rf"^(?:(?:i|we)(?:'ve| have)?\s+)?(?P<chosen>{_CHOICE_VERB}\b.+)$", re.IGNORECASE)
_USING_RE = re.compile(rf"^(?:{_AGENT}(?:'m| am|'re| are)\s+)(?!{_LOOKUP_ING}\b)(?P<chosen>(?:using|keeping|leaving|"
                       r"bumping|pinning|deep-merging|merging|treating|defaulting|sticking with|going with|opting for|"
                       r"choosing|preferring)\b.+)$", re.IGNORECASE)
_WHY_RE = re.compile(r"\s*,?\s+(?:\((?=(?:it'?s|it is|they'?re|they are|this is|that'?s|since|because|as)\b)|\b(?:because|since|so that|so (?:existing|any|users?|callers?|nothing|no|that)\b|to avoid|to keep|to preserve|to ensure|to stay|given that|"
                     r"as (?:it|this|that|there|we|they))\b)\s*(?P<why>.{6,})$", re.IGNORECASE)
_CONTRAST_RE = re.compile(r"\b(?:instead of|rather than)\b", re.IGNORECASE)
_DIAGNOSIS_RE = re.compile(r"\b(?:the|a|one) (?:\w+ )?(?:problem|issue|bug|culprit|cause|error)\b|\bfailed\b|"
                           r"\b(?:error|exception|traceback)\b", re.IGNORECASE)
_LINT_RE = re.compile(r"\b[A-Z]{1,4}\d{3,5}\b|\S+\.\w+:\d+(?::\d+)?|\((?:staticcheck|gocritic|revive|eslint|ruff|clippy|"
                      r"pylint|golangci\S*|[a-z]+lint)\)", re.IGNORECASE)


def reasoned_choice(sentence: str) -> tuple[str, str] | None:
    """(chosen, why) when ``sentence`` states a choice of the agent's with its reason."""
    plain = sentence.replace("\u2019", "'").strip().rstrip(".!")
    if plain.endswith("?") or len(plain.split()) < 5:
        return None
    # The anchored openers first: most sentences fail them at once, the linter search reads it all.
    match = _FUTURE_RE.match(plain) or _PAST_CHOICE_RE.match(plain) or _USING_RE.match(plain)
    if match is None or _LINT_RE.search(plain):
        return None
    chosen = match.group("chosen")
    why = _WHY_RE.search(chosen)
    contrast = _CONTRAST_RE.search(chosen) if match.re is _FUTURE_RE else None
    if (why is None or why.start() < 8) and contrast is not None and contrast.start() >= 8:
        # "I'll give the fixtures unique week numbers instead of changing the product": a way set
        # aside is a choice when the agent is about to make it (told as done, it is a change summary).
        other = chosen[contrast.start():].strip().rstrip(" :;.)")
        chosen = chosen[: contrast.start()].strip(" ,;:—-")
        if len(chosen.split()) < 2 or _TACTIC_RE.search(chosen) or _TACTIC_RE.search(other) \
                or _DIAGNOSIS_RE.search(chosen):
            return None
        return chosen, other
    if why is None or why.start() < 8 or VERIFIES_RE.search(plain):
        return None  # (a step run for its result, "… to keep mypy happy", is a check)
    chosen, reason = chosen[: why.start()].strip(" ,;:—-"), why.group("why").strip().rstrip(" :;.)").strip()
    if len(chosen.split()) < 2 or _TACTIC_RE.search(chosen) or _DIAGNOSIS_RE.search(chosen):
        return None
    if re.match(r"(?:i|we)\b|let me\b|(?:i|we)'(?:m|re)\b", reason, re.IGNORECASE) and not _CONTRAST_RE.search(chosen):
        return None  # "… since I need the logs" - the agent's own need, not the project's
    return chosen, reason


# The reason told first and the choice after it: "The pull response carries serverTime, so I'll add
# clock-skew detection in the engine", "X isn't requested, so I'll leave it out" - never a look-up
# ("…, so I'll check the logs") or a bare "so I'll do it".
_SO_CHOICE_RE = re.compile(
    rf"^(?P<why>[^;]{{10,240}}?),?\s+so\s+(?:{_AGENT}(?:'ll| will| should|'m going to| am going to)|let's|let me)\s+"
    rf"(?:also\s+|just\s+|simply\s+)?(?!{_LOOKUP}\b|{_LOOKUP_ING}\b|be\b|need\b|have\b|get\b|want\b|do\b|"
    r"make sure\b|look into\b|handle (?:it|that|this)\b)(?P<chosen>[^;]{8,240})$", re.IGNORECASE)


# A step whose object is only a pointer ("…, so I'll leave that alone", "so I'll skip this one"): it
# names nothing the project becomes.
_DEICTIC_RE = re.compile(r"^[\w-]+\s+(?:that|this|it|them|these|those)(?:\s+(?:one|ones|step|file|part|alone|"
                         r"as is|for now|untouched|there|out)){0,2}$", re.IGNORECASE)


# A change chained with a check ("patch the row handler next and rerun the unit tests", "…, then run
# the suite"): the order of the agent's work told as it goes, not a choice.
THEN_CHECK_RE = re.compile(rf",?\s+(?:and|then|and then)\s+(?:{_LOOKUP})\b(?:\s+\S+){{0,4}}\s+(?:tests?|suite|specs?|"
                           r"build|checks?|linters?|it|again)\b", re.IGNORECASE)


def reason_then_choice(sentence: str) -> tuple[str, str] | None:
    """(chosen, why) when ``sentence`` gives a reason and then the agent's choice ("<fact>, so I'll X")."""
    plain = sentence.replace("\u2019", "'").strip().rstrip(".!")
    if " so " not in plain or plain.endswith("?"):
        return None  # cheap test first
    match = _SO_CHOICE_RE.match(plain)
    if match is None:
        return None
    chosen, why = match.group("chosen").strip(" ,;:"), match.group("why").strip(" ,;:")
    if _WHY_RE.search(chosen):
        return None  # "… so I'll X to keep Y": the stated intention with its purpose (the engine's own rule)
    if len(chosen.split()) < 3 or _TACTIC_RE.search(chosen) or _LINT_RE.search(plain) \
            or re.match(r"(?:it|this|that|them)\b", chosen, re.IGNORECASE) or _DEICTIC_RE.match(chosen) \
            or THEN_CHECK_RE.search(chosen):
        return None
    if re.match(r"(?:i'm|i am|we're|we are)\s+(?:\w+ly\s+)?\w+ing\b", why, re.IGNORECASE) \
            or re.search(r"\bbut\b", why, re.IGNORECASE):
        return None  # "I'm considering X, but …, so I'll keep it minimal": the agent's own weighing, no fact
    return chosen, why


# The way set aside told first: "Instead of polling the API, I'll subscribe to its webhooks", "Rather
# than a new table, we'll store the flag on the users row" - never a look ("…, let me check …").
_CONTRAST_FIRST_RE = re.compile(
    rf"^(?:so,?\s+|but\s+)?(?:instead of|rather than)\s+(?P<other>[^,;]{{3,140}}),\s+(?:{_AGENT}(?:'ll| will| should|'d|"
    rf"'m going to| am going to)|let's|let me)\s+(?:just\s+|simply\s+)?(?!{_LOOKUP}\b|be\b|need\b|have\b|get\b|want\b)"
    r"(?P<chosen>[^;]{4,200})$", re.IGNORECASE)


# The purpose told first: "To keep the diff small, I'll only change the parser", "To avoid breaking
# existing callers, we'll add a new function and keep the old one" - never a look ("To be sure, let
# me check …").
_PURPOSE_FIRST_RE = re.compile(
    rf"^(?:to|in order to)\s+(?P<why>(?:keep|avoid|prevent|preserve|ensure|stay|make sure|minimi[sz]e|reduce|simplify|"
    rf"support|allow|protect|speed up|save)\b[^,;]{{3,140}}),\s+(?:{_AGENT}(?:'ll| will| should|'m going to| am going to)|"
    rf"let's|let me)\s+(?:also\s+|just\s+|simply\s+)?(?!{_LOOKUP}\b|be\b|need\b|have\b|get\b|want\b)"
    r"(?P<chosen>[^;]{4,200})$", re.IGNORECASE)


def purpose_then_choice(sentence: str) -> tuple[str, str] | None:
    """(chosen, why) when ``sentence`` tells the purpose first and then the agent's choice."""
    plain = sentence.replace("\u2019", "'").strip().rstrip(".!")
    if plain[:3].lower() not in ("to ", "in "):
        return None  # cheap test first
    match = _PURPOSE_FIRST_RE.match(plain)
    if match is None:
        return None
    chosen = match.group("chosen").strip(" ,;:")
    if len(chosen.split()) < 2 or _TACTIC_RE.search(chosen):
        return None
    return chosen, f"to {match.group('why').strip()}"


# The agent weighing a way and taking it: "I think it's better to validate on the server, since the
# client can be bypassed", "I prefer a flat layout here; nesting only adds imports", "Let's not add a
# dependency; I'll write the parser by hand" - never a look ("it's better to check …") nor a wish
# for the user ("I'd prefer you confirm …").
_BETTER_TO_RE = re.compile(
    rf"^(?:(?:i think|i believe|honestly|here|so),?\s+)?(?:(?:it'?s|it is|it would be|it'd be|it seems|this is)\s+)?"
    rf"(?:probably\s+|much\s+|definitely\s+)?(?:better|cleaner|simpler|safer|wiser|preferable) to\s+(?!{_LOOKUP}\b)"
    r"(?P<chosen>[^;:]{4,160}?)(?:(?:[,;:]\s+|\s+(?:since|because|as|so that)\s+)(?P<why>.{6,200}))?$", re.IGNORECASE)
_PREFER_RE = re.compile(r"^(?:i|we)(?:'d| would)? prefer\s+(?!(?:you|that you|to (?:ask|check|wait|confirm))\b)"
                        r"(?P<chosen>[^;:]{4,160}?)(?:\s+(?:over|to)\s+(?P<other>[^;:,]{3,100}?))?"
                        r"(?:(?:[;:,]|\s+(?:since|because|as))\s+(?P<why>.{6,200}))?$", re.IGNORECASE)
_LETS_NOT_RE = re.compile(rf"^let'?s not\s+(?P<other>[^;:]{{4,120}})[;:,]\s+(?:instead,?\s+)?(?:{_AGENT}(?:'ll| will)|let's|"
                          rf"let me)\s+(?!{_LOOKUP}\b)(?P<chosen>.{{4,200}})$", re.IGNORECASE)
# A way named and judged better, with the reason: "A queue is better because retries come for free",
# "Option 2 makes more sense since it avoids the migration", "It makes sense to validate in the model
# rather than the view".
_JUDGED_RE = re.compile(r"^(?:(?:so|i think|i guess|honestly|hmm),?\s+)?(?P<chosen>(?!it\b|this\b|that\b|which\b)[\w`'\"(][^,;:]{2,80}?)\s+"
                        r"(?:(?:is|seems|would be)\s+(?:(?:much|clearly|probably)\s+)?(?:better|cleaner|simpler|"
                        r"safer|the better (?:option|choice|fit|approach)|the way to go)|makes (?:more|the most) sense)"
                        r"(?:\s+(?:here|for this))?,?\s+(?:because|since|as)\s+(?P<why>.{6,200})$", re.IGNORECASE)
_MAKES_SENSE_RE = re.compile(rf"^(?:(?:so|i think),?\s+)?it (?:makes|would make) (?:more )?sense to\s+(?!{_LOOKUP}\b)"
                             r"(?P<chosen>[^;:]{4,160}?)(?:(?:[,;:]\s+|\s+(?:since|because|as)\s+)(?P<why>.{6,200}))?$",
                             re.IGNORECASE)
# The agent switching its own way: "Hmm, maybe I should store the cursor in the jobs table instead".
_SWITCH_RE = re.compile(rf"^(?:(?:hmm|actually|ok(?:ay)?|so|maybe|wait|no),?\s+)*(?:maybe\s+)?{_AGENT}(?:'ll| will| should|"
                        rf"'d better)\s+(?:just\s+)?(?!{_LOOKUP}\b|be\b|need\b|have\b|get\b|do\b)(?P<chosen>[^;:]{{4,160}}?)"
                        r"\s+instead$", re.IGNORECASE)
EVALUATION_CUES = ("better to", "cleaner to", "simpler to", "safer to", "wiser to", "preferable to", "prefer", "let's not",
                   " better", " cleaner", " simpler", " safer", "the way to go", "sense", "instead")


def evaluated_choice(sentence: str) -> tuple[str, list[str], str] | None:
    """(chosen, options, why) when the agent weighs a way and takes it (see the comment above)."""
    plain = sentence.replace("\u2019", "'").strip().rstrip(".!")
    lowered = plain.lower()
    if plain.endswith("?") or not any(cue in lowered for cue in EVALUATION_CUES):
        return None  # cheap test first
    match = _BETTER_TO_RE.match(plain) or _PREFER_RE.match(plain) or _LETS_NOT_RE.match(plain) \
        or _MAKES_SENSE_RE.match(plain) or (_SWITCH_RE.match(plain) if lowered.endswith("instead") else None)
    if match is None and " because " not in lowered and " since " not in lowered and " as " not in lowered:
        return None
    match = match or _JUDGED_RE.match(plain)
    if match is None:
        return None
    chosen = match.group("chosen").strip(" ,;:")
    found = match.groupdict()
    other = (found.get("other") or "").strip(" ,;:")
    if len(chosen.split()) < 2 or _TACTIC_RE.search(chosen) or (match.re is _JUDGED_RE and len(found["why"].split()) < 3):
        return None  # ("The output is better since the fix": a result observed, no reason for a way)
    options = [chosen, other] if other else []
    why = re.sub(r"^(?:since|because|as|so that)\s+", "", (found.get("why") or "").strip(), flags=re.IGNORECASE) \
        or (f"rather than {other}" if other else "")
    return chosen, options, why


CONTRAST_OPENERS = ("instead", "rather", "so instead", "so, instead", "so rather", "so, rather", "but instead",
                    "but rather")


def contrast_first(sentence: str) -> tuple[str, str] | None:
    """(chosen, other) when ``sentence`` names the way set aside and then the agent's way."""
    plain = sentence.replace("\u2019", "'").strip().rstrip(".!")
    if not plain.lower().startswith(CONTRAST_OPENERS):
        return None  # cheap test first
    match = _CONTRAST_FIRST_RE.match(plain)
    if match is None:
        return None
    chosen, other = match.group("chosen").strip(" ,;:"), match.group("other").strip(" ,;:")
    if len(chosen.split()) < 2 or _TACTIC_RE.search(chosen) or _TACTIC_RE.search(other):
        return None  # "Instead of grep, I'll use the search tool": how the agent works
    return chosen, other


# A message with a choice told with its reason or a contrast has one of these (lowercase) strings.
_REASON_WORDS = ("because", "since", "so that", "to avoid", "to keep", "to prevent", "to preserve", "to ensure",
                 "to stay", "given that", " as ", " so ", " (", "instead of", "rather than")


def reasoned_accounts(entries: list[Entry]) -> list[Decision]:
    """The agent's commentary or final summary stating a choice with its reason (one a message)."""
    decisions: list[Decision] = []
    for entry in entries:
        if entry.role != "assistant" or entry.kind not in (None, "message") or not entry.text:
            continue
        lowered = entry.text.lower()
        found = None
        if any(w in lowered for w in _REASON_WORDS):  # cheap test first
            found = next((f for s in sentences(prose(entry.text)) for f in (reasoned_choice(s),) if f), None)
        if found is None and not entry.text.isascii() and any(cue in entry.text for cue in CJK_CUES):
            found = cjk_choice(prose(entry.text))  # the same choice told in Chinese or Japanese
        if found is None:
            continue
        chosen, why = found
        decisions.append(Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                                  rationale=squash(why, 240), range=(entry.index, entry.index)))
    return decisions


# ---------------------------------------------------------------- the agent taking up a correction

_CONCEDE_RE = re.compile(r"^(?:you'?re (?:absolutely |totally |completely |quite |so )?right|good (?:catch|point|call)|"
                         r"fair (?:point|enough)|my (?:mistake|bad)|ah,? (?:i see|right|got it|yes)|oops|"
                         r"(?:i )?understood|got it|sorry)\b[\s,.!:;—–-]*", re.IGNORECASE)
# Looking into what the user said is no new plan ("You're right. I'll check where the port is read").
_LOOK_INTO = (r"(?:check|look|investigate|verify|search|see|inspect|debug|find|trace|dig|explore|examine|review|run|"
              r"re-?run|try|test|confirm|figure|understand|take a look|double-check)")
_TAKE_UP_RE = re.compile(rf"^(?:(?:so|then|instead),?\s+)?(?:{_AGENT}(?:'ll| will| should|'m going to| am going to)|"
                         rf"let me|let's)\s+(?:also\s+|just\s+)?(?!{_LOOK_INTO}\b)(?P<chosen>.{{6,}})$", re.IGNORECASE)


def taken_up_corrections(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    """The user's message and the agent conceding it with a new plan ("You're right! I'll … instead")."""
    decisions: list[Decision] = []
    for position, reply in answered_user_turns(entries):
        decision = _taken_up(entries, position, reply, calls)
        if decision is not None:
            decisions.append(decision)
    return decisions


# The user challenging what the agent refused or left undone: "why won't you run it?", "why not?".
_CHALLENGE_RE = re.compile(r"^(?:but\s+|so\s+)?why (?:not\b|(?:won'?t|wouldn'?t|can'?t|didn'?t|don'?t|did not|will not|"
                           r"would not|cannot) you\b)", re.IGNORECASE)
_DO_IT_RE = re.compile(rf"^(?:(?:so|then),?\s+)?(?:{_AGENT}(?:'ll| will)|let me|let's)\s+(?!(?:check|look|verify|inspect|review|"
                       r"investigate|examine|see|read|explain|think|reconsider)\b)(?P<chosen>(?:go ahead and\s+)?\w+ "
                       r"(?:it|that|this|them)\b.*)$", re.IGNORECASE)


def _taken_up(entries: list[Entry], position: int, reply: Entry, calls: list[Call]) -> Decision | None:
    user = entries[position]
    said = prose(reply.text).replace("\u2019", "'").strip()
    opener = _CONCEDE_RE.match(said)
    if opener is None:
        return None
    body = prose(user.text)
    if not body or len(body.split()) > 80:
        return None
    challenged = bool(_CHALLENGE_RE.match(body.replace("\u2019", "'")))
    chosen = ""
    for sentence in sentences(said[opener.end():]):
        if challenged and (done := _DO_IT_RE.match(sentence.rstrip(".!:"))) is not None:
            # "Why won't you run it?" - "You're right to question that … Let me run it": the step the
            # agent had refused, now taken (a look-up verb is the choice here, not a look around).
            chosen = done.group("chosen")
            break
        match = _TAKE_UP_RE.match(sentence.rstrip(".!"))
        if match is None:
            continue
        text = match.group("chosen")
        if _TACTIC_RE.search(text):
            return None
        if _CONTRAST_RE.search(text) or re.search(r"\binstead\b", text, re.IGNORECASE) or re.match(
                r"(?:use|switch|revert|keep|move|remove|drop|change|replace|put|make|store|read|rename|restore|"
                r"undo|leave|go back|stick)\b", text, re.IGNORECASE):
            chosen = text
            break
    if not chosen:
        return None
    end = _first_change_after(entries, calls, reply.index)
    return Decision(title=short_title(chosen, 10), options=[], chosen=squash(chosen, 200),
                    rationale=squash(f"the user pointed out: {body}", 240), range=(user.index, end))


# ---------------------------------------------------------------- a comment in the patch that says why

_LINE_COMMENT_RE = re.compile(r"^\s*(?:#+|//+|/?\*+|--|;+)\s?(?P<text>[^\n]*?)\s*(?:\*/)?$")
_INLINE_COMMENT_RE = re.compile(r"\S\s+(?:#|//)\s+(?P<text>[A-Za-z(][^\n]*?)\s*$")
# A comment that gives the reason for the code it sits on: "Increased for model loading", "Empty - we
# only care about input detection", "Skip it when … (it already skips all prompts)".
# ("… to prevent regressions" names what a feature is for: it describes, it does not choose.)
_COMMENT_WHY_RE = re.compile(r"\b(?:because|since|so that|to avoid|otherwise|(?:it|they|this|that|which|is|are) "
                             r"already|we only|only care|"
                             # the quality the code is there for: "Fetch the total count for proper pagination"
                             r"for (?:proper|correct|accurate|consistent|reliable|deterministic|stable|safe) \w+|"
                             r"on purpose|intentionally|deliberately|by design|not needed|no need)\b|"
                             r"^[\w.'-]+(?: [\w.'-]+)? (?:doesn'?t|does not|don'?t|do not|can'?t|cannot|won'?t) (?:support|"
                             r"accept|allow|handle|preserve|keep)\b.{3,80},\s*(?:so\s+)?(?:convert|fall back|use|strip|drop|"
                             r"wrap|copy|encode|decode|cast|map|split|retry|skip)\b|"
                             r"^(?:increased|raised|reduced|lowered|bumped|disabled|enabled|kept|pinned|commented out|"
                             r"empty|skip(?:ped)?|default(?:s|ed)? to)\b.{0,60}\b(?:for|to|because|since|as|so)\b",
                             re.IGNORECASE)
_COMMENT_NOISE_RE = re.compile(r"\b(?:todo|fixme|xxx|hack|copyright|licen[cs]e|spdx|eslint-disable|noqa|type: ?ignore|"
                               r"nolint|pragma)\b|(?:^|\s)@\w+", re.IGNORECASE)
# A comment describing what the code does ("It parses the input …", "Provides early validation …",
# "Returns the id so that …") documents it; it chooses nothing.
# (A test's own comment - "Test that …", "Should return 404 because …", "Mock the client so …", "Wait
# for the server since …" - tells what the test does or expects.)
_DESCRIBES_RE = re.compile(r"^(?:it|this|these|they|the (?:function|method|class|module|helper|hook)|function|method)\b|"
                           r"^(?:test(?:s|ing)?|should|expect(?:s|ed)?|verif(?:y|ies)|ensure|assert|check|wait|mock|stub|"
                           r"simulate|fake)\b|"
                           # when the code runs ("Called when the user clicks save, …") and a step's number
                           r"^(?:called|used|invoked|run|triggered|executed|fired) (?:when|by|from|after|before|on|if)\b|"
                           r"^step \d+\b|"
                           r"^[A-Z]?[a-z]+(?<!s)s\b(?<!\bhas)", re.IGNORECASE)
_CODE_FILES_SKIP = (".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".org", ".html", ".json", ".lock", ".csv", ".svg")


def reasoned_comments(calls: list[Call]) -> list[Decision]:
    """A comment the agent's change adds that says why the code is so ("timeout: 120  # Increased for
    model loading") - the choice is visible only in the patch."""
    decisions: list[Decision] = []
    for call in calls:
        if not call.is_edit or call.failed or call.rejected:
            continue
        text, code = reasoned_comment(call)
        if text and code:  # "timeout: 120  # Increased for model loading": the line is the choice, the comment why
            decisions.append(Decision(title=short_title(text, 10), options=[], chosen=squash(code, 200),
                                      rationale=squash(text, 240), range=(call.entry.index, call.end)))
        elif text:
            decisions.append(Decision(title=short_title(text, 10), options=[], chosen=squash(text, 200),
                                      rationale="",  # the comment is the choice; it tells no reason of its own
                                      range=(call.entry.index, call.end)))
    return decisions


def reasoned_comment(call: Call) -> tuple[str, str]:
    """(the first comment ``call``'s change adds that gives a reason for the code, the code it sits
    on when it is an inline comment, else ""), else ("", "")."""
    files = call.files()
    if not files or any(f.lower().endswith(_CODE_FILES_SKIP) for f in files):
        return "", ""
    added = _added_text(call)
    if not added:
        return "", ""
    for line in added.splitlines():
        whole = _LINE_COMMENT_RE.match(line)
        match = whole or _INLINE_COMMENT_RE.search(line)
        if match is None:
            continue
        raw = match.group("text").strip()
        text = COMMENT_TAG_RE.sub("", raw)  # "ABOUTME: …" - the tag is no part of the text ("TODO: …" is noise)
        if len(text.split()) < 4 or _COMMENT_NOISE_RE.search(raw) or not _COMMENT_WHY_RE.search(text) \
                or _DESCRIBES_RE.match(text):
            continue
        return text, ("" if whole else line[: match.start() + 1].strip())
    return "", ""
