"""Served equals one-shot, always (issue 27): a differential property test.

Hypothesis draws a sequence of changes made to a workspace from outside yoi — including those no
folder event reports: a write through a hard link from outside the workspace, the workspace
replaced by a copy, a record folder replaced by a rename, a mount appearing or disappearing over a
record folder (root only), an inotify queue overflow, an edit whose size and mtime are set back
(what a clock step looks like to a file) — and after each one compares what the running server
answers (``yoi search``, ``yoi lint`` and ``yoi context``, proven served by the probe) with a one-shot call
(``YOI_SERVER=0``) at that moment, byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import decision_meta, knowledge_meta, make_ws, run_yoi, stop_command_servers, write_record
from test_server import local, probe, start_server

from yoi_tui.core.store.workspace import Workspace

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
MOUNT_OPS = ("tmpfs-over-decisions", "bind-over-knowledge", "bind-over-record", "mount-elsewhere", "unmount")
OPS = ("append", "same-size-mtime-back", "create", "delete", "rename", "hard-link-edit", "link-then-edit",
       "replace-workspace-by-copy", "replace-folder-by-rename", "queue-overflow",
       *(MOUNT_OPS if ROOT else ()))
SECRET = "password = 'hunter2-correct-horse'"


@pytest.fixture(scope="module", params=["inode-watches", "out-of-watches"])
def runtime(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """A server of its own; ``out-of-watches``: its record feeds watch no file inode
    (``YOI_FILE_WATCHES=0``, as when ``max_user_watches`` is spent), so it lstat-s every record."""
    run = Path(tempfile.mkdtemp(prefix="yoi-rt-", dir="/tmp"))
    run.chmod(0o700)
    env = {"YOI_SERVER": "1", "XDG_RUNTIME_DIR": str(run), "YOI_SERVER_WAIT": "30"}
    if request.param == "out-of-watches":
        env["YOI_FILE_WATCHES"] = "0"
    yield env
    stop_command_servers(run)
    shutil.rmtree(run, ignore_errors=True)


class Outside:
    """The changes, made as another program would; ``mounts`` to undo at the end."""

    def __init__(self, ws: Workspace, scratch: Path) -> None:
        self.ws = ws
        self.scratch = scratch
        self.mounts: list[Path] = []
        self.step = 0

    def files(self, folder: Path) -> list[Path]:
        # Not a record bound over (``bind-over-record``): it cannot be deleted, renamed or linked, and
        # ``is_mount`` does not tell a bind mount from the same file system.
        return sorted(p for p in folder.glob("*.md") if p.is_file() and not p.is_symlink() and p not in self.mounts)

    def apply(self, op: str, pick: int) -> str:
        self.step += 1
        ws, step = self.ws, self.step
        folder = ws.knowledge_dir if pick % 2 else ws.decisions_dir
        files = self.files(folder)
        target = files[pick % len(files)] if files else None
        if target is None and op not in ("create", *MOUNT_OPS, "replace-workspace-by-copy",
                                         "replace-folder-by-rename", "queue-overflow"):
            op = "create"
        if self.mounts and op.startswith("replace-"):
            return f"{op} (not while a folder is mounted over)"  # a mount point cannot be moved
        if self.mounts and op in ("hard-link-edit", "link-then-edit") and folder in self.mounts:
            op = "append"  # no hard link across file systems
        if op == "append":
            with target.open("a", encoding="utf-8") as handle:  # type: ignore[union-attr]
                handle.write(f"\nzebra {step} appended\n")
        elif op == "same-size-mtime-back":
            info = target.stat()  # type: ignore[union-attr]
            text = target.read_text(encoding="utf-8")  # type: ignore[union-attr]
            target.write_text(text.replace("notes", "zebra"), encoding="utf-8")  # type: ignore[union-attr]
            os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns - 3_000_000_000))  # type: ignore[arg-type]
        elif op == "create":
            meta = knowledge_meta() if folder == ws.knowledge_dir else decision_meta()
            write_record(ws, f"{folder.relative_to(ws.root).as_posix()}/new-{step}.md", meta,
                         f"\nzebra new {step}\n")
        elif op == "delete":
            target.unlink()  # type: ignore[union-attr]
        elif op == "rename":
            target.rename(folder / f"renamed-{step}.md")  # type: ignore[union-attr]
        elif op in ("hard-link-edit", "link-then-edit"):
            other = self.scratch / f"other-name-{step}.md"
            os.link(target, other)  # type: ignore[arg-type]
            if op == "hard-link-edit":  # in place through the other name: no event in the record's folder
                text = other.read_text(encoding="utf-8").replace("status: open", "status: accepted")
                text = text.replace("when to read it", f"when to skip it {step}")  # the context shows both
                with other.open("r+", encoding="utf-8") as handle:
                    handle.write(f"{text}\nzebra through a hard link {step}\n{SECRET}\n")
            else:
                link = self.scratch / f"later-{step}.md"
                os.link(target, link)  # type: ignore[arg-type]
                other.unlink()
                with link.open("a", encoding="utf-8") as handle:
                    handle.write(f"\n{SECRET} later {step}\n")
        elif op == "replace-workspace-by-copy":
            old = ws.root.with_name(f"{ws.root.name}.old")
            ws.root.rename(old)
            shutil.copytree(old, ws.root, symlinks=True)
            shutil.rmtree(old)
            write_record(ws, f"knowledge/after-copy-{step}.md", knowledge_meta(), f"\nzebra after copy {step}\n")
        elif op == "replace-folder-by-rename":
            old = folder.with_name(f"{folder.name}.old")
            folder.rename(old)
            shutil.copytree(old, folder, symlinks=True)
            shutil.rmtree(old)
            meta = knowledge_meta() if folder == ws.knowledge_dir else decision_meta()
            write_record(ws, f"{folder.relative_to(ws.root).as_posix()}/in-new-folder-{step}.md", meta,
                         f"\nzebra in the new folder {step}\n")
        elif op == "queue-overflow":  # more events than /proc/sys/fs/inotify/max_queued_events
            limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
            a, b = folder / f"flip-{step}-a.md", folder / f"flip-{step}-b.md"
            a.write_text("x\n")
            b.write_text("y\n")
            for number in range(limit // 2 + 10):  # alternating: the kernel merges repeated events
                os.utime(a, ns=(number, number))
                os.utime(b, ns=(number, number))
            a.unlink()
            with b.open("a", encoding="utf-8") as handle:
                handle.write(f"\nzebra after the overflow {step}\n")
        elif op in ("tmpfs-over-decisions", "bind-over-knowledge"):
            over = ws.decisions_dir if op == "tmpfs-over-decisions" else ws.knowledge_dir
            if over in self.mounts:
                return f"{op} (already mounted)"
            copy = self.scratch / f"copy-{step}"
            shutil.copytree(over, copy)
            write_record(ws, f"{over.relative_to(ws.root).as_posix()}/under-{step}.md",
                         knowledge_meta() if over == ws.knowledge_dir else decision_meta(),
                         f"\nzebra hidden under the mount {step}\n")
            if op == "tmpfs-over-decisions":
                subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(over)], check=True)
                shutil.copytree(copy, over, dirs_exist_ok=True)
            else:
                subprocess.run(["mount", "--bind", str(copy), str(over)], check=True)
            with (sorted(over.glob("*.md")) or [over / "x.md"])[0].open("a", encoding="utf-8") as handle:
                handle.write(f"\nzebra on the mount {step}\n")
            self.mounts.append(over)
        elif op == "bind-over-record":  # another file's bytes under a record's name: no event anywhere
            if target is None:
                return f"{op} (no record to mount over)"
            replacement = self.scratch / f"mounted-{step}.md"
            replacement.write_text(f"{target.read_text(encoding='utf-8')}\nzebra bound over {step}\n{SECRET}\n",
                                   encoding="utf-8")
            subprocess.run(["mount", "--bind", str(replacement), str(target)], check=True)
            self.mounts.append(target)
        elif op == "mount-elsewhere":  # outside the workspace: the answers must not change, nor go stale
            elsewhere = self.scratch / f"elsewhere-{step}"
            elsewhere.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(elsewhere)], check=True)
            self.mounts.append(elsewhere)
            write_record(ws, f"knowledge/after-mount-elsewhere-{step}.md", knowledge_meta(),
                         f"\nzebra after a mount elsewhere {step}\n")
        elif op == "unmount":
            if not self.mounts:
                return "unmount (nothing mounted)"
            subprocess.run(["umount", str(self.mounts.pop())], check=True)
        return f"{op} #{pick}"

    def undo(self) -> None:
        while self.mounts:
            subprocess.run(["umount", "-l", str(self.mounts.pop())], check=False)


def _workspace(root: Path) -> Workspace:
    ws = make_ws(root)
    for number in range(6):
        write_record(ws, f"knowledge/topic-{number}.md", knowledge_meta(),
                     f"\nTopic {number} notes. {'quokka. ' if number % 2 else ''}\n")
        write_record(ws, f"memory/decisions/choice-{number}.md", decision_meta(), f"\nChoice {number} notes.\n")
    return ws


def _compare(env: dict[str, str], ws: Workspace, what: str) -> None:
    calls = [("lint", "--format", "json"), ("search", "knowledge", "zebra"), ("search", "memory", "zebra"),
             ("search", "knowledge", "hunter2"), ("context", "--no-record")]
    for call in calls:
        argv = (*call, "--workspace", str(ws.root))
        served = probe(env, *argv)
        assert served[0] != "ran in its own process", (what, call, served[2])
        assert served == local(*argv), (what, call)


@settings(max_examples=int(os.environ.get("YOI_EXACT_EXAMPLES", "6")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50)), min_size=2, max_size=6))
def test_served_answers_equal_one_shot_after_any_outside_change(runtime: dict[str, str],
                                                                tmp_path_factory: pytest.TempPathFactory,
                                                                ops: list[tuple[str, int]]) -> None:
    base = tmp_path_factory.mktemp("exact")
    ws = _workspace(base)
    start_server(runtime, ws)
    _compare(runtime, ws, "start")  # the server holds lint and search state for this workspace now
    outside = Outside(ws, base)
    try:
        done: list[str] = []
        for op, pick in ops:
            done.append(outside.apply(op, pick))
            _compare(runtime, ws, " -> ".join(done))
    finally:
        outside.undo()


def test_a_secret_written_through_a_hard_link_is_found_by_the_served_lint(runtime: dict[str, str],
                                                                          tmp_path: Path) -> None:
    """The issue's first report, as it was found: served lint said 0 errors, one-shot found it."""
    ws = _workspace(tmp_path)
    start_server(runtime, ws)
    _compare(runtime, ws, "start")
    outside = Outside(ws, tmp_path)
    outside.apply("hard-link-edit", 1)  # a knowledge record
    served = probe(runtime, "lint", "--workspace", str(ws.root))
    assert served[0] == 1 and "secret" in served[1] + served[2]
    _compare(runtime, ws, "after the hard-link edit of a knowledge record")
    # The way the server noticed: every record's inode watched, or (out of watches) an lstat of each.
    status = run_yoi("server", "status", env=runtime).stdout
    watched = [line for line in status.splitlines() if str(ws.root) in line and "watched:" in line]
    assert len(watched) == 1, status
    if runtime.get("YOI_FILE_WATCHES") == "0":
        assert "folders only" in watched[0], status
    else:  # the 12 records and .yoi/config.toml
        assert "folders and 13 record file(s)" in watched[0], status
    outside.apply("hard-link-edit", 0)  # a decision: no longer open, so no longer in the context
    _compare(runtime, ws, "after the hard-link edit of a decision")


@pytest.mark.skipif(not ROOT, reason="mounting needs root")
def test_a_mount_over_a_record_folder_is_seen_by_the_served_answers(runtime: dict[str, str], tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    start_server(runtime, ws)
    _compare(runtime, ws, "start")
    outside = Outside(ws, tmp_path)
    try:
        for op in ("tmpfs-over-decisions", "bind-over-knowledge", "unmount", "unmount", "mount-elsewhere",
                   "bind-over-record", "append", "unmount", "unmount"):
            _compare(runtime, ws, outside.apply(op, 0))
    finally:
        outside.undo()


def test_a_workspace_replaced_by_a_copy_is_seen_by_the_served_answers(runtime: dict[str, str],
                                                                      tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    start_server(runtime, ws)
    _compare(runtime, ws, "start")
    _compare(runtime, ws, Outside(ws, tmp_path).apply("replace-workspace-by-copy", 0))
