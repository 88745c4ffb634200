"""The llm engines without the ``llm`` extra: one message saying what to install, exit 2 (SPEC 14).

The default install leaves the model-provider SDKs out; ``sys.modules[name] = None`` is how Python
itself marks a module that cannot be imported, so the subprocess sees them absent.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import make_ws

_WITHOUT = ("import sys\n"
            "for name in ('pydantic_ai', 'openai', 'anthropic'): sys.modules[name] = None\n"
            "from yoi_tui.cli.main import main\n"
            "sys.exit(main(sys.argv[1:]))\n")


def _yoi_without_llm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _WITHOUT, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", [["phase1", "--engine", "llm", "--force", "LOG"], ["phase2", "--engine", "llm", "--flush"],
                                     ["gc", "--engine", "llm", "--dry-run"]])
def test_the_llm_engine_without_the_extra_says_what_to_install(tmp_path: Path, command: list[str]) -> None:
    ws = make_ws(tmp_path)
    log = ws.root / "session.jsonl"
    log.write_text('{"yoi_session": 1, "session_id": "s1"}\n{"role": "user", "text": "Please add a flag."}\n'
                   '{"role": "assistant", "text": "Done.", "input_tokens": 900}\n', encoding="utf-8")
    if command[0] == "phase2":  # something to consolidate, so the engine is really asked for
        from phase2_fixtures import stage_realistic

        stage_realistic(ws)
    argv = [str(log) if word == "LOG" else word for word in command]
    done = _yoi_without_llm(*argv, "--workspace", str(ws.root))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'yoi-tui[llm]'" in done.stderr and "Traceback" not in done.stderr
    assert "'rules' engine" in done.stderr


def test_the_rules_engines_need_none_of_it(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    for argv in (["lint"], ["phase2", "--flush"], ["gc", "--dry-run"], ["context"], ["search", "knowledge"]):
        done = _yoi_without_llm(*argv, "--workspace", str(ws.root))
        assert done.returncode == 0, (argv, done.stderr)
