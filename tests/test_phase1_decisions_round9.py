"""The Phase 1 rules engine's ninth round on decisions, mechanism by mechanism, each on a small
constructed log of ``Entry`` items (no line copied from a benchmark session); each test fails
without its rule."""

from __future__ import annotations

from test_phase1_rules import Log


def _thinking(log: Log, text: str) -> int:
    return log._add(role="assistant", text=text, kind="thinking")


# ---------------------------------------------------------------- the reason first, then "so I'll X"


def test_a_reason_told_first_and_then_the_choice_is_a_decision() -> None:
    log = Log()
    log.user("add rate limiting to the upload endpoint")
    thought = _thinking(log, "**Reviewing the upload route**\n\nThe gateway already tags every request with the "
                             "caller's account id, so I'll key the rate limiter on the account id rather than on "
                             "the client address.")
    step = log.edit("src/upload.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("key the rate limiter on the account id")
    assert decision.rationale.startswith("The gateway already tags every request")
    assert decision.range == (thought, step)


def test_a_reason_and_then_leaving_something_out_is_a_decision_in_a_message_too() -> None:
    log = Log()
    log.user("wire the contact form to the mail service")
    said = log.say("A spam filter on the form isn't part of this request, so I'll leave the spam filter out for "
                   "now and only send the mail.")
    log.edit("src/contact.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("leave the spam filter out")
    assert decision.range is not None and decision.range[0] == said


def test_a_look_up_a_bare_so_ill_do_it_and_the_agents_own_weighing_are_none() -> None:
    for text in ("The handler is missing from the router, so I'll check where the routes are registered.",
                 "The user explicitly asked for this, so I'll implement it.",
                 "The build output looks stale, so I'll look into the cache settings next.",
                 "I'm considering a queue for the uploads, but the tasks name no queue, so I'll keep the handler "
                 "small and plain.",
                 "I'm verifying whether the push went through, so I'll confirm the branch status."):
        log = Log()
        log.user("add rate limiting to the upload endpoint")
        _thinking(log, f"**Reviewing the upload route**\n\n{text}")
        log.bash("sed -n '1,80p' src/upload.ts")
        assert log.extract().decisions == [], text


# ---------------------------------------------------------------- a choice told in Chinese or Japanese


def _said_choice(text: str) -> list[tuple[str, str]]:
    log = Log()
    log.user("帮我初始化项目的发布配置")
    log.bash("ls", "package.json")
    log.say(text)
    return [(d.chosen, d.rationale) for d in log.extract().decisions]


def test_a_chinese_contrast_with_its_reason_is_a_decision() -> None:
    [(chosen, why)] = _said_choice("配置已经写好。这是第一个正式版本，没有旧的发布记录，所以采用 1.0.0 作为初始版本，"
                                   "而不是从 0.x 继续递增。")
    assert chosen == "采用 1.0.0 作为初始版本"
    assert why == "这是第一个正式版本，没有旧的发布记录"
    [(chosen, why)] = _said_choice("发布流程会放在独立的 workflow 里，而不是混进现有的测试任务。")
    assert chosen == "发布流程会放在独立的 workflow 里" and why == "rather than 混进现有的测试任务"
    [(chosen, _why)] = _said_choice("我们不是重写整个解析模块，而是只修改读取引号的函数。")
    assert chosen == "只修改读取引号的函数"


def test_a_chinese_choice_with_what_it_avoids_or_after_its_reason_is_a_decision() -> None:
    [(chosen, why)] = _said_choice("我把生成的文件单独放进第二个提交，避免和配置改动混在一起。")
    assert chosen == "把生成的文件单独放进第二个提交" and why == "避免和配置改动混在一起"
    [(chosen, why)] = _said_choice("远程仓库在沙箱里无法访问，所以改用本地分支列表来确定编号。")
    assert chosen == "改用本地分支列表来确定编号" and why == "远程仓库在沙箱里无法访问"


def test_a_japanese_contrast_is_a_decision() -> None:
    [(chosen, why)] = _said_choice("毎回ダウンロードするのではなく、永続ディスクにモデルを保存します。")
    assert chosen == "永続ディスクにモデルを保存します" and why == "rather than 毎回ダウンロードするの"


def test_a_chinese_look_up_or_a_reported_step_after_so_is_none() -> None:
    assert _said_choice("提交被沙箱拦住了，所以我先检查一下 git 的权限设置。") == []
    assert _said_choice("这个目录不存在，所以我在报告里标成了 pending。") == []
    assert _said_choice("测试都通过了，构建也成功。") == []
    assert _said_choice("这里的缓存并不是可选的，而是所有请求都要经过的一层。") == []  # a description


# ---------------------------------------------------------------- what a commit leaves out

_STATUS = " D NOTES.md\n M README.md\n M src/app.py\n?? .cache/\n"


def _commit_log(said: str, add: str, status: str = _STATUS) -> tuple[Log, int]:
    log = Log()
    log.user("commit the work")
    start = log.bash("git status --short", status)
    log.say(said)
    log.bash(f"{add} && git commit -m 'Add the export'", "[main 1a2b3c4] Add the export")
    return log, start


def test_a_commit_that_leaves_out_a_path_the_agent_spoke_of_is_a_decision() -> None:
    log, start = _commit_log("NOTES.md was deleted outside this task, so it stays out of this commit; staging the "
                             "two source files only.", "git add README.md src/app.py")
    [decision] = log.extract().decisions
    assert decision.chosen == "commit only README.md, src/app.py; leave out NOTES.md, .cache/"
    assert decision.rationale.startswith("NOTES.md was deleted outside this task")
    assert decision.range == (start, len(log.entries) - 1)


def test_staging_everything_or_only_its_own_files_without_a_word_is_no_decision() -> None:
    said = "NOTES.md was deleted outside this task, but everything goes in."
    log, _ = _commit_log(said, "git add -A")
    assert log.extract().decisions == []
    log, _ = _commit_log(said, "git add NOTES.md README.md src/app.py .cache/")
    assert log.extract().decisions == []
    log, _ = _commit_log("Committing the change now.", "git add README.md src/app.py")
    assert log.extract().decisions == []
    # A tool's own listing, indented, is no `git status --short` output.
    log, _ = _commit_log(said, "git add README.md", status="Modified: 2 files\n   README.md\n   NOTES.md\n")
    assert log.extract().decisions == []


# ---------------------------------------------------------------- a refused step taken after the user's "why not?"


def test_the_step_the_agent_refused_taken_after_the_user_challenges_it_is_a_decision() -> None:
    log = Log()
    log.user("/share-report")
    log.say("That looks like a local command; I won't run it myself, but you can run it to share the report.")
    log.bash("ls reports", "weekly.md")
    challenge = log.user("why won't you run it?")
    log.say("You're right to ask. Looking at it again, it only uploads the report you generated, so there is no "
            "reason not to. Let me run it for you:")
    run = log.bash("python3 scripts/share_report.py weekly.md", "shared: https://example.test/r/1")
    [decision] = log.extract().decisions
    assert decision.chosen == "run it for you"
    assert decision.range == (challenge, run + 1)


def test_a_look_after_a_challenge_or_a_plain_question_is_no_decision() -> None:
    for question, reply in (("why won't you run it?", "You're right. Let me check what the script does first."),
                            ("why won't you run it?", "You're right to ask. Let me check it before anything runs."),
                            ("what does the script do?", "Good point. Let me run it to see.")):
        log = Log()
        log.user("/share-report")
        log.say("That looks like a local command; I won't run it myself.")
        log.bash("ls reports", "weekly.md")
        log.user(question)
        log.say(reply)
        log.bash("cat scripts/share_report.py", "print('share')")
        assert log.extract().decisions == [], question


# ---------------------------------------------------------------- a solution announced with its parts


def test_a_solution_announced_with_its_parts_is_a_decision() -> None:
    log = Log()
    log.user("the app must run on the server and on my laptop")
    log.bash("cat config.yml", "cache_dir: null")
    said = log.say("Found it. The loader accepts a `cache_dir` option. Now let me create a solution that:\n"
                   "1. Downloads the index once to the mounted volume\n"
                   "2. Points the loader at it through `CACHE_DIR`\n"
                   "3. Falls back to the default path on a laptop")
    log.edit("config.yml")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("Downloads the index once to the mounted volume; Points the loader at it")
    assert decision.rationale == "The loader accepts a `cache_dir` option."
    assert decision.range == (said, said)


def test_a_single_step_or_a_list_of_findings_is_no_announced_solution() -> None:
    for text in ("Now let me create a fix that:\n1. Reads the path from the config",
                 "Here is what I found:\n1. The loader ignores `cache_dir`\n2. The volume is mounted read-only"):
        log = Log()
        log.user("the app must run on the server and on my laptop")
        log.bash("cat config.yml", "cache_dir: null")
        log.say(text)
        log.edit("config.yml")
        assert log.extract().decisions == [], text


# ---------------------------------------------------------------- "I'm adding X as Y" under a design heading


def test_a_change_told_in_the_present_under_a_planning_heading_is_a_decision() -> None:
    log = Log()
    log.user("sync the saved searches too")
    thought = _thinking(log, "**Planning version columns**\n\nI'm adding version columns as integer fields to "
                             "saved_searches and tags, defaulting to zero. Next, I'll open the schema module.")
    step = log.bash("sed -n '1,80p' src/schema.ts")
    [decision] = log.extract().decisions
    assert decision.chosen.startswith("adding version columns as integer fields")
    assert decision.title == "Version columns"
    assert decision.range == (thought, step)


def test_a_look_or_a_stopgap_told_in_the_present_under_a_planning_heading_is_none() -> None:
    for body in ("I'm checking the schema files to see where the columns are defined. Next, I'll open them.",
                 "I'm adding the helpers but leaving them unused for now, focusing on the schema. Then I'll test."):
        log = Log()
        log.user("sync the saved searches too")
        _thinking(log, f"**Planning version columns**\n\n{body}")
        log.bash("sed -n '1,80p' src/schema.ts")
        assert log.extract().decisions == [], body


# ---------------------------------------------------------------- "Key design decisions" in the agent's account


def test_a_key_design_decisions_heading_in_the_account_is_a_decision() -> None:
    log = Log()
    log.user("make the export resumable")
    log.edit("src/export.ts")
    said = log.say("The export now resumes after a crash.\n\n**Key design decisions:**\n"
                   "- The cursor lives in the jobs table, next to the job's status\n"
                   "- Batches stay at 500 rows")
    [decision] = log.extract().decisions
    assert decision.chosen == "The cursor lives in the jobs table, next to the job's status"
    assert decision.range == (said, said)


def test_decisions_left_to_the_user_are_no_decision() -> None:
    log = Log()
    log.user("make the export resumable")
    log.edit("src/export.ts")
    log.say("The export now resumes after a crash.\n\n## Design decisions needed\n"
            "- Whether the cursor lives in the jobs table or in its own table\n- How large a batch is")
    assert log.extract().decisions == []


# ---------------------------------------------------------------- "Instead of X, I'll Y"


def test_the_way_set_aside_told_first_is_a_decision() -> None:
    for text, chosen, other in (
            ("Instead of polling the API every second, I'll subscribe to its webhook events.",
             "subscribe to its webhook events", "polling the API every second"),
            ("Rather than adding a new table, we'll store the flag on the users row.",
             "store the flag on the users row", "adding a new table")):
        log = Log()
        log.user("make the sync faster")
        said = log.say(text)
        log.edit("src/sync.ts")
        [decision] = log.extract().decisions
        assert (decision.chosen, decision.options) == (chosen, [chosen, other])
        assert decision.range is not None and decision.range[0] == said


def test_a_look_or_a_tool_told_after_instead_of_is_none() -> None:
    for text in ("Instead of guessing, let me check the config.",
                 "Instead of grep, I'll use the Grep tool for this.",
                 "Instead of the old parser, the new one reads both formats."):
        log = Log()
        log.user("make the sync faster")
        log.say(text)
        log.edit("src/sync.ts")
        assert log.extract().decisions == [], text


# ---------------------------------------------------------------- the user's own way, said against the agent's


def _after_work(said: str) -> list[str]:
    log = Log()
    log.user("add the cache layer")
    log.edit("src/cache.ts")
    log.say("The cache layer is in.")
    log.user(said)
    log.edit("src/cache.ts")
    return [d.chosen for d in log.extract().decisions]


def test_the_users_own_way_said_against_the_agents_is_a_decision() -> None:
    assert _after_work("use pnpm, not npm") == ["use pnpm"]  # (read as the way set aside, told once)
    for said in ("Actually, let's keep the entries in Redis.",
                 "I'd rather keep it in one file.", "please make the size a constant instead of a config option"):
        assert _after_work(said) == [said], said


def test_a_bug_report_with_instead_or_a_question_is_no_decision() -> None:
    for said in ("it shows the date instead of the time", "the cache returns stale rows rather than fresh ones",
                 "why is it slower now?"):
        assert _after_work(said) == [], said


# ---------------------------------------------------------------- the purpose first; "the cleanest way is to X"


def _said(text: str) -> list[tuple[str, str]]:
    log = Log()
    log.user("make the parser accept the new format")
    log.bash("ls src", "parser.ts")
    log.say(text)
    log.edit("src/parser.ts")
    return [(d.chosen, d.rationale) for d in log.extract().decisions]


def test_the_purpose_told_first_and_the_cleanest_way_are_decisions() -> None:
    assert _said("To avoid breaking existing callers, I'll add a new function and keep the old one.") == [
        ("add a new function and keep the old one", "to avoid breaking existing callers")]
    assert _said("To keep the diff small, I'll only change the tokenizer.") == [
        ("only change the tokenizer", "to keep the diff small")]
    assert _said("The cleanest way is to add a format flag to the reader.") == [
        ("add a format flag to the reader", "")]


def test_a_purpose_before_a_look_and_a_way_to_look_are_none() -> None:
    assert _said("To make sure nothing else breaks, let me check the other callers.") == []
    assert _said("To be safe, I'll run the whole suite first.") == []
    assert _said("The best way to see it is to read the tokenizer.") == []


# ---------------------------------------------------------------- the agent weighing a way and taking it


def test_a_way_the_agent_weighs_and_takes_is_a_decision() -> None:
    assert _said("I think it's better to keep the parser pure, since the tests call it directly.") == [
        ("keep the parser pure", "the tests call it directly")]
    assert _said("I prefer a flat module layout here; nesting would only add imports.") == [
        ("a flat module layout here", "nesting would only add imports")]
    assert _said("Let's not add a new dependency; I'll write the date parser by hand.") == [
        ("write the date parser by hand", "rather than add a new dependency")]


def test_a_look_weighed_or_a_wish_for_the_user_is_none() -> None:
    assert _said("It's better to check the logs first.") == []
    assert _said("I'd prefer you confirm the port before anything restarts.") == []
    assert _said("Is it better to split the parser?") == []


def test_a_way_judged_better_with_its_reason_or_switched_to_is_a_decision() -> None:
    assert _said("A queue is better here because retries come for free.") == [("A queue", "retries come for free")]
    assert _said("It makes sense to put the validation in the model, since both views share it.") == [
        ("put the validation in the model", "both views share it")]
    log = Log()
    log.user("make the export resumable")
    thought = _thinking(log, "I'll weigh the two. Option 2 makes more sense because it avoids the migration.")
    log.edit("src/export.ts")
    [decision] = log.extract().decisions
    assert (decision.chosen, decision.rationale) == ("Option 2", "it avoids the migration")
    assert decision.range is not None and decision.range[0] == thought
    assert _said("Hmm, maybe I should store the cursor in the jobs table instead.") == [
        ("store the cursor in the jobs table", "")]


def test_a_result_judged_or_a_look_switched_to_is_none() -> None:
    assert _said("The output is better since the fix.") == []
    assert _said("This is better because it avoids a migration.") == []
    assert _said("The test is better now because it covers the empty case.") == []
    assert _said("Maybe I should check the logs instead.") == []


# ---------------------------------------------------------------- a comment naming the quality the code is for


def _commented(comment: str) -> list[str]:
    log = Log()
    log.user("fix the paging")
    log.call("Edit", {"file_path": "src/app.js", "old_string": "load();",
                      "new_string": f"load();\n// {comment}\nawait countAll();"}, "updated")
    return [d.chosen for d in log.extract().decisions]


def test_a_comment_naming_the_quality_the_code_is_for_is_a_decision() -> None:
    assert _commented("Fetch the total count for proper pagination") == ["Fetch the total count for proper pagination"]


def test_a_comment_saying_only_what_the_code_is_for_is_none() -> None:
    assert _commented("Fetch the total count for the pagination") == []
    assert _commented("Loop for each page of the result") == []


# ---------------------------------------------------------------- a step told in reasoning with its reason


def test_a_step_told_in_reasoning_with_its_reason_is_a_decision() -> None:
    log = Log()
    log.user("sync the settings too")
    thought = _thinking(log, "**Hardening settings sync**\n\nI'm updating the settings loader to parse the stored "
                             "JSON inside a try/catch, preventing a crash on malformed local data.")
    step = log.edit("src/settings.ts")
    [decision] = log.extract().decisions
    assert decision.chosen == "updating the settings loader to parse the stored JSON inside a try/catch"
    assert decision.rationale == "preventing a crash on malformed local data"
    assert decision.range == (thought, step)
    log = Log()
    log.user("implement the tasks")
    _thinking(log, "**Stopping at the missing app**\n\nI'm stopping here since the repository has no app scaffold, "
                   "which blocks every later task.")
    [decision] = log.extract().decisions
    assert decision.chosen == "stopping here" and decision.title.startswith("Stopping here since the repository")


def test_a_look_or_a_tool_told_in_reasoning_with_a_reason_is_none() -> None:
    for body in ("I'm checking the loader because the crash report names it.",
                 "I'm writing a quick script to count the tasks, since there are many of them.",
                 "I'm updating the task list."):
        log = Log()
        log.user("sync the settings too")
        _thinking(log, f"**Hardening settings sync**\n\n{body}")
        log.bash("sed -n '1,40p' src/settings.ts")
        assert log.extract().decisions == [], body


# ---------------------------------------------------------------- a commit subject that sets a way aside


def _committed(subject: str) -> list[tuple[str, str]]:
    log = Log()
    log.user("commit it")
    log.edit("src/cache.ts")
    log.bash(f'git commit -m "{subject}"', "[main 1a2b3c4] ok")
    return [(d.chosen, d.rationale) for d in log.extract().decisions]


def test_a_short_commit_subject_that_sets_a_way_aside_is_a_decision() -> None:
    assert _committed("Use SQLite instead of JSON files for the cache") == [
        ("Use SQLite", "instead of JSON files for the cache")]


def test_a_commit_subject_that_only_names_a_change_is_none() -> None:
    assert _committed("Switch to pnpm") == []
    assert _committed("Cache rather than") == []


def test_a_japanese_reason_then_a_choice_is_a_decision_and_a_look_is_none() -> None:
    [(chosen, why)] = _said_choice("既存の呼び出し元があるので、古い関数は残します。")
    assert chosen == "古い関数は残します" and why == "既存の呼び出し元がある"
    [(chosen, _why)] = _said_choice("移行を避けるため、新しいテーブルは作らないことにします。")
    assert chosen == "新しいテーブルは作らないことにします"
    assert _said_choice("設定が見つからないので、ログを確認します。") == []
    assert _said_choice("テストが通ったので、完了です。") == []


# ---------------------------------------------------------------- an instruction that names the way set aside


def _asked(request: str) -> list[tuple[str, list[str]]]:
    log = Log()
    log.user(request)
    log.bash("ls", "src")
    log.edit("src/parser.rs")
    return [(d.chosen, d.options) for d in log.extract().decisions]


def test_an_instruction_that_names_the_way_set_aside_is_a_decision() -> None:
    assert _asked("Write the parser in Rust, not Python.") == [
        ("Write the parser in Rust", ["Write the parser in Rust", "Python"])]
    assert _asked("Add a cache to the API. Use Redis for it, not an in-memory map.") == [
        ("Use Redis for it", ["Use Redis for it", "an in-memory map"])]


def test_a_target_pointed_at_or_a_fact_with_not_is_none() -> None:
    assert _asked("Fix the second button, not the first one.") == []
    assert _asked("The parser fails in CI, not locally.") == []


# ---------------------------------------------------------------- more ways to state a choice in a message


def test_more_ways_a_message_states_a_choice() -> None:
    assert _said("I'm going with a queue since retries come for free.") == [
        ("I'm going with a queue since retries come for free", "retries come for free.")]
    assert _said("I'll keep the old flag as an alias for backwards compatibility.") == [
        ("keep the old flag as an alias", "for backwards compatibility")]
    assert _said("I'll structure it as a small module with one public function, which keeps the API surface "
                 "tiny.") == [("structure it as a small module with one public function",
                               "which keeps the API surface tiny")]
    [(chosen, _why)] = _said("Let me go with the simpler option: one table with a type column.")
    assert chosen.startswith("Let me go with the simpler option")
    assert _said("**Approach:** store the cursor in the jobs table and resume from it.") == [
        ("store the cursor in the jobs table and resume from it", "")]


def test_progress_a_word_plan_in_a_sentence_and_a_plan_of_looks_are_none() -> None:
    assert _said("I'm going through the failing tests one by one.") == []
    assert _said("- Plan references the existing documentation: the data model and the contracts.") == []
    assert _said("## Plan\n1. Read the config loader\n2. Check the callers") == []


def test_the_way_named_as_the_fix_is_no_decision_when_it_is_a_look() -> None:
    assert _said("The simplest fix is to check which caller passes the empty path first.") == []
    assert _said("The simplest fix is to pass the path through unchanged.") == [
        ("pass the path through unchanged", "")]


def test_a_choice_told_as_a_label_in_reasoning_is_a_decision_but_a_look_is_not() -> None:
    log = Log()
    log.user("make the export resumable")
    thought = _thinking(log, "I'll weigh where the state lives. My approach: keep the cursor in the jobs table and "
                             "resume from it.")
    log.edit("src/export.ts")
    [decision] = log.extract().decisions
    assert decision.chosen == "keep the cursor in the jobs table and resume from it"
    assert decision.range is not None and decision.range[0] == thought
    log = Log()
    log.user("make the export resumable")
    _thinking(log, "I'll start small. My plan: read the exporter first and see where it stops.")
    log.bash("sed -n '1,80p' src/export.ts")
    assert log.extract().decisions == []


def test_a_reason_told_first_then_so_we_should_is_a_decision_but_a_look_is_not() -> None:
    assert _said("The endpoint already returns the server time, so we should keep the clock offset next to the "
                 "cursor.") == [("keep the clock offset next to the cursor", "The endpoint already returns the server time")]
    assert _said("The endpoint already returns the server time, so I should check how the client reads it.") == []
