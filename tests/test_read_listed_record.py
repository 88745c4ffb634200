"""``read_listed_record`` (the cold lint's short way to read a file a listing saw) must give exactly
what ``read_record`` gives, whatever is at the path by the time it is opened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from yoi_tui.core.store.kinds import RecordKind
from yoi_tui.core.store.reader import MAX_RECORD_BYTES, read_listed_record, read_record
from yoi_tui.core.store.workspace import Workspace

GOOD = "---\ncreated_at: 2026-01-05T10:00:00+00:00\nupdated_at: 2026-01-05T10:00:00+00:00\nsources: []\n" \
       "status: open\n---\n\n# Title\n\nBody with #a-ref.\n"


def _cases(root: Path, outside: Path) -> dict[str, Path]:
    folder = root / "memory" / "decisions"
    folder.mkdir(parents=True)
    (outside / "secret.md").write_text(GOOD, encoding="utf-8")
    made: dict[str, Path] = {}

    def file(name: str, data: bytes) -> None:
        made[name] = folder / f"{name}.md"
        made[name].write_bytes(data)

    file("plain", GOOD.encode())
    file("crlf", GOOD.replace("\n", "\r\n").encode())
    file("bom", b"\xef\xbb\xbf" + GOOD.encode())
    file("latin", GOOD.encode() + b"caf\xe9\n")
    file("binary", b"---\n\x00\x01\x02")
    file("empty", b"")
    file("broken", b"---\nkey: [unclosed\n---\nbody\n")
    file("huge", b"---\n" + b"x" * (MAX_RECORD_BYTES + 10))
    made["inside-link"] = folder / "inside-link.md"
    made["inside-link"].symlink_to(made["plain"])
    made["outside-link"] = folder / "outside-link.md"
    made["outside-link"].symlink_to(outside / "secret.md")
    made["dangling"] = folder / "dangling.md"
    made["dangling"].symlink_to(folder / "nowhere.md")
    made["folder"] = folder / "folder.md"
    made["folder"].mkdir()
    made["gone"] = folder / "gone.md"
    if hasattr(os, "mkfifo"):
        made["fifo"] = folder / "fifo.md"
        os.mkfifo(made["fifo"])
    return made


def test_same_result_as_read_record_for_every_kind_of_entry(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    made = _cases(root, outside)
    ws = Workspace(root)
    for name, path in made.items():
        rel = f"memory/decisions/{name}.md"
        listed = read_listed_record(ws, str(path), rel, RecordKind.DECISION)
        assert listed == read_record(ws, path), name
        if listed.record is not None:
            assert listed.record.path == path and isinstance(listed.record.path, Path)
    assert read_listed_record(ws, str(made["outside-link"]), "memory/decisions/outside-link.md",
                              RecordKind.DECISION).record is None  # never read through a link out of the workspace


def test_a_record_keeps_its_path_as_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "knowledge").mkdir(parents=True)
    target = root / "knowledge" / "k.md"
    target.write_text("---\nkind: fact\n---\nbody\n", encoding="utf-8")
    record = read_listed_record(Workspace(root), str(target), "knowledge/k.md", RecordKind.KNOWLEDGE).record
    assert record is not None and record.slug == "k" and record.rel == "knowledge/k.md"
    assert record.path == target and record.path.parent == target.parent


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW: every read goes through read_record")
def test_a_file_swapped_for_a_link_after_the_listing_is_not_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "knowledge").mkdir(parents=True)
    outside.mkdir()
    (outside / "private.md").write_text("---\nkind: fact\n---\nprivate\n", encoding="utf-8")
    path = root / "knowledge" / "k.md"
    path.symlink_to(outside / "private.md")  # what the listing saw as a file is a link by now
    result = read_listed_record(Workspace(root), str(path), "knowledge/k.md", RecordKind.KNOWLEDGE)
    assert result.record is None and [d.rule for d in result.diagnostics] == ["file-unreadable"]
    assert "outside the workspace" in result.diagnostics[0].message


@pytest.mark.parametrize("text", [
    GOOD, "---\n---\n", "---\n---", "---\n\n---\nbody", "---\nkind: fact\n...\nbody\n", "---\na: b\n---\na: b\n",
    "---\nkind: fact\n---   \n\n\nbody\n---\nkind: x\n---\n", "---\nkind: fact\n---\n", "---\nk: v\n---\nb\n\n",
])
def test_a_parsed_record_is_the_record_its_parts_make(text: str) -> None:
    # LF records are built from positions in their text: the same record as the parts give.
    from yoi_tui.core.store.records import Record, parse_record_text

    record, _diags = parse_record_text(text, kind=RecordKind.KNOWLEDGE, path="/ws/knowledge/k.md",
                                       rel="knowledge/k.md")
    assert record is not None
    close = text.split("\n").index(next(line for line in text.split("\n")[1:] if line.rstrip() in ("---", "...")), 1)
    lines = text.split("\n")
    assert record.frontmatter_lines == lines[1:close] and record.body == "\n".join(lines[close + 1:])
    built = Record.from_parts(kind=record.kind, slug=record.slug, path=Path("/ws/knowledge/k.md"), rel=record.rel,
                              meta=record.meta, body=record.body, text=text, key_lines=record.key_lines,
                              frontmatter_lines=lines[1:close], body_line=record.body_line)
    assert built == record and record.path == Path("/ws/knowledge/k.md")


@pytest.mark.parametrize("reported", [0, 5, len(GOOD) - 1, len(GOOD) + 1, 10 * len(GOOD)])
def test_the_whole_file_is_read_whatever_size_fstat_gave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         reported: int) -> None:
    # One read when the file is as long as fstat said; a file that grew or shrank since is read to its end.
    root = tmp_path / "ws"
    path = root / "memory" / "decisions" / "d.md"
    path.parent.mkdir(parents=True)
    path.write_text(GOOD, encoding="utf-8")
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        st = real(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, reported,
                               st.st_atime, st.st_mtime, st.st_ctime))

    monkeypatch.setattr(os, "fstat", fstat)
    record = read_listed_record(Workspace(root), str(path), "memory/decisions/d.md", RecordKind.DECISION).record
    assert record is not None and record.text == GOOD
