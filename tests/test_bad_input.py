"""Bad input: one clear diagnostic naming the file, no traceback, no change to the file, no hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.store.writer import new_record_text

GOOD = new_record_text(decision_meta(), "\nBody.\n")
BILLION_LAUGHS = (
    "---\n" + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
              f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n" for i in range(8))
    + "---\n"
)


def _bytes_case(data: bytes):
    def make(ws: Workspace, path: Path) -> None:
        path.write_bytes(data)
    return make


def _big(ws: Workspace, path: Path) -> None:
    with path.open("wb") as handle:
        handle.write(GOOD.encode())
        handle.truncate(50 * 1024 * 1024)


def _symlink_out(ws: Workspace, path: Path) -> None:
    outside = ws.root.parent / "outside.md"
    outside.write_text(GOOD)
    path.symlink_to(outside)


def _unreadable(ws: Workspace, path: Path) -> None:
    path.write_text(GOOD)
    os.chmod(path, 0)


def _folder(ws: Workspace, path: Path) -> None:
    path.mkdir()
    (path / "inner.txt").write_text("x")


CASES = {
    "non-utf8": (_bytes_case(GOOD.encode().replace(b"Body", b"B\xff\xfedy")), "file-unreadable", "not UTF-8"),
    "bom": (_bytes_case(b"\xef\xbb\xbf" + GOOD.encode()), "encoding", "byte order mark"),
    "crlf": (_bytes_case(GOOD.replace("\n", "\r\n").encode()), "encoding", "CRLF"),
    "empty": (_bytes_case(b""), "frontmatter-invalid", "empty file"),
    "binary": (_bytes_case(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))), "file-unreadable", "binary"),
    "50mb": (_big, "file-unreadable", "MiB"),
    "symlink-out": (_symlink_out, "file-unreadable", "outside the workspace"),
    "folder": (_folder, "file-unreadable", "folder named like a record"),
    "billion-laughs": (_bytes_case(BILLION_LAUGHS.encode()), "frontmatter-invalid", "aliases"),
    "two-frontmatter": (_bytes_case((GOOD.replace("\nBody.\n", "") + "---\nstatus: resolved\n---\nBody\n").encode()),
                        "frontmatter-invalid", "more than one frontmatter block"),
    "tabs": (_bytes_case(GOOD.replace("status: open", "status:\n\t- open").encode()), "frontmatter-invalid", "tab"),
    "naive-date": (_bytes_case(GOOD.replace("+00:00", "", 1).encode()), "field-type", "no UTC offset"),
    "unclosed": (_bytes_case(b"---\nstatus: open\n"), "frontmatter-invalid", "not closed"),
    "not-mapping": (_bytes_case(b"---\n- a\n- b\n---\n"), "frontmatter-invalid", "not a mapping"),
    "impossible-date": (_bytes_case(GOOD.replace("2026-11-02T09", "2026-02-31T09", 1).encode()),
                        "frontmatter-invalid", "cannot be read"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_gives_one_clear_diagnostic(case: str, tmp_path: Path) -> None:
    if case == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads every file")
    make, rule, fragment = CASES[case]
    ws = make_ws(tmp_path)
    path = ws.decisions_dir / "bad.md"
    make(ws, path)
    before = path.read_bytes() if path.is_file() and case != "50mb" else None
    stat_before = os.lstat(path)
    result = run_yoi("lint", "--workspace", str(ws.root), "--format", "json", timeout=60)
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 1), result.stderr
    found = [d for d in json.loads(result.stdout) if d["path"] == "memory/decisions/bad.md" and d["rule"] == rule]
    assert len(found) == 1, result.stdout
    assert fragment in found[0]["message"] + (found[0]["hint"] or "")
    if before is not None:
        assert path.read_bytes() == before
    assert os.lstat(path).st_mtime_ns == stat_before.st_mtime_ns


def test_unreadable_file(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    path = ws.decisions_dir / "locked-out.md"
    _unreadable(ws, path)
    try:
        diags = lint_workspace(ws).diagnostics
    finally:
        os.chmod(path, 0o644)
    if os.geteuid() == 0:
        assert not [d for d in diags if d.path.endswith("locked-out.md") and d.rule == "file-unreadable"]
    else:
        assert [d for d in diags if d.path.endswith("locked-out.md") and d.rule == "file-unreadable"]


def test_symlink_inside_workspace_is_read(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    target = write_record(ws, "memory/decisions/real.md", decision_meta())
    (ws.decisions_dir / "alias.md").symlink_to(target)
    assert not [d for d in lint_workspace(ws).diagnostics if d.rule == "file-unreadable"]


def test_bad_files_do_not_hide_good_ones(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    (ws.decisions_dir / "bad.md").write_bytes(b"\x00\x01")
    write_record(ws, "memory/decisions/good.md", decision_meta(status="pending"))
    rules = {(d.path, d.rule) for d in lint_workspace(ws).diagnostics}
    assert ("memory/decisions/good.md", "bad-status") in rules
    assert ("memory/decisions/bad.md", "file-unreadable") in rules
