"""The detect-secrets pattern table is kept in the user's cache folder, so a lint or a Phase 1 run
imports the library (~0.3 s with ``requests``) only when the installed library changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = ("import sys\n"
         "from yoi_tui.core.text.secret_library import library_patterns\n"
         "rows = [(p.kind, p.regex.pattern, p.regex.flags, p.needles, p.requires) for p in library_patterns()]\n"
         "print(len(rows), 'detect_secrets' in sys.modules, hash(repr(rows)))\n")


def _probe(cache: Path) -> tuple[int, bool, str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    count, imported, digest = out.stdout.split()
    return int(count), imported == "True", digest


def test_a_warm_cache_gives_the_same_table_without_importing_the_library(tmp_path: Path) -> None:
    pytest.importorskip("detect_secrets")
    cold = _probe(tmp_path)
    assert cold[0] > 20 and cold[1]  # first run: imported, table written
    assert list((tmp_path / "yoi").glob("secret-patterns-*.json"))
    warm = _probe(tmp_path)
    assert warm == (cold[0], False, cold[2])


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    pytest.importorskip("detect_secrets")
    cold = _probe(tmp_path)
    [cached] = (tmp_path / "yoi").glob("secret-patterns-*.json")
    cached.write_text('[["kind", "(", 0, [], []]]', encoding="utf-8")  # an old layout, a bad regex
    assert _probe(tmp_path) == cold
    good = cached.read_text(encoding="utf-8")
    damaged = good.replace('[["', '[["(', 1)  # a kind renamed: the digest no longer matches
    assert damaged != good
    cached.write_text(damaged, encoding="utf-8")
    again = _probe(tmp_path)
    assert again == cold
    assert _probe(tmp_path) == (cold[0], False, cold[2])


def test_an_unwritable_cache_folder_only_costs_the_import(tmp_path: Path) -> None:
    pytest.importorskip("detect_secrets")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")  # XDG_CACHE_HOME is a file: nothing can be written
    first, second = _probe(blocker), _probe(blocker)
    assert first == second and first[1]
