"""The offline, deterministic Phase 1 extractor (the ``rules`` engine, the default).

It reads cleaned entries and reports only what the log shows, never inventing. Each item carries
the range of entries it came from.

- **requests** (``rules_requests``): what the user asked; questions, greetings, pasted code and
  corrections are not requests (a correction refines the request before it);
- **attempts** (``rules_attempts``): real failures and whether a later run of the same check passed;
- **decisions**: ``AskUserQuestion`` answers (chosen option, the others rejected), ``ExitPlanMode``
  plans (approved, or revised after the user rejected one), and explicit choices stated in a
  message ("X instead of Y", "we should use X", "I'll use X for Y", "add X since Y") — never in a
  summary of changes already made, never a tactical step ("Let me use find instead"); the choice a
  Codex reasoning summary records ("Deciding to …", "Planning to X instead of Y", a "**Designing …**"
  section); the evidence read around a choice (``rules_evidence``) and the choices told with no cue
  word (``rules_design``: a recommendation under its heading, a planning document written, a reason
  in the agent's account or in a code comment, a correction taken up) - those last only in a turn
  where nothing else told a choice;
- **discussions**: the user's questions with the substance of the reply (not "Let me check…").
"""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz import fuzz

from ..sessions.model import Entry
from ..store.staging import Activity, Decision, Discussion
from .calls import EDIT_TOOLS, Call, pair_calls
from .rules_attempts import AttemptCarry, chunk_attempts, extract_attempts
from .rules_commits import commit_scopes
from .rules_design import (
    AGENT_RUNS,
    CONTRAST_OPENERS,
    CONVERSE,
    EVALUATION_CUES,
    LOOK_STEP_RE,
    NOTHING_CHOSEN_RE,
    RECORD_WORK,
    VERIFIES_RE,
    announced_solutions,
    contrast_first,
    document_designs,
    evaluated_choice,
    heading_recommendations,
    purpose_then_choice,
    reason_then_choice,
    reasoned_accounts,
    reasoned_comments,
    taken_up_corrections,
)
from .rules_evidence import (
    accepted_proposals,
    agreed_steers,
    commit_rationales,
    conflict_resolutions,
    fallbacks,
    favoured,
    patch_comments,
    refused_then_redirected,
    stated_constraints,
    user_corrections,
    user_names,
    weighed_options,
)
from .rules_requests import extract_requests, is_question, is_trivial
from .text import forget_chunk, prose, sentences, short_title, squash

_ANSWER_RE = re.compile(r'"(?P<q>[^"]+)"="(?P<a>[^"]*)"')
_CHOICE_RE = re.compile(
    r"\b(?:instead of|rather than|decided (?:to|on|against)|decision is|opted (?:for|to)|"
    r"(?<!keep )(?<!keeps )(?<!get )going with|(?<!keep )(?<!get )go with|"
    r"switch(?:ed|ing)? (?:to|from)|chose\b|choose to|we'll use|let's use|we should (?:use|go with|keep|prefer)|"
    r"we'll go with|i'll use (?!(?:that|this|it|them|these|those)\b)\S+(?: \S+){0,3} (?:for|to|as|with)|(?:i'll|i will|we'll|we will|let's) (?:set|cap|limit|"
    r"default|pin|keep) (?:the |a |an )?(?:[\w.-]+ ){1,4}(?:to|at) `?\d[\d.]*|i'll use (?:the |a |an )?(?!(?:that|this|it|them|these|those)\b)\S+(?: \S+){0,2} and |prefer \S+ over|use (?:[\w.`'\"-]+ ){1,4}instead|"
    r"(?:set up|setting up|configure|wire up) (?:[\w.-]+ ){1,4}(?:with|using|via) [`\w][\w.-]*|"
    r"(?:i'll|i will|we'll|we will) (?:add|implement|update|handle|build|make|change|wrap|replace|do|send|store|"
    r"track|solve) (?:[\w.'-]+ ){1,7}(?:using|via|with) (?:the |a |an )?`[^`]+`|in favou?r of)",
    re.IGNORECASE)
_SINCE_RE = re.compile(r"^(?:[^—–:;]*?[—–:;]\s+)?(?:(?:i|we)(?:'ll| will| should)\s+)?(?P<verb>add|use|keep|switch to|move|"
                       r"prefer|go with|set up|pin|disable|silence)\b(?P<chosen>.{3,120}?)\s+(?:since|because)\s+"
                       r"(?P<why>.{6,200})$", re.IGNORECASE)
# A stated intention with its reason: "first isolate it in a fresh worktree because the checkout is
# dirty", "I'll keep the old endpoint so that clients on v1 still work" — never a look around.
_INTENT_WHY_RE = re.compile(
    r"(?:^|\b)(?:i'll|i will|i'm going to|i plan to|i'm planning to|i intend to|my plan is to|we'll|we will|we should|"
    r"let's|first,?|then,?)\s+(?!(?:try|check|look|read|"
    r"run|inspect|search|grep|verify|investigate|explore|examine|open|see|review|fetch|pull|query|scan|list|confirm|"
    r"test|debug|find|trace|dig|take|start|begin|continue|wait|ask|tell|report|summari[sz]e|explain|need|have|get|"
    r"figure|understand|also|just|now|quickly|re-?run|" + CONVERSE + r")\b|" + RECORD_WORK + r")(?P<chosen>(?:[^.;:?]|\.(?=\w)){6,140}?),?\s+(?:because|since|so that|"
    r"as (?:the|it|this|that|these|those|we|they)|to avoid|to keep|to ensure|so(?=\s+(?:the|it|nothing|no|existing|callers?|"
    r"users?)\b.{0,60}\b(?:stays?|remains?|keeps?|is(?:n't| not)?|are(?:n't| not)?|won'?t|doesn'?t|never|still)\b)|"
    # the quality a choice is for ("… as an alias for backwards compatibility") and what it keeps ("…, which
    # keeps the API small"): the reason is those words
    r"(?=for (?:backwards? |backward )?compatibility\b|for (?:safety|performance|consistency|clarity|simplicity|"
    r"readability|security|portability|testability|robustness)\b|which (?:keeps|avoids|prevents|lets|means)\b))\s*"
    r"(?P<why>[^?]{6,200})$", re.IGNORECASE)
_PHRASE = r"(?:`[^`]+`|\"[^\"]+\"|[\w.:/'-]+(?: [\w.:/'-]+){0,3})"
_INSTEAD_RE = re.compile(rf"(?:(?:i'll|i will|we'll|we will|we should|let's) )?(?:use |using |with |try |trying |go with )?(?P<chosen>{_PHRASE}),? (?:instead of|rather than) "
                         rf"(?P<other>{_PHRASE})", re.IGNORECASE)
# (Also the agent taking the request on, "I'll help you set up the API with …": the request restated.)
_TACTICAL_RE = re.compile(r"^(?:let me(?! go with\b| stick with\b)|let's (?:try|check|look|see|run|read)|i'll (?:try|check|look|run|read|start|help)|"
                          r"i will (?:try|check|help)|i can help|happy to help|now i|first,? i|next,? i|trying)\b",
                          re.IGNORECASE)
# Progress narration (Codex writes its commentary so): "I'm pulling the issue body … rather than relying
# on titles", "…, so I'm switching to commit lookup" — what the agent is doing this minute, not a choice.
# ("I'm going with a queue", "I'm opting for …" tell a choice, not what the agent does this minute.)
_PROGRESS_RE = re.compile(r"(?:^|[,;:—–]\s*(?:so|and|then|now)?\s*|\bso\s+)(?:i'm|i am|we're|we are)\s+(?:now\s+|also\s+|"
                          r"just\s+|going to\s+)?(?!going with\b|opting for\b|sticking with\b|settling on\b)\w+ing\b",
                          re.IGNORECASE)
# Narration that carries a choice with its reason: "The dump is a JSON array, so I'm writing a
# dedicated page for it instead of routing it through the log viewer", "main is behind, so I'm
# making one focused commit first, then I'll rebase and push" - a change the agent makes, never a
# look-up ("so I'm checking …").
_REASONED_STEP_RE = re.compile(
    r"^(?P<why>[^;]{10,200}?),?\s+so\s+(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?P<chosen>(?:creating|writing|building|"
    r"adding|making|moving|keeping|putting|landing|committing|rebasing|replacing|splitting|storing|wrapping|"
    r"renaming|removing|deleting|pinning)\b[^;]{4,160}?)(?:\s+(?:instead of|rather than)\s+(?P<other>[^;]{3,120})"
    r"|,?\s+first,?\s+(?:and\s+)?then\s+(?P<then>[^;]{3,120}))$", re.IGNORECASE)
# Leaving something as it is, for a reason: "Since the test only reads the config (not the work
# tree), a plain repository is fine" - keeping it is the choice.
_AS_IS_RE = re.compile(r"^(?:since|because|as)\s+(?P<why>[^,]{6,200}?),\s+(?P<kept>[^,;—–]{3,80}?)\s+(?:is|are)\s+"
                       r"(?:fine|enough|sufficient|acceptable|correct|appropriate)\b(?P<rest>.*)$", re.IGNORECASE)
# A message reporting work already done: its "X instead of Y" describes a change, not a choice.
_SUMMARY_RE = re.compile(r"^(?:done|perfect|great|excellent|all (?:done|set)|summary|i've|i have|here's what|"
                         r"changes? made|what (?:i|was) changed|successfully|(?:fixed|removed|updated|added|created|"
                         r"changed|moved|renamed|replaced|implemented|switched|increased|reduced|refactored)\b)\b|"
                         r"^#+[^\n]*\bsummary\b", re.IGNORECASE | re.MULTILINE)
_PAST_RE = re.compile(r"^(?:i've|i have|i|we|it|this)?\s*(?:changed|updated|added|moved|removed|replaced|switched|"
                      r"renamed|made|used|set|fixed|created|converted)\b", re.IGNORECASE)
_BECAUSE_RE = re.compile(r"\b(?:because|since|as|due to|so that|so)\b\s*(.+)", re.IGNORECASE)
# How the agent gets a step done, not what the project becomes: a tool, a shell utility, a one-liner,
# a docs lookup service ("use a Perl one-liner instead", "use Context7 for the docs").
_TOOLISH_RE = re.compile(r"\b(?:tool|tools|subagent|agent|the (?:read|grep|glob|bash|task|edit|write) |webfetch|grep|rg|"
                         r"sed|awk|curl|find|ls|cat|head|tail|perl|one-?liners?|context7|mcp|jq|heredoc|"
                         r"websearch|todowrite|todo list|plan mode|a search|the search|skills?|the [\w-]+ workflow|" + AGENT_RUNS + r")\b",
                         re.IGNORECASE)
# The agent naming the way it settles on: "The simplest fix is to drop the re-sort, since …", "the
# cleanest solution is to add a lint directive" (never "the fix is a one-line removal": that reports it).
_SOLUTION = (r"(?:the (?:(?:simplest|cleanest|best|right|proper|safest|easiest|correct|minimal|obvious|smallest|"
             r"typical|idiomatic|real) )?(?:fix|solution|approach|option|way forward|remedy)(?: here| for this)? "
             r"(?:is|would be|will be) to|the (?:simplest|cleanest|best|right|proper|safest|easiest|correct|obvious|"
             r"idiomatic) way(?: here| for this| forward)? (?:is|would be|will be) to)")
_SOLUTION_RE = re.compile(rf"\b{_SOLUTION}\s+(?:just\s+|simply\s+)?(?P<chosen>[^;?]{{4,160}}?)(?:[,;]?\s+"
                          r"(?:since|because|as (?:the|it|this|that|these|those|we|they))\s+(?P<why>[^?]{6,200}))?$",
                          re.IGNORECASE)
# The fix named after a colon: "The fix is surgical: stop reusing the week numbers so the tests cannot
# collide" - the way, with "so …" its reason; "The fix is simple: changed X to Y" reports a change.
_FIX_COLON_RE = re.compile(r"\bthe (?:\w+ )?(?:fix|solution|change) (?:is|will be|here is) (?:simple|surgical|small|"
                           r"straightforward|minimal|easy|targeted|narrow|local|contained|mechanical)\s*:\s*"
                           r"(?P<chosen>[^;?]{8,200}?)(?:,?\s+(?:so(?: that)?|since|because)\s+(?P<why>[^?]{6,200}))?$",
                           re.IGNORECASE)
# A bare "instead of" / "rather than" is a choice only when someone makes it: "I'll use X instead of
# Y", "we should X rather than Y", "Use X instead of Y" - not a description ("the engine evaluates X
# instead of Y", "can work instead of Z", "these are for A rather than B").
_ACTOR_RE = re.compile(r"\b(?:i|i'll|i'd|i'm|i've|we|we'll|we'd|we're|let's|our|my|should|prefer|chose|choose|"
                       r"go(?:ing)? with|opt(?:ed|ing)?|pick(?:ed)?|follow(?:ing)?|use(?! cases?\b)|using)\b|^(?:keep|add|put|make|return|call|store|"
                       r"write|move|pass|read|run|set|go|do|create|build|switch|replace|leave|take|try|wrap|send|"
                       r"load|check|pin|\w+ing)\b", re.IGNORECASE)
# What the code or the project does, told of it ("The tests use an in-memory database instead of
# Postgres", "This service stores sessions in Redis rather than in memory"): a fact, nobody choosing.
_DESCRIBED_RE = re.compile(r"^(?:the|this|that|these|those|its|their|each|every)\s+(?![\w-]+\s+(?:should|will|would|must)\b)"
                           r"[^,;:]{0,50}?\b(?:uses|use|is using|are using|reads|returns|stores|calls|runs|keeps|"
                           r"relies on|rely on|goes through|talks to)\b", re.IGNORECASE)
# An offer to the user or advice for them, nobody choosing: "If you prefer, I can use pandas instead",
# "You could use X instead of Y if …", "Would you like me to …".
_OFFER_RE = re.compile(r"^(?:if you (?:prefer|want|like|'d like|would like|need)\b|would you like\b)|\b(?:i can|i could|"
                       r"you could|you can|you might|you may)\b", re.IGNORECASE)
_CONVERSE_RE = re.compile(CONVERSE, re.IGNORECASE)
# A sentence telling what is wrong: "I can see the problem: we're still getting X rather than Y".
_DIAGNOSIS_RE = re.compile(r"\b(?:the|a|one) (?:\w+ )?(?:problem|issue|bug|culprit)\b(?: here)?(?: is|:| was)|"
                           r"\bstill (?:getting|seeing|producing|using|thinking)\b", re.IGNORECASE)
# A linter's finding quoted or reported ("QF1003: could use tagged switch", "the linter says we should
# use …"): what the tool asks for, not a choice the session made.
_LINTER_SAYS_RE = re.compile(r"^(?:eslint|ruff|mypy|pyright|tsc|clippy|staticcheck|golangci(?:-lint)?|biome|"
                             r"rubocop|flake8|pylint|gocritic|revive|shellcheck|stylelint|prettier)\b[^:]{0,30}:\s|"
                             r"\b(?:QF|SA|ST|S|E|W|C|F|B|UP|SIM|RUF)\d{3,4}\b|\b(?:linter|lint|staticcheck|golangci(?:-lint)?|"
                             r"eslint|ruff|clippy|pylint|flake8|go vet|gocritic|revive|rubocop|biome)\b[^.;]{0,40}\b(?:says?|"
                             r"suggests?|wants?|complains?|flags?|reports?|warns?|recommends?|asks?)\b")
# A finding listed with its location ("`export_test.go:224` - should use a tagged switch instead",
# "src/app.ts:12:5: prefer const"): a linter's or a reviewer's output quoted or reported, not a choice.
_LOCATED_RE = re.compile(r"^[`'\"*]*[\w./\\-]+\.\w{1,6}:\d+(?::\d+)?[`'\"*]*\s*(?:[-—–:)]|\s-\s)")
# What a change is expected to do now: "The pagination should now go 1 → 2 → 3 instead of skipping".
_OUTCOME_RE = re.compile(r"\b(?:should|will|would) now\b|\bnow (?:correctly|properly|works?|shows?|goes|returns?)\b",
                         re.IGNORECASE)
# A way the agent names and then commits to: "Deleting it needs the long-path prefix, which skips the
# name check - let me do that."
_DO_THAT_RE = re.compile(r"^(?P<chosen>[^—–;]{12,240}?)\s*(?:[—–;:]|,| - )\s*(?:so )?(?:let me|let's|i'll|i will|we'll) "
                         r"(?:do|go with|try) (?:that|this|so|it)(?: now| first| instead)?$", re.IGNORECASE)
# An acknowledgement or a look-up before "let me do that" is no way chosen ("That makes sense, let
# me do that", "I need to check the logs first - let me do that").
_LOOKUP_RE = re.compile(r"^(?:sure|ok(?:ay)?|yes|great|perfect|good|right|got it|that makes sense|makes sense)\b|"
                        r"^(?:(?:i|we) (?:need|have|want) to |i'll |first,? )?(?:check|look|read|inspect|search|verify|"
                        r"find|investigate|explore|review)\b", re.IGNORECASE)
# A choice told as a label in a sentence, often in reasoning: "My approach: keep the cursor in the jobs
# table", "OK, decision: keep the old flag as an alias", "The plan: store it, then resume from it".
_CHOICE_LABEL_RE = re.compile(r"^(?:\*\*|__)?(?:(?:ok(?:ay)?|so|right|alright),?\s+)?(?:(?:my|our|the)\s+)?(?:approach|plan|"
                              r"decision|choice)\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<chosen>[^?*]{8,200})$", re.IGNORECASE)
# A way that is a look ("the plan is to first read the handler", "the best way is to check the logs").
_LOOK_FIRST_RE = re.compile(r"^(?:first,?\s+)?(?:check|look|read|inspect|search|verify|investigate|explore|examine|"
                            r"review|find|trace|see|understand|figure|run|test|confirm|reproduce)\b", re.IGNORECASE)
_DEFERRED_RE = re.compile(r"\bbut,? for now\b", re.IGNORECASE)
# How Codex's reasoning summaries weigh a choice: "I'm considering X rather than Y", "I'm leaning towards X".
_DELIBERATE = r"i'?m (?:considering|planning|leaning|going with|opting|deciding|thinking about|choosing)"
_DELIBERATE_RE = re.compile(rf"\b{_DELIBERATE}\b", re.IGNORECASE)
# In reasoning only a choice the agent owns counts: "I'll …", "we should …", "following the guidelines …".
_FIRST_PERSON_RE = re.compile(r"\b(?:i'll|i will|i'm going to|i should|we'll|we will|we should|let's|my (?:plan|approach)|"
                              r"(?:deciding|decided|choosing|chose|opting|opted|settling|settled) (?:to|on|for|against)|"
                              rf"i think|i'd (?:rather|prefer|go with)|i prefer|i plan|{_DELIBERATE}|"
                              r"(?:following|per) (?:the )?(?:project'?s? |repo'?s? )?(?:guidelines?|conventions?|"
                              r"claude\.md|agents\.md|contributing)|" + _SOLUTION + r")\b", re.IGNORECASE)
# How a Codex reasoning summary records a choice, often with no "I": "**Deciding to keep the clocks
# inside the encrypted payload**", "Decided to emit UPDATED on upsert to simplify logic".
_DECIDED_LEAD_RE = re.compile(r"^(?:i'?m |i |we(?:'re| are)? )?(?:deciding|decided|choosing|chose|opting|opted|settling|"
                              r"settled)\s+(?P<prep>to|on|for|against)\s+(?P<rest>.{6,})$", re.IGNORECASE)
# A planned change with its reason or the way set aside: "Planning to wrap the handler in try/catch to
# log warnings instead of crashing" - never a planned look ("Planning to inspect X to avoid guessing").
_PLANNED_LEAD_RE = re.compile(r"^(?:i'?m |i am |i )?(?:planning|going|intending|aiming) to (?!(?:inspect|check|look|read|run|"
                              r"search|verify|confirm|review|examine|explore|investigate|test|find|open|see|gather|list|"
                              r"scan|grep|locate|identify|understand|figure|re-?run|start|begin|continue|ask|report|"
                              r"summari[sz]e|explain)\b)(?P<rest>.{6,})$", re.IGNORECASE)
_PLANNING_HINT_RE = re.compile(r"\b(?:planning|intending|aiming) to\b", re.IGNORECASE)
_DECIDED_WHY_RE = re.compile(r",?\s+\b(?:because|since|so that|to avoid|to keep|to prevent|to simplify|as (?:the|it|this|"
                             r"that|there|we|they)|given that|rather than|instead of|avoiding|preventing)\b", re.IGNORECASE)
_TOPIC_END_RE = re.compile(r"\b(?:approach|strategy|design|handling|timing|logic|structure|format|plan|options?|"
                           r"implementation|method|mechanism|details?|changes?|updates?)$", re.IGNORECASE)
_DELIBERATE_LEAD_RE = re.compile(r"^i'?m (?:considering|thinking about|leaning (?:towards?|to)|opting for|going with|"
                                 r"choosing|deciding on)\s+", re.IGNORECASE)
_RECOMMENDED_RE = re.compile(r"\s*\((?:recommended|default)\)\s*$", re.IGNORECASE)


def _plan_text(call: Call) -> str:
    data = call.entry.tool_input
    plan = str(data.get("plan") or "") if isinstance(data, dict) else ""
    if not plan:
        return "the proposed plan"
    heading = re.search(r"^#\s+(?:Plan:\s*)?(.+)$", plan, re.MULTILINE)
    if heading:
        return squash(heading.group(1), 160)
    return squash(sentences(prose(plan) or plan)[0], 200) if sentences(prose(plan) or plan) else "the proposed plan"


def _has_heading(call: Call) -> bool:
    data = call.entry.tool_input
    return isinstance(data, dict) and bool(re.search(r"^#\s+\S", str(data.get("plan") or ""), re.MULTILINE))


def _plan_approach(call: Call) -> str:
    """The plan's chosen approach: the first line under an Approach/Strategy heading, else its first sentence."""
    data = call.entry.tool_input
    plan = str(data.get("plan") or "") if isinstance(data, dict) else ""
    match = re.search(r"^#{2,4}\s*(?:approach|strategy|solution|design|changes?)[^\n]*\n+(?:#{2,4}[^\n]*\n+)?"
                      r"(?P<line>[^\n#][^\n]*)", plan, re.IGNORECASE | re.MULTILINE)
    if match:
        return squash(match.group("line").strip("-* "), 200)
    return _plan_text(call)


def _user_after(entries: list[Entry], index: int) -> Entry | None:
    return next((e for e in entries if e.index > index and e.role == "user" and e.kind in (None, "message")
                 and not is_trivial(e.text)), None)


def _plan_decisions(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    decisions: list[Decision] = []
    plans = [c for c in calls if c.entry.tool_name == "ExitPlanMode" and c.result is not None]
    rejected: list[Call] = []
    for plan in plans:
        if plan.rejected or plan.failed:
            rejected.append(plan)
            continue
        if not plan.succeeded:
            continue
        title = _plan_text(plan)
        chosen = _plan_approach(plan)
        if rejected:
            feedback = _user_after(entries, rejected[-1].end)
            options = [_plan_text(r) for r in rejected] + [title]
            why = "the user rejected the first plan" + (f": {squash(feedback.text, 200)}" if feedback else "")
            start = rejected[0].entry.index
        else:
            options, why, start = [], "the user approved this plan", plan.entry.index
        short = title if _has_heading(plan) else short_title(title, 12)
        decisions.append(Decision(title=f"Plan: {squash(short, 110)}", options=list(dict.fromkeys(options)),
                                  chosen=chosen, rationale=why, range=(start, plan.end)))
        rejected = []
    return decisions


def _questions(call: Call) -> list[dict[str, Any]]:
    data = call.entry.tool_input
    questions = data.get("questions") if isinstance(data, dict) else None
    return [q for q in questions if isinstance(q, dict)] if isinstance(questions, list) else []


# A question that asks for the user's own value ("What's your API key?") and an answer that hands
# one over ("Paste it here", "I'll enter it myself"): data for the agent, nothing decided.
_ASKS_VALUE_RE = re.compile(r"^(?:what(?:'s| is| are) (?:your|the) (?:[\w-]+ ){0,4}(?:keys?|tokens?|secrets?|passwords?|"
                            r"passphrase|credentials?|user ?name|e-?mail(?: address)?|account(?: id)?)\b|"
                            r"(?:please )?(?:paste|enter|provide|share|send) (?:me )?(?:your|the) )", re.IGNORECASE)
_HANDS_OVER_RE = re.compile(r"^(?:(?:i'?ll |i will |let me )?(?:paste|enter|type|send|provide|give|share|add|put) "
                            r"(?:it|them|the \w+|my \w+)(?: (?:here|now|in (?:the )?chat|below|myself|later))?|"
                            r"paste(?:d)? (?:it )?(?:here|below))\.?$", re.IGNORECASE)


def _asks_for_data(question: str, answer: str) -> bool:
    return bool(_ASKS_VALUE_RE.search(question.replace("\u2019", "'").strip())
                or _HANDS_OVER_RE.match(answer.replace("\u2019", "'").strip()))


def _ask_decisions(calls: list[Call]) -> list[Decision]:
    decisions: list[Decision] = []
    for call in calls:
        if call.entry.tool_name != "AskUserQuestion" or call.result is None or call.result.is_error:
            continue
        answers = {m.group("q").strip(): m.group("a").strip() for m in _ANSWER_RE.finditer(call.result.text)}
        for question in _questions(call) or [{"question": q} for q in answers]:
            text = str(question.get("question") or "").strip()
            answer = answers.get(text) or next((a for q, a in answers.items() if fuzz.ratio(q, text) > 85), "")
            if not answer or _asks_for_data(text, answer):
                continue
            labels = [str(o.get("label")) for o in question.get("options") or [] if isinstance(o, dict) and o.get("label")]
            recommended = next((lab for lab in labels if _RECOMMENDED_RE.search(lab)), None)
            clean = [_RECOMMENDED_RE.sub("", lab) for lab in labels]
            chosen = answer
            free_text = answer not in clean and answer not in labels
            if free_text and clean:
                scores = [fuzz.token_set_ratio(answer.lower(), lab.lower()) for lab in clean]
                if max(scores) >= 50:
                    chosen = clean[scores.index(max(scores))]
            why = f"the user's answer to \"{squash(text, 140)}\""
            if free_text:
                why = f"the user answered: {squash(answer, 160)}"
            if recommended and _RECOMMENDED_RE.sub("", recommended) != chosen:
                why += f"; the agent recommended {_RECOMMENDED_RE.sub('', recommended)}"
            header = str(question.get("header") or "").strip()
            title = f"{header}: {chosen}" if header else f"{short_title(text.rstrip('?'))}: {chosen}"
            decisions.append(Decision(title=squash(title, 120), options=clean, chosen=squash(chosen, 200),
                                      rationale=why, range=(call.entry.index, call.end)))
    return decisions


def _text_decision(sentence: str, role: str, index: int, context: str = "") -> Decision | None:
    """A decision stated in ``sentence``; ``context`` (the sentence before it in the same message)
    gives the reason when the sentence itself does not ("This is a known compiler bug. I'll use ...")."""
    favour = favoured(sentence)
    if favour is not None:
        chosen, other = favour
        return Decision(title=short_title(f"{chosen} instead of {other}", 12), options=[chosen, other], chosen=chosen,
                        rationale=squash(sentence, 200), range=(index, index))
    lowered = sentence.lower()  # cheap tests first: each pattern below runs on every sentence
    step = _REASONED_STEP_RE.match(sentence.rstrip(".")) if role == "assistant" and " so " in lowered else None
    if step is not None and not _TOOLISH_RE.search(step.group("chosen")):
        chosen = squash(step.group("chosen").strip(" ,") + (f", then {step.group('then')}" if step.group("then") else ""),
                        200)
        other = step.group("other")
        return Decision(title=short_title(chosen, 12), options=[chosen, squash(other, 200)] if other else [],
                        chosen=chosen, rationale=squash(step.group("why"), 200), range=(index, index))
    weighed = evaluated_choice(sentence) if role == "assistant" and any(c in lowered for c in EVALUATION_CUES) else None
    if weighed is not None:
        chosen = squash(weighed[0], 200)
        return Decision(title=short_title(chosen, 12), options=[squash(o, 200) for o in weighed[1]], chosen=chosen,
                        rationale=squash(weighed[2], 200), range=(index, index))
    label = _CHOICE_LABEL_RE.match(sentence.rstrip(".")) if ":" in sentence[:30] else None
    if label is not None and not _LOOK_FIRST_RE.match(label.group("chosen")) and not _TOOLISH_RE.search(label.group("chosen")) \
            and not NOTHING_CHOSEN_RE.match(label.group("chosen")):
        chosen = squash(label.group("chosen").strip(), 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(context, 200),
                        range=(index, index))
    aim = purpose_then_choice(sentence) if role == "assistant" and lowered.startswith(("to ", "in order to ")) else None
    if aim is not None:
        chosen = squash(aim[0], 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(aim[1], 200),
                        range=(index, index))
    first = contrast_first(sentence) if role == "assistant" and lowered.startswith(CONTRAST_OPENERS) else None
    if first is not None:
        chosen, other = squash(first[0], 200), squash(first[1], 200)
        return Decision(title=short_title(chosen, 12), options=[chosen, other], chosen=chosen,
                        rationale=f"rather than {other}", range=(index, index))
    told = reason_then_choice(sentence) if role == "assistant" and " so " in lowered else None
    if told is not None:
        chosen, why = squash(told[0], 200), told[1]
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(why, 200),
                        range=(index, index))
    kept = _AS_IS_RE.match(sentence.rstrip(".")) if lowered.startswith(("since", "because", "as ")) else None
    if kept is not None and not _TOOLISH_RE.search(kept.group("kept")):
        chosen = squash(f"keep {kept.group('kept').strip()}", 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(kept.group("why"), 200),
                        range=(index, index))
    colon = _FIX_COLON_RE.search(sentence.rstrip(".")) if ("fix is" in lowered or "solution is" in lowered
                                                            or "change is" in lowered) else None
    if colon is not None and not _TOOLISH_RE.search(colon.group("chosen")) and not _LOOK_FIRST_RE.match(
            colon.group("chosen")) and not _PAST_RE.match(colon.group("chosen")) \
            and not re.match(r"\w+ed\b", colon.group("chosen")):
        chosen = squash(colon.group("chosen").strip(" ,"), 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen,
                        rationale=squash(colon.group("why") or context or "", 200), range=(index, index))
    solution = _SOLUTION_RE.search(sentence.rstrip(".:")) if " to " in lowered and (
        "fix" in lowered or "solution" in lowered or "approach" in lowered or "option" in lowered
        or " way " in lowered or "remedy" in lowered) else None
    if solution is not None and not _TOOLISH_RE.search(solution.group("chosen")) \
            and not _LOOK_FIRST_RE.match(solution.group("chosen")):
        chosen = squash(solution.group("chosen").strip(" ,"), 200)
        why = solution.group("why") or context or ""
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(why, 200),
                        range=(index, index))
    commit = _DO_THAT_RE.match(sentence.rstrip(".!:")) if " that" in lowered or " this" in lowered or " it" in lowered \
        or " so" in lowered else None
    if commit is not None and not _TOOLISH_RE.search(commit.group("chosen")) and len(commit.group("chosen").split()) >= 5 \
            and not _LOOKUP_RE.search(commit.group("chosen")):
        chosen = squash(commit.group("chosen").strip(" ,"), 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen,
                        rationale=squash(context, 200) if context else "",
                        range=(index, index))
    since = _SINCE_RE.match(sentence.rstrip(".:;"))
    match = _CHOICE_RE.search(sentence)
    if match is not None and match.group(0).lower() in ("instead of", "rather than") and (
            not _ACTOR_RE.search(sentence[: match.start()]) or _DIAGNOSIS_RE.search(sentence)
            or _OUTCOME_RE.search(sentence)):
        match = None  # a description or a diagnosis that names an alternative is no choice
    if match is not None and _OFFER_RE.search(sentence[: match.end()]):
        match = None  # "If you prefer, I can use X instead", "You could use X instead": an offer or advice
    if match is not None and _DESCRIBED_RE.match(sentence) and (
            match.group(0).lower() in ("instead of", "rather than") or match.group(0).lower().startswith("use ")):
        match = None  # "The tests use X instead of Y": what the code does, nobody choosing
    if match is None and since is None:
        intent = _INTENT_WHY_RE.search(sentence.rstrip("."))
        if intent is None or _TOOLISH_RE.search(intent.group("chosen")) or VERIFIES_RE.search(sentence):
            return None
        chosen = squash(intent.group("chosen").strip(), 200)
        return Decision(title=short_title(chosen, 12), options=[], chosen=chosen,
                        rationale=squash(intent.group("why"), 200), range=(index, index))
    if match is not None:
        if sentence[: match.start()].count("(") > sentence[: match.start()].count(")"):
            return None  # a choice in parentheses is an aside
        if _TOOLISH_RE.search(sentence[match.start():]):
            return None  # "I'll use the Read tool to ..." is how the agent works, not a project choice
        options: list[str] = []
        chosen = squash(re.sub(r"^(?:we|i|you)(?:\s+(?:should|will|must)|'ll)\s+", "", sentence.rstrip("."),
                               flags=re.IGNORECASE), 200)
        instead = _INSTEAD_RE.search(sentence)
        if instead and len(instead.group("chosen").strip("`\"' ")) >= 3 and not instead.group("chosen").startswith("s "):
            chosen = instead.group("chosen").strip()
            other = re.split(r"\s+(?:because|since|as|so|for|due)\b", instead.group("other"))[0]
            options = [chosen, other.strip().rstrip(".,;")]
        because = _BECAUSE_RE.search(sentence)
        if because:
            rationale = squash(because.group(1), 200)
        elif context:
            rationale = squash(context, 200)
        else:
            rationale = ""  # no reason told: none is invented
        return Decision(title=short_title(chosen if not options else sentence, 12), options=options, chosen=chosen,
                        rationale=rationale,
                        range=(index, index))
    assert since is not None
    if _TOOLISH_RE.search(since.group("chosen")) or _CONVERSE_RE.match(f"{since.group('verb')}{since.group('chosen')}"):
        return None  # "I'll use the GitHub workflow because …" is how the agent works ("keep the answer short": how it talks)
    chosen = squash(f"{since.group('verb')}{since.group('chosen')}".strip(" —-:"), 200)
    return Decision(title=short_title(chosen, 12), options=[], chosen=chosen, rationale=squash(since.group("why"), 200),
                    range=(index, index))


_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
# A line introducing a list of changes ("Changes:", "Here's what I changed:", "## Summary").
_CHANGES_INTRO_RE = re.compile(r"\b(?:changes?|changed|summary|what (?:i|was) (?:did|done|changed|addressed|fixed)|"
                               r"here'?s what|updated|modified|done|in place|completed?|addressed|fixed)\b[^\n]*:?\s*$|"
                               r"^#+\s", re.IGNORECASE)
# A list item telling a change: "Bumped react to 19", "Using 15.5.2 instead of 14", "**Removed** the config".
_CHANGE_ITEM_RE = re.compile(r"^(?:\*\*|__|`)?(?:[A-Z][a-z]+ed|Using|Added|Made|Set|Kept|Built|Wrote|Ran|Took|Now)\b")


def message_units(body: str) -> list[tuple[str, int, bool]]:
    """The sentences of ``body`` as (sentence, block, is_change_item): a block is one list item or
    one paragraph, so a sentence takes its context from its own block, never from another bullet; a
    list item is a change item when the list tells changes made (its introducing line says so, or
    most of its items open with a past-tense verb or "Using ...")."""
    blocks: list[tuple[list[str], bool]] = []  # (lines, is list item)
    intro = ""
    lists: list[list[int]] = []  # the block numbers of each list, to judge it as a whole
    intros: list[str] = []
    current_list: list[int] | None = None
    for line in body.splitlines():
        if not line.strip():
            if blocks and not blocks[-1][1]:
                blocks.append(([], False))
            continue
        if _LIST_ITEM_RE.match(line):
            if current_list is None:
                current_list = []
                lists.append(current_list)
                intros.append(intro)
            current_list.append(len(blocks))
            blocks.append(([_LIST_ITEM_RE.sub("", line)], True))
            continue
        if current_list is not None and line.startswith((" ", "\t")) and blocks and blocks[-1][1]:
            blocks[-1][0].append(line)  # a list item's continuation line
            continue
        current_list = None
        intro = line.strip()
        if not blocks or blocks[-1][1] or not blocks[-1][0]:
            blocks.append(([], False))
        blocks[-1][0].append(line)
    changes: set[int] = set()
    for members, lead in zip(lists, intros, strict=True):
        items = [" ".join(blocks[m][0]).strip() for m in members]
        told = sum(1 for item in items if _CHANGE_ITEM_RE.match(item))
        heading = lead.endswith(":") or (len(lead.split()) <= 5 and not lead.endswith((".", "!", "?")))
        if (heading and _CHANGES_INTRO_RE.search(lead)) or lead.startswith("#") and \
                _SUMMARY_RE.search(lead) or told * 2 > len(items):
            changes.update(members)
    units: list[tuple[str, int, bool]] = []
    for number, (lines, _is_item) in enumerate(blocks):
        for sentence in sentences("\n".join(lines).replace("\n", " ")):
            units.append((sentence, number, number in changes))
    return units


def _stated_decisions(entries: list[Entry]) -> list[Decision]:
    decisions: list[Decision] = []
    for entry in entries:
        thinking = entry.kind == "thinking"
        if (entry.kind not in (None, "message") and not thinking) or entry.role not in ("assistant", "user") \
                or not entry.text:
            continue
        if entry.role == "user" and is_trivial(entry.text):
            continue
        if thinking and not _FIRST_PERSON_RE.search(entry.text.replace("\u2019", "'")) \
                and not _PLANNING_HINT_RE.search(entry.text) and not _progress_hint(entry.text):
            continue  # cheap test first: reasoning with no choice of the agent's own says nothing here
        body = prose(entry.text)
        if entry.role == "assistant" and _SUMMARY_RE.search(body.lstrip()[:200]):
            continue
        previous, block = "", -1
        for sentence, number, change_item in message_units(body):
            sentence = sentence.lstrip("0123456789. ").strip().replace("\u2019", "'")  # Codex writes I’ll
            context = previous if number == block else ""  # the sentence before, in the same item or paragraph
            previous, block = sentence, number
            stepped = _reasoned_progress(sentence) if thinking and sentence.lower().startswith(_PROGRESS_OPENERS) else None
            if stepped is not None:
                decisions.append(stepped.model_copy(update={"range": (entry.index, entry.index)}))
                break
            if change_item or len(sentence) < 12 or sentence.endswith("?") or _TACTICAL_RE.match(sentence) \
                    or _PAST_RE.match(sentence) or (entry.role == "assistant" and _PROGRESS_RE.search(sentence)
                                                    and not (thinking and _DELIBERATE_RE.search(sentence))
                                                    and not _REASONED_STEP_RE.match(sentence.rstrip("."))):
                continue
            decided = _DECIDED_LEAD_RE.match(sentence.strip("*_ ").rstrip(".")) if thinking else None
            planned = _PLANNED_LEAD_RE.match(sentence.strip("*_ ").rstrip(".")) if thinking and decided is None else None
            if planned is not None and _DECIDED_WHY_RE.search(planned.group("rest")) \
                    and not _TOOLISH_RE.search(planned.group("rest")):
                decided = planned
            if decided is not None:
                decision = _decided(decided, entry.index, context)
                if decision is not None:
                    decisions.append(decision)
                    break
                continue
            if thinking and not _FIRST_PERSON_RE.search(sentence) and not (
                    (" because " in sentence or " since " in sentence or "sense" in sentence)
                    and evaluated_choice(sentence) is not None):
                continue  # reasoning restates the task and the code ("The user wants …", "It hardcodes …")
            if _LINTER_SAYS_RE.search(sentence) or (":" in sentence[:80] and _LOCATED_RE.match(sentence)):
                continue  # "staticcheck says it should use a tagged switch": the linter's words, not a choice
            if _DEFERRED_RE.search(sentence):
                continue  # "I'm considering X, but for now I'll just Y": X put off, Y a stopgap
            if _TACTICAL_RE.match(context) or context.endswith((":", "?")) or len(context.split()) < 5:
                context = ""
            if thinking:
                sentence = _DELIBERATE_LEAD_RE.sub("", sentence)  # "I'm thinking about creating …" -> "creating …"
                if re.match(r"(?:how|what|why|where|when|whether|which|if)\b", sentence, re.IGNORECASE):
                    continue  # "thinking about how the parser reads quotes": understanding, not choosing
            decision = _text_decision(sentence, entry.role, entry.index, context)
            if decision is not None:
                decisions.append(decision)
                break  # one decision per message: the first explicit choice
        else:
            designed = _designed(entry.text) if thinking else None
            if designed is not None:
                decisions.append(designed.model_copy(update={"range": (entry.index, entry.index)}))
    return _one_per_thought(entries, decisions)


# A step told in reasoning with its reason: "I'm updating the settings apply method to parse the JSON in
# a try/catch, preventing errors from malformed local data", "I'm wrapping up since the base app isn't
# there, which blocks the rest" - a change (or a stop) with why, never a look ("I'm checking …").
_PROGRESS_OPENERS = ("i'm ", "i am ", "we're ", "we are ")
_PROGRESS_CUES = (" preventing ", " avoiding ", " ensuring ", " to avoid ", " to prevent ", " so that ", " because ",
                  " since ")
_PROGRESS_WHY_RE = re.compile(
    r"^(?:i'?m|i am|we'?re|we are)\s+(?:now\s+)?(?P<chosen>(?:adding|updating|implementing|changing|making|wrapping|"
    r"storing|using|keeping|switching|moving|replacing|introducing|creating|writing|setting|stopping|leaving|skipping|"
    r"deferring|limiting|guarding)\b[^;]{3,200}?)(?:,\s+(?P<cue>preventing|avoiding|ensuring)\s+|\s+(?:to avoid|to prevent|"
    r"so that|because|since)\s+)(?P<why>.{6,200})$", re.IGNORECASE)


def _progress_hint(text: str) -> bool:
    """Cheap test: reasoning that may tell a step with its reason ("I'm X-ing …, preventing Y")."""
    return ("I'm " in text or "I am " in text or "We're " in text) and any(cue in text for cue in _PROGRESS_CUES)


def _reasoned_progress(sentence: str) -> Decision | None:
    """The step a reasoning sentence tells with its reason (see ``_PROGRESS_WHY_RE``), else None."""
    if not any(cue in sentence for cue in _PROGRESS_CUES):
        return None
    match = _PROGRESS_WHY_RE.match(sentence.rstrip("."))
    if match is None:
        return None
    chosen = match.group("chosen").strip(" ,")
    if _TOOLISH_RE.search(chosen) or _HOW_I_WORK_RE.search(chosen) or len(chosen.split()) < 2:
        return None  # "I'm writing a script to count the tasks": how the agent works
    why = f"{match.group('cue')} {match.group('why')}" if match.group("cue") else match.group("why")
    title = chosen if len(chosen.split()) > 3 else f"{chosen} since {match.group('why')}"  # "wrapping up" says little
    return Decision(title=short_title(title[:1].upper() + title[1:], 12), options=[], chosen=squash(chosen, 200),
                    rationale=squash(why.strip(), 200))


# A Codex reasoning summary's section that lays a design down: "**Designing the decrypted item event**
# / I'm planning to add an engine event that …" - the section's first sentence is the design.
_DESIGN_HEAD_RE = re.compile(r"^\*\*(?:planning|designing|deciding(?: on)?|choosing|defining|selecting|settling on)\s+(?P<topic>[^*\n]{4,120})"
                             r"\*\*\s*\n+(?P<body>[^\n]{12,})", re.IGNORECASE | re.MULTILINE)
# (Under a design heading "I'm adding X as Y" lays the change down too: the verb stays in the choice.)
_PLAN_LEAD_RE = re.compile(r"^(?:i'?m |i am |i )?(?:now )?(?:planning|going|intending|aiming|deciding|choosing|opting)"
                           r"(?: to| on| for)?\s+|^(?:i'll|i will|we'll|we will)\s+|^(?:i'?m|i am|we'?re|we are)\s+(?:now\s+)?"
                           r"(?=(?:adding|implementing|introducing|storing|keeping|switching|moving|wrapping|replacing|"
                           r"defining|extending|making|removing|dropping|designing|generating)\b)", re.IGNORECASE)
# How the agent works, not what the project becomes: a script, a command, a way to read, count or patch.
_HOW_I_WORK_RE = re.compile(r"\b(?:scripts?|commands?|one-?liners?|patch(?:es|ing)?|file creation|counting|parsing|"
                            r"reading|search(?:ing)?|lookup|regex(?:es)?|shell|terminal|tool|plan tool)\b", re.IGNORECASE)


# A heading that names the agent's work, not a design: "**Planning next steps**", "**Planning final
# summary**", "**Designing the response**", "**Planning file edits**", "**Planning test updates**".
_GENERIC_TOPIC_RE = re.compile(r"^(?:(?:the|a|my|next|final|remaining|file|code|test|tests|initial|further|additional|"
                               r"minor|small|quick|needed|required|necessary|overall|user|concise)\s+)*(?:steps?|"
                               r"summary|response|answer|reply|edits?|changes?|updates?|implementation|fix(?:es)?|"
                               r"work|tasks?|tests?|commit|message|output|report|actions?|verification|validation)$",
                               re.IGNORECASE)


def _designed(text: str) -> Decision | None:
    """The first section of a reasoning summary whose heading names a design and whose first sentence
    lays it down (a "**Planning …**" section that only looks around gives way to the next one)."""
    for match in _DESIGN_HEAD_RE.finditer(text.replace("\u2019", "'")):
        decision = _design_section(match)
        if decision is not None:
            return decision
    return None


def _design_section(match: re.Match[str]) -> Decision | None:
    topic = match.group("topic").strip()
    parts = sentences(prose(match.group("body")))
    if not parts or _TOOLISH_RE.search(topic) or _HOW_I_WORK_RE.search(topic):
        return None
    first = parts[0]
    if not _PLAN_LEAD_RE.match(first):
        return None  # "There are two ways to go": the section weighs, it has not chosen
    chosen = _PLAN_LEAD_RE.sub("", first).strip()
    topic = re.sub(r"^(?:the|a|an)\s+", "", topic, flags=re.IGNORECASE)
    if _TOOLISH_RE.search(chosen) or _HOW_I_WORK_RE.search(chosen) or len(chosen.split()) < 4 \
            or LOOK_STEP_RE.match(chosen) or _GENERIC_TOPIC_RE.match(topic):
        return None  # a look around (a summary, a commit) under a design heading, or a heading naming no design
    if re.search(r"\bfor now\b", chosen, re.IGNORECASE):
        return None  # "I'll add the helpers but leave them unused for now": a stopgap, put off
    rationale = parts[1] if len(parts) > 1 else ""
    return Decision(title=short_title(topic[:1].upper() + topic[1:], 12), options=[], chosen=squash(chosen, 200),
                    rationale=squash(rationale, 200))


def _decided(lead: re.Match[str], index: int, context: str) -> Decision | None:
    """The choice a reasoning summary records ("Deciding to keep X inside Y to avoid Z")."""
    rest = lead.group("rest").strip()
    prep = lead.groupdict().get("prep") or "to"
    if prep.lower() in ("on", "for") and (_TOPIC_END_RE.search(rest) or "ing " in lead.group(0)[: lead.start("prep")]):
        return None  # "Deciding on the sync ID and IPC approach" names the question ("decided on X" the answer)
    why = _DECIDED_WHY_RE.search(rest)
    chosen = rest[: why.start()].strip(" ,;") if why and why.start() >= 8 else rest
    if prep.lower() == "against":
        chosen = f"not {chosen}"
    if _TOOLISH_RE.search(chosen) or len(chosen.split()) < 2 or LOOK_STEP_RE.match(chosen):
        return None  # "Deciding to use the plan tool", "Decided to check the logs first": how the agent works
    rationale = rest[why.start():].strip(" ,;") if why and why.start() >= 8 else context
    return Decision(title=short_title(chosen, 12), options=[], chosen=squash(chosen, 200),
                    rationale=squash(rationale, 200), range=(index, index))


def _changes(entry: Entry) -> bool:
    """Whether ``entry`` is a call that changes files (an edit, a write, a patch)."""
    if entry.kind != "tool_call":
        return False
    data = entry.tool_input
    return (entry.tool_name or "").lower() in EDIT_TOOLS or (isinstance(data, str) and data.startswith("*** Begin Patch")) \
        or (isinstance(data, dict) and "apply_patch" in str(data.get("command") or data.get("cmd") or ""))


def _one_per_thought(entries: list[Entry], decisions: list[Decision]) -> list[Decision]:
    """A choice the agent reasoned about (thinking, a Codex reasoning summary) and then stated is one
    decision: the stated one, its range reaching back to the reasoning."""
    kinds = {e.index: e.kind for e in entries}
    kept: list[Decision] = []
    for decision in decisions:
        start = decision.range[0] if decision.range else -1
        if kept and kept[-1].range and kinds.get(kept[-1].range[0]) == "thinking" and not any(
                e.kind == "tool_call" or (e.role == "user" and e.kind in (None, "message"))
                for e in entries if kept[-1].range[1] < e.index < start):
            thought = kept.pop()
            assert thought.range is not None and decision.range is not None
            decision = decision.model_copy(update={"range": (thought.range[0], decision.range[1])})
        elif kept and kept[-1].range and kinds.get(kept[-1].range[0]) == "thinking" and kinds.get(start) == "thinking" \
                and _same_choice(kept[-1], decision) and not any(_changes(e) or (e.role == "user" and e.kind in (None, "message"))
                            for e in entries if kept[-1].range[1] < e.index < start):
            # Reasoning that comes back to its choice while it only looks around (Codex summarises
            # each step's reasoning) is still weighing the one choice: the first statement of it.
            thought = kept.pop()
            assert thought.range is not None and decision.range is not None
            decision = thought.model_copy(update={"range": (thought.range[0], decision.range[1])})
        kept.append(decision)
    return [_to_first_step(entries, d) if d.range and kinds.get(d.range[1]) == "thinking" else d for d in kept]


def _same_choice(first: Decision, second: Decision) -> bool:
    """Whether two choices read in reasoning are one choice told twice (most of the words shared)."""
    return fuzz.token_set_ratio(first.chosen.lower(), second.chosen.lower()) >= 60


def _to_first_step(entries: list[Entry], decision: Decision) -> Decision:
    """A choice made in reasoning (and stated nowhere the rules read) reaches the first step that
    carries it out, before the user speaks again: that step is its visible evidence."""
    assert decision.range is not None
    for entry in entries:
        if entry.index <= decision.range[1]:
            continue
        if entry.role == "user" and entry.kind in (None, "message"):
            break
        if entry.kind == "tool_call":
            return decision.model_copy(update={"range": (decision.range[0], entry.index)})
    return decision


def extract_decisions(entries: list[Entry], calls: list[Call]) -> list[Decision]:
    refused = refused_then_redirected(entries, calls)
    constraints = stated_constraints(entries, calls)
    # (The user's words after a refused step are that redirection, and words already read as a
    # constraint that constraint, not a correction of their own.)
    corrections = [c for c in user_corrections(entries, calls)
                   if not any(r.range and c.range and r.range[0] <= c.range[0] <= r.range[1] for r in refused)
                   and not any(k.range and c.range and k.range[0] == c.range[0] for k in constraints)]
    evidence = (refused + accepted_proposals(entries, calls)
                + conflict_resolutions(entries, calls) + constraints
                + commit_rationales(calls) + commit_scopes(entries, calls) + corrections
                + weighed_options(entries))
    # The user's steer the agent agreed to, a name the user gave, a step made in place of a failed
    # one: each told once (a correction already read from the same message is that decision).
    starts = {d.range[0] for d in evidence if d.range}
    for later in agreed_steers(entries, calls) + user_names(entries, calls) + fallbacks(entries, calls) \
            + taken_up_corrections(entries, calls):
        if later.range and later.range[0] not in starts:
            evidence.append(later)
            starts.add(later.range[0])
    # A choice stated inside a story the evidence already tells (the proposal the user accepted, the
    # constraint the user set) is that story, not a second decision.
    spans = [d.range for d in evidence if d.range]
    stated = [d for d in _stated_decisions(entries)
              if not any(d.range and s[0] <= d.range[0] and d.range[1] <= s[1] for s in spans)]
    evidence = [d for d in evidence if not any(s.range == d.range for s in stated)]
    found = _ask_decisions(calls) + _plan_decisions(entries, calls) + stated + evidence
    turns = [e.index for e in entries if e.role == "user" and e.kind in (None, "message", "command")]
    def turn(index: int) -> int:
        return sum(1 for t in turns if t <= index)
    # A choice told without a cue word (a recommendation under its heading, a design written into a
    # document, a reasoned choice in the agent's account) counts where no other decision is told within
    # a few entries (a long turn holds several choices; the same one is told once).
    near = 3
    for quiet in heading_recommendations(entries) + document_designs(calls, entries) + reasoned_accounts(entries) \
            + announced_solutions(entries):
        if quiet.range and not any(d.range and d.range[0] - near <= quiet.range[1] and quiet.range[0] <= d.range[1] + near
                                   for d in found):
            found.append(quiet)
    # A comment in the code is the weakest telling (agents comment a lot): one a turn, by the same rule.
    said = [e.index for e in entries if e.role == "assistant" and e.kind in (None, "message") and e.text.strip()]
    def step(index: int) -> tuple[int, int]:
        return turn(index), sum(1 for s in said if s <= index)
    commented: set[tuple[int, int]] = set()
    for quiet in patch_comments(calls) + reasoned_comments(calls):
        if quiet.range and step(quiet.range[0]) not in commented and not any(
                d.range and (d.range[0] - near <= quiet.range[1] and quiet.range[0] <= d.range[1] + near
                             or turn(d.range[0]) == turn(quiet.range[0]) and d.title.lower() == quiet.title.lower())
                for d in found):  # (the same comment written again in the turn is the same choice)
            found.append(quiet)
            commented.add(step(quiet.range[0]))
    return _restated_once(sorted(found, key=lambda d: d.range or (0, 0)), turn)


def _restated_once(found: list[Decision], turn: Any) -> list[Decision]:
    """A choice the agent comes back to later in the same turn ("Deciding to keep X inside Y" ...
    "I'm deciding to keep X inside the Y data rather than …") is one decision: the first telling."""
    kept: list[Decision] = []
    for decision in found:
        start = decision.range[0] if decision.range else 0
        if any(k.range and turn(k.range[0]) == turn(start)
               and fuzz.token_set_ratio(k.chosen.lower(), decision.chosen.lower()) >= 85 for k in kept):
            continue
        kept.append(decision)
    return kept


def _answer_points(text: str, limit: int) -> list[str]:
    points: list[str] = []
    for sentence in sentences(prose(text)):
        plain = sentence.replace("\u2019", "'")
        if _PROGRESS_RE.search(plain) or _TACTICAL_RE.match(plain):
            continue  # "I'm adding a scrubber now": what the agent did next, not the answer
        if len(sentence.split()) >= 5 and not sentence.endswith(":"):
            points.append(squash(sentence, 200))
        if len(points) >= limit:
            break
    return points


def extract_discussions(entries: list[Entry]) -> list[Discussion]:
    discussions: list[Discussion] = []
    for position, entry in enumerate(entries):
        if entry.role != "user" or entry.kind not in (None, "message") or not is_question(entry.text):
            continue
        replies: list[Entry] = []
        for reply in entries[position + 1:]:
            if reply.role == "user" and reply.kind in (None, "message"):
                break
            if reply.role == "assistant" and reply.kind in (None, "message") and reply.text.strip():
                replies.append(reply)
        # The answer is the agent's last message before the user speaks again (after looking things
        # up); the first ones are often narration ("I'll use the GitHub workflow, then …").
        points: list[str] = []
        last = entry.index
        for reply in ([replies[-1]] + replies[:-1]) if replies else []:
            for sentence in _answer_points(reply.text, 3 - len(points)):
                points.append(sentence)
                last = max(last, reply.index)
            if len(points) >= 3 or (points and reply is replies[-1]):
                break
        if points:
            discussions.append(Discussion(topic=squash(prose(entry.text) or entry.text, 160), points=points,
                                          range=(entry.index, last)))
    return discussions


def extract(entries: list[Entry]) -> Activity:
    """What happened in ``entries`` (already cleaned), as a strict ``Activity``."""
    return extract_chunk(entries, None, last=True)[0]


def extract_chunk(entries: list[Entry], carry: AttemptCarry | None, *, last: bool
                  ) -> tuple[Activity, AttemptCarry | None]:
    """One chunk of a log cut into chunks: its items, and the attempts still open at its end, to hand
    to the next chunk (``rules_attempts.chunk_attempts``; ``None`` when nothing is open). Every other
    item comes from the chunk alone."""
    try:
        calls = pair_calls(entries)
        attempts, carry = (extract_attempts(entries, calls), None) if carry is None and last else \
            chunk_attempts(entries, carry, last)
        return Activity(
            decisions=extract_decisions(entries, calls),
            discussions=extract_discussions(entries),
            attempts=attempts,
            requests=extract_requests(entries),
        ), carry
    finally:
        forget_chunk()
