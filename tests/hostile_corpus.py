"""A corpus of hostile and broken inputs, generated into real workspaces (test data as code).

Each case builds one workspace (plus, for Phase 1, a log) and names the commands to run on it and
those for which it is the *input* — they must not exit 0. Every command must finish (no hang:
a subprocess timeout) without a traceback. ``tests/test_hostile_input.py`` runs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from phase2_fixtures import stage
from support import decision_meta, make_ws, write_record

from yoi_tui.core.store.ids import new_id
from yoi_tui.core.store.staging import Decision, Request
from yoi_tui.core.store.workspace import Workspace

RECORD_COMMANDS = ["lint", "search", "gc", "phase2"]
STAGING_COMMANDS = ["phase2", "lint"]


@dataclass
class Case:
    name: str
    build: Callable[[Workspace, Path], list[str]]  # returns extra args (a log path for phase1)
    commands: list[str]
    broken_for: set[str] = field(default_factory=set)  # these must exit non-zero


def _base(root: Path) -> Workspace:
    ws = make_ws(root)
    write_record(ws, "memory/decisions/use-sqlite-for-the-cache.md", decision_meta(),
                 "\n# Use SQLite for the cache\n\nOne file.\n")
    write_record(ws, "memory/summary.md", {"updated_at": "2026-11-02T09:00:00+00:00"}, "\n# Summary\n")
    return ws


def _good_staging(ws: Workspace) -> None:
    stage(ws, "s-good", 0, 3, requests=[Request(intent="Add retries", target="fetch.py", summary="three")])


def _staging_text(ws: Workspace, text: str | bytes, *, name: str | None = None) -> list[str]:
    _good_staging(ws)
    path = ws.staging_dir / f"{name or new_id()}.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return []


def _valid_staging(**overrides: object) -> dict[str, object]:
    staging_id = new_id()
    return {"id": staging_id, "created_at": "2026-11-02T09:00:00Z",
            "source": {"session_id": "s1", "range": [0, 3]}, "extractor": {"engine": "rules"},
            "activity": {"decisions": [], "discussions": [], "attempts": [], "requests": []}, **overrides}


def _staging_case(data: dict[str, object] | str | bytes, *, keep_id: bool = True):  # type: ignore[no-untyped-def]
    def build(ws: Workspace, work: Path) -> list[str]:
        if isinstance(data, dict):
            name = str(data["id"]) if keep_id else new_id()
            return _staging_text(ws, json.dumps(data), name=name)
        return _staging_text(ws, data)
    return build


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _symlink_loop(ws: Workspace, work: Path) -> list[str]:
    folder = ws.decisions_dir
    (folder / "loop-a.md").symlink_to("loop-b.md")
    (folder / "loop-b.md").symlink_to("loop-a.md")
    (folder / "self.md").symlink_to("self.md")
    return []


def _dir_loop(ws: Workspace, work: Path) -> list[str]:
    (ws.decisions_dir / "up").symlink_to("..")
    (ws.knowledge_dir / "here").symlink_to(".")
    return []


def _file_instead_of(rel: str) -> Callable[[Workspace, Path], list[str]]:
    def build(ws: Workspace, work: Path) -> list[str]:
        target = ws.root / rel
        for child in sorted(target.rglob("*"), reverse=True):
            child.unlink() if not child.is_dir() else child.rmdir()
        target.rmdir()
        target.write_text("I am a file, not a folder\n")
        return []
    return build


def _fifo_at(rel: str) -> Callable[[Workspace, Path], list[str]]:
    def build(ws: Workspace, work: Path) -> list[str]:
        path = ws.root / rel
        if path.exists():
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        if rel.startswith("memory/_staging"):
            _good_staging(ws)
        return []
    return build


def _deep_yaml(ws: Workspace, work: Path) -> list[str]:
    (ws.decisions_dir / "deep-yaml.md").write_text("---\nstatus: open\nx: " + _nested(20000) + "\n---\n\n# Deep\n")
    return []


def _long_title_record(ws: Workspace, work: Path) -> list[str]:
    write_record(ws, "memory/decisions/long-title.md", decision_meta(), "\n# " + "t" * 300_000 + "\n\nBody.\n")
    return []


def _long_staging(size: int, field_name: str = "title") -> Callable[[Workspace, Path], list[str]]:
    def build(ws: Workspace, work: Path) -> list[str]:
        long = "word " * (size // 5)
        decision = {"title": "t" * size, "options": [], "chosen": "x", "rationale": "y"}
        if field_name == "rationale":
            decision = {"title": "Use a cache", "options": [], "chosen": "x", "rationale": long}
        stage(ws, "s-long", 0, 3, decisions=[Decision(**decision)])  # type: ignore[arg-type]
        return []
    return build


def _log(lines: list[str] | bytes) -> Callable[[Workspace, Path], list[str]]:
    def build(ws: Workspace, work: Path) -> list[str]:
        path = work / "log.jsonl"
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return [str(path)]
    return build


def _native(text: str) -> str:
    return json.dumps({"yoi_session": 1, "session_id": "s-hostile", "role": "user", "text": text})


def _fifo_log(ws: Workspace, work: Path) -> list[str]:
    path = work / "pipe.jsonl"
    os.mkfifo(path)
    return [str(path)]


def _dir_log(ws: Workspace, work: Path) -> list[str]:
    (work / "folder.jsonl").mkdir()
    return [str(work / "folder.jsonl")]


def _device_log(ws: Workspace, work: Path) -> list[str]:
    return ["/dev/zero"]


def _bad_journal(text: str) -> Callable[[Workspace, Path], list[str]]:
    def build(ws: Workspace, work: Path) -> list[str]:
        folder = ws.state_dir / "runs"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{new_id()}.json").write_text(text, encoding="utf-8")
        return []
    return build


CASES: list[Case] = [
    # records and folders
    Case("symlink-loop-records", _symlink_loop, RECORD_COMMANDS, {"lint"}),
    Case("symlink-loop-folders", _dir_loop, RECORD_COMMANDS),
    Case("decisions-is-a-file", _file_instead_of("memory/decisions"), RECORD_COMMANDS, {"lint"}),
    Case("knowledge-is-a-file", _file_instead_of("knowledge"), RECORD_COMMANDS, {"lint"}),
    Case("fifo-summary", _fifo_at("memory/summary.md"), RECORD_COMMANDS, {"lint"}),
    Case("fifo-decision", _fifo_at("memory/decisions/pipe.md"), RECORD_COMMANDS, {"lint"}),
    Case("deep-yaml", _deep_yaml, RECORD_COMMANDS, {"lint"}),
    Case("fifo-workflow", _fifo_at("memory/workflow/steps.md"), RECORD_COMMANDS),
    Case("fifo-usage-log", _fifo_at(".yoi/usage/s-fifo.jsonl"), RECORD_COMMANDS),
    Case("fifo-config", _fifo_at(".yoi/config.toml"), RECORD_COMMANDS, {"lint", "search", "gc", "phase2"}),
    Case("fifo-pointer", lambda ws, work: _fifo_at(".yoi/state/phase1/s-hostile.json")(ws, work)
         + _log([_native("add retries to fetch.py")])(ws, work), ["phase1"]),
    Case("300k-title-record", _long_title_record, RECORD_COMMANDS),
    # staging
    Case("staging-not-json", _staging_case("{not json"), STAGING_COMMANDS, {"phase2"}),
    Case("staging-empty", _staging_case(""), STAGING_COMMANDS, {"phase2"}),
    Case("staging-array", _staging_case("[1, 2, 3]"), STAGING_COMMANDS, {"phase2"}),
    Case("staging-wrong-types", _staging_case(_valid_staging(activity={"decisions": "lots"})), STAGING_COMMANDS,
         {"phase2"}),
    Case("staging-invalid-utf8", _staging_case(b'{"id": "\xff\xfe"}'), STAGING_COMMANDS, {"phase2"}),
    Case("staging-id-mismatch", _staging_case(_valid_staging(), keep_id=False), STAGING_COMMANDS, {"phase2"}),
    Case("staging-deep-json", _staging_case(_nested(100_000)), STAGING_COMMANDS, {"phase2"}),
    Case("staging-fifo", _fifo_at(f"memory/_staging/{new_id()}.json"), STAGING_COMMANDS, {"phase2"}),
    Case("staging-100k-title", _long_staging(100_000), STAGING_COMMANDS),
    Case("staging-5mb-rationale", _long_staging(5_000_000, "rationale"), STAGING_COMMANDS),
    # session logs
    Case("log-fifo", _fifo_log, ["phase1"], {"phase1"}),
    Case("log-folder", _dir_log, ["phase1"], {"phase1"}),
    Case("log-device", _device_log, ["phase1"], {"phase1"}),
    Case("log-binary", _log(b"\x89PNG\r\n\x1a\n" + bytes(range(256))), ["phase1"], {"phase1"}),
    Case("log-deep-json-line", _log([_native("add retries to fetch.py"), _nested(100_000),
                                     _native("use sqlite for the cache")]), ["phase1"]),
    # run journals
    Case("journal-not-json", _bad_journal("{nope"), ["revert"], {"revert"}),
    Case("journal-deep-json", _bad_journal(_nested(100_000)), ["revert"], {"revert"}),
]


def build_case(case: Case, root: Path) -> tuple[Workspace, list[str]]:
    ws = _base(root / "ws")
    return ws, case.build(ws, root)


ARGS = {
    "lint": ["lint"],
    "search": ["search", "cache"],
    "gc": ["gc"],
    "phase2": ["phase2", "--flush"],
    "phase1": ["phase1", "--force"],
    "revert": ["revert", "last"],
}
