"""``yoi install`` / ``yoi uninstall``: real harness config files in tmp_path, the real CLI in a subprocess."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from support import knowledge_meta, make_ws, run_yoi, wait_for_background, write_record

from yoi_tui.core.integrations.codex import with_hooks_flag
from yoi_tui.core.text.markers import CONTEXT_BEGIN

CODEX_SAMPLE = (Path(__file__).resolve().parent / "data" / "samples"
                / "codex_0.104.0-alpha.1_localpush_rollout-2026-02-23T20-34-25_redacted.jsonl")
YOI = str(Path(sys.executable).absolute().parent / "yoi")
EXISTING = {
    "permissions": {"allow": ["Bash(ls)"]},
    "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo theirs"}]}],
              "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]},
    "model": "opus",
}


def _yoi(*args: str, cwd: Path, home: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_yoi(*args, cwd=cwd, input=input, env={"HOME": str(home), "CODEX_HOME": str(home / ".codex")})


def _ours(settings: dict) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g["hooks"] if "hook claude-code" in h["command"]]
            for event, groups in settings["hooks"].items()}


def test_install_claude_code_keeps_existing_hooks_and_is_idempotent(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    settings_path = ws.root / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(json.dumps(EXISTING, indent=4) + "\n")
    result = _yoi("install", "claude-code", "--yes", cwd=ws.root, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    settings = json.loads(settings_path.read_text())
    command = f"{shlex.quote(YOI)} hook claude-code"
    assert _ours(settings) == {"Stop": [command], "PostToolUse": [], "SessionStart": [command],
                               "UserPromptSubmit": [command], "PreCompact": [command]}
    assert settings["permissions"] == EXISTING["permissions"] and settings["model"] == "opus"
    assert settings["hooks"]["Stop"][0] == EXISTING["hooks"]["Stop"][0]
    assert settings["hooks"]["PostToolUse"] == EXISTING["hooks"]["PostToolUse"]
    assert settings_path.read_text().startswith('{\n    "permissions"')  # the file's own indentation
    mcp = json.loads((ws.root / ".mcp.json").read_text())
    assert mcp["mcpServers"]["yoi"]["command"] == YOI and mcp["mcpServers"]["yoi"]["args"][0] == "mcp"
    before = (settings_path.read_bytes(), (ws.root / ".mcp.json").read_bytes())
    again = _yoi("install", "claude-code", "--yes", cwd=ws.root, home=tmp_path / "home")
    assert again.returncode == 0 and "nothing to change" in again.stdout
    assert (settings_path.read_bytes(), (ws.root / ".mcp.json").read_bytes()) == before
    assert not (tmp_path / "home").exists()  # project scope never touches the user's files


def test_installed_commands_run(tmp_path: Path) -> None:
    """The hook command in settings.json works as Claude Code runs it (through a shell), from anywhere."""
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-python3.md", knowledge_meta(model_invokation=True,
                                                               description="Use python3; read before scripts."))
    assert _yoi("install", "claude-code", "--yes", cwd=ws.root, home=tmp_path / "home").returncode == 0
    settings = json.loads((ws.root / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s-1", "cwd": str(ws.root)})
    ran = subprocess.run(command, shell=True, input=payload, capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin"}, timeout=120)  # no venv on PATH
    assert ran.returncode == 0, ran.stderr
    assert CONTEXT_BEGIN in ran.stdout and "#run-python3" in ran.stdout
    server = json.loads((ws.root / ".mcp.json").read_text())["mcpServers"]["yoi"]
    args = [a.replace("${CLAUDE_PROJECT_DIR:-.}", str(ws.root)) for a in server["args"]]
    helped = subprocess.run([server["command"], *args, "--help"], capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and "Model Context Protocol" in helped.stdout


def test_malformed_settings_are_refused_and_untouched(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    settings_path = ws.root / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    for bad in ('{"hooks": {"Stop": [ }', '{"hooks": {"Stop": {"command": "x"}}}', '[1, 2]'):
        settings_path.write_text(bad)
        result = _yoi("install", "claude-code", "--yes", cwd=ws.root, home=tmp_path / "home")
        assert result.returncode == 2
        assert "settings.json" in result.stderr and "nothing was changed" in result.stderr
        assert "Traceback" not in result.stderr
        assert settings_path.read_text() == bad
        assert not (ws.root / ".mcp.json").exists()  # no half-done install


def test_install_asks_unless_yes_and_dry_run_writes_nothing(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    dry = _yoi("install", "claude-code", "--dry-run", cwd=ws.root, home=home)
    assert dry.returncode == 0 and "+++ " in dry.stdout and "hook claude-code" in dry.stdout
    assert not (ws.root / ".claude").exists() and not (ws.root / ".mcp.json").exists()
    declined = _yoi("install", "claude-code", cwd=ws.root, home=home, input="n\n")
    assert declined.returncode == 1 and "Apply these changes?" in declined.stderr
    assert not (ws.root / ".claude").exists()
    accepted = _yoi("install", "claude-code", cwd=ws.root, home=home, input="y\n")
    assert accepted.returncode == 0 and (ws.root / ".claude" / "settings.json").is_file()


def test_uninstall_removes_exactly_what_install_added(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    settings_path = ws.root / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(json.dumps(EXISTING, indent=2) + "\n")
    home = tmp_path / "home"
    assert _yoi("install", "claude-code", "--yes", cwd=ws.root, home=home).returncode == 0
    result = _yoi("uninstall", "claude-code", "--yes", cwd=ws.root, home=home)
    assert result.returncode == 0, result.stderr
    assert settings_path.read_text() == json.dumps(EXISTING, indent=2) + "\n"
    assert not (ws.root / ".mcp.json").exists()  # yoi created it; nothing else was in it
    assert "nothing to change" in _yoi("uninstall", "claude-code", "--yes", cwd=ws.root, home=home).stdout


def test_user_scope_edits_the_user_files_and_keeps_their_keys(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"numStartups": 7, "mcpServers": {"other": {"command": "x"}}}))
    result = _yoi("install", "claude-code", "--scope", "user", "--yes", cwd=ws.root, home=home)
    assert result.returncode == 0, result.stderr
    user_mcp = json.loads((home / ".claude.json").read_text())
    assert user_mcp["numStartups"] == 7 and set(user_mcp["mcpServers"]) == {"other", "yoi"}
    assert "SessionStart" in json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    assert not (ws.root / ".claude").exists()


FLAG = "\n[features]  # added by yoi install codex\ncodex_hooks = true  # added by yoi install codex\n"
CODEX_CONFIG = '''# my codex config
model = "gpt-5-codex"   # keep this comment
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "3000"]

[profiles.fast]
model = "gpt-5-mini"
'''


def test_install_codex_keeps_the_toml_byte_for_byte(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    config = ws.root / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG)
    result = _yoi("install", "codex", "--yes", cwd=ws.root, home=home)
    assert result.returncode == 0, result.stderr
    text = config.read_text()
    assert text.startswith(CODEX_CONFIG)  # every byte of the user's file is still there, in place
    assert tomllib.loads(text)["mcp_servers"]["yoi"] == {"command": YOI, "args": ["mcp"]}
    hooks = json.loads((ws.root / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"] == f"{shlex.quote(YOI)} hook codex"
    assert "nothing to change" in _yoi("install", "codex", "--yes", cwd=ws.root, home=home).stdout
    # An old entry (another yoi path) in the middle of the file is replaced where it stands.
    config.write_text(CODEX_CONFIG.replace("[profiles.fast]", '[mcp_servers.yoi]\ncommand = "/old/yoi"\n'
                                           'args = ["mcp"]\n\n[mcp_servers.yoi.env]\nK = "v"\n\n[profiles.fast]'))
    assert _yoi("install", "codex", "--yes", cwd=ws.root, home=home).returncode == 0
    assert config.read_text() == CODEX_CONFIG.replace(
        "[profiles.fast]", f'[mcp_servers.yoi]\ncommand = "{YOI}"\nargs = ["mcp"]\n\n[profiles.fast]')
    assert _yoi("uninstall", "codex", "--yes", cwd=ws.root, home=home).returncode == 0
    assert config.read_text() == CODEX_CONFIG
    assert not (ws.root / ".codex" / "hooks.json").exists()


def test_install_codex_refuses_what_it_cannot_edit_as_text(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    config = ws.root / ".codex" / "config.toml"
    config.parent.mkdir()
    for bad, why in (('model = "x\n', "not valid TOML"),
                     ('[mcp_servers]\nyoi = { command = "yoi", args = ["mcp"] }\n', "inline table")):
        config.write_text(bad)
        result = _yoi("install", "codex", "--yes", cwd=ws.root, home=home)
        assert result.returncode == 2 and why in result.stderr and "config.toml" in result.stderr
        assert config.read_text() == bad and not (ws.root / ".codex" / "hooks.json").exists()


def test_install_codex_user_scope_uses_codex_home(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    assert _yoi("install", "codex", "--scope", "user", "--yes", cwd=ws.root, home=home).returncode == 0
    assert tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["yoi"]["command"] == YOI
    assert (home / ".codex" / "hooks.json").is_file() and not (ws.root / ".codex").exists()


def test_codex_stop_hook_reads_the_rollout(tmp_path: Path) -> None:
    """Codex sends Claude-shaped hook events; a Stop with its rollout advances the token clock."""
    ws = make_ws(tmp_path)
    payload = {"hook_event_name": "Stop", "session_id": "codex-1", "turn_id": "t", "cwd": str(ws.root),
               "transcript_path": str(CODEX_SAMPLE), "model": "gpt-5", "permission_mode": "default",
               "stop_hook_active": False}
    result = run_yoi("hook", "codex", input=json.dumps(payload), cwd=ws.root)
    assert result.returncode == 0, result.stderr
    wait_for_background(ws)  # the clock is Phase 1's, in the hooks' background worker
    assert list((ws.root / ".yoi" / "usage").glob("*.jsonl"))


def test_install_in_a_project_that_is_not_a_workspace_yet_initialises_it(tmp_path: Path) -> None:
    """'yoi install claude-code --yes' in a fresh project: the hooks get a workspace to work in."""
    project = tmp_path / "fresh"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    home = tmp_path / "home"
    dry = _yoi("install", "claude-code", "--dry-run", cwd=project / "src", home=home)
    assert dry.returncode == 0 and "'yoi init' will create" in dry.stdout
    assert not (project / "memory").exists() and not (project / ".claude").exists()
    done = _yoi("install", "claude-code", "--yes", cwd=project / "src", home=home)
    assert done.returncode == 0, done.stderr
    assert (project / "memory").is_dir() and (project / ".yoi").is_dir()
    assert (project / ".claude" / "settings.json").is_file() and (project / ".mcp.json").is_file()
    assert "nothing to change" in _yoi("install", "claude-code", "--yes", cwd=project, home=home).stdout


def test_codex_notify_for_codex_before_hooks(tmp_path: Path) -> None:
    """--notify: the top-level notify program (Codex < 0.114), placed before the first table, byte-exact
    elsewhere; Codex's call (JSON as the last argv, stdin closed) runs Phase 1 on the thread's rollout."""
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    config = ws.root / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG)
    assert _yoi("install", "codex", "--notify", "--yes", cwd=ws.root, home=home).returncode == 0
    text = config.read_text()
    notify = tomllib.loads(text)["notify"]
    assert notify == [YOI, "hook", "codex-notify"]
    line = f'notify = ["{YOI}", "hook", "codex-notify"]\n'
    assert text.replace(line, "", 1).startswith(CODEX_CONFIG) and text.index(line) < text.index("[mcp_servers.docs]")
    assert "nothing to change" in _yoi("install", "codex", "--yes", cwd=ws.root, home=home).stdout  # kept
    # Codex calls it with the event as one argument and stdin closed
    thread = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"
    day = home / ".codex" / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    (day / f"rollout-2026-02-23T20-34-25-{thread}.jsonl").write_bytes(CODEX_SAMPLE.read_bytes())
    event = {"type": "agent-turn-complete", "thread-id": thread, "turn-id": "1", "cwd": str(ws.root),
             "input-messages": ["hi"], "last-assistant-message": "done"}
    ran = subprocess.run([*notify, json.dumps(event)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(home)}, timeout=120)
    assert ran.returncode == 0, ran.stderr
    wait_for_background(ws)  # Phase 1 (which moves the token clock) runs in the hooks' background worker
    assert (ws.root / ".yoi" / "usage" / f"{thread}.jsonl").is_file()  # the token clock moved
    assert _yoi("uninstall", "codex", "--yes", cwd=ws.root, home=home).returncode == 0
    assert config.read_text() == CODEX_CONFIG


def test_codex_notify_never_replaces_another_program(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    config = ws.root / ".codex" / "config.toml"
    config.parent.mkdir()
    theirs = 'notify = ["notify-send", "Codex"]\n' + CODEX_CONFIG
    config.write_text(theirs)
    result = _yoi("install", "codex", "--notify", "--yes", cwd=ws.root, home=tmp_path / "home")
    assert result.returncode == 2 and "already set to another program" in result.stderr
    assert config.read_text() == theirs
    assert _yoi("install", "codex", "--yes", cwd=ws.root, home=tmp_path / "home").returncode == 0  # without it: fine
    assert config.read_text().startswith(theirs)


def test_codex_hooks_feature_flag_only_where_the_release_needs_it() -> None:
    from yoi_tui.core.integrations.codex_trust import hooks_flag

    assert hooks_flag({"hooks": True, "web_search": False}) is None  # 0.16x: on by default, write nothing
    assert hooks_flag({"hooks": False}) == "hooks"
    assert hooks_flag({"codex_hooks": False}) == "codex_hooks"  # the releases that introduced hooks
    assert hooks_flag({}) is None and hooks_flag(None) is None  # no Codex found: today's default


def test_codex_hooks_feature_flag_is_added_but_a_users_choice_is_kept(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    added = with_hooks_flag("", flag="codex_hooks", path=config)
    assert tomllib.loads(added)["features"] == {"codex_hooks": True}
    assert with_hooks_flag(added, flag=None, path=config) == ""
    mine = '[features]\ncodex_hooks = false   # I turned hooks off\nweb_search = true\n'
    assert with_hooks_flag(mine, flag="hooks", path=config) == mine
    other = '[features]\nweb_search = true\n'
    both = with_hooks_flag(other, flag="hooks", path=config)
    assert tomllib.loads(both)["features"] == {"hooks": True, "web_search": True}
    assert with_hooks_flag(both, flag=None, path=config) == other


def test_reinstall_removes_the_deprecated_flag_an_older_install_added(tmp_path: Path) -> None:
    """Codex 0.169 warns on every run about ``[features].codex_hooks``; hooks are on by default there."""
    ws = make_ws(tmp_path)
    home = tmp_path / "home"
    config = ws.root / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG + FLAG)
    assert _yoi("install", "codex", "--yes", cwd=ws.root, home=home).returncode == 0
    text = config.read_text()
    assert "codex_hooks" not in text and "features" not in tomllib.loads(text) and text.startswith(CODEX_CONFIG)


def test_codex_hook_gives_context_in_codex_json_shape(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    write_record(ws, "knowledge/run-python3.md", knowledge_meta(model_invokation=True,
                                                               description="Use python3; read before scripts."))
    payload = {"hook_event_name": "SessionStart", "session_id": "codex-2", "cwd": str(ws.root),
               "transcript_path": None, "source": "startup"}
    result = run_yoi("hook", "codex", input=json.dumps(payload), cwd=ws.root)
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart" and "#run-python3" in output["additionalContext"]
    stop = run_yoi("hook", "codex", input=json.dumps({**payload, "hook_event_name": "Stop"}), cwd=ws.root)
    assert stop.returncode == 0 and stop.stdout == ""


def test_codex_trust_entries_are_added_or_replaced_as_text(tmp_path: Path) -> None:
    from yoi_tui.core.integrations.codex_trust import project_trusted, trust_edit
    from yoi_tui.core.integrations.plan import IntegrationError

    config = tmp_path / "config.toml"
    key = "/p/.codex/hooks.json:stop:0:0"
    mine = (f'model = "m"   # mine\n\n[hooks.state."{key}"]\nenabled = true\ntrusted_hash = "sha256:old"\n\n'
            '[projects."/p"]\ntrust_level = "trusted"\n')
    config.write_text(mine)
    hooks = [{"key": key, "currentHash": "sha256:new"}, {"key": "/p/.codex/hooks.json:session_start:0:0",
                                                         "currentHash": "sha256:s"}]
    after = trust_edit(config, hooks).after or ""
    assert after.startswith('model = "m"   # mine\n') and after.count("trusted_hash") == 2
    state = tomllib.loads(after)["hooks"]["state"]
    assert state[key] == {"enabled": True, "trusted_hash": "sha256:new"}
    assert state["/p/.codex/hooks.json:session_start:0:0"] == {"trusted_hash": "sha256:s"}
    assert project_trusted(tomllib.loads(after), Path("/p")) and not project_trusted({}, Path("/p"))
    config.write_text('hooks = { state = {} }\n')  # an inline table cannot be edited as text: refused
    try:
        trust_edit(config, hooks)
    except IntegrationError as exc:
        assert "config.toml" in str(exc)
    else:
        raise AssertionError("an inline [hooks] table was edited")


def test_codex_dry_run_says_the_trust_step_follows(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    dry = _yoi("install", "codex", "--dry-run", cwd=ws.root, home=tmp_path / "home")
    assert dry.returncode == 0 and "ask Codex which of its hooks it trusts" in dry.stdout
    assert not (ws.root / ".codex").exists()
