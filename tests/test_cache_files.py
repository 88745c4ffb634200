"""Every derived cache file yoi writes goes through one helper (store/json_cache.py, issue 24).

After the commands that fill the caches run, every JSON file under ``.yoi/state/`` is a versioned
cache object; each one damaged in turn is no cache (the next run gives the same answer).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from support import decision_meta, knowledge_meta, make_ws, run_yoi, write_record


def _fill(root: Path) -> list[str]:
    outputs = []
    for argv in (("lint", "--format", "json"), ("context", "--no-record"), ("gc", "--dry-run"),
                 ("search", "knowledge", "quokka")):
        done = run_yoi(*argv, "--workspace", str(root))
        outputs.append(done.stdout)
    return outputs


def test_every_cache_file_is_versioned_and_a_damaged_one_is_no_cache(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    for number in range(4):
        write_record(ws, f"knowledge/topic-{number}.md", {**knowledge_meta(), "model_invokation": True},
                     f"\nTopic {number}: quokka notes.\n")
        write_record(ws, f"memory/decisions/choice-{number}.md", decision_meta(), f"\nChoice {number}.\n")
    time.sleep(2.2)  # past RACY_NS since the writes (ctime cannot be set back): every cache is stored
    first = _fill(ws.root)
    caches = sorted(path for path in ws.state_dir.rglob("*.json") if path.is_file())
    names = {path.name for path in caches}
    assert {"lint-v1.json", "lint-v1-result.json", "listings-v2.json", "frontmatter-v1.json"} <= names, names
    for path in caches:
        data = json.loads(path.read_text(encoding="ascii"))
        assert isinstance(data, dict) and isinstance(data.get("version"), int), path
    for path in caches:
        original = path.read_bytes()
        path.write_bytes(original[: len(original) // 2])  # cut mid-object
        assert _fill(ws.root) == first, path
