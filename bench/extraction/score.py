#!/usr/bin/env python3
"""Score a Phase 1 engine against the labelled sessions in ``bench/extraction/labels/``.

``python bench/extraction/score.py [--engine rules|llm] [--workspace DIR] [--session NAME ...]
[--half development|held-out|held-out-2|held-out-3|held-out-4] [--json] [--quiet]``

For each label file, the session it names is parsed and cleaned exactly as ``yoi phase1`` does,
chunked with the default ``phase1.chunk_tokens``, and given to the engine. Each extracted item is matched to a
label of its category:

* a **request** matches the label whose ``at`` (the user's entry) lies in the item's range;
* a **decision** matches a label whose ``at`` range overlaps the item's range;
* an **attempt** matches a label whose ``at`` range overlaps the item's range *and* says the same
  about being fixed (outcome ``success`` = fixed); one that overlaps but says the wrong thing is
  counted as a miss and as a false item (an untruthful record).

``--half`` scores one half of the split recorded in ``split.yaml`` (made once, before the sessions
it names were labelled): ``development`` is what the rules may be tuned on, ``held-out`` is not;
``held-out-2`` is a second held-out half, collected after the first was studied (key ``held_out_2``);
``held-out-3`` a third, collected after the second was studied (key ``held_out_3``; every session
labelled before yoi ran on it; first scored at b45c676, its misses left unread so that later
runs still measure rules not built on it); ``held-out-2`` has been studied since the tenth round;
``held-out-4`` a fourth, collected and labelled during the tenth round, scored once at its end.
``--update-readme [README]`` scores every half with the rules engine and rewrites the table between
the ``extraction-halves`` markers of README.md (development and the held-out halves side by side, and
the command that reproduces them); never edit that table by hand.

One item matches at most one label and the reverse. An item without its own ``range`` (staging
from an engine that does not give one) is taken to cover its whole chunk. Recall = matched labels /
labels; precision = matched items / items; "overall" pools the three categories. The misses
(labels nothing matched) and the false items are printed per session. Discussions are not scored.

``YOI_BENCH_KEEP_PATH=1 PYTHONPATH=<an older checkout>`` scores that older code instead (how the
"before" figures in docs/phase1.md were taken; items without a range then cover their chunk, which
can only flatter it).

``--engine llm`` needs a workspace whose ``.yoi/config.toml`` configures the extraction model
(``--workspace``, default: the current directory's workspace); its ``phase1.chunk_tokens`` sizes the
chunks (a small local model has a small context). The time and the tokens (input + output) of each
session are printed (stderr; ``per_session`` in ``--json``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LABELS = Path(__file__).resolve().parent / "labels"
SPLIT = Path(__file__).resolve().parent / "split.yaml"
HALVES = {"development": "development", "held-out": "held_out", "held-out-2": "held_out_2",
          "held-out-3": "held_out_3", "held-out-4": "held_out_4"}
CATEGORIES = ("requests", "decisions", "attempts")

if "YOI_BENCH_KEEP_PATH" not in os.environ:  # the baseline run points PYTHONPATH at an older tree
    sys.path.insert(0, str(ROOT))


@dataclass
class Tally:
    labels: int = 0
    items: int = 0
    matched_labels: int = 0
    matched_items: int = 0

    def add(self, other: Tally) -> None:
        self.labels += other.labels
        self.items += other.items
        self.matched_labels += other.matched_labels
        self.matched_items += other.matched_items

    @property
    def recall(self) -> float:
        return self.matched_labels / self.labels if self.labels else 1.0

    @property
    def precision(self) -> float:
        return self.matched_items / self.items if self.items else 1.0


@dataclass
class SessionScore:
    name: str
    tallies: dict[str, Tally] = field(default_factory=lambda: {c: Tally() for c in CATEGORIES})
    misses: list[str] = field(default_factory=list)
    false_items: list[str] = field(default_factory=list)


def _span(at: Any) -> tuple[int, int]:
    if isinstance(at, int):
        return (at, at)
    return (int(at[0]), int(at[1]))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _describe(category: str, item: Any) -> str:
    if category == "requests":
        return f"{item.intent}: {item.summary}"
    if category == "decisions":
        return f"{item.title} (chosen: {item.chosen})"
    return f"{item.trial} -> {item.result} [{item.outcome}]"


def _label_text(category: str, label: dict[str, Any]) -> str:
    if category == "requests":
        return f"{label.get('intent')}: {label.get('target')}"
    if category == "decisions":
        return f"{label.get('title') or label.get('chosen')}"
    return f"{label.get('what')} (fixed: {label.get('fixed')})"


def extract_items(session: Path, engine: Any) -> dict[str, list[tuple[tuple[int, int], Any]]]:
    """Every item the engine finds in ``session``, with the range it claims (else its chunk's)."""
    from yoi_tui.core.phase1.chunking import chunk_entries
    from yoi_tui.core.sessions.clean import clean_entries
    from yoi_tui.core.sessions.detect import load_session
    from yoi_tui.core.store.config import Phase1Config

    parsed = load_session(session)
    found: dict[str, list[tuple[tuple[int, int], Any]]] = {c: [] for c in CATEGORIES}
    ws = getattr(engine, "ws", None)  # the llm engine: chunks sized by its workspace (the model's context)
    size = ws.config.phase1.chunk_tokens if ws is not None else Phase1Config().chunk_tokens
    chunks = list(chunk_entries(clean_entries(parsed.entries), size))
    # The last chunk is marked, as `yoi phase1` marks it (an older engine takes no `last`).
    marks = "last" in inspect.signature(engine.extract).parameters
    for number, chunk in enumerate(chunks, start=1):
        last = {"last": number == len(chunks)} if marks else {}
        activity = engine.extract(chunk, session_id=parsed.session_id, **last)
        whole = (chunk[0].index, chunk[-1].index)
        for category in CATEGORIES:
            for item in getattr(activity, category):
                found[category].append((tuple(item.range) if getattr(item, "range", None) else whole, item))
    return found


def score_session(label_path: Path, engine: Any) -> SessionScore:
    import yaml

    spec = yaml.safe_load(label_path.read_text(encoding="utf-8"))
    result = SessionScore(label_path.stem)
    found = extract_items(ROOT / spec["session"], engine)
    for category in CATEGORIES:
        labels = list(spec.get(category) or [])
        items = found[category]
        tally = result.tallies[category]
        tally.labels, tally.items = len(labels), len(items)
        used: set[int] = set()
        wrong: set[int] = set()
        for label in labels:
            span = _span(label["at"])
            hit = None
            for number, (rng, item) in enumerate(items):
                if number in used:
                    continue
                if category == "requests":
                    near = rng[0] <= span[0] <= rng[1]
                else:
                    near = _overlaps(rng, span)
                if not near:
                    continue
                if category == "attempts" and (item.outcome == "success") != bool(label.get("fixed")):
                    wrong.add(number)
                    continue
                hit = number
                break
            if hit is None:
                said = " (an item there says the opposite about being fixed)" if category == "attempts" and any(
                    _overlaps(items[n][0], span) for n in wrong) else ""
                result.misses.append(f"{category[:-1]} @{label['at']}: {_label_text(category, label)}{said}")
                continue
            used.add(hit)
            tally.matched_labels += 1
        tally.matched_items = len(used)
        for number, (rng, item) in enumerate(items):
            if number not in used:
                result.false_items.append(f"{category[:-1]} @{list(rng)}: {_describe(category, item)}"[:220])
    return result


def half_stems(half: str) -> set[str]:
    """The label-file stems of one half of ``split.yaml`` (its entries name the session files)."""
    import yaml

    split = yaml.safe_load(SPLIT.read_text(encoding="utf-8")) or {}
    return {Path(name).stem for name in split.get(HALVES[half]) or []}


README_START, README_END = "<!-- extraction-halves:start -->", "<!-- extraction-halves:end -->"


def totals(scores: list[SessionScore]) -> dict[str, Tally]:
    """Per-category tallies of ``scores`` and their pooled "overall"."""
    total = {c: Tally() for c in CATEGORIES}
    for score in scores:
        for category in CATEGORIES:
            total[category].add(score.tallies[category])
    overall = Tally()
    for category in CATEGORIES:
        overall.add(total[category])
    return {**total, "overall": overall}


# The README's columns, in order: each half of split.yaml and how to read it. A held-out half that
# has no labelled session yet gets no column (development and the first held-out half always do).
HALF_COLUMNS = (
    ("development", "development half ({n} sessions)"),
    ("held-out", "held-out half ({n} sessions; studied while tuning since the fifth round)"),
    ("held-out-2", "second held-out half ({n} sessions, labelled before the first run; studied since the tenth round)"),
    ("held-out-3", "third held-out half ({n} sessions, labelled before the first run, its misses never read)"),
    ("held-out-4", "fourth held-out half ({n} sessions, labelled before the first run, its misses never read)"),
)


def halves_table(engine: Any) -> str:
    """The README's table: each category's recall / precision on the development and the held-out halves."""
    columns = []
    head = "| category |"
    rule = "|---|"
    for half, description in HALF_COLUMNS:
        stems = half_stems(half)
        paths = [p for p in sorted(LABELS.glob("*.yaml")) if p.stem in stems]
        if not paths and half not in ("development", "held-out"):
            continue
        columns.append(totals([score_session(path, engine) for path in paths]))
        head += f" {description.format(n=len(paths))}: labels, recall / precision |"
        rule += "---|"
    llm = latest_llm_result()
    if llm is not None:
        head += f" llm engine, {llm[1]} ({llm[0]['sessions']} smallest labelled sessions): labels, recall / precision |"
        rule += "---|"
    lines = [head, rule]
    for name in (*CATEGORIES, "overall"):
        cells = [f"{t.labels}, {t.recall:.2f} / {t.precision:.2f}" for t in (c[name] for c in columns)]
        if llm is not None:
            found = llm[0]["categories"][name]
            precision = f"{found['precision']:.2f}" if found["items"] else "—"  # no item: no precision
            cells.append(f"{found['labels']}, {found['recall']:.2f} / {precision}")
        lines.append(f"| {name} | {' | '.join(cells)} |")
    others = ", ".join(f"--half {half}" for half, _ in HALF_COLUMNS[1:])
    command = f"python bench/extraction/score.py --half development   # and {others}; --update-readme rewrites this table"
    if llm is not None:
        command += (f"\npython bench/extraction/score.py --engine llm --workspace DIR --json   # the llm column: "
                    f"{llm[2]}")
    return "\n".join(lines) + f"\n\n```\n{command}\n```\n"


LLM_RESULTS = ROOT / "bench" / "extraction" / "results"


def latest_llm_result() -> tuple[dict[str, Any], str, str] | None:
    """The newest llm-engine result in ``bench/extraction/results/`` (it is measured with a real
    model, not at each README update): its figures, the model it names, and its file."""
    for path in sorted(LLM_RESULTS.glob("*.json"), reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("engine") == "llm" and isinstance(data.get("categories"), dict):
            model = str(data.get("model") or "Qwen2.5-Coder-0.5B on a local llama.cpp server")
            return data, model, str(path.relative_to(ROOT))
    return None


def update_readme(readme: Path, engine: Any) -> None:
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        raise SystemExit(f"{readme}: no {README_START} … {README_END} markers to put the table between")
    head, rest = text.split(README_START, 1)
    _old, tail = rest.split(README_END, 1)
    readme.write_text(f"{head}{README_START}\n{halves_table(engine)}{README_END}{tail}", encoding="utf-8")


def make_engine(name: str, workspace: str | None) -> Any:
    if name == "rules":
        from yoi_tui.core.phase1.runner import RulesEngine

        return RulesEngine()
    from yoi_tui.core.phase1.runner import make_engine as make
    from yoi_tui.core.store.workspace import find_workspace

    return make(find_workspace(Path(workspace) if workspace else None), name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="rules", choices=("rules", "llm"))
    parser.add_argument("--workspace", help="workspace whose config names the model (llm engine)")
    parser.add_argument("--session", action="append", default=[], help="label file stem(s) to score")
    parser.add_argument("--half", choices=sorted(HALVES),
                        help="one half of split.yaml: development (tune on it), held-out and held-out-2 (studied"
                             " since), held-out-3 and held-out-4 (split.yaml's held_out_3, held_out_4)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="only the table, no misses")
    parser.add_argument("--update-readme", nargs="?", const=ROOT / "README.md", type=Path, metavar="README",
                        help="score both halves (rules engine) and rewrite the README's extraction-halves table")
    args = parser.parse_args(argv)
    if args.update_readme is not None:
        update_readme(args.update_readme, make_engine("rules", None))
        print(f"{args.update_readme}: extraction-halves table rewritten")
        return 0
    paths = sorted(LABELS.glob("*.yaml"))
    if args.session:
        paths = [p for p in paths if p.stem in set(args.session)]
        if not paths:
            print(f"no label file named {args.session}", file=sys.stderr)
            return 2
    if args.half:
        stems = half_stems(args.half)
        paths = [p for p in paths if p.stem in stems]
    from yoi_tui.core.errors import YoiError

    try:
        engine = make_engine(args.engine, args.workspace)
        scores, costs = [], {}
        for path in paths:  # time and tokens per session (tokens: the llm engine's, input + output)
            started, spent = time.monotonic(), getattr(engine, "spent", 0)
            scores.append(score_session(path, engine))
            costs[path.stem] = {"seconds": round(time.monotonic() - started, 1),
                                "tokens": getattr(engine, "spent", 0) - spent}
            if not args.json:
                print(f"{path.stem}: {costs[path.stem]['seconds']} s, {costs[path.stem]['tokens']} tokens",
                      file=sys.stderr, flush=True)
    except YoiError as exc:  # no workspace, no model configured, the provider failed
        print(f"score: {exc}", file=sys.stderr)
        return 2
    pooled = totals(scores)
    overall = pooled.pop("overall")
    total = pooled
    if args.json:
        print(json.dumps({
            "engine": args.engine, "sessions": len(scores),
            "categories": {c: {"labels": t.labels, "items": t.items, "recall": round(t.recall, 3),
                               "precision": round(t.precision, 3)} for c, t in [*total.items(), ("overall", overall)]},
            "misses": {s.name: s.misses for s in scores if s.misses},
            "false_items": {s.name: s.false_items for s in scores if s.false_items},
            "per_session": costs,
        }, indent=2))
        return 0
    if not args.quiet:
        for score in scores:
            if score.misses or score.false_items:
                print(f"## {score.name}")
                for miss in score.misses:
                    print(f"  missed  {miss}")
                for item in score.false_items:
                    print(f"  false   {item}")
        print()
    half = f", {args.half} half of split.yaml" if args.half else ""
    seconds, tokens = sum(c["seconds"] for c in costs.values()), sum(c["tokens"] for c in costs.values())
    print(f"engine: {args.engine}, {len(scores)} labelled session(s){half}, {seconds:.1f} s "
          f"({seconds / max(1, len(scores)):.1f} s a session), {tokens} tokens ({tokens // max(1, len(scores))} a session)\n")
    print("| category | labels | items | recall | precision |")
    print("|---|---:|---:|---:|---:|")
    for name, tally in [*total.items(), ("overall", overall)]:
        print(f"| {name} | {tally.labels} | {tally.items} | {tally.recall:.2f} | {tally.precision:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
