"""Start-up (issue 15): only the running subcommand is imported, and the read paths stay lean.

``yoi search`` runs on every agent prompt, so what it imports is part of its latency: no pydantic,
rich, provider SDK or Textual on the search/context/expand/hook paths, and the config file is
validated once per content (its values cached by hash in ``.yoi/state/``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import knowledge_meta, make_ws, run_yoi, write_record

from yoi_tui.cli.main import SUMMARIES, build_parser
from yoi_tui.core.store.config import CACHE_NAME, load_config

# Not dataclasses (issue 24): importing it and the slotted value classes costs a one-shot hook or
# `yoi mcp` start ~12 ms CPU (0.105 -> 0.118 s, noisy machine), once per server lifetime or agent
# session; the served call's client imports no core module.
HEAVY = ("pydantic", "pydantic_core", "rich", "pydantic_ai", "anthropic", "openai", "textual", "mcp", "rapidfuzz",
         # what a retrieval command needs no more: PyYAML (simple frontmatter), logging (no warning),
         # shutil (argparse's width), hashlib (OpenSSL; BLAKE2 is built in), uuid, tempfile (writers only)
         "yaml", "logging", "shutil", "hashlib", "uuid", "tempfile",
         "uuid6")

_PROBE = """
import json, sys
from yoi_tui.cli.main import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(("yoi_tui.cli.cmd_", *{heavy!r})))]),
      file=sys.stderr)
"""


def imported_by(*argv: str, stdin: str = "") -> tuple[int, list[str]]:
    """Run ``yoi ARGV`` in a fresh interpreter; its exit code and the watched modules it imported."""
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY), *argv], input=stdin,
                          capture_output=True, text=True, timeout=120)
    code, modules = json.loads(proc.stderr.strip().splitlines()[-1])
    return code, modules


def _top(modules: list[str]) -> set[str]:
    return {m.split(".")[0] if not m.startswith("yoi_tui") else m for m in modules}


def test_help_lists_every_command_with_its_own_summary() -> None:
    full = build_parser()  # every module imported: what each register() says about itself
    sub = next(a for a in full._actions if a.dest == "command")
    helps = {action.dest: action.help for action in sub._choices_actions}
    assert {name: helps.get(name) for name in SUMMARIES} == SUMMARIES  # the placeholders say what the modules say
    result = run_yoi("--help", env={"COLUMNS": "300"})
    assert result.returncode == 0
    listed = " ".join(result.stdout.split())
    for name, text in helps.items():  # every command, with or without a summary here
        assert f"{name} {text}" in listed


def test_help_imports_no_command_module() -> None:
    proc = subprocess.run([sys.executable, "-c", "import sys\nfrom yoi_tui.cli.main import build_parser\n"
                           "build_parser(['--help'])\nprint(sorted(m for m in sys.modules if 'cmd_' in m))"],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_help_imports_neither_typing_nor_pathlib() -> None:
    """`yoi --help` is the start-up figure (goal: 3x `python -c pass`): typing (~3 ms) and pathlib
    (~5 ms) are kept out of the modules it imports."""
    # (A development install's import finder loads pathlib at interpreter start: only what yoi adds counts.)
    proc = subprocess.run([sys.executable, "-c", "import sys\nbefore = set(sys.modules)\n"
                           "from yoi_tui.cli.main import main\n"
                           "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
                           "print(sorted(m for m in ('typing', 'pathlib') if m in set(sys.modules) - before), "
                           "file=sys.stderr)"],
                          capture_output=True, text=True, timeout=60)
    assert proc.stderr.strip().splitlines()[-1] == "[]", proc.stderr


def test_only_the_running_subcommand_is_imported(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    code, modules = imported_by("search", "knowledge", "x", "--workspace", str(ws.root), "--no-record")
    assert code == 0
    assert [m for m in modules if m.startswith("yoi_tui.cli.cmd_")] == ["yoi_tui.cli.cmd_search"]


def test_read_paths_import_no_heavy_library(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md", knowledge_meta(), "\nRun pytest with -q.\n")
    root = str(ws.root)
    for argv, stdin in ((("search", "knowledge", "pytest", "-w", root), ""),
                        (("search", "memory", "pytest", "-w", root, "--no-record"), ""),
                        (("context", "-w", root), ""),
                        (("expand", "-w", root, "-"), "see #run-tests\n"),
                        (("hook", "claude-code", "-w", root),
                         json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "see #run-tests",
                                     "cwd": root, "session_id": "s-1"}))):
        code, modules = imported_by(*argv, stdin=stdin)
        assert code == 0, argv
        heavy = sorted(_top(modules) & set(HEAVY))
        assert heavy == [], f"yoi {' '.join(argv[:2])} imported {heavy}"


def test_a_config_that_sets_values_is_validated_once_then_cached(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[search]\nlimit = 3\n", encoding="utf-8")
    code, modules = imported_by("search", "knowledge", "x", "-w", str(ws.root), "--no-record")
    assert code == 0 and "pydantic" in _top(modules)  # first sight of this content: validated
    assert json.loads((ws.state_dir / CACHE_NAME).read_text())["values"]["search"]["limit"] == 3
    code, modules = imported_by("search", "knowledge", "x", "-w", str(ws.root), "--no-record")
    assert code == 0 and "pydantic" not in _top(modules)  # same bytes: the cached values
    assert load_config(ws.config_path, ws.state_dir).search.limit == 3
    ws.config_path.write_text("[search]\nlimit = 0\n", encoding="utf-8")  # changed: validated again
    result = run_yoi("search", "knowledge", "x", "-w", str(ws.root))
    assert result.returncode == 2 and "search.limit" in result.stderr and "greater than 0" in result.stderr


def test_a_tampered_config_cache_is_not_trusted(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[search]\nlimit = 3\n", encoding="utf-8")
    assert load_config(ws.config_path, ws.state_dir).search.limit == 3
    (ws.state_dir / CACHE_NAME).write_text("{not json", encoding="utf-8")
    assert load_config(ws.config_path, ws.state_dir).search.limit == 3
    data = json.loads((ws.state_dir / CACHE_NAME).read_text())
    data["key"] = "0" * 64
    data["values"]["search"]["limit"] = 99
    (ws.state_dir / CACHE_NAME).write_text(json.dumps(data), encoding="utf-8")
    assert load_config(ws.config_path, ws.state_dir).search.limit == 3


def test_a_comment_only_config_gives_the_defaults_without_parsing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)  # `yoi init` writes a file of comments
    config = load_config(ws.config_path, ws.state_dir)
    assert config.search.limit == 10 and config.records.cap_decision == 4000
    assert not (ws.state_dir / CACHE_NAME).exists()
    ws.config_path.write_text("# fine\n\x01\n", encoding="utf-8")  # a control character is still an error
    result = run_yoi("lint", "-w", str(ws.root))
    assert result.returncode == 2 and "not valid TOML" in result.stderr


def test_ids_are_uuid7_and_increase_within_a_process() -> None:
    import uuid

    from yoi_tui.core.store.ids import new_id

    ids = [new_id() for _ in range(2000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for text in ids[:5]:
        parsed = uuid.UUID(text)
        assert parsed.version == 7 and parsed.variant == uuid.RFC_4122


_LINT_PROBE = """
import json, sys
import yoi_tui.core.lint.stored as stored
stored.RACY_NS = 0  # the files were written moments ago; trust their signatures for this test
from yoi_tui.cli.main import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(("yaml", "pydantic", "rapidfuzz",
                                                                       "yoi_tui.core.lint.rules")))]), file=sys.stderr)
"""


def test_an_unchanged_workspace_lints_without_importing_the_rules(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-tests.md", knowledge_meta(), "\nRun pytest with -q. See #nowhere.\n")

    def lint() -> tuple[int, list[str], str]:
        proc = subprocess.run([sys.executable, "-c", _LINT_PROBE, "lint", "-w", str(ws.root)],
                              capture_output=True, text=True, timeout=120)
        code, modules = json.loads(proc.stderr.strip().splitlines()[-1])
        return code, modules, proc.stdout

    first = lint()
    assert first[0] == 1 and "dangling-ref" in first[2] and "yoi_tui.core.lint.rules" in first[1]
    second = lint()
    assert second[0] == 1 and second[2] == first[2]  # the same findings, from the stored result
    assert second[1] == []


def test_the_fast_path_still_reports_a_file_where_a_record_folder_belongs(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.requests_dir.rmdir()
    ws.requests_dir.write_text("not a folder\n", encoding="utf-8")
    for _ in range(2):  # cold, then from the stored result
        result = run_yoi("lint", "-w", str(ws.root))
        assert result.returncode == 1 and "memory/requests is not a folder" in result.stdout


def test_gc_merging_a_record_does_not_import_phase2s_runner() -> None:
    """GC uses phase2.merge; the phase2 package hands out its runner's names on first use, so the
    staging models and pydantic are not imported with it."""
    probe = ("import sys\nimport yoi_tui.core.runs.body_merge\n"
             "print(sorted(m for m in sys.modules if m in ('pydantic', 'yoi_tui.core.store.staging', "
             "'yoi_tui.core.phase2.runner')))\n"
             "from yoi_tui.core.phase2 import Phase2Report, PreparedRound, RoundReport, prepare_round, run_phase2, "
             "staging_pressure\nprint(prepare_round.__module__)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["[]", "yoi_tui.core.phase2.runner"], proc.stdout + proc.stderr
