#!/usr/bin/env python3
"""The benchmark harness of issue 6: yoi at 10,000 and 50,000 records, next to a same-run baseline.

``python bench/run.py [--records 10000 50000] [--repeat 5]`` generates a workspace per size
(``bench/generate.py``), checks that it lints exactly as planted, then measures each figure as the
median of ``--repeat`` runs, interleaved with its baseline so both see the same machine load:

==========================  ======================================  ==============================
figure                      how                                      baseline (same run)
==========================  ======================================  ==============================
search knowledge / memory   ``yoi search knowledge|memory TERM``     ``rg -il TERM`` on the folder
                            (whole process)                          (``grep -ril`` without rg)
lint cold / warm / edited   ``yoi lint`` (whole process), without    ``rg -il TERM memory knowledge``
                            its cache in ``.yoi/state/``, with it
                            (nothing changed), with it after an edit
``#`` completion            one keystroke's ranking of 1-3 letters   (target: 16 ms)
                            over the knowledge slugs, in-process
one-file lint               the editor's live lint of an edited      (target: 20 ms)
                            file (index + ``lint_text``)
app first paint             ``bench/app_probe.py``: process start    (target: 1.5 s)
                            to the populated main screen, headless
Phase 1 throughput          ``rules`` engine over the Claude Code    ``json.loads`` of the same lines
                            samples (MB/s)
peak RSS                    ``yoi lint`` and the app                 --
growth                      each figure at the largest size / the    (target: 5.5x for 5x records)
                            same at the smallest
==========================  ======================================  ==============================

It prints a Markdown table; ``--out FILE|DIR`` also writes everything (samples included) as JSON,
and ``--update-readme`` regenerates the README's table between the ``bench-table`` markers (with
the machine, the date and the command that reproduces it). Nothing else is written: running the
bench leaves the working tree clean. A figure whose feature has not landed prints "not measurable yet".
No figure is asserted: ``tests/test_bench_smoke.py`` runs this at 200 records so it never rots.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import generate  # noqa: E402  (bench/generate.py)

SESSION = "bench-harness"  # usage events of the searches go to .yoi/usage/bench-harness.jsonl (removed after)
LINT_CACHE_DIRS = (".yoi/state/cache",)  # what "cold" removes before each run
SAMPLES = REPO / "tests" / "data" / "samples"
NOT_YET = "not measurable yet"

TARGETS: dict[str, tuple[str, float, str]] = {
    # key: (kind, limit, text) -- kind "ratio" compares value/baseline, "abs" the value itself.
    # Issue 15: search within 2x of rg at 10k and faster than rg at 50k (SEARCH_AT_SCALE below).
    "startup": ("ratio", 3.0, "≤ 3× python"),
    "search_knowledge": ("ratio", 2.0, "≤ 2× rg (10k), < 1× (50k)"),
    "search_memory": ("ratio", 2.0, "≤ 2× rg (10k), < 1× (50k)"),
    "lint_cold": ("ratio", 20.0, "≤ 20× rg (10k)"),
    "lint_warm": ("ratio", 2.0, "≤ 2× rg"),
    "lint_warm_edit": ("ratio", 3.0, "≤ 3× rg"),
    "completion": ("abs", 0.016, "≤ 16 ms"),
    "one_file_lint": ("abs", 0.020, "≤ 20 ms"),
    "search_steady": ("abs", 0.005, "≤ 5 ms"),
    "gc_dry_run": ("abs", 2.0, "≤ 2 s (10k)"),
    "phase2_dry_run": ("abs", 1.0, "≤ 1 s (10k)"),
    "phase1_big": ("ratio", 5.0, "≤ 5× jq"),
    "app_first_paint": ("abs", 1.5, "≤ 1.5 s"),
    "rss_lint": ("abs", 300.0, "≤ 300 MB"),
    "rss_gc": ("abs", 300.0, "≤ 300 MB"),
    "rss_app": ("abs", 400.0, "≤ 400 MB"),
    "rss_server": ("abs", 300.0, "≤ 300 MB"),
    # Issue 23: an agent's hooks and MCP server must never make it wait.
    "mcp_ready": ("abs", 0.300, "≤ 300 ms"),
    "hook_stop": ("over", 0.100, "≤ python + 100 ms"),
    "hook_precompact": ("over", 0.100, "≤ python + 100 ms"),
    "hook_session_start": ("abs", 0.150, "≤ 150 ms (10k), growth ≤ 2×"),
    "hook_prompt": ("abs", 0.150, "≤ 150 ms (10k), growth ≤ 2×"),
    "context_tokens": ("abs", 4000.0, "≤ [context] max_tokens"),
}
# Figures whose growth has a goal of its own (issue 23: from 10,000 to 100,000 records).
GROWTH_TARGETS = {"hook_session_start": 2.0, "hook_prompt": 2.0, "context_tokens": 1.1}  # the block: flat
SEARCH_AT_SCALE = (50_000, 1.0)  # from this many records, search must beat rg outright
# Goals the issue states for 10k (GC and Phase 2 in seconds, cold lint against rg); larger sizes are
# judged by their growth.
ONLY_AT_SMALLEST = {"gc_dry_run", "phase2_dry_run", "lint_cold", "hook_session_start", "hook_prompt",
                    "hook_stop", "hook_precompact"}
GROWTH_TARGET = 5.5
ORDER = ("startup", "search_knowledge", "search_memory", "search_steady", "lint_cold", "lint_warm", "lint_warm_edit", "completion",
         "one_file_lint", "gc_dry_run", "phase2_dry_run", "app_first_paint", "app_loaded", "app_linted", "phase1", "phase1_big", "mcp_ready", "hook_session_start", "hook_prompt",
         "hook_stop", "hook_precompact", "context_tokens", "rss_lint", "rss_gc", "rss_app", "rss_server")


@dataclass
class Figure:
    """One measured row at one size: the median of the samples, and its baseline's."""

    key: str
    label: str
    unit: str  # "s" or "MB/s" or "MB"
    value: float | None = None
    samples: list[float] = field(default_factory=list)
    baseline: float | None = None
    baseline_samples: list[float] = field(default_factory=list)
    baseline_label: str = ""
    note: str = ""
    higher_is_better: bool = False
    records: int = 0  # the workspace size it was measured at (some goals depend on it)

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.baseline:
            return None
        return self.baseline / self.value if self.higher_is_better else self.value / self.baseline

    def status(self) -> str:
        if self.value is None:
            return "n/a"
        target = TARGETS.get(self.key)
        if target is None:
            return ""
        kind, limit, _text = target
        if self.key.startswith("search_") and self.records >= SEARCH_AT_SCALE[0]:
            limit = SEARCH_AT_SCALE[1]
        if self.key in ONLY_AT_SMALLEST and self.records > 10_000:
            return ""
        if kind == "over":
            if self.baseline is None:
                return "n/a"
            return "met" if self.value - self.baseline <= limit else "missed"
        measured = self.ratio if kind == "ratio" else self.value
        if measured is None:
            return "n/a"
        if kind == "ratio" and self.key.startswith("search_") and limit == SEARCH_AT_SCALE[1]:
            return "met" if measured < limit else "missed"
        return "met" if measured <= limit else "missed"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ratio"] = self.ratio
        data["status"] = self.status()
        target = TARGETS.get(self.key)
        data["target"] = target[2] if target else None
        return data


# --------------------------------------------------------------------------- running things


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


# Runs one command and reports its time, exit code and peak RSS. A child's ru_maxrss counts the
# memory of the process it was forked from (Linux keeps the larger of the pre-exec image's and its
# own): forked from this harness, which by then holds a 50,000-record store for the in-process
# figures, every command "peaked" at the harness's size. This small process forks the command
# instead, so the figure is the command's own; it also times it, so its own start is not counted.
_TRAMPOLINE = r"""
import os, signal, sys, time
result, timeout, stdin, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
devnull = os.open(os.devnull, os.O_RDWR)
source = os.open(stdin, os.O_RDONLY) if stdin != "-" else devnull
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(source, 0); os.dup2(devnull, 1); os.dup2(devnull, 2)
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
# Blocked in wait4 until the child ends (a timer kills it at the timeout; wait4 is retried after
# the handler): a polling loop woke this process 2,000 times a second, on the cores being measured.
signal.signal(signal.SIGALRM, lambda _signum, _frame: os.kill(pid, signal.SIGKILL))
signal.setitimer(signal.ITIMER_REAL, timeout)
got, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
signal.setitimer(signal.ITIMER_REAL, 0)
with open(result, "w") as handle:
    handle.write(f"{elapsed} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def run_timed(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
              timeout: float = 3600.0, stdin: Path | None = None) -> tuple[float, int, int]:
    """Wall-clock seconds, exit code and peak RSS (KB) of one whole process, output discarded
    (``stdin``: a file it reads as its standard input; else /dev/null)."""
    with tempfile.NamedTemporaryFile("r", prefix="yoi-bench-run-", suffix=".txt") as result:
        subprocess.run([sys.executable, "-c", _TRAMPOLINE, result.name, str(timeout), str(stdin or "-"), *cmd],
                       cwd=cwd, env=env,
                       stdin=subprocess.DEVNULL, check=True, timeout=timeout + 60)
        elapsed, code, maxrss = result.read().split()
    return float(elapsed), int(code), int(maxrss)


def user_install(workdir: Path) -> tuple[list[str], str]:
    """``yoi`` as a user installs it: a wheel of this checkout, unpacked into a fresh venv whose other
    packages come from this interpreter's (added by a ``.pth`` line, so no dependency is installed).

    The development install (``pip install -e``) puts an import finder in ``site``: every Python
    start imports it and ``pathlib`` (~12 ms here, a third of ``python -c pass``). A user's
    ``pip install`` / ``uv tool install`` has no such finder, so the whole-process figures are
    measured like that. Returns the ``yoi`` command and that venv's Python (the start-up baseline).
    """
    import sysconfig
    import zipfile

    source, dist, venv = workdir / "wheel-source", workdir / "wheel-dist", workdir / "user-venv"
    for folder in (source, dist, venv):
        shutil.rmtree(folder, ignore_errors=True)
    # A copy, so that building writes no build/ or egg-info into the checkout.
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache", "snapshots"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist),
                    str(source)], check=True, capture_output=True)
    [wheel] = dist.glob("yoi_tui-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    (site / "bench-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    script = venv / "bin" / "yoi"
    # What pip writes for the wheel's console script (its entry point, as the wheel declares it).
    module, function = _console_script(wheel, "yoi").split(":")
    script.write_text(f"#!{python}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
                      f"from {module} import {function}\nif __name__ == '__main__':\n"
                      "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                      f"    sys.exit({function}())\n", encoding="utf-8")
    script.chmod(0o755)
    shutil.rmtree(source, ignore_errors=True)
    subprocess.run([str(script), "--help"], check=True, capture_output=True)  # compiles its .pyc files once
    return [str(script)], str(python)


def _console_script(wheel: Path, name: str) -> str:
    """``module:function`` of the console script ``name`` in the wheel's ``entry_points.txt``."""
    import configparser
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        [entry_points] = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        parser = configparser.ConfigParser()
        parser.read_string(archive.read(entry_points).decode("utf-8"))
    return parser["console_scripts"][name].strip()


def yoi_command() -> list[str]:
    """The installed ``yoi`` script next to this interpreter, else ``python -m yoi_tui.cli.main``."""
    script = Path(sys.executable).parent / "yoi"
    return [str(script)] if script.exists() else [sys.executable, "-m", "yoi_tui.cli.main"]


def scan_baseline(term: str, folders: list[Path]) -> tuple[list[str], str]:
    """The command a plain text search of ``folders`` for ``term`` is, and its label."""
    rg = shutil.which("rg")
    if rg:
        return [rg, "-il", term, *map(str, folders)], "rg -il"
    return ["grep", "-ril", term, *map(str, folders)], "grep -ril (ripgrep not installed)"


_SERVER_RUNTIME: list[str] = []  # the private XDG_RUNTIME_DIR the measured command servers live in


def server_runtime() -> str:
    """A private runtime folder for the command servers the measured ``yoi`` starts (short: socket
    paths are limited to 108 bytes), so the run finds, measures and stops exactly its own."""
    if not _SERVER_RUNTIME:
        folder = tempfile.mkdtemp(prefix="yoi-bench-rt-", dir="/tmp")
        os.chmod(folder, 0o700)
        _SERVER_RUNTIME.append(folder)
    return _SERVER_RUNTIME[0]


def server_pids() -> list[int]:
    """Process ids of the command servers running under ``server_runtime()``."""
    pids = []
    for lock in (Path(server_runtime()) / "yoi").glob("*.lock"):
        try:
            pid = int(lock.read_text().strip() or 0)
            os.kill(pid, 0)
        except (OSError, ValueError):
            continue
        if pid:
            pids.append(pid)
    return pids


def wait_for_server(timeout: float = 20.0) -> bool:
    """True once a command server is listening (its socket is there and its process alive)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server_pids() and list((Path(server_runtime()) / "yoi").glob("*.sock")):
            return True
        time.sleep(0.05)
    return False


def stop_servers() -> None:
    for pid in server_pids():
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.05)


def peak_rss_mb(pid: int) -> float | None:
    """VmHWM (peak resident set) of a running process, from /proc."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["YOI_SESSION_ID"] = SESSION
    # The command server as a user gets it (on by default), in a runtime folder of this run's own.
    env.pop("YOI_SERVER", None)
    env.pop("YOI_SERVER_IDLE", None)
    env["XDG_RUNTIME_DIR"] = server_runtime()
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    # With it set (some shells and CI images do), a module whose .pyc is missing is compiled again
    # at every start: start-up figures would measure the compiler.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def interleaved(repeat: int, subject: Callable[[], float], baseline: Callable[[], float] | None,
                warmup: bool = True) -> tuple[list[float], list[float]]:
    """``repeat`` alternating runs of subject and baseline (one untimed warm-up of each first)."""
    if warmup:
        subject()
        if baseline:
            baseline()
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeat):
        ours.append(subject())
        if baseline:
            theirs.append(baseline())
    return ours, theirs


# --------------------------------------------------------------------------- figures


def check_workspace(ws: Path, manifest: dict[str, Any], yoi: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Lint once (JSON) and compare with the planted findings; search once and compare the hits."""
    found: dict[str, Any] = {}
    proc = subprocess.run([*yoi, "lint", "--workspace", str(ws), "--format", "json"], capture_output=True,
                          text=True, env=env, timeout=3600)
    try:
        diags = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        diags = None
    if diags is None:
        found["lint"] = f"could not read lint output (exit {proc.returncode}): {proc.stderr.strip()[:300]}"
    else:
        expected = Counter((e["path"], e["rule"]) for e in manifest["expected"])
        got = Counter((d["path"], d["rule"]) for d in diags)
        missing, extra = expected - got, got - expected
        found["lint_findings"] = len(diags)
        found["lint_as_planted"] = not missing and not extra
        if missing or extra:
            found["lint_missing"] = sorted(f"{p} {r}" for p, r in missing.elements())[:20]
            found["lint_unexpected"] = sorted(f"{p} {r}" for p, r in extra.elements())[:20]
    hits: list[str] = []
    for target in ("knowledge", "memory"):
        proc = subprocess.run([*yoi, "search", target, manifest["search_term"], "--workspace", str(ws), "--json"],
                              capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            found[f"search_{target}"] = f"exit {proc.returncode}: {proc.stderr.strip()[:200]}"
            continue
        hits += [h.get("slug", "") for h in json.loads(proc.stdout or "[]")]
    wanted = sorted(Path(p).stem for p in manifest["search_hits"])
    found["search_as_planted"] = sorted(hits) == wanted
    return found


def has_command(yoi: list[str], name: str, env: dict[str, str]) -> bool:
    proc = subprocess.run([*yoi, name, "--help"], capture_output=True, env=env, timeout=120)
    return proc.returncode == 0


def fig_search(ws: Path, target: str, term: str, repeat: int, yoi: list[str], env: dict[str, str]) -> Figure:
    fig = Figure(f"search_{target}", f"`yoi search {target}` (whole process)", "s")
    if not has_command(yoi, "search", env):
        fig.note = NOT_YET
        return fig
    folder = ws / ("knowledge" if target == "knowledge" else "memory")
    base_cmd, fig.baseline_label = scan_baseline(term, [folder])
    cmd = [*yoi, "search", target, term, "--workspace", str(ws)]
    run_timed(cmd, env=env)  # untimed: builds the search index and starts the command server
    served = wait_for_server()
    ours, theirs = interleaved(repeat, lambda: run_timed(cmd, env=env)[0], lambda: run_timed(base_cmd)[0])
    served = served and bool(server_pids())
    fig.samples, fig.baseline_samples = ours, theirs
    fig.value, fig.baseline = median(ours), median(theirs)
    hits = generate.SEARCH_HITS if target == "knowledge" else 4
    fig.note = (f"term '{term}' is in {hits} files; " + (
        "answered by the command server the untimed first run started (the search code imported, the index kept "
        "fresh by inotify; the untimed warm-up is its first answer for this workspace)" if served else
        "no command server (it could not start here): the search index is checked against every file's lstat, "
        "then only candidates are read"))
    return fig


def fig_server_rss() -> Figure:
    """Peak memory of the command server after it answered this size's searches."""
    fig = Figure("rss_server", "peak RSS of the command server (after the searches and lints)", "MB")
    pids = server_pids()
    values = [v for v in (peak_rss_mb(pid) for pid in pids) if v is not None]
    fig.value = max(values) if values else None
    fig.note = ("VmHWM of the server that answered the whole-process searches and warm lints (stopped after each "
                "size)" if values
                else "no command server ran")
    return fig


def fig_startup(repeat: int, yoi: list[str], env: dict[str, str], interpreter: str | None = None) -> Figure:
    """``yoi --help`` (start-up: the parser, no command module run) against ``python -c pass``."""
    fig = Figure("startup", "`yoi --help` (start-up)", "s")
    fig.baseline_label = "python -c pass"
    python = [interpreter or str(Path(sys.executable)), "-c", "pass"]
    ours, theirs = interleaved(max(repeat, 5), lambda: run_timed([*yoi, "--help"], env=env)[0],
                               lambda: run_timed(python, env=env)[0])
    fig.samples, fig.baseline_samples = ours, theirs
    fig.value, fig.baseline = median(ours), median(theirs)
    fig.note = "the same interpreter; only the parser is built, no subcommand module is imported"
    return fig


def fig_gc(ws: Path, repeat: int, yoi: list[str], env: dict[str, str]) -> tuple[Figure, Figure]:
    """``yoi gc --dry-run`` (whole process; writes nothing) and its peak RSS."""
    fig = Figure("gc_dry_run", "`yoi gc --dry-run` (whole process)", "s")
    rss = Figure("rss_gc", "peak RSS of `yoi gc --dry-run`", "MB")
    if not has_command(yoi, "gc", env):
        fig.note = rss.note = NOT_YET
        return fig, rss
    cmd = [*yoi, "gc", "--dry-run", "--workspace", str(ws)]
    for _ in range(max(1, min(repeat, 3))):
        elapsed, _code, maxrss = run_timed(cmd, env=env)
        fig.samples.append(elapsed)
        rss.samples.append(maxrss / 1024)
    fig.value, rss.value = median(fig.samples), median(rss.samples)
    fig.note = "rules engine: every record read, similar slugs paired, the change set diffed, nothing written"
    return fig, rss


def fig_phase2(ws: Path, repeat: int, yoi: list[str], env: dict[str, str]) -> Figure:
    """``yoi phase2 --dry-run --flush`` with the staging files Phase 1 writes for the Claude Code
    and Codex samples, on a hard-linked copy of the workspace (the bench's stays as generated)."""
    fig = Figure("phase2_dry_run", "`yoi phase2 --dry-run` (staging from the sample logs, whole process)", "s")
    if not has_command(yoi, "phase2", env):
        fig.note = NOT_YET
        return fig
    logs = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))
    with tempfile.TemporaryDirectory(prefix="yoi-bench-phase2-") as temp:
        copy = Path(temp) / "ws"
        def link_records(source: str, target: str) -> None:
            # Records are hard links (Phase 1 and a dry run never write them); state, usage logs
            # and indexes are copied, since those may be written in place.
            if source.endswith(".md"):
                os.link(source, target)
            else:
                shutil.copy2(source, target)

        shutil.copytree(ws, copy, copy_function=link_records, ignore=shutil.ignore_patterns("scratch"))
        one_shot = {**env, "YOI_SERVER": "0"}
        subprocess.run([*yoi, "phase1", "--force", "--workspace", str(copy), *logs], env=one_shot,
                       capture_output=True, check=True, timeout=600)
        staged = len(list((copy / "memory" / "_staging").glob("*.json")))
        cmd = [*yoi, "phase2", "--dry-run", "--flush", "--workspace", str(copy)]
        ours, _ = interleaved(max(1, min(repeat, 3)), lambda: run_timed(cmd, env=one_shot)[0], None)
    fig.samples = ours
    fig.value = median(ours)
    fig.note = (f"rules engine over {staged} staging files (`yoi phase1 --force` of the {len(logs)} sample logs): "
                "the records it writes copied to a scratch folder, the change set diffed, nothing applied")
    return fig


_MCP_READY = r"""
import json, subprocess, sys, time
cmd = sys.argv[1:]
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
start = time.perf_counter()
proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
if cmd[-1] != "pass":
    proc.stdin.write((json.dumps(init) + "\n").encode()); proc.stdin.flush()
    line = proc.stdout.readline()
    ready = time.perf_counter() - start
    assert json.loads(line)["id"] == 1, line
    proc.stdin.close()
else:
    proc.wait()
    ready = time.perf_counter() - start
proc.wait()
print(ready)
"""


def fig_mcp_ready(ws: Path, repeat: int, yoi: list[str], env: dict[str, str], interpreter: str | None) -> Figure:
    """``yoi mcp``: process start to the ``initialize`` answer (what a client waits for before it
    lists the tools), against ``python -c pass`` started and waited for the same way."""
    fig = Figure("mcp_ready", "`yoi mcp`: start to the `initialize` answer (whole process)", "s")
    fig.baseline_label = "python -c pass"
    python = interpreter or sys.executable

    def timed(cmd: list[str]) -> float:
        done = subprocess.run([sys.executable, "-c", _MCP_READY, *cmd], capture_output=True, text=True, env=env,
                              timeout=600, check=True)
        return float(done.stdout.strip())

    ours, theirs = interleaved(max(repeat, 5), lambda: timed([*yoi, "mcp", "--workspace", str(ws)]),
                               lambda: timed([python, "-c", "pass"]))
    fig.samples, fig.baseline_samples = ours, theirs
    fig.value, fig.baseline = median(ours), median(theirs)
    fig.note = ("a hand-written stdio JSON-RPC layer answers initialize and tools/list; the search code is imported "
                "at the first tools/call (the pinned MCP SDK alone took ~2 s of CPU to import)")
    return fig


def _wait_for_hook_jobs(ws: Path, timeout: float = 600.0) -> None:
    """Until the hooks' background worker is done (so the next figure does not share the CPU with it)."""
    from yoi_tui.core.hooks.jobs import status
    from yoi_tui.core.store.workspace import Workspace

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = status(Workspace(ws))
        if not found["worker_running"] and not [j for j in found["pending"] if j["waiting"]]:
            return
        time.sleep(0.1)


def fig_hooks(ws: Path, repeat: int, yoi: list[str], env: dict[str, str], interpreter: str | None,
              workdir: Path) -> list[Figure]:
    """Each hook event as the agent runs it (``yoi hook claude-code``, the event on stdin; whole
    process, the command server on as users get it), and the resident block's size."""
    figures: list[Figure] = []
    if not has_command(yoi, "hook", env):
        return figures
    # The background work writes staging, pointers and (PreCompact's flush) records: on a copy whose
    # records are hard links (every write is a rename), so the bench's workspace stays as generated.
    copy = workdir / "hooks-ws"
    shutil.rmtree(copy, ignore_errors=True)

    def link_records(source: str, target: str) -> None:
        if source.endswith(".md"):
            os.link(source, target)
        else:
            shutil.copy2(source, target)

    shutil.copytree(ws, copy, copy_function=link_records, ignore=shutil.ignore_patterns("scratch"))
    try:
        return _hook_figures(copy, repeat, yoi, env, interpreter, workdir)
    finally:
        stop_servers()
        shutil.rmtree(copy, ignore_errors=True)


def _hook_figures(ws: Path, repeat: int, yoi: list[str], env: dict[str, str], interpreter: str | None,
                  workdir: Path) -> list[Figure]:
    figures: list[Figure] = []
    transcript = workdir / "hook-transcript.jsonl"
    sample = SAMPLES / "claude-code_v2.0.28_agtrace_claude_session.jsonl"
    shutil.copy(sample, transcript)
    python = [interpreter or str(Path(sys.executable)), "-c", "pass"]
    events = (("hook_session_start", "SessionStart", {"source": "startup"}),
              ("hook_prompt", "UserPromptSubmit", {"prompt": "please run the tests, see #no-such-record"}),
              ("hook_stop", "Stop", {}),
              ("hook_precompact", "PreCompact", {"trigger": "auto"}))
    for key, event, extra in events:
        fig = Figure(key, f"`yoi hook claude-code` {event} (whole process)", "s")
        fig.baseline_label = "python -c pass"
        payload = workdir / f"hook-{event}.json"
        payload.write_text(json.dumps({"hook_event_name": event, "session_id": SESSION, "cwd": str(ws),
                                       "transcript_path": str(transcript), **extra}), encoding="utf-8")
        cmd = [*yoi, "hook", "claude-code"]
        run_timed(cmd, env=env, stdin=payload)  # untimed: starts the command server (the first call runs alone)
        wait_for_server()
        _wait_for_hook_jobs(ws)

        def ours(cmd: list[str] = cmd, payload: Path = payload) -> float:
            elapsed = run_timed(cmd, env=env, stdin=payload)[0]
            _wait_for_hook_jobs(ws)  # Stop/PreCompact start a worker: not timed, not left to share the CPU
            return elapsed

        fig.samples, fig.baseline_samples = interleaved(max(repeat, 5), ours, lambda: run_timed(python, env=env)[0])
        fig.value, fig.baseline = median(fig.samples), median(fig.baseline_samples)
        fig.note = ("served by the command server the untimed first call started; Stop and PreCompact queue a job "
                    "and start the detached background worker (its Phase 1 / Phase 2 run is not timed)"
                    if server_pids() else "no command server (it could not start here): each call ran alone")
        figures.append(fig)
    tokens = Figure("context_tokens", "`yoi context`: the resident block's size", "tokens")
    done = subprocess.run([*yoi, "context", "--json", "--no-record", "--workspace", str(ws)], capture_output=True,
                          text=True, env=env, timeout=600)
    if done.returncode == 0 and done.stdout.strip():
        data = json.loads(done.stdout)
        tokens.value = float(data["tokens"])
        tokens.note = f"estimated tokens, {len(data['slugs'])} model_invokation descriptions in it"
    figures.append(tokens)
    return figures


def clear_lint_cache(ws: Path) -> None:
    for rel in LINT_CACHE_DIRS:
        shutil.rmtree(ws / rel, ignore_errors=True)


def has_lint_cache(ws: Path) -> bool:
    return any((ws / rel).exists() and any((ws / rel).iterdir()) for rel in LINT_CACHE_DIRS)


def fig_lint(ws: Path, term: str, repeat: int, yoi: list[str],
             env: dict[str, str]) -> tuple[Figure, Figure, Figure, Figure]:
    cold = Figure("lint_cold", "`yoi lint` whole workspace, cold (no cache)", "s")
    warm = Figure("lint_warm", "`yoi lint` whole workspace, warm (cache filled, nothing changed)", "s")
    edited = Figure("lint_warm_edit", "`yoi lint` whole workspace, warm, one file edited before each run", "s")
    rss = Figure("rss_lint", "peak RSS of `yoi lint` (cold)", "MB")
    base_cmd, label = scan_baseline(term, [ws / "memory", ws / "knowledge"])
    cold.baseline_label = warm.baseline_label = edited.baseline_label = label
    cmd = [*yoi, "lint", "--workspace", str(ws)]
    rss_samples: list[float] = []

    one_shot = {**env, "YOI_SERVER": "0"}  # cold is a first lint: nothing kept anywhere

    def run_cold() -> float:
        clear_lint_cache(ws)
        elapsed, _code, maxrss = run_timed(cmd, env=one_shot)
        rss_samples.append(maxrss / 1024)
        return elapsed

    ours, theirs = interleaved(repeat, run_cold, lambda: run_timed(base_cmd)[0])
    cold.samples, cold.baseline_samples = ours, theirs
    cold.value, cold.baseline = median(ours), median(theirs)
    rss.samples = rss_samples[1:] or rss_samples
    rss.value = median(rss.samples)
    run_timed(cmd, env=env)  # fill the cache (if there is one); start the command server if none runs
    served = wait_for_server()
    deadline = time.monotonic() + 10
    while served and not has_lint_cache(ws) and time.monotonic() < deadline:
        time.sleep(0.1)  # a server writes the cache file once idle for a second
    if not has_lint_cache(ws):
        for fig in (warm, edited):
            fig.note = "no lint cache: warm = cold"
            fig.value, fig.baseline = cold.value, cold.baseline
        return cold, warm, edited, rss
    ours, theirs = interleaved(repeat, lambda: run_timed(cmd, env=env)[0], lambda: run_timed(base_cmd)[0])
    warm.samples, warm.baseline_samples = ours, theirs
    warm.value, warm.baseline = median(ours), median(theirs)
    # The common case after an agent write: one file changed since the last lint.
    target = sorted((ws / "memory" / "decisions").glob("*.md"))[0]
    original = target.read_bytes()
    edits = iter(range(10_000))

    def run_edited() -> float:
        target.write_bytes(original + f"\nEdited before run {next(edits)}.\n".encode())
        return run_timed(cmd, env=env)[0]

    try:
        ours, theirs = interleaved(repeat, run_edited, lambda: run_timed(base_cmd)[0])
    finally:
        target.write_bytes(original)
        run_timed(cmd, env=env)
    edited.samples, edited.baseline_samples = ours, theirs
    edited.value, edited.baseline = median(ours), median(theirs)
    served = served and bool(server_pids())
    how = ("answered by the command server (its first, untimed lint of this workspace lists every file once)"
           if served else "no command server (it could not start here)")
    warm.note = f"{how}; cold runs use none (YOI_SERVER=0)"
    edited.note = (f"{target.relative_to(ws)} gets one more line before each run: only it and the files whose findings "
                   f"depend on it are checked again; {how}")
    return cold, warm, edited, rss


def fig_completion(ws: Path, repeat: int) -> Figure:
    """One keystroke of ``#`` completion: ranking every knowledge slug for a 1-3 letter query."""
    fig = Figure("completion", "`#` completion, one keystroke (in-process)", "s")
    queries = ("c", "ca", "cat", "q", "qz", "xqz")  # prefix hits and misses (the fuzzy path)
    try:
        from yoi_tui.core.store.workspace import Workspace
        from yoi_tui.model.browse import RecordStore, rank_slugs

        store = RecordStore.load(Workspace(ws))

        def keystroke(query: str) -> None:
            rank_slugs(query, store.knowledge_candidates())

        gather = []
        for _ in range(5):
            start = time.perf_counter()
            store.knowledge_candidates()
            gather.append(time.perf_counter() - start)
        fig.note = (f"model.browse.rank_slugs over store.knowledge_candidates(), as the compose screen calls it "
                    f"(gathering the candidates alone: {statistics.median(gather) * 1000:.1f} ms)")
    except ImportError:
        from rapidfuzz import fuzz, process

        from yoi_tui.core.lint import load_records
        from yoi_tui.core.store.workspace import Workspace

        records, _diags, _index = load_records(Workspace(ws))
        choices = [f"{r.slug} {r.description}" for r in records if r.kind.value == "knowledge"]

        def keystroke(query: str) -> None:
            process.extract(query, choices, scorer=fuzz.WRatio, limit=20)

        fig.note = "app not landed: rapidfuzz WRatio over 'slug description'"
    worst: list[float] = []
    per_query: dict[str, float] = {}
    for query in queries:
        keystroke(query)
        times = []
        for _ in range(max(repeat, 3) * 3):
            start = time.perf_counter()
            keystroke(query)
            times.append(time.perf_counter() - start)
        per_query[query] = statistics.median(times)
        worst.append(per_query[query])
    fig.samples = worst
    fig.value = max(worst)
    fig.note += "; the slowest of " + ", ".join(f"'{q}' {t * 1000:.1f} ms" for q, t in per_query.items())
    return fig


def fig_one_file_lint(ws: Path, repeat: int) -> Figure:
    """The editor's live lint after an edit: a fresh lazy index plus ``lint_text`` of the buffer."""
    fig = Figure("one_file_lint", "lint one file after an edit (in-process)", "s")
    from yoi_tui.core.lint import WorkspaceIndex, lint_text
    from yoi_tui.core.store.workspace import Workspace

    workspace = Workspace(ws)
    paths = sorted((ws / "memory" / "decisions").glob("*.md"))
    path = next((p for p in paths if "(see #" in p.read_text(encoding="utf-8")), paths[0])
    text = path.read_text(encoding="utf-8")
    edited = text + "\nOne more sentence typed in the editor, with a `code span`.\n"
    lint_text(workspace, path, edited, WorkspaceIndex.from_names(workspace))
    for _ in range(max(repeat, 3) * 3):
        start = time.perf_counter()
        lint_text(workspace, path, edited, WorkspaceIndex.from_names(workspace))
        fig.samples.append(time.perf_counter() - start)
    fig.value = median(fig.samples)
    fig.note = (f"{path.relative_to(ws)}: WorkspaceIndex.from_names + lint_text, as the editor does "
                "(folder listings are reused while the folders are unchanged)")
    return fig


def fig_app(ws: Path, repeat: int, env: dict[str, str]) -> tuple[Figure, Figure, Figure, Figure]:
    paint = Figure("app_first_paint", "app start → first paint of the main screen (headless)", "s")
    loaded = Figure("app_loaded", "app start → every record parsed", "s")
    linted = Figure("app_linted", "app start → problems panel filled (full lint)", "s")
    rss = Figure("rss_app", "peak RSS of the app (after its lint)", "MB")
    try:
        import yoi_tui.app  # noqa: F401
    except ImportError as exc:
        for fig in (paint, loaded, linted, rss):
            fig.note = f"{NOT_YET} ({exc.name or exc})"
        return paint, loaded, linted, rss
    for _ in range(max(1, min(repeat, 3))):  # each run lints the whole workspace: 3 are plenty
        proc = subprocess.run([sys.executable, str(BENCH / "app_probe.py"), str(ws), "--t0", str(time.time())],
                              capture_output=True, text=True, env=env, timeout=3600)
        try:
            data = json.loads(proc.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            data = {"error": f"probe exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}
        if "error" in data:
            for fig in (paint, loaded, linted, rss):
                fig.note = str(data["error"])
            return paint, loaded, linted, rss
        paint.samples.append(data["first_paint_s"])
        loaded.samples.append(data.get("loaded_s", data["first_paint_s"]))
        if "linted_s" in data:
            linted.samples.append(data["linted_s"])
        rss.samples.append(data["maxrss_kb"] / 1024)
        paint.note = f"{data.get('rows')} rows listed at first paint"
        linted.note = f"{data.get('problems')} problems shown"
    for fig in (paint, loaded, linted, rss):
        fig.value = median(fig.samples)
    return paint, loaded, linted, rss


def fig_search_steady(ws: Path, term: str, repeat: int) -> Figure:
    """In-process search as the MCP server runs it: the kernel's change feed on (watch_for_changes)."""
    fig = Figure("search_steady", "search in the MCP server (in-process, nothing changed between searches)", "s")
    try:
        from yoi_tui.core.retrieval import search_index
        from yoi_tui.core.retrieval.search import knowledge_search, memory_search
        from yoi_tui.core.store.workspace import Workspace
    except ImportError as exc:
        fig.note = f"{NOT_YET} ({exc.name or exc})"
        return fig
    workspace = Workspace(ws)
    search_index.watch_for_changes(True)
    try:
        worst: dict[str, list[float]] = {}
        for search in (knowledge_search, memory_search):
            search(workspace, term, record=False)  # the first search lists the folders and starts the feed
            if not search_index._STEADY:  # files written in the last 2 s are re-checked: let them age
                time.sleep(search_index.RACY_NS / 1e9 + 0.2)
                search(workspace, term, record=False)
            times = []
            for _ in range(max(repeat, 5)):
                start = time.perf_counter()
                search(workspace, term, record=False)
                times.append(time.perf_counter() - start)
            worst[search.__name__] = times
        listed = bool(search_index._STEADY)
    finally:
        search_index.watch_for_changes(False)
    name, fig.samples = max(worst.items(), key=lambda item: statistics.median(item[1]))
    fig.value = median(fig.samples)
    fig.note = (f"{name} (the slower of knowledge_search and memory_search), term {term!r}; "
                + ("inotify change feed active: no lstat pass" if listed else
                   "no change feed here (not Linux or inotify unavailable): every search lstats every file"))
    return fig


def _big_log(folder: Path, megabytes: int = 50) -> Path | None:
    """A Claude Code log of ``megabytes`` MB: the largest sample repeated with fresh (seeded) ids."""
    import uuid

    logs = sorted(SAMPLES.glob("claude-code_*.jsonl"), key=lambda p: p.stat().st_size)
    if not logs:
        return None
    entries = [json.loads(line) for line in logs[-1].read_text(encoding="utf-8").splitlines() if line.strip()]
    target = folder / f"big-{megabytes}mb.jsonl"
    size, copy, previous = 0, 0, None
    with target.open("w", encoding="utf-8") as out:
        while size < megabytes * 1024 * 1024:
            renamed: dict[str, str] = {}
            for number, entry in enumerate(entries):
                entry = dict(entry)
                if isinstance(entry.get("uuid"), str):
                    renamed[entry["uuid"]] = entry["uuid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{copy}/{number}"))
                if entry.get("parentUuid"):
                    entry["parentUuid"] = renamed.get(entry["parentUuid"], previous)
                if isinstance(entry.get("message"), dict) and "id" in entry["message"]:
                    entry["message"] = {**entry["message"], "id": f"{entry['message']['id']}-{copy}"}
                line = json.dumps(entry, ensure_ascii=False) + "\n"
                out.write(line)
                size += len(line.encode("utf-8"))
                previous = entry.get("uuid", previous)
            copy += 1
    return target


def fig_phase1_big(repeat: int, yoi: list[str], env: dict[str, str], megabytes: int = 50) -> Figure:
    fig = Figure("phase1_big", f"`yoi phase1` on a {megabytes} MB Claude Code log (whole process)", "s")
    jq = shutil.which("jq")
    fig.baseline_label = "jq -c ."
    with tempfile.TemporaryDirectory(prefix="yoi-bench-p1big-") as tmp:
        log_path = _big_log(Path(tmp), megabytes)
        if log_path is None:
            fig.note = f"no Claude Code samples in {SAMPLES}"
            return fig
        runs = iter(range(1_000_000))

        def ours() -> float:
            ws = Path(tmp) / f"ws{next(runs)}"
            ws.mkdir()
            subprocess.run([*yoi, "init", "--workspace", str(ws)], env=env, capture_output=True, check=True)
            elapsed, code, _rss = run_timed([*yoi, "phase1", "--force", "--workspace", str(ws), str(log_path)],
                                            env=env)
            if code != 0:
                raise RuntimeError(f"yoi phase1 exited {code}")
            shutil.rmtree(ws, ignore_errors=True)
            return elapsed

        baseline = (lambda: run_timed([jq, "-c", ".", str(log_path)])[0]) if jq else None
        try:
            fig.samples, fig.baseline_samples = interleaved(repeat, ours, baseline)
        except Exception as exc:  # noqa: BLE001 - reported as the row's note
            fig.note = f"failed: {type(exc).__name__}: {exc}"
            return fig
        megabytes = log_path.stat().st_size / 1e6
    fig.value = median(fig.samples)
    fig.baseline = median(fig.baseline_samples)
    fig.note = f"{megabytes:.0f} MB: the largest sample repeated with fresh ids; parse, clean, extract, write staging" + \
        ("" if jq else " (jq not installed: no baseline)")
    return fig


def fig_phase1(repeat: int) -> Figure:
    fig = Figure("phase1", "Phase 1 `rules` engine on the Claude Code samples", "MB/s", higher_is_better=True)
    fig.baseline_label = "json.loads of the same lines"
    logs = sorted(SAMPLES.glob("claude-code_*.jsonl"))
    if not logs:
        fig.note = f"no Claude Code samples in {SAMPLES}"
        return fig
    try:
        from yoi_tui.core.phase1.runner import run_phase1
        from yoi_tui.core.store.workspace import init_workspace
    except ImportError as exc:
        fig.note = f"{NOT_YET} ({exc.name or exc})"
        return fig
    size_mb = sum(p.stat().st_size for p in logs) / 1e6
    blobs = [p.read_bytes() for p in logs]

    def ours() -> float:
        with tempfile.TemporaryDirectory(prefix="yoi-bench-p1-") as tmp:
            ws, _ = init_workspace(Path(tmp) / "ws")
            start = time.perf_counter()
            results = run_phase1(ws, logs, force=True, engine="rules")
            elapsed = time.perf_counter() - start
            bad = [r for r in results if r.status == "error"]
            if bad:
                raise RuntimeError(f"phase1 failed on {bad[0].log}: {bad[0].message}")
        return elapsed

    def theirs() -> float:
        start = time.perf_counter()
        for blob in blobs:
            for line in blob.split(b"\n"):
                if line.strip():
                    json.loads(line)
        return time.perf_counter() - start

    try:
        times, base = interleaved(max(repeat, 3), ours, theirs)
    except Exception as exc:  # noqa: BLE001 - reported as the row's note
        fig.note = f"failed: {type(exc).__name__}: {exc}"
        return fig
    fig.samples = [size_mb / t for t in times]
    fig.baseline_samples = [size_mb / t for t in base]
    fig.value, fig.baseline = median(fig.samples), median(fig.baseline_samples)
    fig.note = f"{len(logs)} logs, {size_mb:.2f} MB, fresh workspace each run (parse, clean, extract, write staging)"
    return fig


# --------------------------------------------------------------------------- one size


def cpu_probe() -> float:
    """Seconds of a fixed pure-Python loop (the best of five): how fast the machine runs Python now.

    A virtual machine's speed drifts (here by up to a third within minutes); the sizes are measured
    minutes apart, so a growth figure moves with the drift by about the ratio of their probes."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        sum(range(2_000_000))
        best = min(best, time.perf_counter() - start)
    return best


def measure_size(n: int, args: argparse.Namespace, yoi: list[str]) -> dict[str, Any]:
    ws = Path(args.workdir) / f"ws-{n}"
    manifest_path = ws / generate.MANIFEST
    reuse = False
    if args.reuse and manifest_path.exists():
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
        reuse = (old.get("records"), old.get("seed"), old.get("generator_version")) == \
            (n, args.seed, generate.GENERATOR_VERSION)
    started = time.perf_counter()
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if reuse else \
        generate.generate(n, ws, args.seed, force=True)
    gen_seconds = time.perf_counter() - started
    env = child_env()
    log(f"[{n}] workspace {'reused' if reuse else f'generated in {gen_seconds:.1f} s'}: {ws}")
    term = manifest["search_term"]
    figures: dict[str, Figure] = {}
    skip = set(args.skip or ())
    probes = [cpu_probe()]
    try:
        log(f"[{n}] checking the workspace lints and searches as planted")
        check = check_workspace(ws, manifest, yoi, env) if "check" not in skip else {}
        if "startup" not in skip:
            log(f"[{n}] start-up")
            figures["startup"] = fig_startup(args.repeat, yoi, env, args.interpreter)
        if "search" not in skip:
            for target in ("knowledge", "memory"):
                log(f"[{n}] search {target}")
                figures[f"search_{target}"] = fig_search(ws, target, term, args.repeat, yoi, env)
            log(f"[{n}] search in a long-running process")
            figures["search_steady"] = fig_search_steady(ws, term, args.repeat)
        if "lint" not in skip:
            log(f"[{n}] lint cold and warm")
            for fig in fig_lint(ws, term, args.repeat, yoi, env):
                figures[fig.key] = fig
        if "search" not in skip or "lint" not in skip:
            figures["rss_server"] = fig_server_rss()
        stop_servers()  # each size gets a server of its own; none idles through the other figures
        if "completion" not in skip:
            log(f"[{n}] # completion")
            figures["completion"] = fig_completion(ws, args.repeat)
        if "one-file" not in skip:
            log(f"[{n}] one-file lint")
            figures["one_file_lint"] = fig_one_file_lint(ws, args.repeat)
        if "gc" not in skip:
            log(f"[{n}] gc --dry-run")
            for fig in fig_gc(ws, args.repeat, yoi, env):
                figures[fig.key] = fig
        if "phase2" not in skip:
            log(f"[{n}] phase2 --dry-run")
            figures["phase2_dry_run"] = fig_phase2(ws, args.repeat, yoi, env)
        if "app" not in skip:
            log(f"[{n}] app start-up")
            for fig in fig_app(ws, args.repeat, env):
                figures[fig.key] = fig
        if "mcp" not in skip and n == min(args.records):  # reads no record before initialize: measured once
            log(f"[{n}] yoi mcp ready")
            figures["mcp_ready"] = fig_mcp_ready(ws, args.repeat, yoi, env, args.interpreter)
        if "hooks" not in skip:
            log(f"[{n}] hooks")
            for fig in fig_hooks(ws, args.repeat, yoi, env, args.interpreter, Path(args.workdir)):
                figures[fig.key] = fig
        if "phase1" not in skip:
            log(f"[{n}] Phase 1 throughput")
            figures["phase1"] = fig_phase1(args.repeat)
            if n == min(args.records):  # the log does not depend on the workspace: measured once
                log(f"[{n}] Phase 1 on a 50 MB log")
                figures["phase1_big"] = fig_phase1_big(args.repeat, yoi, env, args.phase1_mb)
    finally:
        (ws / ".yoi" / "usage" / f"{SESSION}.jsonl").unlink(missing_ok=True)
        if not args.keep and not args.reuse:
            shutil.rmtree(ws, ignore_errors=True)
    probes.append(cpu_probe())
    for fig in figures.values():
        fig.records = n
    return {"records": n, "workspace": {k: manifest[k] for k in ("files", "record_bytes", "sessions",
                                                                  "usage_events", "replaced")},
            "planted_findings": len(manifest["expected"]), "check": check, "cpu_probe": probes,
            "figures": {k: figures[k].to_json() for k in ORDER if k in figures}}


# --------------------------------------------------------------------------- output


def fmt_value(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "MB/s":
        return f"{value:.2f} MB/s"
    if unit == "tokens":
        return f"{value:,.0f} tokens"
    return f"{value:.0f} MB"


def cell(fig: dict[str, Any]) -> str:
    if fig["value"] is None:
        return fig["note"] or "—"
    text = fmt_value(fig["value"], fig["unit"])
    if fig["baseline"] is not None and fig.get("ratio") is not None:
        base = fmt_value(fig["baseline"], fig["unit"])
        what = fig["baseline_label"].split(" (")[0]
        if fig["higher_is_better"]:
            text += f" vs {what} {base}: {fig['ratio']:.1f}× slower"
        elif TARGETS.get(fig["key"], ("",))[0] == "over":
            text += f" vs {what} {base}: **+{(fig['value'] - fig['baseline']) * 1000:.0f} ms**"
        else:
            text += f" vs {what} {base} = **{fig['ratio']:.1f}×**"
    status = fig.get("status")
    if status == "met":
        text += " ✓"
    elif status == "missed":
        text += " ✗"
    return text


def growth(results: list[dict[str, Any]]) -> dict[str, float | None]:
    if len(results) < 2:
        return {}
    first, last = results[0]["figures"], results[-1]["figures"]
    out: dict[str, float | None] = {}
    for key in ORDER:
        a, b = first.get(key), last.get(key)
        if a and b and a["value"] and b["value"] is not None:
            ratio = b["value"] / a["value"]
            out[key] = 1 / ratio if a["higher_is_better"] else ratio
        else:
            out[key] = None
    return out


def markdown(report: dict[str, Any]) -> str:
    results = report["sizes"]
    sizes = [r["records"] for r in results]
    grow = report["growth"]
    head = ["figure", "target", *[f"{n:,} records" for n in sizes]]
    if grow:
        head.append(f"growth {sizes[-1] // 1000}k / {sizes[0] // 1000}k" if sizes[0] >= 1000
                    else f"growth {sizes[-1]} / {sizes[0]}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    labels: dict[str, str] = {}
    for r in results:
        for key, fig in r["figures"].items():
            labels.setdefault(key, fig["label"])
    for key in ORDER:
        if key not in labels:
            continue
        target = TARGETS.get(key, (None, None, "—"))[2]
        row = [labels[key], target]
        for r in results:
            fig = r["figures"].get(key)
            row.append(cell(fig) if fig else "—")
        if grow:
            g = grow.get(key)
            goal = GROWTH_TARGETS.get(key, GROWTH_TARGET)
            row.append("—" if g is None else f"{g:.1f}×" + (" ✓" if g <= goal + 1e-9 else " ✗"))
        lines.append("| " + " | ".join(row) + " |")
    machine = report["machine"]
    load = machine.get("loadavg_at_start")
    lines.append("")
    lines.append(f"{report['date']}, {machine['cpus']} CPUs ({machine['processor'] or machine['machine']}), "
                 f"{machine['system']}, Python {machine['python']}, baseline {machine['baseline']}"
                 + (f", load average {load[0]:.1f} at the start" if load else "")
                 + f"; median of {report['repeat']} run(s), interleaved with the baseline; ratios are yoi ÷ "
                 f"baseline. Growth: 5× the records, target ≤ {GROWTH_TARGET}×. "
                 f"Reproduce: `{report.get('command', 'python bench/run.py')}`.")
    probed = [r for r in results if r.get("cpu_probe")]
    if probed:
        lines.append("- CPU probe (a fixed pure-Python loop, best of 5, before and after each size's figures): "
                     + "; ".join(f"{r['records']:,}: " + " → ".join(f"{p * 1000:.0f} ms" for p in r["cpu_probe"])
                                 for r in probed)
                     + (f". {_speed_change(probed[0], probed[-1])}; every growth moves with that." if len(probed) > 1
                        else ""))
    for r in results:
        check = r["check"]
        if check:
            planted = "as planted" if check.get("lint_as_planted") else \
                f"NOT as planted (missing {check.get('lint_missing')}, unexpected {check.get('lint_unexpected')})"
            search_ok = "as planted" if check.get("search_as_planted") else "NOT as planted"
            lines.append(f"- {r['records']:,} records ({r['workspace']['record_bytes'] / 1e6:.1f} MB, "
                         f"{r['workspace']['usage_events']:,} usage events): lint {planted} "
                         f"({r['planted_findings']} planted findings), search hits {search_ok}.")
    if report.get("results_file"):
        lines.append(f"- Every sample, machine details and per-figure notes: `{report['results_file']}`.")
    for key in ORDER:  # one note per figure; per size where the sizes differ
        per_size = [(r["records"], r["figures"][key]) for r in results if key in r["figures"]]
        notes = {fig["note"] for _n, fig in per_size if fig["note"]}
        if len(notes) == 1:
            lines.append(f"- {per_size[0][1]['label']}: {notes.pop()}")
        elif notes:
            lines += [f"- {fig['label']} ({n:,}): {fig['note']}" for n, fig in per_size if fig["note"]]
    return "\n".join(lines)


def _speed_change(first: dict[str, Any], last: dict[str, Any]) -> str:
    """A sentence: how much slower or faster the machine ran during ``last``'s figures than during ``first``'s."""
    ratio = statistics.mean(last["cpu_probe"]) / statistics.mean(first["cpu_probe"])
    if abs(ratio - 1) < 0.03:
        return "The machine ran at the same speed (within 3 %) for the smallest and the largest size"
    return (f"The machine ran {abs(ratio - 1) * 100:.0f} % {'slower' if ratio > 1 else 'faster'} while the largest "
            "size was measured than while the smallest was")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def machine_info() -> dict[str, Any]:
    rg = shutil.which("rg")
    baseline = "grep -ril (ripgrep not installed)"
    if rg:
        version = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        baseline = version
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {"cpus": os.cpu_count(), "machine": platform.machine(), "processor": platform.processor(),
            "system": platform.platform(), "python": platform.python_version(), "baseline": baseline,
            "loadavg_at_start": load}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Measure yoi at scale against a same-run baseline (issues 6, 15); prints a Markdown "
                    "table (--out: also JSON; --update-readme: regenerate the README table).",
        epilog="Example: python bench/run.py --records 10000 50000 --repeat 5 --update-readme\n"
               "         python bench/run.py --records 200 --repeat 1 --out /tmp/bench  (the CI smoke run)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, nargs="+", default=[10_000, 50_000], help="workspace sizes")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per figure (median reported)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the JSON result (every sample) to this file, or to <date>.json in this folder; "
                             "nothing is written without it")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where workspaces are generated (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated workspaces")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse workspaces already generated in --workdir with the same size and seed")
    parser.add_argument("--install", choices=("wheel", "current"), default="wheel",
                        help="whole-process figures run yoi from a wheel of this checkout in a fresh venv, as a "
                             "user installs it (default), or the yoi beside this interpreter (current: with an "
                             "editable install, its import finder adds to every start)")
    parser.add_argument("--phase1-mb", type=int, default=50, metavar="MB",
                        help="size of the generated Claude Code log Phase 1 is timed on against jq (default: 50)")
    parser.add_argument("--skip", nargs="*", choices=("check", "startup", "search", "lint", "completion", "one-file",
                                                      "gc", "phase2", "app", "phase1", "mcp", "hooks"),
                        help="figures not to measure")
    parser.add_argument("--update-readme", nargs="?", const=REPO / "README.md", type=Path, metavar="README",
                        help="replace the table between the bench-table markers of README.md (or README) "
                             "with this run's, with the machine, date and the command that reproduces it")
    parser.add_argument("--from-results", type=Path, metavar="JSON",
                        help="measure nothing: render the table of a results file written by --out (e.g. after "
                             "a change to how the table reads), and with --update-readme put it in the README")
    args = parser.parse_args(argv)
    if args.from_results is not None:
        report = json.loads(args.from_results.read_text(encoding="utf-8"))
        table = markdown(report)
        print(table)
        if args.update_readme is not None:
            update_readme(args.update_readme, table)
            log(f"table regenerated in {args.update_readme} from {args.from_results}")
        return 0
    if args.repeat < 1 or any(n < generate.MIN_RECORDS for n in args.records):
        parser.error(f"--repeat must be >= 1 and every size >= {generate.MIN_RECORDS}")
    temp: tempfile.TemporaryDirectory[str] | None = None
    if args.workdir is None:
        temp = tempfile.TemporaryDirectory(prefix="yoi-bench-")
        args.workdir = Path(temp.name)
    args.workdir.mkdir(parents=True, exist_ok=True)
    args.interpreter = None
    if args.install == "wheel":
        log("building a wheel of this checkout and installing it in a fresh venv")
        yoi, args.interpreter = user_install(args.workdir)
    else:
        yoi = yoi_command()
    report: dict[str, Any] = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "repeat": args.repeat,
                              "seed": args.seed, "machine": machine_info(), "yoi": " ".join(yoi), "install": args.install,
                              "sizes": []}
    try:
        for n in sorted(args.records):
            report["sizes"].append(measure_size(n, args, yoi))
    finally:
        if temp is not None:
            temp.cleanup()
        if _SERVER_RUNTIME:
            stop_servers()
            shutil.rmtree(_SERVER_RUNTIME[0], ignore_errors=True)
    report["growth"] = growth(report["sizes"])
    report["command"] = reproduce_command(argv if argv is not None else sys.argv[1:])
    out: Path | None = None
    if args.out is not None:
        out = args.out if args.out.suffix == ".json" else args.out / f"{datetime.now(UTC).strftime('%Y-%m-%d')}.json"
        report["results_file"] = display_path(out)
    table = markdown(report)
    report["markdown"] = table
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        log(f"results written to {out}")
    print(table)
    if args.update_readme is not None:
        update_readme(args.update_readme, table)
        log(f"table regenerated in {args.update_readme}")
    return 0


START_MARK, END_MARK = "<!-- bench-table:start -->", "<!-- bench-table:end -->"


def update_readme(path: Path, table: str) -> None:
    """Replace what lies between the bench-table markers (the markers stay; nothing else changes)."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(START_MARK), text.find(END_MARK)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: no {START_MARK} ... {END_MARK} markers; table not written")
    new = text[:start + len(START_MARK)] + "\n" + table.strip() + "\n" + text[end:]
    path.write_text(new, encoding="utf-8")


def reproduce_command(argv: list[str]) -> str:
    """The command line that reproduces this run (paths of this machine left out)."""
    keep: list[str] = []
    skip_value = False
    for word in argv:
        if skip_value:
            skip_value = False
            continue
        if word in ("--workdir", "--out"):
            skip_value = True
            continue
        if word.startswith(("--workdir=", "--out=")) or word in ("--keep", "--reuse"):
            continue
        keep.append(word)
    return "python bench/run.py " + " ".join(keep)


def display_path(path: Path) -> str:
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
