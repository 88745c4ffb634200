"""The benchmark harness stays runnable: a tiny run in CI (no timing asserts), and the generator's contract.

``bench/run.py --records 200 --repeat 1`` runs in a subprocess into a temporary folder and must
produce the Markdown table and the JSON result. The generator must be deterministic and its
workspace must lint exactly as its manifest says (clean apart from the planted problems).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from yoi_tui.core.lint import lint_workspace
from yoi_tui.core.retrieval.search import knowledge_search, memory_search
from yoi_tui.core.store.workspace import Workspace
from yoi_tui.core.usage.log import frequencies_for_lint

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402  (bench/generate.py)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("bench") / "ws"
    manifest = generate.generate(300, root, seed=7)
    return root, manifest


def test_generator_mix_and_contents(generated: tuple[Path, dict]) -> None:
    root, manifest = generated
    files = manifest["files"]
    # 60/20/20, plus one planted near-duplicate decision and the summary.
    assert files["decision"] == 180 + 1 and files["request"] == 60 and files["knowledge"] == 60
    assert (root / "memory" / "summary.md").is_file()
    assert set(manifest["statuses"]) == {"open", "resolved", "replaced"}
    assert manifest["replaced"] > 0 and manifest["usage_events"] > 0
    texts = [p.read_text(encoding="utf-8") for p in (root / "knowledge").glob("*.md")]
    assert any("model_invokation: true" in t for t in texts) and any("model_invokation: false" in t for t in texts)
    assert any("user_invocable: false" in t for t in texts)
    kinds = {line.split(": ", 1)[1] for t in texts for line in t.splitlines() if line.startswith("kind: ")}
    assert len(kinds) >= 3
    bodies = [p.read_text(encoding="utf-8").split("\n---\n", 1)[1] for p in (root / "memory" / "decisions").glob("*.md")]
    assert min(map(len, bodies)) >= 250 and max(map(len, bodies)) <= 4000
    assert sum("(see #" in b for b in bodies) > len(bodies) // 4
    usage = list((root / ".yoi" / "usage").glob("*.jsonl"))
    events = [json.loads(line) for f in usage for line in f.read_text(encoding="utf-8").splitlines()]
    assert {e["type"] for e in events} == {"tokens", "invoke", "inject"}


def test_generated_workspace_lints_exactly_as_planted(generated: tuple[Path, dict]) -> None:
    root, manifest = generated
    ws = Workspace(root)
    report = lint_workspace(ws, frequencies=frequencies_for_lint(ws))
    got = Counter((d.path, d.rule) for d in report.diagnostics)
    expected = Counter((e["path"], e["rule"]) for e in manifest["expected"])
    assert got == expected
    assert {e["rule"] for e in manifest["expected"]} >= {"dangling-ref", "similar-slugs", "secret", "over-cap",
                                                         "frontmatter-invalid", "ref-to-replaced", "compressible"}


def test_generated_search_term_hits_only_the_planted_files(generated: tuple[Path, dict]) -> None:
    root, manifest = generated
    ws = Workspace(root)
    term = manifest["search_term"]
    hits = [h.path for h in knowledge_search(ws, term, record=False)]
    hits += [h.path for h in memory_search(ws, term, record=False)]
    assert sorted(hits) == manifest["search_hits"]


def test_generator_is_deterministic(tmp_path: Path) -> None:
    generate.generate(120, tmp_path / "a", seed=3)
    generate.generate(120, tmp_path / "b", seed=3)
    generate.generate(120, tmp_path / "c", seed=4)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")


def test_generator_refuses_to_overwrite_a_foreign_folder(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(BENCH / "generate.py"), "50", "--out", str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "refusing" in proc.stderr
    assert (target / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_harness_smoke_run_writes_table_and_json(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--records", "200", "--repeat", "1", "--phase1-mb", "1", "--install", "current",
                           "--out", str(out), "--workdir", str(tmp_path / "work")],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = proc.stdout
    assert table.startswith("| figure | target | 200 records |")
    for label in ("yoi search knowledge", "yoi search memory", "yoi lint", "completion", "one file",
                  "first paint", "Phase 1", "peak RSS"):
        assert label in table, label
    results = list(out.glob("*.json"))
    assert len(results) == 1
    report = json.loads(results[0].read_text(encoding="utf-8"))
    size = report["sizes"][0]
    assert size["records"] == 200 and size["check"]["lint_as_planted"] is True
    assert size["check"]["search_as_planted"] is True
    figures = size["figures"]
    for key in ("search_knowledge", "search_memory", "lint_cold", "lint_warm", "lint_warm_edit", "completion",
                "one_file_lint"):
        assert figures[key]["value"] is not None and figures[key]["value"] > 0, key
        assert figures[key]["status"] in ("met", "missed")
    assert figures["search_knowledge"]["baseline"] > 0
    assert report["markdown"] == table.strip()
    assert not (tmp_path / "work" / "ws-200").exists()  # not kept without --keep
