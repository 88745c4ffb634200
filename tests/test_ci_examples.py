"""The pre-commit manifest and the GitHub Actions example: well-formed, and their commands run."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml
from support import REPO, decision_meta, make_ws, run_yoi, write_record

from yoi_tui.cli.main import build_parser


def test_pre_commit_manifest_is_valid_and_its_hooks_run(tmp_path: Path) -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"yoi-lint", "yoi-export-check"}
    ws = make_ws(tmp_path)
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook) and hook["language"] == "python"
        argv = shlex.split(hook["entry"])
        assert argv[0] == "yoi"  # the console script pre-commit installs from this package
        build_parser().parse_args(argv[1:])  # a real subcommand with real options
        assert run_yoi(*argv[1:], cwd=ws.root).returncode == 0, hook["id"]
    # the lint hook fails a commit with a broken record
    write_record(ws, "memory/decisions/a.md", decision_meta(status="pending"))
    assert run_yoi(*shlex.split(hooks[0]["entry"])[1:], cwd=ws.root).returncode == 1


def test_github_actions_example_uses_the_github_format() -> None:
    workflow = yaml.safe_load((REPO / "examples" / "ci" / "github-actions.yml").read_text())
    runs = [step["run"] for step in workflow["jobs"]["lint-memory"]["steps"] if "run" in step]
    lint = [r for r in runs if r.startswith("yoi lint")]
    assert lint == ["yoi lint --format github"]
    for command in runs:
        if command.startswith("yoi "):
            build_parser().parse_args(shlex.split(command)[1:])
