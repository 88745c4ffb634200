"""Phase 1 reads a log as a stream (issue 26): the same entries, problems and staging as reading it
whole, and memory that does not grow with the log."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import make_ws

from yoi_tui.core.phase1.runner import RulesEngine, run_session
from yoi_tui.core.sessions.detect import load_session, stream_session
from yoi_tui.core.sessions.model import Entry, SessionLogError

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "tests" / "data" / "samples").glob("*.jsonl"))
BENCH = sorted((ROOT / "bench" / "extraction" / "sessions").glob("*.jsonl"))


def _streamed(path: Path) -> tuple[list[Entry], object]:
    entries: list[Entry] = []
    parsed = stream_session(path, entries.append)
    return entries, parsed


@pytest.mark.parametrize("path", SAMPLES + BENCH, ids=lambda p: p.stem[:60])
def test_stream_session_gives_the_entries_id_and_problems_of_load_session(path: Path) -> None:
    whole = load_session(path)
    entries, parsed = _streamed(path)
    assert entries == whole.entries
    assert (parsed.session_id, parsed.format, parsed.problems, parsed.parent_session_id) == \
        (whole.session_id, whole.format, whole.problems, whole.parent_session_id)
    assert parsed.entries == []


def test_stream_session_reports_bad_lines_like_load_session(tmp_path: Path) -> None:
    sample = next(p for p in SAMPLES if "agtrace_claude" in p.name)
    lines = sample.read_bytes().split(b"\n")
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(b"\xef\xbb\xbf" + lines[0] + b"\r\n" + b"not json\n" + b"[1, 2]\n\n" + lines[1]
                        + b"\xff\xfe\n" + b"\n".join(lines[2:-1]) + b"\n" + lines[3][: len(lines[3]) // 2])
    whole = load_session(hostile)
    entries, parsed = _streamed(hostile)
    assert entries == whole.entries and parsed.problems == whole.problems
    assert {p.message.split(" (")[0] for p in parsed.problems} >= {"invalid JSON", "not a JSON object; skipped",
                                                                  "invalid UTF-8 bytes replaced with U+FFFD"}
    assert any("truncated last line" in p.message for p in parsed.problems)
    for name, content in (("empty.jsonl", b"  \n\n"), ("junk.jsonl", b"hello\nworld\n")):
        bad = tmp_path / name
        bad.write_bytes(content)
        if name == "empty.jsonl":
            assert _streamed(bad)[1].format == load_session(bad).format == "empty"  # type: ignore[attr-defined]
        else:
            with pytest.raises(SessionLogError) as streamed_error:
                _streamed(bad)
            with pytest.raises(SessionLogError) as whole_error:
                load_session(bad)
            assert streamed_error.value.message == whole_error.value.message
    with pytest.raises(SessionLogError):
        _streamed(tmp_path)  # a directory


def _staging(ws_root: Path) -> list[dict[str, object]]:
    found = []
    for path in sorted((ws_root / "memory" / "_staging").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("id"), data.pop("created_at")
        found.append(data)
    return sorted(found, key=lambda d: json.dumps(d, sort_keys=True))


def test_streamed_and_whole_file_phase1_write_the_same_staging_pointer_and_clock(tmp_path: Path) -> None:
    streamed, whole = make_ws(tmp_path / "a"), make_ws(tmp_path / "b")
    for path in SAMPLES:
        one = run_session(streamed, path, RulesEngine(), force=True)
        other = run_session(whole, path, RulesEngine(), force=True, streaming=False)
        assert (one.status, one.message, one.processed, one.tokens_since_pointer, one.clock_tokens) == \
            (other.status, other.message, other.processed, other.tokens_since_pointer, other.clock_tokens), path
        assert [s.range for s in one.staging] == [s.range for s in other.staging]
        # Read again: nothing new either way, and the clock counts nothing twice.
        again = run_session(streamed, path, RulesEngine(), force=True)
        assert again.status == "nothing-new" and again.clock_tokens == 0
    assert _staging(streamed.root) and _staging(streamed.root) == _staging(whole.root)
    state = [sorted(p.relative_to(ws.state_dir).as_posix() for p in (ws.state_dir / "phase1").rglob("*") if p.is_file())
             for ws in (streamed, whole)]
    assert state[0] == state[1]


def _big(tmp_path: Path, copies: int) -> Path:
    """The largest sample repeated with fresh ids per copy (so no copy is a duplicate of another)."""
    sample = max((p for p in SAMPLES if p.name.startswith("claude-code")), key=lambda p: p.stat().st_size)
    lines = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = tmp_path / f"big-{copies}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            for line in lines:
                line = dict(line)
                for key in ("uuid", "parentUuid"):
                    if isinstance(line.get(key), str):
                        line[key] = f"{line[key]}-{copy}"
                if isinstance(line.get("message"), dict) and "id" in line["message"]:
                    line["message"] = {**line["message"], "id": f"{line['message']['id']}-{copy}"}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def _peak(ws_root: Path, log: Path, *, streaming: bool) -> int:
    ws = make_ws(ws_root)
    tracemalloc.start()
    try:
        run_session(ws, log, RulesEngine(), force=True, streaming=streaming)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streamed_phase1_memory_does_not_grow_with_the_log(tmp_path: Path) -> None:
    # The stream holds one chunk at a time: until a log fills its first chunk (about eight copies of
    # the sample) its peak grows with the log, past it the peak stays flat. So both logs are past it.
    small, large = _big(tmp_path, 8), _big(tmp_path, 32)
    streamed_small = _peak(tmp_path / "s1", small, streaming=True)
    streamed_large = _peak(tmp_path / "s2", large, streaming=True)
    whole_large = _peak(tmp_path / "w2", large, streaming=False)
    # Four times the log: the whole-file read holds about four times as much, the stream about the same.
    assert len(load_session(large).entries) == 4 * len(load_session(small).entries)
    assert streamed_large < 1.5 * streamed_small
    assert whole_large > 3 * streamed_large


@pytest.mark.parametrize("count", [0, 3, 255, 256, 257, 1000])
def test_spool_gives_back_the_entries_after_a_bound_whether_or_not_it_spilled(count: int) -> None:
    from yoi_tui.core.phase1 import spool as spool_module

    with spool_module.EntrySpool() as spool:
        for index in range(count):
            spool.add(Entry(index=index, role="user", text=f"line {index}", input_tokens=index % 3 or None))
        # A log that fits in one batch is never written to disk (the cost of a small log's Phase 1).
        assert (spool._file is None) == (count < spool_module._BATCH)
        assert [e.index for e in spool.entries_after(-1)] == list(range(count))
        assert [e.index for e in spool.entries_after(count // 2)] == list(range(count // 2 + 1, count))
        assert spool.tokens_after(-1) == sum(i % 3 for i in range(count))


def test_rules_engine_forgets_a_chunks_prose_after_reading_it() -> None:
    # The prose and sentences kept while rules read one chunk belong to that chunk: none outlives it,
    # so memory stays bounded by the chunk (the streaming bound), whatever the log's length.
    from yoi_tui.core.phase1 import text
    from yoi_tui.core.phase1.rules_engine import extract_chunk

    entries = [Entry(index=0, role="user", text="Please keep the retry loop, because the API times out."),
               Entry(index=1, role="assistant", text="I'll keep the loop since the API is slow. Done.")]
    extract_chunk(entries, None, last=True)
    assert text.prose.cache_info().currsize == 0
    assert text._sentences.cache_info().currsize == 0
    text.prose("a sentence of its own.")
    assert text.prose.cache_info().currsize == 1
    text.forget_chunk()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab A.!?\n\r\t `\"'(@-*>\x0c\u2028")), max_size=60))
def test_sentences_read_line_by_line_split_as_the_whole_text_would(text: str) -> None:
    # sentences() splits each line on its own for speed (a line break always ends a sentence); what
    # it gives must be what the one look-behind split of the whole text gives.
    from yoi_tui.core.phase1.text import _SENTENCE_RE, sentences

    parts = [" ".join(p.split()) for p in _SENTENCE_RE.split(text)]
    assert sentences(text) == [p.lstrip("-*> ").strip() for p in parts if p and p.strip(" -*>")]
