"""Usage metrics (SPEC 6): event log, token clock, frequency arithmetic on hand-computed examples,
protection, the candidate report, malformed lines, session ids, and ``yoi usage``."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import decision_meta, knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage import log as usage
from yoi_tui.core.usage.log import (
    UsageError,
    candidate_report,
    collapse_sessions,
    compute_stats,
    current_session_id,
    estimate_tokens,
    frequencies_for_lint,
    load_events,
    record_event,
    record_inject,
    record_invoke,
    record_stats,
    record_tokens,
    usage_report,
    window_frequency,
)

DEFAULTS = {"window": 10, "floor": 100_000, "protect_threshold": 1.0, "candidate_min_invokes": 2,
            "candidate_min_sessions": 2}


def v7(ms: int, seq: int = 0) -> str:
    """A UUIDv7 whose time is ``ms``: ids with larger ``(ms, seq)`` sort later."""
    value = (ms << 80) | (0x7 << 76) | ((seq & 0xFFF) << 64) | (0b10 << 62)
    return str(uuid.UUID(int=value))


class Seq:
    """Builds an event list in order, the way load_events returns it."""

    def __init__(self) -> None:
        self.ms = 0
        self.events: list[dict[str, Any]] = []

    def _add(self, session: str, **fields: Any) -> None:
        self.ms += 1
        self.events.append({"id": v7(self.ms), "session_id": session, **fields})

    def tokens(self, n: int, session: str = "s1") -> Seq:
        self._add(session, type="tokens", input_tokens=n)
        return self

    def invoke(self, slug: str, kind: str = "knowledge", session: str = "s1", times: int = 1) -> Seq:
        for _ in range(times):
            self._add(session, type="invoke", slug=slug, record_kind=kind, via="search")
        return self


def stats_of(events: list[dict[str, Any]], **overrides: Any) -> dict[str, usage.RecordStat]:
    params = {**DEFAULTS, **overrides}
    stats, _ = compute_stats(events, **params)
    return {s.slug: s for s in stats}


# ----------------------------------------------------------------------------- pure arithmetic


def test_window_frequency_basics() -> None:
    assert window_frequency([], 1_000_000, window=10, floor=100_000) == 0.0
    # one invoke at clock 0, clock now 2M: 1 / 2M tokens = 0.5 per Mtoken
    assert window_frequency([0], 2_000_000, window=10, floor=100_000) == pytest.approx(0.5)


def test_denominator_floor() -> None:
    # one invoke, then 50k tokens: elapsed 50k is below the 100k floor -> 1 / 100k * 1M = 10
    s = stats_of(Seq().invoke("a").tokens(50_000).events)
    assert s["a"].frequency == pytest.approx(10.0)
    # a burst of 5 invokes with no tokens at all: 5 / floor = 50, not infinity
    s = stats_of(Seq().invoke("burst", times=5).events)
    assert s["burst"].frequency == pytest.approx(50.0)
    # the floor is configurable
    s = stats_of(Seq().invoke("a").tokens(50_000).events, floor=1)
    assert s["a"].frequency == pytest.approx(20.0)


def test_window_starts_at_tenth_most_recent_invoke() -> None:
    # invokes 1 and 2 at clock 0; invokes 3..12 each after another 100k tokens (clock 100k..1M);
    # then 200k more tokens: now = 1.2M.
    seq = Seq().invoke("b", times=2)
    for _ in range(10):
        seq.tokens(100_000).invoke("b")
    seq.tokens(200_000)
    s = stats_of(seq.events)
    # window = invokes 3..12, began at clock 100k: 10 / (1.2M - 100k) * 1M = 9.0909...
    assert s["b"].frequency == pytest.approx(10 / 1.1)
    assert s["b"].invokes == 12
    # whole history would have given 12 / 1.2M = 10.0; a window of 3 gives 3 / (1.2M - 800k) = 7.5
    assert stats_of(seq.events, window=3)["b"].frequency == pytest.approx(7.5)


def test_fewer_invokes_than_window_start_at_first() -> None:
    seq = Seq().tokens(100_000).invoke("c").tokens(300_000).invoke("c").tokens(600_000)
    # first invoke at 100k, now 1M: 2 / 900k * 1M
    assert stats_of(seq.events)["c"].frequency == pytest.approx(2 / 0.9)


def test_protection_threshold_is_inclusive() -> None:
    exactly = Seq().invoke("p").tokens(1_000_000).events  # 1 / 1M = 1.0
    below = Seq().invoke("p").tokens(1_000_001).events  # 0.999999
    assert stats_of(exactly)["p"].protected is True
    assert stats_of(below)["p"].protected is False
    assert stats_of(below, protect_threshold=0.5)["p"].protected is True


def test_clock_counts_tokens_from_every_session_in_id_order() -> None:
    seq = Seq().tokens(1_000_000, session="other").invoke("x", session="mine").tokens(1_000_000, session="other")
    # the invoke sits at clock 1M (ordered after the first tick), now = 2M: 1 / 1M = 1.0
    assert stats_of(seq.events)["x"].frequency == pytest.approx(1.0)


def test_collapse_sessions() -> None:
    assert collapse_sessions([]) == []
    assert collapse_sessions(["a", "a", "a", "b", "b", "a"]) == [0, 3, 5]


def test_candidate_report_collapses_consecutive_same_session_invokes() -> None:
    seq = (Seq()
           .invoke("hot", "decision", session="s1", times=5)        # clock 0
           .tokens(100_000, session="s1")
           .invoke("hot", "decision", session="s2")                 # clock 100k
           .invoke("lonely", "decision", session="s1", times=3)     # clock 100k, one session only
           .invoke("summary", "summary", session="s1")
           .invoke("summary", "summary", session="s2")
           .tokens(900_000, session="s2"))                          # now = 1M
    s = stats_of(seq.events)
    hot = s["hot"]
    assert (hot.invokes, hot.collapsed_invokes, hot.sessions) == (6, 2, 2)
    assert hot.frequency == pytest.approx(6.0)             # 6 invokes since clock 0 over 1M
    assert hot.candidate_frequency == pytest.approx(2.0)   # collapsed: s1 once, s2 once
    assert hot.candidate is True
    lonely = s["lonely"]
    assert lonely.frequency == pytest.approx(3 / 0.9) and lonely.protected is True
    assert lonely.candidate is False                       # one session is never enough
    assert s["summary"].sessions == 2 and s["summary"].candidate is False  # the summary is never a candidate
    # three invokes needed: raw 6 would pass, the collapsed 2 do not
    assert stats_of(seq.events, candidate_min_invokes=3)["hot"].candidate is False
    assert stats_of(seq.events, candidate_min_sessions=3)["hot"].candidate is False
    # SPEC §6's frequency floor, off by default, applies to the collapsed frequency when set
    assert stats_of(seq.events, candidate_threshold=2.0)["hot"].candidate is True
    assert stats_of(seq.events, candidate_threshold=2.5)["hot"].candidate is False


def test_candidate_threshold_from_config_decides_the_report(tmp_path: Path) -> None:
    """``usage.candidate_threshold`` set above a record's candidate frequency keeps it off the
    report Phase 2 reads; the default (0, off) lets the counts alone decide."""
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/hot.md", decision_meta(), "# Hot\n")
    for session in ("s1", "s2"):
        record_invoke(ws, "hot", "decision", "search", session_id=session)
    record_tokens(ws, 1_000_000, session_id="s2")
    assert [s.slug for s in candidate_report(ws)] == ["hot"]
    config = ws.root / ".yoi" / "config.toml"
    text = config.read_text(encoding="utf-8")
    assert "\n[usage]\n" in text
    config.write_text(text.replace("\n[usage]\n", "\n[usage]\ncandidate_threshold = 5.0\n"), encoding="utf-8")
    assert candidate_report(Workspace(ws.root)) == []


def test_alternating_sessions_are_not_collapsed() -> None:
    seq = Seq().invoke("alt", session="a").invoke("alt", session="b").invoke("alt", session="a")
    seq.tokens(1_000_000)
    s = stats_of(seq.events)["alt"]
    assert s.collapsed_invokes == 3 and s.candidate_frequency == pytest.approx(3.0)


def test_a_candidate_stays_one_when_another_clones_heavy_session_is_merged_in() -> None:
    """Clone A's view: two sessions invoked the decision within 200k tokens. Clone B ran a 5M-token
    session in between that A has not pulled yet. The windowed frequency falls from 10 to 0.4 per
    Mtoken once B's file is merged in; the candidate report, counted, says the same in both views."""
    seq = (Seq()
           .invoke("pick", "decision", session="a1")
           .tokens(100_000, session="a1")
           .tokens(5_000_000, session="b1")   # clone B's session, not yet in clone A
           .invoke("pick", "decision", session="a2")
           .tokens(100_000, session="a2"))
    in_a = [e for e in seq.events if e["session_id"] != "b1"]
    alone, merged = stats_of(in_a)["pick"], stats_of(seq.events)["pick"]
    assert alone.candidate_frequency == pytest.approx(10.0) and merged.candidate_frequency < 1.0
    assert alone.candidate is True and merged.candidate is True


_USE = st.tuples(st.sampled_from(["tokens", "invoke", "invoke"]), st.sampled_from(["a1", "a2", "b1", "b2"]),
                 st.sampled_from(["x", "y"]), st.sampled_from([0, 50_000, 5_000_000]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_USE, max_size=40), st.lists(st.booleans(), min_size=40, max_size=40), st.integers(1, 4),
       st.integers(1, 3))
def test_more_usage_never_takes_a_record_off_the_candidate_report(
        uses: list[tuple[str, str, str, int]], seen: list[bool], min_invokes: int, min_sessions: int) -> None:
    """Whatever part of the merged usage a clone had pulled (any subset of the events), every record
    that was a candidate there is one in the merged usage: promotion decided from a clone's partial
    view is never one the full view would refuse (docs/team.md#one-content-whatever-the-push-order)."""
    seq = Seq()
    for kind, session, slug, tokens in uses:
        if kind == "tokens":
            seq.tokens(tokens, session=session)
        else:
            seq.invoke(slug, "decision", session=session)
    part = [event for event, kept in zip(seq.events, seen, strict=False) if kept]
    params = {"candidate_min_invokes": min_invokes, "candidate_min_sessions": min_sessions}
    partial = {slug for slug, stat in stats_of(part, **params).items() if stat.candidate}
    merged = {slug for slug, stat in stats_of(seq.events, **params).items() if stat.candidate}
    assert partial <= merged


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("請求書") == 3


# ----------------------------------------------------------------------------- writing and reading files


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return make_ws(tmp_path)


def test_events_round_trip(ws: Workspace) -> None:
    record_invoke(ws, "tenant", "knowledge", "search", session_id="s1")
    record_tokens(ws, 1234, session_id="s1")
    record_inject(ws, ["tenant", "money"], 88, session_id="s2")
    record_event(ws, {"type": "invoke", "slug": "use-pg", "record_kind": "decision", "via": "workflow"},
                 session_id="s2")
    lines = (ws.usage_dir / "s1.jsonl").read_text().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert list(first) == ["id", "type", "slug", "record_kind", "via"]
    assert uuid.UUID(first["id"]).version == 7
    events, problems = load_events(ws)
    assert problems == []
    assert [e["type"] for e in events] == ["invoke", "tokens", "inject", "invoke"]
    assert [e["session_id"] for e in events] == ["s1", "s1", "s2", "s2"]
    assert events == sorted(events, key=lambda e: e["id"])


def test_bad_values_are_refused(ws: Workspace) -> None:
    with pytest.raises(UsageError):
        record_tokens(ws, -1, session_id="s")
    with pytest.raises(UsageError):
        record_tokens(ws, True, session_id="s")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="via"):
        record_invoke(ws, "x", "knowledge", "telepathy", session_id="s")
    with pytest.raises(UsageError, match="record_kind"):
        record_invoke(ws, "x", "wiki", "search", session_id="s")
    with pytest.raises(UsageError, match="type"):
        record_event(ws, {"type": "party"}, session_id="s")
    for bad in ("../x", ".hidden", "a/b", "x" * 200, "s.lock"):
        with pytest.raises(UsageError, match="bad session id"):
            record_tokens(ws, 1, session_id=bad)
    assert record_tokens(ws, 0, session_id="s") is None
    assert not (ws.usage_dir / "s.jsonl").exists()


def test_session_id_from_env_else_one_per_process(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YOI_SESSION_ID", raising=False)
    generated = current_session_id()
    assert current_session_id() == generated and uuid.UUID(generated).version == 7
    monkeypatch.setenv("YOI_SESSION_ID", "claude-abc123")
    assert current_session_id() == "claude-abc123"
    record_tokens(ws, 5)
    assert (ws.usage_dir / "claude-abc123.jsonl").exists()
    monkeypatch.setenv("YOI_SESSION_ID", "bad/id")
    with pytest.raises(UsageError):
        current_session_id()


def test_each_cli_process_is_its_own_session_without_env(ws: Workspace) -> None:
    env = {"YOI_SESSION_ID": ""}
    for _ in range(2):
        done = run_yoi("usage", "record-tokens", "10", "-w", str(ws.root), env=env)
        assert done.returncode == 0, done.stderr
    assert len(list(ws.usage_dir.glob("*.jsonl"))) == 2


def test_malformed_lines_are_reported_and_skipped(ws: Workspace) -> None:
    good = {"id": v7(10), "type": "tokens", "input_tokens": 500}
    lines = [
        json.dumps(good),
        "",                                                               # blank: ignored
        "{not json",                                                      # 3
        "[1, 2]",                                                         # 4
        json.dumps({"type": "tokens", "input_tokens": 1}),                # 5 no id
        json.dumps({"id": "nope", "type": "tokens", "input_tokens": 1}),  # 6
        json.dumps({"id": str(uuid.uuid4()), "type": "tokens", "input_tokens": 1}),  # 7 not v7
        json.dumps({"id": v7(11), "type": "party"}),                      # 8
        json.dumps({"id": v7(12), "type": "invoke", "slug": "x", "record_kind": "knowledge"}),  # 9 no via
        json.dumps({"id": v7(13), "type": "tokens", "input_tokens": -5}),  # 10
        json.dumps({"id": v7(14), "type": "inject", "slugs": "x", "tokens": 1}),  # 11
        json.dumps(good),                                                 # 12 duplicate id
        json.dumps({"id": v7(15), "type": "invoke", "slug": "x", "record_kind": "knowledge", "via": "slug"}),
        '{"id": "' + v7(16) + '", "type": "tok',                          # 14 torn, no newline
    ]
    (ws.usage_dir / "s1.jsonl").write_text("\n".join(lines), encoding="utf-8")
    (ws.usage_dir / "s2.jsonl").write_bytes(b"\xff\xfe garbage\n")
    events, problems = load_events(ws)
    assert [e["id"] for e in events] == [v7(10), v7(15)]
    where = sorted((p.path, p.line) for p in problems)
    assert where == [(".yoi/usage/s1.jsonl", n) for n in (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14)] + \
        [(".yoi/usage/s2.jsonl", 1)]
    assert all(p.rule == "usage-malformed" and p.severity == "warning" for p in problems)
    stats, summary = usage_report(ws)
    assert summary.clock == 500 and len(summary.problems) == 12


def _reference_lines(data: bytes) -> tuple[list[Any], list[tuple[int, str]]]:
    """What each line of a usage file gives when read as first written: ``json.loads`` of its bytes."""
    objects: list[Any] = []
    problems: list[tuple[int, str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            problems.append((number, f"not valid JSON ({str(exc).splitlines()[0][:80]})"))
            continue
        reason = usage._check_event(obj)
        if reason is not None:
            problems.append((number, reason))
        else:
            objects.append(obj["id"])
    return objects, problems


_line_parts = st.sampled_from([
    '{"id": "%s", "type": "tokens", "input_tokens": 5}', '{"id": "%s", "type": "tokens"', "[1, 2]", "  ", "\t",
    "\x0c", "\ufeff", "\x00", "\u00e9", "\U0001f600", '"\\ud800"', "{", "}", " ", "\r", "\x0b", "1 2", "null",
])


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.lists(_line_parts, max_size=3), max_size=8), bad_byte=st.booleans())
def test_usage_lines_read_as_json_loads_reads_each_line(tmp_path_factory: pytest.TempPathFactory,
                                                        lines: list[list[str]], bad_byte: bool) -> None:
    """A file of plain UTF-8 is parsed as text (no per-line encoding detection): every line still
    gives what ``json.loads`` of its bytes gives — the same events, the same problems on the same
    lines — with byte-order marks, NULs, odd spaces and invalid UTF-8 among them."""
    texts = []
    for number, parts in enumerate(lines):
        texts.append("".join(part % v7(number + 1) if "%s" in part else part for part in parts))
    data = "\n".join(texts).encode("utf-8", "surrogatepass") + (b"\n\xff\n" if bad_byte else b"")
    ws = make_ws(tmp_path_factory.mktemp("usage"))
    (ws.usage_dir / "s1.jsonl").write_bytes(data)
    events, problems = load_events(ws)
    expected_ids, expected_problems = _reference_lines(data)
    duplicates = {(p.line, p.message) for p in problems if p.message.startswith("duplicate event id")}
    assert [e["id"] for e in events] == [i for i in expected_ids if i in {e["id"] for e in events}]
    assert sorted((p.line, p.message.removesuffix("; line skipped")) for p in problems
                  if (p.line, p.message) not in duplicates) == sorted(expected_problems)


def test_append_after_torn_line_keeps_the_new_event(ws: Workspace) -> None:
    path = ws.usage_dir / "s1.jsonl"
    path.write_text('{"id": "' + v7(1) + '", "type": "tok', encoding="utf-8")  # writer killed mid-line
    record_invoke(ws, "tenant", "knowledge", "search", session_id="s1")
    events, problems = load_events(ws)
    assert [e["slug"] for e in events] == ["tenant"]
    assert [p.line for p in problems] == [1]


def test_record_stats_and_lint_frequencies_from_files(ws: Workspace) -> None:
    write_record(ws, "knowledge/tenant.md", knowledge_meta())
    write_record(ws, "knowledge/unused.md", knowledge_meta())
    write_record(ws, "memory/decisions/use-pg.md", decision_meta())
    record_invoke(ws, "tenant", "knowledge", "search", session_id="a")
    record_invoke(ws, "use-pg", "decision", "slug", session_id="a")
    record_invoke(ws, "gone", "knowledge", "slug", session_id="b")
    record_tokens(ws, 400_000, session_id="a")
    record_invoke(ws, "tenant", "knowledge", "expand", session_id="b")
    record_tokens(ws, 600_000, session_id="b")
    stats = {(s.kind, s.slug): s for s in record_stats(ws)}
    # tenant: invokes at clock 0 and 400k, now 1M -> 2 / 1M
    assert stats[("knowledge", "tenant")].frequency == pytest.approx(2.0)
    assert stats[("knowledge", "tenant")].sessions == 2
    assert stats[("knowledge", "unused")].invokes == 0 and stats[("knowledge", "unused")].protected is False
    assert stats[("knowledge", "gone")].exists is False
    assert stats[("decision", "use-pg")].frequency == pytest.approx(1.0)
    assert [s.slug for s in candidate_report(ws)] == ["tenant"]
    freqs = frequencies_for_lint(ws)
    assert freqs[("knowledge", "tenant")] == pytest.approx(2.0)
    assert freqs[("decision", "use-pg")] == pytest.approx(1.0)


def test_lint_compressible_uses_usage(ws: Workspace) -> None:
    body = "\n" + "Long knowledge body line.\n" * 250  # ~6,500 of the 8,000 cap: above 60%
    write_record(ws, "knowledge/big-used.md", knowledge_meta(), body)
    write_record(ws, "knowledge/big-unused.md", knowledge_meta(), body)
    for session in ("a", "b"):
        record_invoke(ws, "big-used", "knowledge", "search", session_id=session)
    done = run_yoi("lint", "--format", "json", "-w", str(ws.root))
    rules = {(d["path"], d["rule"]) for d in json.loads(done.stdout)}
    assert ("knowledge/big-unused.md", "compressible") in rules
    assert ("knowledge/big-used.md", "compressible") not in rules


# ----------------------------------------------------------------------------- CLI


def test_cli_usage_table_json_candidates(ws: Workspace) -> None:
    write_record(ws, "knowledge/tenant.md", knowledge_meta())
    write_record(ws, "knowledge/unused.md", knowledge_meta())
    for session in ("a", "b"):
        record_invoke(ws, "tenant", "knowledge", "search", session_id=session)
    done = run_yoi("usage", "record-tokens", "500000", "--session", "a", "-w", str(ws.root))
    assert done.returncode == 0, done.stderr
    (ws.usage_dir / "broken.jsonl").write_text("oops\n", encoding="utf-8")

    done = run_yoi("usage", "-w", str(ws.root))
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0].split()
    assert header == ["slug", "kind", "invokes", "sessions", "freq/Mtok", "protected"]
    row = next(line for line in done.stdout.splitlines() if line.startswith("tenant"))
    assert row.split() == ["tenant", "knowledge", "2", "2", "4.00", "yes"]  # 2 / 500k
    assert "unused" not in done.stdout
    assert "clock: 500,000 input tokens" in done.stdout
    assert ".yoi/usage/broken.jsonl:1" in done.stderr

    assert "unused" in run_yoi("usage", "--all", "-w", str(ws.root)).stdout

    data = json.loads(run_yoi("usage", "--json", "-w", str(ws.root)).stdout)
    assert data["clock"] == 500_000 and data["sessions"] == 2  # broken.jsonl has no valid event
    (rec,) = data["records"]
    assert (rec["slug"], rec["invokes"], rec["protected"]) == ("tenant", 2, True)
    assert data["problems"][0]["path"] == ".yoi/usage/broken.jsonl"

    cands = json.loads(run_yoi("usage", "--candidates", "--json", "-w", str(ws.root)).stdout)
    assert [r["slug"] for r in cands["records"]] == ["tenant"]
    text = run_yoi("usage", "--candidates", "-w", str(ws.root)).stdout
    assert "cand. freq" in text


def test_cli_record_tokens_errors(ws: Workspace) -> None:
    done = run_yoi("usage", "record-tokens", "-5", "--session", "a", "-w", str(ws.root))
    assert done.returncode == 2 and "input_tokens" in done.stderr and "Traceback" not in done.stderr
    done = run_yoi("usage", "record-tokens", "5", "--session", "a b", "-w", str(ws.root))
    assert done.returncode == 2 and "bad session id" in done.stderr
    done = run_yoi("usage", "-w", str(ws.root), "--json", "record-tokens", "7", "--session", "z")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["event"]["input_tokens"] == 7


def test_append_waits_for_the_lock(ws: Workspace) -> None:
    import fcntl
    import threading

    path = ws.usage_dir / "s1.jsonl"
    path.touch()
    with open(path, "rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        writer = threading.Thread(target=record_tokens, args=(ws, 5), kwargs={"session_id": "s1"})
        writer.start()
        writer.join(0.3)
        assert path.read_bytes() == b""  # still waiting for our lock
        fcntl.flock(holder.fileno(), fcntl.LOCK_UN)
    writer.join(30)
    events, _ = load_events(ws)
    assert [e["input_tokens"] for e in events] == [5]


def test_append_without_lock_still_writes(ws: Workspace, monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(usage, "_flock", lambda fd: False)
    record_tokens(ws, 5, session_id="s1")
    assert "could not lock" in caplog.text
    events, _ = load_events(ws)
    assert [e["input_tokens"] for e in events] == [5]


def _uuid_verdict(event_id: str) -> bool:
    import uuid

    try:
        return uuid.UUID(event_id).version == 7
    except ValueError:
        return False


@settings(max_examples=600, deadline=None)
@given(st.one_of(
    st.uuids().map(str), st.uuids().map(lambda u: str(u).upper()), st.uuids().map(lambda u: "{" + str(u) + "}"),
    st.builds(lambda u, c, i: (str(u)[:i] + c + str(u)[i + 1:]), st.uuids(), st.sampled_from("7789abAB-x\n "),
              st.integers(0, 35)),
    st.builds(lambda u: str(u)[:14] + "7" + str(u)[15:], st.uuids()),
    st.builds(lambda u, v: str(u)[:14] + "7" + str(u)[15:19] + v + str(u)[20:], st.uuids(), st.sampled_from("0123456789abcdefABCDEF")),
    st.text(max_size=40)))
def test_event_ids_are_judged_as_uuid_judges_them(event_id: str) -> None:
    # _check_event answers canonical UUIDv7 ids by a pattern: the verdict must be uuid.UUID's.
    from yoi_tui.core.usage.log import _check_event

    reason = _check_event({"id": event_id, "type": "tokens", "input_tokens": 1})
    assert (reason is None) == _uuid_verdict(event_id), (event_id, reason)


_EVENT = st.one_of(
    st.builds(lambda n: {"type": "tokens", "input_tokens": n}, st.integers(0, 5000)),
    st.builds(lambda k, s, sess: {"type": "invoke", "record_kind": k, "slug": s, "via": "slug", "session_id": sess,
                                  "id": "0"},
              st.sampled_from(["knowledge", "decision"]), st.sampled_from(["a", "b", "c"]), st.sampled_from(["s1", "s2"])),
    st.builds(lambda t: {"type": "inject", "slugs": ["a"], "tokens": t}, st.integers(0, 100)))


@settings(max_examples=300, deadline=None)
@given(st.lists(_EVENT, max_size=60), st.integers(1, 6), st.integers(1, 3000))
def test_lint_frequencies_are_compute_stats_frequencies(events: list[dict[str, Any]], window: int, floor: int) -> None:
    # The cold lint's usage pass keeps only the frequencies: the same numbers as the full statistics.
    stats, _summary = compute_stats(events, window=window, floor=floor, protect_threshold=1.0,
                                    candidate_min_invokes=1, candidate_min_sessions=1)
    assert usage.invoke_frequencies(events, window=window, floor=floor) == {(s.kind, s.slug): s.frequency
                                                                             for s in stats}


def test_the_candidate_report_is_the_candidates_of_every_records_stats(tmp_path: Path) -> None:
    """Only invoked records are looked at for candidates (a record never invoked came from no
    session): the same candidates, in the same order, as filtering every record's stats."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import generate  # bench/generate.py: records and a usage log with invokes from many sessions

    root = tmp_path / "gen"
    generate.generate(400, root, seed=3)
    ws = Workspace(root)
    every = sorted((s for s in record_stats(ws) if s.candidate),
                   key=lambda s: (-s.candidate_frequency, s.kind, s.slug))
    assert every and candidate_report(ws) == every
