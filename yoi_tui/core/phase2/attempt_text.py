"""An attempt's outcome said truthfully: a check that was skipped is not a check that was fixed.

Phase 1 tells a failure and what followed ("`git commit` failed: husky - pre-commit script failed;
fixed — ran `git commit --no-verify` instead; … then succeeded"). When the command that "then
succeeded" is the failed one with a flag or variable that skips the check (``--no-verify``,
``git commit -n``, ``HUSKY=0``, ``SKIP=…``, a forced push), the failure was bypassed, not fixed,
and the record says so ("not fixed — the check was bypassed (`--no-verify`): …"). A teammate who
reads "fixed" trusts the hook passes; it did not.
"""

from __future__ import annotations

import re

# Flags and variables that skip a check or override a refusal rather than satisfy it.
_BYPASS_RE = re.compile(r"(?:^|\s)(--no-verify|--no-hooks|--skip-hooks|--skip-checks?|--skip-tests?|--no-lint|"
                        r"--skip-lint|--force(?:-with-lease)?|HUSKY=0|HUSKY_SKIP_HOOKS=1|SKIP=\S+|"
                        r"PRE_COMMIT_ALLOW_NO_CONFIG=1|--no-run-if-empty)(?=\s|$|`)")
_COMMIT_N_RE = re.compile(r"\bgit\s+(?:-\S+\s+)*commit\b[^`]*?\s(-n|-\w*n\w*)(?=\s)")  # git commit -n (== --no-verify)
_CODE_RE = re.compile(r"`([^`]+)`")


def bypass_flag(command: str, failed: str = "") -> str:
    """The flag in ``command`` that skips a check, when ``failed`` (the command that failed) did
    not have it; "" when there is none."""
    for pattern in (_BYPASS_RE, _COMMIT_N_RE):
        for match in pattern.finditer(command):
            flag = match.group(1)
            if flag.startswith("-") and not flag.startswith("--") and pattern is _COMMIT_N_RE:
                flag = "-n"
            if flag not in failed.split():
                return flag
    return ""


def truthful_result(trial: str, result: str) -> str:
    """``result`` with a "fixed — …" that was a bypass said as one; unchanged otherwise."""
    marker = "fixed — "
    at = result.find(marker)
    if at < 0 or result[max(0, at - 4):at].lower().endswith("not "):
        return result
    for command in _CODE_RE.findall(result[at:]):
        flag = bypass_flag(command, trial)
        if flag:
            return f"{result[:at]}not fixed — the check was bypassed (`{flag}`): {result[at + len(marker):]}"
    return result


def bypassed_by(trial: str, failed_trials: list[str]) -> str:
    """The flag with which ``trial`` (a later success) skipped the check the failed trials ran into."""
    for code in _CODE_RE.findall(trial) or [trial]:
        flag = bypass_flag(code, " ".join(failed_trials))
        if flag:
            return flag
    return ""
