"""The app's runs, review, result and history screens, driven by Pilot on the demo workspace.

Real files in ``tmp_path``; the only double is the scripted model of the cancel test (the model
boundary). Each test waits for a state, never for a time.
"""

from __future__ import annotations

import threading
from pathlib import Path

from textual.widgets import OptionList

from tests.llm_fixtures import Script
from yoi_tui.core.runs.changeset import list_runs, read_run
from yoi_tui.core.runs.consolidation_lock import ConsolidationLock, lock_path
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.screens.result import ResultScreen
from yoi_tui.screens.review import ReviewScreen
from yoi_tui.screens.runs import RunsScreen

STAGING_1 = "019b8a10-0000-7000-8000-000000000001"  # → memory/decisions/render-pdfs-in-a-separate-service.md
STAGING_2 = "019b8a10-0000-7000-8000-000000000002"  # → memory/requests/explain-migrations.md
KNOWLEDGE = "knowledge/explain-migrations-first.md"
DECISION = "memory/decisions/render-pdfs-in-a-separate-service.md"
REQUEST = "memory/requests/explain-migrations.md"
SUMMARY = "memory/summary.md"
SIZE = (120, 36)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under memory/ and knowledge/ (staging included), by relative path."""
    found: dict[str, bytes] = {}
    for top in ("memory", "knowledge"):
        for path in sorted((root / top).rglob("*")):
            if path.is_file():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


async def open_review(app, pilot, wait_until, key: str = "2") -> ReviewScreen:  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen), what="runs screen")
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), what="review screen")
    screen = app.screen
    await wait_until(pilot, lambda: screen.shown is not None, what="first diff")
    return screen


async def highlight(pilot, wait_until, screen: ReviewScreen, item_id: str) -> None:  # type: ignore[no-untyped-def]
    option_list = screen.query_one("#review-list", OptionList)
    option_list.highlighted = option_list.get_option_index(item_id)
    await wait_until(pilot, lambda: screen.shown == item_id, what=f"the diff of {item_id}")


async def apply_and_wait(app, pilot, wait_until) -> ResultScreen:  # type: ignore[no-untyped-def]
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen.id == "apply-confirm", what="confirmation")
    await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(app.screen, ResultScreen), what="result screen")
    return app.screen


async def test_phase2_review_accept_reject_defer(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    before = tree_bytes(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until)
        # (No summary: its listings are computed when the context is built, never written by Phase 2.)
        assert [i.id for i in screen.items] == [KNOWLEDGE, DECISION, REQUEST]
        assert "sess-2026-01-19-c3" in screen.by_id[DECISION].why  # the session the staging came from
        assert lock_path(Workspace(demo_root)).exists()  # held while the person reviews
        # Keys in list order: accept, reject, defer (each moves the cursor down).
        await pilot.press("a", "r", "d")
        assert screen.decisions == {KNOWLEDGE: "accept", DECISION: "reject", REQUEST: "defer"}
        result = await apply_and_wait(app, pilot, wait_until)
    after = tree_bytes(demo_root)
    changed = {rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel)}
    staging1, staging2 = f"memory/_staging/{STAGING_1}.json", f"memory/_staging/{STAGING_2}.json"
    # Exactly the accepted files are written; the rejected item's staging is consumed, the deferred one's kept.
    assert changed == {KNOWLEDGE, staging1}
    assert staging1 not in after and after[staging2] == before[staging2]
    assert DECISION not in after and REQUEST not in after
    assert {c.path for c in result.result.deferred} == {REQUEST}
    journal = read_run(Workspace(demo_root), "last")
    states = {c["path"]: c["state"] for c in journal["changes"]}
    assert states == {KNOWLEDGE: "applied", DECISION: "rejected", REQUEST: "deferred"}
    assert not lock_path(Workspace(demo_root)).exists()


async def test_conflict_on_disk_edit_is_not_overwritten(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until)
        edited = b"---\nedited: by hand\n---\n# Mine\n"
        (demo_root / KNOWLEDGE).write_bytes(edited)
        await highlight(pilot, wait_until, screen, KNOWLEDGE)
        # (The demo's Phase 2 now only adds files; the pane's "changed on disk" note is for modified
        # ones, so this checks the apply: a file created meanwhile is a conflict and is kept.)
        await pilot.press("A")
        result = await apply_and_wait(app, pilot, wait_until)
        assert [c.path for c, _why in result.result.conflicts] == [KNOWLEDGE]
        assert "Conflicts (left as they are): 1" in str(result.query_one("#result-text").render())
    assert (demo_root / KNOWLEDGE).read_bytes() == edited
    assert (demo_root / DECISION).exists()


async def test_gc_merge_is_one_operation(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    merge = "merge:memory/decisions/retry-webhook-with-backoff.md"
    drop = "drop:memory/decisions/cache-invoices-in-redis.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until, key="g")
        # The keeper is the preferred (shorter) slug, whatever each note holds (docs/gc.md, issue 30);
        # the other becomes its stub.
        assert screen.by_id[merge].paths == ["memory/decisions/retry-webhook-with-backoff.md",
                                             "memory/decisions/retry-webhooks-with-backoff.md"]
        groups = [o.id for o in screen.query_one("#review-list", OptionList).options if (o.id or "").startswith("group:")]
        assert groups[:2] == ["group:superseded", "group:noisy"]
        await highlight(pilot, wait_until, screen, merge)
        await pilot.press("a")
        await highlight(pilot, wait_until, screen, drop)
        await pilot.press("r")
        result = await apply_and_wait(app, pilot, wait_until)
        applied = sorted(c.path for c in result.result.applied)
    assert applied == ["memory/decisions/retry-webhook-with-backoff.md",
                       "memory/decisions/retry-webhooks-with-backoff.md"]
    # Merged away as a replaced stub, not deleted (docs/gc.md: another clone's update merges into it).
    stub = (demo_root / "memory/decisions/retry-webhooks-with-backoff.md").read_text()
    assert "replaced_by: retry-webhook-with-backoff" in stub and "status: replaced" in stub
    kept = (demo_root / "memory/decisions/retry-webhook-with-backoff.md").read_text()
    # The hard-wrapped paragraph moves whole, one paragraph; the choice the other recorded makes it resolved.
    assert "After that the\ndelivery is marked failed" in kept and "status: resolved" in kept
    assert (demo_root / "memory/decisions/cache-invoices-in-redis.md").exists()
    states = {c["path"]: c["state"] for c in read_run(Workspace(demo_root), "last")["changes"]}
    assert states["memory/decisions/cache-invoices-in-redis.md"] == "rejected"
    assert states["knowledge/howto-deploy-heroku.md"] == "deferred"  # undecided counts as deferred


async def test_gc_merge_rejected_keeps_both_files(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    before = tree_bytes(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until, key="g")
        await highlight(pilot, wait_until, screen, "merge:memory/decisions/retry-webhook-with-backoff.md")
        await pilot.press("r")
        await apply_and_wait(app, pilot, wait_until)
    assert tree_bytes(demo_root) == before


async def test_cancel_running_phase2_releases_lock_and_writes_nothing(demo_root: Path, make_test_app,
                                                                     wait_until) -> None:
    config = demo_root / ".yoi" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("[phase2]\n", "[phase2]\nengine = \"llm\"\n", 1),
                      encoding="utf-8")
    started, release = threading.Event(), threading.Event()

    def block(messages):  # type: ignore[no-untyped-def]
        started.set()
        release.wait(20)
        from tests.llm_fixtures import done

        return done()

    script = Script([block])
    app = make_test_app(demo_root, llm_model=script.model())
    before = tree_bytes(demo_root)
    ws = Workspace(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        runs = app.screen
        await pilot.press("ctrl+s")
        await wait_until(pilot, started.is_set, what="the model to be asked")
        assert lock_path(ws).exists()
        await pilot.press("escape")
        assert runs.state == "cancelling"
        release.set()
        await wait_until(pilot, lambda: runs.state == "ended", what="the run to end")
        assert any(line.startswith("cancelled") for line in runs.lines)
        assert app.screen is runs  # no review opened
    assert not lock_path(ws).exists()
    assert tree_bytes(demo_root) == before
    assert list_runs(ws) == []


async def test_second_run_names_the_lock_holder(demo_root: Path, make_test_app, wait_until) -> None:
    ws = Workspace(demo_root)
    holder = ConsolidationLock(ws, purpose="gc").acquire()
    try:
        app = make_test_app(demo_root)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("2")
            await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
            runs = app.screen
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: runs.state == "ended")
            assert any("busy: another gc run holds the consolidation lock" in line and holder.run_id in line
                       for line in runs.lines), runs.lines
    finally:
        holder.release()


async def test_dry_run_review_is_read_only(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    before = tree_bytes(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        await pilot.press("ctrl+d", "ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert screen.readonly and not lock_path(Workspace(demo_root)).exists()
        await pilot.press("a", "enter")
        assert app.screen is screen and set(screen.decisions.values()) == {None}
    assert tree_bytes(demo_root) == before


async def test_revert_from_history_restores_exact_bytes(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    before = tree_bytes(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot, wait_until)
        await pilot.press("A")
        await apply_and_wait(app, pilot, wait_until)
        assert tree_bytes(demo_root) != before
        await pilot.press("escape")
        await pilot.press("h")
        await wait_until(pilot, lambda: app.screen.id == "history")
        history = app.screen
        await pilot.press("enter")  # the run's diffs, read-only
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        assert app.screen.readonly and {i.state for i in app.screen.items} == {"applied"}
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is history)
        await pilot.press("u")
        await wait_until(pilot, lambda: app.screen.id == "revert-confirm")
        await pilot.press("y")
        await wait_until(pilot, lambda: read_run(Workspace(demo_root), "last")["status"] == "reverted")
    assert tree_bytes(demo_root) == before


async def test_phase1_picker_offers_demo_logs_and_runs(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root, log_folders=[demo_root / "sessions"])
    staged = len(list((demo_root / "memory/_staging").glob("*.json")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        runs = app.screen
        assert len(runs.logs) == 3
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: runs.state == "ended")
        assert any(line.startswith("done: 3 log(s) read") for line in runs.lines), runs.lines
    assert len(list((demo_root / "memory/_staging").glob("*.json"))) > staged


async def test_palette_has_the_pipeline_entries(demo_root: Path, make_test_app) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Run Phase 1", "Run Phase 2", "Run GC", "Runs history", "Usage"):
            assert title in titles


async def test_gc_review_shows_locked_and_protected(demo_root: Path, make_test_app, wait_until) -> None:
    from yoi_tui.core.usage.log import record_invoke

    ws = Workspace(demo_root)
    for _ in range(5):  # used often: protected from the drop GC would propose
        record_invoke(ws, "howto-deploy-heroku", "knowledge", "slug", session_id="sess-2026-01-19-c3")
    locked = demo_root / "memory/requests/changelog-in-every-pr.md"
    locked.chmod(0o444)
    try:
        app = make_test_app(demo_root)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_review(app, pilot, wait_until, key="g")
            options = [o.id for o in screen.query_one("#review-list", OptionList).options]
            assert "group:not changed (locked)" in options and "group:not changed (protected)" in options
            item = screen.by_id["locked:drop:memory/requests/changelog-in-every-pr.md"]
            assert not item.decidable and item.why.startswith("locked: the file is read-only")
            assert screen.by_id["protected:drop:knowledge/howto-deploy-heroku.md"].why.startswith("protected")
            await highlight(pilot, wait_until, screen, item.id)
            await pilot.press("a")
            assert item.id not in screen.decisions
    finally:
        locked.chmod(0o644)


async def test_phase1_picker_finds_claude_logs_under_home(demo_root: Path, make_test_app, wait_until,
                                                          tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from yoi_tui.core.sessions.discover import encode_claude_dir

    home = tmp_path / "home"
    log = home / ".claude" / "projects" / encode_claude_dir(demo_root.resolve()) / "abc.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text((demo_root / "sessions" / "sess-2026-01-05-a1.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        assert [f.path for f in app.screen.logs] == [log]


async def test_quitting_with_a_review_open_releases_the_lock(demo_root: Path, make_test_app, wait_until) -> None:
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot, wait_until)
        assert lock_path(Workspace(demo_root)).exists()
        app.exit()
        await pilot.pause()
    assert not lock_path(Workspace(demo_root)).exists()


async def test_history_revert_reports_files_changed_since(demo_root: Path, make_test_app, wait_until) -> None:
    from yoi_tui.core.phase2.runner import prepare_round

    ws = Workspace(demo_root)
    prepare_round(ws, flush=True).apply()
    edited = b"---\nupdated_at: 2026-02-01T00:00:00+00:00\n---\n# Edited after the run\n"
    (demo_root / KNOWLEDGE).write_bytes(edited)
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h")
        await wait_until(pilot, lambda: app.screen.id == "history")
        history = app.screen
        await pilot.press("u")
        await wait_until(pilot, lambda: app.screen.id == "revert-confirm")
        await pilot.press("y")
        await wait_until(pilot, lambda: "refused" in str(history.query_one("#history-status").render()))
        assert f"refused {KNOWLEDGE}: changed since the run applied it" in str(
            history.query_one("#history-status").render())
    assert (demo_root / KNOWLEDGE).read_bytes() == edited  # the edit wins
    assert not (demo_root / REQUEST).exists()  # the rest was reverted
    assert read_run(ws, "last")["status"] == "partially-reverted"


async def test_usage_screen_shows_the_report_and_sorts(demo_root: Path, make_test_app, wait_until) -> None:
    from textual.widgets import DataTable, Sparkline, Static

    from yoi_tui.core.usage.log import record_invoke, usage_report
    from yoi_tui.screens.usage import SORTS, UsageScreen

    ws = Workspace(demo_root)
    for _ in range(3):
        record_invoke(ws, "howto-deploy-heroku", "knowledge", "slug", session_id="sess-2026-01-19-c3")
    stats, summary = usage_report(ws)
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen), what="usage screen")
        screen = app.screen
        table = screen.query_one("#usage-table", DataTable)
        await wait_until(pilot, lambda: table.row_count == len(stats), what="one row per record")
        rows = [table.get_row_at(n) for n in range(table.row_count)]
        frequencies = [float(row[4]) for row in rows]
        assert frequencies == sorted(frequencies, reverse=True)  # by frequency first
        heroku = next(row for row in rows if row[0] == "howto-deploy-heroku")
        assert int(heroku[2]) == next(s.invokes for s in stats if s.slug == "howto-deploy-heroku") >= 3
        assert sum(screen.query_one("#usage-chart", Sparkline).data) == summary.invokes
        caption = str(screen.query_one("#usage-chart-caption", Static).render())
        assert f"{summary.invokes} invokes" in caption
        await pilot.press("s")
        assert screen.sort == SORTS[1] and table.border_title == "Records by invokes"
        invokes = [int(table.get_row_at(n)[2]) for n in range(table.row_count)]
        assert invokes == sorted(invokes, reverse=True)
        await pilot.press("s", "s")
        assert screen.sort == "record"
        names = [(table.get_row_at(n)[1], table.get_row_at(n)[0]) for n in range(table.row_count)]
        assert names == sorted(names)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, UsageScreen), what="back to the main screen")


async def test_a_rejection_in_review_stays_rejected_and_can_be_withdrawn(demo_root: Path, make_test_app,
                                                                          wait_until) -> None:
    """Issue 25: the next GC review lists the rejected drop as held back (not decidable); ``w``
    withdraws the rejection and the run after proposes it again. Phase 2 likewise."""
    drop = "drop:memory/decisions/cache-invoices-in-redis.md"
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until, key="g")
        await highlight(pilot, wait_until, screen, drop)
        await pilot.press("r")
        await apply_and_wait(app, pilot, wait_until)
        await pilot.press("escape")
        screen = await open_review(app, pilot, wait_until, key="g")
        assert drop not in screen.decisions
        held = screen.by_id[f"held:{drop}"]
        assert not held.decidable and held.rejection and "earlier review" in held.why
        await highlight(pilot, wait_until, screen, held.id)
        await pilot.press("w")
        await wait_until(pilot, lambda: held.state == "withdrawn", what="the withdrawal")
        assert not list((demo_root / ".yoi/review/gc").glob("*.json"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen.id == "discard-confirm", what="discard confirmation")
        await pilot.press("y")
        screen = await open_review(app, pilot, wait_until, key="g")
        assert drop in screen.decisions


async def test_a_phase2_rejection_is_held_back_in_the_next_review(demo_root: Path, make_test_app,
                                                                  wait_until) -> None:
    """The rejected decision's staging is consumed; the same items extracted again (Phase 1
    ``--force`` writes them under a new staging id) are listed as held back, not proposed."""
    import json

    staging1 = demo_root / f"memory/_staging/{STAGING_1}.json"
    original = json.loads(staging1.read_text())
    app = make_test_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, wait_until)
        await pilot.press("a", "r", "d")  # knowledge accepted, decision rejected, request deferred
        await apply_and_wait(app, pilot, wait_until)
        await pilot.press("escape")
        again = "019b8a10-0000-7000-8000-0000000000ff"
        (demo_root / f"memory/_staging/{again}.json").write_text(json.dumps({**original, "id": again}))
        screen = await open_review(app, pilot, wait_until)
        assert DECISION not in screen.by_id and REQUEST in screen.decisions
        held = [i for i in screen.items if i.id.startswith("held:")]
        assert held and {i.label for i in held} == {f"held: {DECISION}"}
        assert all(not i.decidable and i.rejection for i in held)
