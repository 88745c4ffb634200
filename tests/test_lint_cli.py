"""``yoi lint`` end to end: the examples, output formats and exit codes (SPEC 14)."""

from __future__ import annotations

import json
from pathlib import Path

from support import EXAMPLES, decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.lint import STATIC_RULES


def test_example_workspace_lints_clean() -> None:
    result = run_yoi("lint", str(EXAMPLES / "workspace"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_broken_example_reports_every_static_rule() -> None:
    result = run_yoi("lint", "--format", "json", str(EXAMPLES / "broken"))
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    assert {f["rule"] for f in findings} >= set(STATIC_RULES)
    for finding in findings:
        assert set(finding) == {"path", "line", "col", "rule", "severity", "message", "hint"}
        assert finding["severity"] in ("error", "warning")


def test_text_format_is_path_line_col_rule_message(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/a.md", decision_meta(status="pending"))
    result = run_yoi("lint", "--workspace", str(ws.root))
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == "memory/decisions/a.md:7:1: bad-status status 'pending' is not one of open|resolved|replaced"
    assert "1 error(s), 0 warning(s) in 1 file(s)" in result.stderr


def test_github_format(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/a.md", decision_meta(status="pending"))
    result = run_yoi("lint", "--workspace", str(ws.root), "--format", "github")
    assert result.stdout.startswith("::error file=memory/decisions/a.md,line=7,col=1,title=bad-status::status 'pending'")


def test_warnings_alone_exit_zero(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "memory/decisions/a.md", decision_meta(), "x" * 3000)
    result = run_yoi("lint", "--workspace", str(ws.root))
    assert result.returncode == 0
    assert "compressible (warning)" in result.stdout


def test_lint_single_file_and_folder(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    bad = write_record(ws, "memory/decisions/a.md", decision_meta(status="pending"))
    write_record(ws, "memory/requests/r.md", {"created_at": "x"})
    one = run_yoi("lint", "--format", "json", str(bad), cwd=ws.root)
    assert {f["path"] for f in json.loads(one.stdout)} == {"memory/decisions/a.md"}
    folder = run_yoi("lint", "--format", "json", "memory/requests", cwd=ws.root)
    assert {f["path"] for f in json.loads(folder.stdout)} == {"memory/requests/r.md"}


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    result = run_yoi("lint", "nope.md", cwd=ws.root)
    assert result.returncode == 2
    assert "nope.md" in result.stderr and "Traceback" not in result.stderr


def test_help_explains_every_subcommand() -> None:
    top = run_yoi("--help")
    assert top.returncode == 0 and "lint" in top.stdout and "init" in top.stdout
    for command in ("init", "lint"):
        result = run_yoi(command, "--help")
        assert result.returncode == 0
        assert "--workspace" in result.stdout


def test_github_annotation_paths_are_relative_to_the_repository(tmp_path: Path) -> None:
    """A yoi workspace in a sub-folder of the repository: annotations name repository paths."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    ws = make_ws(repo / "services")  # repo/services/proj
    write_record(ws, "memory/decisions/a.md", decision_meta(status="pending"))
    expected = "::error file=services/proj/memory/decisions/a.md,line=7,"
    for cwd, args, env in ((repo, ("services/proj",), {}),                 # a sub-folder given as PATH
                           (ws.root, (), {}),                              # run inside the workspace
                           (ws.root / "memory", ("decisions",), {}),       # a record folder
                           (tmp_path, ("repo/services/proj",), {"GITHUB_WORKSPACE": str(repo)})):
        result = run_yoi("lint", *args, "--format", "github", cwd=cwd, env=env)
        assert result.stdout.startswith(expected), (cwd, args, result.stdout, result.stderr)
    text = run_yoi("lint", "--format", "json", cwd=ws.root)
    assert '"path": "memory/decisions/a.md"' in text.stdout  # other formats keep workspace paths
