"""The extraction benchmark (bench/extraction/): the scorer runs, and the labelled set is well formed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "extraction"


def test_every_label_file_names_an_existing_session_and_well_formed_items() -> None:
    labels = sorted((BENCH / "labels").glob("*.yaml"))
    assert len(labels) >= 10
    for path in labels:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert (ROOT / spec["session"]).is_file(), path
        for request in spec.get("requests") or []:
            assert isinstance(request["at"], int) and request["intent"] and request["target"], path
        for decision in spec.get("decisions") or []:
            assert decision["chosen"] and "rejected" in decision and decision["why"], path
        for attempt in spec.get("attempts") or []:
            assert isinstance(attempt["fixed"], bool) and attempt["what"], path


def test_scorer_prints_recall_and_precision_per_category_and_the_misses() -> None:
    run = subprocess.run([sys.executable, str(BENCH / "score.py"), "--session",
                          "claude-code_v2.0.27_agentcmd_full-session-four"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    for category in ("requests", "decisions", "attempts", "overall"):
        assert f"| {category} |" in run.stdout
    assert "| category | labels | items | recall | precision |" in run.stdout


def test_scorer_json_counts_the_labels_of_one_session() -> None:
    run = subprocess.run([sys.executable, str(BENCH / "score.py"), "--json", "--session",
                          "claude-code_v2.0.28_agtrace_claude_session"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)["categories"]
    assert figures["requests"]["labels"] == 2 and figures["attempts"]["labels"] == 1
    assert figures["decisions"]["labels"] == 0


def test_unknown_session_name_is_a_clear_error() -> None:
    run = subprocess.run([sys.executable, str(BENCH / "score.py"), "--session", "nope"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2 and "no label file named" in run.stderr and "Traceback" not in run.stderr
