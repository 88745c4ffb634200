"""The Phase 1 rules engine on issue 26's second round of causes, mechanism by mechanism, each on a
small constructed log (none copied from a benchmark session); each test fails without its rule:
change summaries told as lists are not decisions, choices the agent reasons about or states with
their reason are, and so on (see docs/phase1.md)."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- decisions


def test_a_list_of_changes_made_is_no_decision_and_a_bullet_takes_no_reason_from_another() -> None:
    log = Log()
    log.user("upgrade next")
    log.edit("/w/package.json")
    log.say("The upgrade is in place. Changes:\n\n- Using 15.5.2 instead of 14 because the app router needs it\n"
            "- Bumped react to 19\n- Removed the legacy babel config since SWC handles it")
    log.say("Here is what moved:\n\n- Upgraded the eslint config to the flat format\n- Using pnpm instead of npm")
    assert log.extract().decisions == []
    # A plan's list is not a list of changes made: its choice stands, with its own reason or none.
    log = Log()
    log.user("plan the migration")
    log.say("Plan:\n\n- Keep the old endpoint alive for one release\n- Use SQLite instead of JSON files")
    [decision] = log.extract().decisions
    assert decision.options == ["SQLite", "JSON files"]
    assert "old endpoint" not in decision.rationale


def test_a_choice_the_agent_states_with_its_reason_is_a_decision_but_a_look_around_is_not() -> None:
    log = Log()
    log.user("finish the docs follow-ups")
    log.say("I'll treat this as implementation work: first isolate it in a fresh worktree because the primary "
            "checkout is dirty and behind origin/main.")
    log.bash("git worktree add ../w -b docs origin/main", "Preparing worktree")
    [decision] = log.extract().decisions
    assert decision.chosen == "isolate it in a fresh worktree"
    assert decision.rationale.startswith("the primary checkout is dirty")
    log = Log()
    log.user("why is the build slow?")
    log.say("I'll check the cache settings first because the build log mentions a cold cache.")
    log.say("I'll enter plan mode since this is a substantial change.")
    assert log.extract().decisions == []


def test_a_design_or_a_value_the_agent_settles_on_is_a_decision() -> None:
    log = Log()
    log.user("make the compaction strategies configurable")
    log.say("I'll use a generic approach with an enum for the strategies, so new ones plug in without touching "
            "the caller.")
    log.edit("/w/compact.rs")
    log.user("add auto compaction")
    log.say("I'll set the compaction threshold to 0.9 of the context window.")
    log.edit("/w/compact.rs")
    decisions = log.extract().decisions
    assert [d.title for d in decisions] == ["Use a generic approach with an enum for the strategies",
                                            "Set the compaction threshold to 0.9 of the context window"]


def test_reasoning_counts_only_for_choices_the_agent_owns_and_is_one_decision_with_the_message() -> None:
    log = Log()
    log.user("commit the config and merge it")
    _thinking(log, "The user wants the config committed. It hardcodes the path instead of reading the env.")
    log.bash("git status", "clean")
    assert log.extract().decisions == []
    log = Log()
    log.user("commit the config and merge it")
    thought = _thinking(log, "Following the guidelines in CLAUDE.md to always use branches and PRs rather than "
                             "pushing directly to main.")
    said = log.say("I'll use feature branches and PRs rather than a push to main.")
    log.bash("git checkout -b chore/config", "Switched to a new branch")
    [decision] = log.extract().decisions
    assert decision.range == (thought, said) and decision.chosen == "feature branches and PRs"
    # Codex's reasoning summary alone, with no message after it, is evidence too.
    log = Log()
    log.user("speed up the sync")
    _thinking(log, "**Choosing the transport**\n\nI'll use websockets instead of polling because the server "
                   "already pushes events.")
    log.edit("/w/sync.ts")
    [decision] = log.extract().decisions
    assert decision.options == ["websockets", "polling"]
