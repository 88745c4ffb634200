"""A failed check that a later run only got past by skipping it is staged "not fixed" by Phase 1.

Phase 1 decides an attempt's outcome, so it reads the skip on the command itself (``--no-verify``,
``git commit -n``, ``HUSKY=0``, ``SKIP=…``, a forced push …) and stages the truth; Phase 2 keeps a
small path for staging written by earlier versions (tested last). Logs are built as the adapters
emit them (``test_phase1_rules.Log``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from phase2_fixtures import stage
from support import make_ws
from test_phase1_rules import Log

from yoi_tui.core.phase1.commands import check_bypass
from yoi_tui.core.phase2.attempt_text import truthful_result
from yoi_tui.core.phase2.runner import run_phase2
from yoi_tui.core.store.reader import read_record
from yoi_tui.core.store.staging import Attempt, Request

HUSKY = "husky - pre-commit script failed (code 1)\n✖ eslint found 2 problems"


def test_a_commit_that_got_past_the_hook_with_no_verify_is_not_fixed() -> None:
    log = Log()
    log.user("commit the sidebar change")
    failed = log.bash('git commit -m "feat: sidebar"', HUSKY, exit_code=1)
    log.say("The hook's eslint errors are in files this change did not touch.")
    log.bash("npm run format", "formatted 3 files")
    bypassed = log.bash('git commit --no-verify -m "feat: sidebar"', "[main 1a2b3c4] feat: sidebar")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure" and attempt.range == (failed, bypassed + 1)
    assert attempt.result == (
        "failed: exit 1: husky - pre-commit script failed (code 1); cause: The hook's eslint errors are in files this change "
        "did not touch.; not fixed — after running `npm run format`, the check was bypassed by "
        '`git commit --no-verify -m "feat: sidebar"` (`--no-verify`)')
    assert "; fixed —" not in attempt.result and "then succeeded" not in attempt.result


@pytest.mark.parametrize(("failed", "later", "flag"), [
    ('git commit -m "x"', 'HUSKY=0 git commit -m "x"', "HUSKY=0"),
    ('git commit -m "x"', 'export HUSKY=0 && git commit -m "x"', "HUSKY=0"),
    ('git commit -m "x"', 'SKIP=eslint,prettier git commit -m "x"', "SKIP=eslint,prettier"),
    ('git commit -m "x"', 'git commit -nm "x"', "-n"),
    ('git commit -m "x"', 'git add -A && LEFTHOOK=0 git commit -m "x"', "LEFTHOOK=0"),
    ('git commit -m "x"', 'git -c core.hooksPath=/dev/null commit -m "x"', "-c core.hooksPath=/dev/null"),
    ("git push origin main", "git push --force origin main", "--force"),
    ("git push origin main", "git push -f origin main", "-f"),
    ("git push origin main", "git push --no-verify origin main", "--no-verify"),
    ("mvn package", "mvn -DskipTests package", "-DskipTests"),
])
def test_any_switch_that_skips_the_check_on_the_rerun_is_a_bypass(failed: str, later: str, flag: str) -> None:
    log = Log()
    log.user("ship it")
    log.bash(failed, "error: the check failed\nfatal: hook refused", exit_code=1)
    log.bash(later, "ok")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "failure", attempt.result
    assert attempt.result.endswith(f"not fixed — the check was bypassed by `{later}` (`{flag}`)")


@pytest.mark.parametrize(("failed", "later"), [
    ('git commit -m "x"', 'git commit -am "x"'),  # -a stages; it skips nothing
    ('git commit -m "x"', 'git commit -mn'),  # the message "n", not -n
    ('git commit -m "x"', 'git commit -m "skip the flaky test, no --no-verify"'),  # words in a message
    ('git commit -m "x"', 'git commit -m "$(cat <<\'EOF\'\nHUSKY=0 is not used here\nEOF\n)"'),  # a heredoc message
    ("git push --force origin main", "git push --force origin main"),  # the failed run skipped it already
    ("git push -f origin main", "git push --force origin main"),  # the same switch, long form
    ("git push origin main", "git push -n origin main"),  # -n on push is a dry run, not a skip
    ('git commit -m "x"', 'HUSKY=1 git commit -m "x"'),
])
def test_a_rerun_without_a_new_skip_switch_is_fixed(failed: str, later: str) -> None:
    log = Log()
    log.user("ship it")
    log.bash(failed, "error: the check failed", exit_code=1)
    log.edit("/p/src/app.ts")
    log.bash(later, "ok")
    [attempt] = log.extract().attempts
    assert attempt.outcome == "success", attempt.result
    assert "fixed — after editing app.ts" in attempt.result and "bypassed" not in attempt.result


def test_check_bypass_reads_the_command_not_its_text() -> None:
    assert check_bypass("sudo env SKIP=lint git commit -m x", "git commit -m x") == "SKIP=lint"
    assert check_bypass("git -C /repo commit -n -m x", "git -C /repo commit -m x") == "-n"
    assert check_bypass("git commit --no-verify -m x && git push", "git commit -m x && git push") == "--no-verify"
    assert check_bypass("git commit --no-verify -m x", "git commit --no-verify -m y") == ""
    assert check_bypass("SKIP= git commit -m x", "git commit -m x") == ""  # an empty list skips nothing


def test_phase1_staging_passes_through_phase2_as_it_is_and_old_staging_is_still_told_truly(tmp_path: Path) -> None:
    log = Log()
    log.user("commit the sidebar change")
    log.bash('git commit -m "feat: sidebar"', HUSKY, exit_code=1)
    log.bash('git commit --no-verify -m "feat: sidebar"', "[main 1a2b3c4] feat: sidebar")
    [new] = log.extract().attempts
    assert truthful_result(new.trial, new.result) == new.result  # already true: Phase 2 changes nothing
    # A staging file an earlier version wrote ("fixed — ran … --no-verify … instead") still on disk.
    old = Attempt(trial='`git commit -m "feat: sidebar"`', result=(
        "failed: husky - pre-commit script failed (code 1); fixed — ran `git commit --no-verify -m \"feat: sidebar\"` "
        "instead; `git commit --no-verify -m \"feat: sidebar\"` then succeeded"), outcome="success", range=(1, 4))
    ws = make_ws(tmp_path)
    request = Request(intent="change", target="sidebar", summary="Commit the sidebar change.",
                      title="Commit the sidebar change", range=(0, 0))
    stage(ws, "sess-new", 0, 9, requests=[request], attempts=[new])
    stage(ws, "sess-old", 0, 9, requests=[request.model_copy(update={"title": "Commit the sidebar change"})],
          attempts=[old])
    assert run_phase2(ws, flush=True).exit_code == 0
    body = "\n".join(read_record(ws, p).record.body for p in sorted((ws.root / "memory" / "requests").glob("*.md"))
                     if read_record(ws, p).record is not None)
    assert ("not fixed — the check was bypassed by `git commit --no-verify -m \"feat: sidebar\"` (`--no-verify`)."
            in body)
    assert ("not fixed — the check was bypassed (`--no-verify`): ran `git commit --no-verify -m \"feat: sidebar\"` "
            "instead" in body)
    assert "; fixed —" not in body
