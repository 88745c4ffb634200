"""Workspace discovery, ``yoi init`` and config validation (SPEC 2, 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import make_ws, run_yoi

from yoi_tui.core.errors import ConfigError, WorkspaceNotFound
from yoi_tui.core.store.config import load_config
from yoi_tui.core.store.workspace import find_workspace


def test_init_creates_layout_and_is_idempotent(tmp_path: Path) -> None:
    first = run_yoi("init", str(tmp_path / "p"))
    assert first.returncode == 0, first.stderr
    for folder in ("memory/decisions", "memory/requests", "memory/workflow", "memory/_staging", "knowledge",
                   ".yoi/usage", ".yoi/state"):
        assert (tmp_path / "p" / folder).is_dir(), folder
    gitignore = (tmp_path / "p" / ".gitignore").read_text()
    assert gitignore.splitlines().count(".yoi/state/") == 1
    config_before = (tmp_path / "p" / ".yoi/config.toml").read_bytes()
    second = run_yoi("init", str(tmp_path / "p"))
    assert second.returncode == 0
    assert "nothing changed" in second.stdout
    assert (tmp_path / "p" / ".gitignore").read_text() == gitignore
    assert (tmp_path / "p" / ".yoi/config.toml").read_bytes() == config_before


def test_init_appends_to_existing_gitignore_without_newline(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".gitignore").write_text("node_modules/")
    assert run_yoi("init", "--workspace", str(tmp_path / "p")).returncode == 0
    assert (tmp_path / "p" / ".gitignore").read_text() == "node_modules/\n.yoi/state/\n.yoi-tmp-*\nmemory/_staging/\n"


def test_discovery_walks_up_from_a_subfolder(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    deep = ws.root / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_workspace(deep).root == ws.root
    result = run_yoi("lint", cwd=deep)
    assert result.returncode == 0, result.stderr


def test_no_workspace_is_a_clear_usage_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceNotFound):
        find_workspace(tmp_path)
    result = run_yoi("lint", cwd=tmp_path)
    assert result.returncode == 2
    assert "yoi init" in result.stderr and "Traceback" not in result.stderr


def test_explicit_workspace_must_exist(tmp_path: Path) -> None:
    result = run_yoi("lint", "--workspace", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert str(tmp_path / "nope") in result.stderr


def test_missing_config_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "absent.toml")
    assert config.records.cap_decision == 4000
    assert config.usage.protect_threshold == 1.0
    assert config.cap_for("knowledge") == 8000


def test_bad_value_names_key_value_and_what_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[usage]\nwindow = -3\n[phase1]\nengine = "magic"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "usage.window" in message and "-3" in message and "greater than 0" in message
    assert "phase1.engine" in message and "'magic'" in message and "'rules'" in message


def test_unknown_key_suggests_the_close_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[records]\ncap_decison = 10\n")
    with pytest.raises(ConfigError, match=r"unknown key 'records.cap_decison'; did you mean 'records.cap_decision'"):
        load_config(path)


def test_unknown_section_lists_known_keys(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[nonsense]\nx = 1\n")
    with pytest.raises(ConfigError, match="known keys here: records"):
        load_config(path)


def test_config_errors_reach_the_cli_as_exit_2(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[lint\n")
    result = run_yoi("lint", "--workspace", str(ws.root))
    assert result.returncode == 2
    assert "config.toml" in result.stderr and "not valid TOML" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_changes_thresholds(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    ws.config_path.write_text("[records]\ncap_decision = 50\n")
    (ws.decisions_dir / "d.md").write_text(
        "---\ncreated_at: 2026-01-01T00:00:00+00:00\nupdated_at: 2026-01-01T00:00:00+00:00\n"
        "sources: []\nstatus: open\n---\n" + "x" * 60 + "\n")
    result = run_yoi("lint", "--workspace", str(ws.root))
    assert result.returncode == 1
    assert "over-cap" in result.stdout
