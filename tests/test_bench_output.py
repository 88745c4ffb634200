"""``bench/run.py`` writes only what it is asked to (issue 15): JSON with ``--out``, the README table
with ``--update-readme``; a run without them leaves every file as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

import run as bench_run  # noqa: E402  (bench/run.py)

ALL_FIGURES = ["check", "startup", "search", "lint", "completion", "one-file", "gc", "phase2", "app", "phase1"]


def _git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True,
                          text=True, timeout=60).stdout


def test_a_run_without_out_writes_nothing(tmp_path: Path) -> None:
    before = _git_status()
    readme_before = (REPO / "README.md").read_bytes()
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--records", "200", "--repeat", "1",
                           "--skip", *[f for f in ALL_FIGURES if f != "startup"]],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "`yoi --help` (start-up)" in proc.stdout and "Reproduce: `python bench/run.py --records 200" in proc.stdout
    assert list(tmp_path.iterdir()) == []
    assert _git_status() == before
    assert (REPO / "README.md").read_bytes() == readme_before


def test_update_readme_replaces_only_the_marked_table(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# yoi\n\nintro\n\n<!-- bench-table:start -->\n| old | table |\nstale: app full lint 17 s\n"
                      "<!-- bench-table:end -->\n\nafter\n", encoding="utf-8")
    bench_run.update_readme(readme, "| figure | target |\n|---|---|\n\n2026-12-01, 2 CPUs\n")
    text = readme.read_text(encoding="utf-8")
    assert text == ("# yoi\n\nintro\n\n<!-- bench-table:start -->\n| figure | target |\n|---|---|\n\n2026-12-01, 2 CPUs\n"
                    "<!-- bench-table:end -->\n\nafter\n")


def test_reproduce_command_leaves_out_local_paths() -> None:
    command = bench_run.reproduce_command(["--records", "10000", "50000", "--workdir", "/tmp/x", "--reuse",
                                           "--out=/tmp/r.json", "--update-readme"])
    assert command == "python bench/run.py --records 10000 50000 --update-readme"


def test_search_must_beat_rg_outright_at_50k() -> None:
    small = bench_run.Figure("search_memory", "s", "s", value=1.5, baseline=1.0, records=10_000)
    large = bench_run.Figure("search_memory", "s", "s", value=1.0, baseline=1.0, records=50_000)
    assert small.status() == "met" and large.status() == "missed"
    large.value = 0.9
    assert large.status() == "met"


def test_the_table_says_how_the_machine_speed_moved_between_sizes() -> None:
    """Each size is probed with a fixed loop before and after its figures; the table says how much
    slower or faster the machine ran for the largest size, which every growth figure moves with."""
    assert bench_run.cpu_probe() > 0
    sizes = [{"records": 10_000, "cpu_probe": [0.040, 0.044], "figures": {}, "check": {}},
             {"records": 50_000, "cpu_probe": [0.050, 0.052], "figures": {}, "check": {}}]
    report = {"sizes": sizes, "growth": bench_run.growth(sizes), "date": "2026-12-01 00:00 UTC", "repeat": 1,
              "machine": {"cpus": 2, "processor": "x", "machine": "x", "system": "Linux", "python": "3.11",
                          "baseline": "rg"}}
    table = bench_run.markdown(report)
    assert "10,000: 40 ms → 44 ms; 50,000: 50 ms → 52 ms" in table
    assert "The machine ran 21 % slower while the largest size was measured than while the smallest was" in table
    sizes[1]["cpu_probe"] = [0.041, 0.043]
    assert "at the same speed (within 3 %) for the smallest and the largest size" in bench_run.markdown(report)


def test_a_results_file_renders_the_table_again_without_measuring(tmp_path: Path) -> None:
    results = sorted((REPO / "bench" / "results").glob("*.json"))[-1]
    readme = tmp_path / "README.md"
    readme.write_text("<!-- bench-table:start -->\nold\n<!-- bench-table:end -->\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--from-results", str(results),
                           "--update-readme", str(readme)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    table = bench_run.markdown(__import__("json").loads(results.read_text(encoding="utf-8")))
    assert proc.stdout.strip() == table.strip()
    assert readme.read_text(encoding="utf-8") == f"<!-- bench-table:start -->\n{table.strip()}\n<!-- bench-table:end -->\n"
