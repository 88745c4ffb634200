"""Compatibility for staged attempts that call a skipped check "fixed" (staging of earlier versions).

Whether a failure was fixed is decided in Phase 1, on the command itself: a later run that got
through only by skipping the check (``git commit --no-verify`` after the hook failed, ``HUSKY=0``,
``SKIP=…``, ``git commit -n``, a forced push) is staged as "not fixed — the check was bypassed by
`<command>`" with outcome failure (``phase1.rules_attempts``, ``phase1.commands.check_bypass``).
Phase 2 then writes what it reads.

This module stays, small, for text Phase 1's rules did not write that way: staging files written by
earlier versions ("fixed — ran `git commit --no-verify` instead; … then succeeded") wait on disk
until a consolidation consumes them — a user who upgrades between the two phases has them, a
teammate's clone may too — and an LLM engine's attempts are its own words. Both are read here
with the same lexicon Phase 1 uses (``store.check_bypass``), so the two never disagree on what a
bypass is. Text already said truthfully is left as it is (``truthful_result`` is idempotent).
"""

from __future__ import annotations

import re

from ..store.check_bypass import command_bypasses, new_bypass

_CODE_RE = re.compile(r"`([^`]+)`")


def bypass_flag(command: str, failed: str = "") -> str:
    """The switch in ``command`` that skips a check, when ``failed`` (the command that failed) did
    not have it; "" when there is none."""
    return new_bypass(command_bypasses(command), command_bypasses(failed))


def truthful_result(trial: str, result: str) -> str:
    """``result`` with a "fixed — …" that was a bypass said as one; unchanged otherwise (Phase 1's
    own "not fixed — the check was bypassed by …" included)."""
    marker = "fixed — "
    at = result.find(marker)
    if at < 0 or result[max(0, at - 4):at].lower().endswith("not "):
        return result
    failed = " ".join(_CODE_RE.findall(trial)) or trial
    for command in _CODE_RE.findall(result[at:]):
        flag = bypass_flag(command, failed)
        if flag:
            return f"{result[:at]}not fixed — the check was bypassed (`{flag}`): {result[at + len(marker):]}"
    return result


def bypassed_by(trial: str, failed_trials: list[str]) -> str:
    """The switch with which ``trial`` (a later success, as a failure item then a success item of
    an older or an LLM engine's staging) skipped the check the failed trials ran into."""
    failed = " ".join(" ".join(_CODE_RE.findall(t)) or t for t in failed_trials)
    for code in _CODE_RE.findall(trial) or [trial]:
        flag = bypass_flag(code, failed)
        if flag:
            return flag
    return ""
