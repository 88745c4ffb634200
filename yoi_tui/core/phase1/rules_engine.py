"""The offline, deterministic Phase 1 extractor (the ``rules`` engine, the default).

It reads cleaned entries and reports only what the log shows, never inventing:
- **requests**: what the user typed (intent from the leading verb, target from paths/code names);
- **attempts**: tool calls that failed, and what followed — the same kind of call succeeding
  (a fix or retry, reported as a failure then a success), or nothing (given up);
- **decisions**: a plan the user rejected and the revised plan they approved; explicit choices
  in assistant or user text ("X instead of Y", "decided to", "rather than", "switch to");
- **discussions**: questions the agent asked and the user's answers (AskUserQuestion), and user
  questions with the first points of the reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from ..sessions.model import Entry
from ..store.staging import Activity, Attempt, Decision, Discussion, Request

_SHELL_TOOLS = {"bash", "shell", "shell_command", "exec_command", "local_shell", "run_terminal_cmd"}
_TRIVIAL = {"ok", "okay", "yes", "y", "no", "n", "thanks", "thank you", "continue", "go on", "go ahead", "proceed",
            "sure", "great", "perfect", "nice", "lgtm", "done", "k"}
_REDACTED_RE = re.compile(r"^\[REDACTED_[A-Z]+ len=\d+ sha=[0-9a-f]+\]$")
_LEADING_POLITE_RE = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you|i want you to|i'd like you to|i need you to|let's|lets|"
    r"now|then|also|and|ok(?:ay)?|so)[\s,]+)+", re.IGNORECASE)
_INTENTS: list[tuple[str, tuple[str, ...]]] = [
    ("correct", ("not", "no", "don't", "dont", "instead", "actually", "wrong", "stop", "undo", "revert")),
    ("add", ("add", "create", "implement", "make", "build", "write", "introduce", "generate", "scaffold", "set up",
             "setup", "support", "allow")),
    ("fix", ("fix", "repair", "resolve", "debug", "solve", "correct")),
    ("remove", ("remove", "delete", "drop", "get rid", "clean up", "cleanup")),
    ("change", ("move", "rename", "refactor", "change", "update", "replace", "give", "set", "use", "switch",
                "convert", "migrate", "improve", "rewrite", "modify", "tweak", "adjust", "increase", "decrease")),
    ("run", ("run", "execute", "start", "launch", "cd", "install", "deploy", "commit", "push", "test")),
    ("review", ("review", "check", "look", "analyze", "analyse", "investigate", "find", "search", "read",
                "summarize", "summarise", "list", "show")),
    ("ask", ("what", "why", "how", "where", "when", "which", "who", "is", "are", "does", "do", "can", "should",
             "explain")),
]
_PATH_RE = re.compile(r"@?((?:[\w.-]+/)*[\w.-]+\.[A-Za-z][\w]{0,5})\b")
_CODE_RE = re.compile(r"`([^`\n]{1,80})`")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")
_CHOICE_RE = re.compile(
    r"\b(?:instead of|rather than|decided (?:to|on|against)|decision is|opted (?:for|to)|going with|go with|"
    r"switch(?:ed|ing)? (?:to|from)|chose|choose to|we'll use|let's use|we should (?:use|go with|keep)|use (?:[\w.`'\"-]+ ){1,4}instead)\b",
    re.IGNORECASE)
_PHRASE = r"(?:`[^`]+`|\"[^\"]+\"|[\w.:/'-]+(?: [\w.:/'-]+){0,3})"
_INSTEAD_RE = re.compile(rf"(?:use |using |with |try |trying )?(?P<chosen>{_PHRASE}),? (?:instead of|rather than) "
                         rf"(?P<other>{_PHRASE})", re.IGNORECASE)
_TACTICAL_RE = re.compile(r"^(?:let me|i'll|i will|now i|first,? i|next,? i)\b", re.IGNORECASE)
_PROBLEM_RE = re.compile(r"\b(?:doesn'?t|does not|don'?t|isn'?t|is not|won'?t|not working|broken|fails?|failing|"
                         r"error|crash(?:es)?|still)\b", re.IGNORECASE)
_BECAUSE_RE = re.compile(r"\b(?:because|since|as|due to|so that)\b\s*(.+)", re.IGNORECASE)
_ANSWER_RE = re.compile(r'"(?P<q>[^"]+)"="(?P<a>[^"]*)"')
_ERROR_HINT_RE = re.compile(r"error|not found|failed|failure|exception|denied|cannot|can't|no such|invalid|"
                            r"traceback|refused|timed out|exit code [1-9]", re.IGNORECASE)
_NOISE_LINE_RE = re.compile(r"^(?:Exit code: -?\d+|Wall time: .*|Output:|Process exited with code -?\d+|"
                            r"Chunk ID: .*|Original token count: .*|Total output lines: .*)$")
_LOOKAHEAD_CALLS = 12
MAX_TEXT = 240


def _squash(text: str, limit: int = MAX_TEXT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _first_sentence(text: str) -> str:
    for part in _SENTENCE_RE.split(text.strip()):
        if part.strip():
            return part.strip()
    return text.strip()


@dataclass
class _Call:
    entry: Entry
    result: Entry | None = None

    @property
    def name(self) -> str:
        return self.entry.tool_name or "tool"

    @property
    def family(self) -> str:
        return "shell" if self.name.lower() in _SHELL_TOOLS else self.name

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result.is_error is True

    @property
    def succeeded(self) -> bool:
        return self.result is not None and self.result.is_error is False

    @property
    def rejected(self) -> bool:
        return self.result is not None and self.result.kind == "rejected"

    def describe(self) -> str:
        data = self.entry.tool_input
        if isinstance(data, str):
            if data.startswith("*** Begin Patch"):
                files = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", data, re.MULTILINE)
                return f"apply_patch {', '.join(files)}" if files else "apply_patch"
            return f"{self.name} {_squash(data, 120)}"
        if isinstance(data, dict):
            for key in ("command", "cmd"):
                value = data.get(key)
                if isinstance(value, list):
                    value = " ".join(str(v) for v in value)
                if isinstance(value, str) and value.strip():
                    return _squash(value, 160)
            for key in ("file_path", "path", "notebook_path", "url", "pattern", "query"):
                value = data.get(key)
                if isinstance(value, str) and value:
                    return f"{self.name} {value}"
            return f"{self.name} {_squash(json.dumps(data, ensure_ascii=False, default=str), 100)}"
        return self.name

    def target(self) -> str | None:
        data = self.entry.tool_input
        if isinstance(data, dict):
            for key in ("file_path", "path", "notebook_path"):
                if isinstance(data.get(key), str):
                    return data[key]
        return None


def _error_line(result: Entry) -> str:
    lines = [line.strip() for line in result.text.splitlines() if line.strip() and not _NOISE_LINE_RE.match(line.strip())]
    hits = [line for line in lines if _ERROR_HINT_RE.search(line)]
    chosen = hits[-1] if hits else (lines[-1] if lines else "")
    code = f"exit {result.exit_code}" if result.exit_code not in (None, 0) else ""
    text = _squash(chosen, 180)
    return ": ".join(part for part in (code, text) if part) or "failed"


def _output_line(result: Entry) -> str:
    lines = [line.strip() for line in result.text.splitlines() if line.strip() and not _NOISE_LINE_RE.match(line.strip())]
    return _squash(lines[-1], 120) if lines else ""


def _pair_calls(entries: list[Entry]) -> list[_Call]:
    calls: list[_Call] = []
    by_id: dict[str, _Call] = {}
    for entry in entries:
        if entry.kind == "tool_call":
            call = _Call(entry)
            calls.append(call)
            if entry.tool_call_id:
                by_id[entry.tool_call_id] = call
        elif entry.kind in ("tool_result", "rejected"):
            call = by_id.get(entry.tool_call_id or "") if entry.tool_call_id else None
            if call is None:  # logs without call ids: the latest call still waiting for its result
                call = next((c for c in reversed(calls) if c.result is None), None)
            if call is not None and call.result is None:
                call.result = entry
    return calls


def _related(failed: _Call, later: _Call) -> bool:
    if failed.family != later.family:
        return False
    if failed.target() and failed.target() == later.target():
        return True
    return fuzz.token_set_ratio(failed.describe(), later.describe()) >= 60


def extract_attempts(calls: list[_Call]) -> list[Attempt]:
    attempts: list[Attempt] = []
    handled: set[int] = set()
    for position, call in enumerate(calls):
        if position in handled or not call.failed or call.entry.tool_name == "ExitPlanMode":
            continue
        handled.add(position)
        trial = call.describe()
        if call.rejected:
            attempts.append(Attempt(trial=f"`{trial}`", result="rejected by the user", outcome="failure"))
            continue
        repeats = 1
        fix: _Call | None = None
        for offset, later in enumerate(calls[position + 1: position + 1 + _LOOKAHEAD_CALLS], start=position + 1):
            if not _related(call, later):
                continue
            if later.failed and not later.rejected:
                handled.add(offset)
                repeats += 1
            elif later.succeeded:
                fix = later
                break
        error = _error_line(call.result) if call.result else "failed"
        times = f" ({repeats} tries)" if repeats > 1 else ""
        if fix is None:
            attempts.append(Attempt(trial=f"`{trial}`", result=f"failed{times}: {error}; not resolved in this range",
                                    outcome="failure"))
            continue
        fixed = fix.describe()
        if fixed == trial:
            attempts.append(Attempt(trial=f"`{trial}`", result=f"failed{times}: {error}; the same call then "
                                    "succeeded on retry", outcome="partial"))
            continue
        attempts.append(Attempt(trial=f"`{trial}`", result=f"failed{times}: {error}", outcome="failure"))
        output = _output_line(fix.result) if fix.result else ""
        attempts.append(Attempt(trial=f"`{fixed}` (after `{trial}` failed)",
                                result="succeeded" + (f": {output}" if output else ""), outcome="success"))
    return attempts


def _classify(text: str) -> str:
    lowered = _LEADING_POLITE_RE.sub("", text.strip().lower())
    for intent, verbs in _INTENTS:
        if any(lowered == verb or lowered.startswith(verb + " ") or lowered.startswith(verb + ",")
               or lowered.startswith(verb + ".") for verb in verbs):
            return intent
    if text.rstrip().endswith("?"):
        return "ask"
    return "fix" if _PROBLEM_RE.search(lowered) else "other"


def _target(text: str) -> str:
    paths = [p for p in _PATH_RE.findall(text) if "/" in p or "." in p.strip(".")]
    paths = [p for p in paths if not re.fullmatch(r"\d+(\.\d+)*", p) and not p.startswith("http")]
    if paths:
        return ", ".join(dict.fromkeys(p.split("/")[-1] if len(p) > 60 else p for p in paths[:3]))
    code = _CODE_RE.findall(text)
    if code:
        return ", ".join(dict.fromkeys(code[:3]))
    words = _LEADING_POLITE_RE.sub("", _first_sentence(text)).split()
    return _squash(" ".join(words[1:7]) if len(words) > 1 else " ".join(words), 80) or "session"


def _is_trivial(text: str) -> bool:
    flat = text.strip().lower().strip(".!")
    return not flat or flat in _TRIVIAL or bool(_REDACTED_RE.match(text.strip())) or len(flat) < 4


def extract_requests(entries: list[Entry]) -> list[Request]:
    requests: list[Request] = []
    for entry in entries:
        if entry.role != "user" or entry.kind not in (None, "message"):
            continue
        if _is_trivial(entry.text):
            continue
        requests.append(Request(intent=_classify(entry.text), target=_target(entry.text),
                                summary=_squash(entry.text)))
    return requests


def _plan_text(call: _Call) -> str:
    data = call.entry.tool_input
    plan = data.get("plan") if isinstance(data, dict) else None
    return _squash(_first_sentence(str(plan)), 200) if plan else "the proposed plan"


def extract_decisions(entries: list[Entry], calls: list[_Call]) -> list[Decision]:
    decisions: list[Decision] = []
    plans = [c for c in calls if c.entry.tool_name == "ExitPlanMode" and c.result is not None]
    for position, plan in enumerate(plans):
        if not plan.rejected:
            continue
        approved = next((p for p in plans[position + 1:] if p.succeeded), None)
        feedback = next((e.text for e in entries if e.index > plan.result.index and e.role == "user"  # type: ignore[union-attr]
                         and e.kind in (None, "message") and not _is_trivial(e.text)), "")
        if approved is None:
            continue
        decisions.append(Decision(
            title=f"Revised plan: {_squash(_plan_text(approved), 100)}",
            options=[_plan_text(plan), _plan_text(approved)], chosen=_plan_text(approved),
            rationale=f"the user rejected the first plan{': ' + _squash(feedback, 200) if feedback else ''}"))
    for entry in entries:
        if entry.kind not in (None, "message") or entry.role not in ("assistant", "user") or not entry.text:
            continue
        if entry.role == "user" and _is_trivial(entry.text):
            continue
        for sentence in _SENTENCE_RE.split(entry.text):
            sentence = sentence.strip().lstrip("-*>0123456789. ").strip()
            match = _CHOICE_RE.search(sentence)
            # "Let me use find instead" is a tactical step (an attempt), not a project decision; a
            # choice in parentheses is an aside in a summary list.
            if len(sentence) < 12 or match is None or _TACTICAL_RE.match(sentence) \
                    or sentence[: match.start()].count("(") > sentence[: match.start()].count(")"):
                continue
            decisions.append(_decision_from(sentence, entry.role))
            break  # one decision per message: the first explicit choice
    return decisions


def _decision_from(sentence: str, role: str) -> Decision:
    options: list[str] = []
    chosen = _squash(sentence, 200)
    match = _INSTEAD_RE.search(sentence)
    if match and len(match.group("chosen").strip("`\"' ")) >= 3 and not match.group("chosen").startswith("s "):
        chosen = match.group("chosen").strip()
        options = [chosen, match.group("other").strip().rstrip(".,;")]
    because = _BECAUSE_RE.search(sentence)
    who = "the user" if role == "user" else "the agent"
    rationale = _squash(because.group(1), 200) if because else f"stated by {who} in the session"
    return Decision(title=_squash(sentence, 120), options=options, chosen=chosen, rationale=rationale)


def extract_discussions(entries: list[Entry], calls: list[_Call]) -> list[Discussion]:
    discussions: list[Discussion] = []
    for call in calls:
        if call.entry.tool_name == "AskUserQuestion" and call.result is not None and not call.result.is_error:
            for match in _ANSWER_RE.finditer(call.result.text):
                discussions.append(Discussion(topic=_squash(match.group("q"), 160),
                                              points=[f"user answered: {_squash(match.group('a'), 200)}"]))
    for position, entry in enumerate(entries):
        if entry.role != "user" or entry.kind not in (None, "message") or not entry.text.rstrip().endswith("?"):
            continue
        reply = next((e for e in entries[position + 1:] if e.role == "assistant" and e.kind in (None, "message")
                      and e.text.strip()), None)
        if reply is None:
            continue
        points = [_squash(s, 200) for s in _SENTENCE_RE.split(reply.text) if len(s.strip()) > 8][:3]
        discussions.append(Discussion(topic=_squash(entry.text, 160), points=points))
    return discussions


def extract(entries: list[Entry]) -> Activity:
    """What happened in ``entries`` (already cleaned), as a strict ``Activity``."""
    calls = _pair_calls(entries)
    return Activity(
        decisions=extract_decisions(entries, calls),
        discussions=extract_discussions(entries, calls),
        attempts=extract_attempts(calls),
        requests=extract_requests(entries),
    )
