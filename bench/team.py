#!/usr/bin/env python3
"""A team sharing one memory through git: N clones, M rounds, one bare remote (issue 16).

``python bench/team.py [--clones 5] [--rounds 20] [--seed 16] [--orders 2] [--gc-probability P] [--no-init K]
[--resume] [--deletes P] [--no-driver] [--json]``

Every clone is a real git clone set up with ``yoi init`` (so the record merge driver, the
``.gitattributes`` and ``.gitignore`` entries are the real ones). In each round every clone, in
turn: works one or two agent sessions over overlapping topics (their Phase 1 output is written as
staging files, their usage as usage events), runs Phase 2, sometimes GC, commits everything
(``git add -A``), then fetches, merges the remote (``git merge``, which runs ``yoi merge-driver``)
and pushes. Phase 2 and GC run in-process through the library; git runs as real subprocesses.

It prints, per run:

* conflicted files needing a person (by kind: record frontmatter, modify/delete, other) — what git
  left unmerged once a real ``yoi resolve`` settled the records' modify/delete (counted apart); the
  simulation then takes "theirs" to go on, as a hurried person would;
* sources lost: sources either side added since the merge base that the merged result lacks,
  beyond what the documented records.sources_max cap drops (counted apart);
* lint errors right after merges; staging files that reached git;
* the record set of each run (live records and replaced stubs, with a digest) after the last
  round, and again after the grace period (one clone runs GC twice, everyone pulls: what the stubs
  gained is folded into their keepers; in git the stubs themselves stay, docs/team.md); with
  ``--orders N`` the same sessions are replayed in N push orders (forward, reverse, then shuffles
  drawn from the seed) and must end alike (issue 30), else the exit status is 1:

  - every live record **byte for byte**, after the last round and after the grace period, with
    exactly one thing excluded: the values of the frontmatter's ``created_at`` and ``updated_at``
    lines (wall-clock times; ``masked_stamps``). Key order, source order, body lines and blank
    lines all count;
  - the same paths after the grace period, stubs pointing at the same keepers. A stub's own
    content (what its record held when merged away, which depends on when the merge happened) is
    reported as ``stubs_differing_in_content``, not counted.

``tests/test_team_sim.py`` runs a small version (2 clones x 3 rounds) in the default suite and the
5 x 20 campaign under ``-m slow``. ``--no-driver`` removes the ``merge.yoi`` config in every clone
(git's own line merge) for comparison.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from yoi_tui.core.gc.runner import run_gc  # noqa: E402
from yoi_tui.core.lint import lint_workspace  # noqa: E402
from yoi_tui.core.phase2.runner import run_phase2  # noqa: E402
from yoi_tui.core.store.models import Source  # noqa: E402
from yoi_tui.core.store.staging import Activity, Attempt, Decision, Extractor, Request, write_staging  # noqa: E402
from yoi_tui.core.store.workspace import Workspace  # noqa: E402
from yoi_tui.core.usage.compact import compact  # noqa: E402
from yoi_tui.core.usage.log import record_invoke, record_tokens  # noqa: E402

RECORD_PREFIXES = ("memory/decisions/", "memory/requests/", "knowledge/", "memory/summary.md")

# 27 topics; some have a near-duplicate wording that two people may both use (GC merges those).
TOPICS: list[tuple[str, str | None, str, str]] = [
    ("Use SQLite for the response cache", "Use SQLite for the response caches", "Cache API responses", "client/api.py"),
    ("Pick the HTTP retry policy", None, "Retry failed requests", "client/http.py"),
    ("Store money as integer cents", None, "Fix rounding in invoices", "billing/invoice.py"),
    ("Use ruff for linting", "Use ruff for the linting", "Set up linting", "pyproject.toml"),
    ("Keep the CLI start-up under 100 ms", None, "Speed up the CLI start-up", "cli/main.py"),
    ("Log in JSON lines", None, "Structured logging", "app/logging.py"),
    ("Run tests with pytest-xdist", None, "Parallel test runs", "tests/conftest.py"),
    ("Use Postgres for production", "Use Postgres for the production", "Production database", "deploy/db.tf"),
    ("Validate config with pydantic", None, "Config validation", "app/config.py"),
    ("Pin dependencies with uv lock", None, "Reproducible installs", "uv.lock"),
    ("Use Textual for the terminal UI", None, "Terminal UI", "app/tui.py"),
    ("Render Markdown with rich", None, "Markdown rendering", "app/render.py"),
    ("Expire cache entries after a day", "Expire the cache entries after a day", "Cache expiry", "client/cache.py"),
    ("Sign releases with sigstore", None, "Release signing", ".github/workflows/release.yml"),
    ("Use UUIDv7 ids", None, "Time-ordered ids", "app/ids.py"),
    ("Write files atomically", None, "Crash-safe writes", "app/atomic.py"),
    ("Lock records with chmod", None, "Record locking", "docs/locking.md"),
    ("Paginate the search results", None, "Search pagination", "app/search.py"),
    ("Use rapidfuzz for fuzzy matching", None, "Fuzzy slug matching", "app/fuzzy.py"),
    ("Keep secrets out of records", None, "Secret scanning", "app/redact.py"),
    ("Ship a Docker image", "Ship the Docker image", "Container image", "Dockerfile"),
    ("Support Python 3.11 and later", None, "Python versions", "pyproject.toml"),
    ("Use GitHub Actions for CI", None, "Continuous integration", ".github/workflows/ci.yml"),
    ("Document every CLI flag", None, "CLI documentation", "docs/cli.md"),
    ("Use trunk-based development", None, "Branching model", "CONTRIBUTING.md"),
    ("Measure token usage per session", None, "Token accounting", "app/usage.py"),
    ("Cap record bodies at 4000 characters", None, "Record size limits", "app/lint.py"),
]
# Topics most sessions touch (a team works on a few things at once): 22 of 27 get two or more people.
HOT = 12


def run_git(cwd: Path, *args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {cwd} failed:\n{done.stdout}\n{done.stderr}")
    return done


def git_env(home: Path) -> dict[str, str]:
    """The environment every git and yoi process of one campaign runs in. Its PATH starts with a
    ``yoi`` of this checkout (``home/bin/yoi``: this interpreter, ``-m yoi_tui.cli.main``, the
    repository on PYTHONPATH): the merge driver git runs is ``yoi merge-driver``, and without
    ``yoi`` on PATH (or with another version installed) every record merge would fall back to
    git's line merge, or measure other code, without a word."""
    home.mkdir(parents=True, exist_ok=True)
    bin_dir = home / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "yoi"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m yoi_tui.cli.main "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    pythonpath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": pythonpath,
            "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
            "GIT_AUTHOR_NAME": "Team", "GIT_AUTHOR_EMAIL": "team@example.com", "GIT_COMMITTER_NAME": "Team",
            "GIT_COMMITTER_EMAIL": "team@example.com", "GIT_TERMINAL_PROMPT": "0"}


def yoi_cli(cwd: Path, *args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yoi_tui.cli.main", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)


@dataclass
class Stats:
    merges: int = 0
    conflicted_merges: int = 0
    conflicted_files: int = 0
    conflict_kinds: dict[str, int] = field(default_factory=dict)
    conflicted_paths: list[str] = field(default_factory=list)
    sources_lost: int = 0
    sources_capped: int = 0  # sources over records.sources_max the merge dropped by the documented cap
    lost_examples: list[str] = field(default_factory=list)
    lint_errors_after_merge: int = 0
    lint_examples: list[str] = field(default_factory=list)
    staging_in_git: int = 0
    sessions: int = 0
    phase2_runs: int = 0
    gc_runs: int = 0
    records: int = 0
    usage_files: int = 0
    no_init_clones: int = 0
    sessions_compacted: int = 0
    hook_registrations: int = 0
    person_deletions: int = 0
    deleted_paths: list[str] = field(default_factory=list)  # what a person deleted (git rm), by turn
    settled_by_yoi: int = 0  # modify/delete of records git stopped at, settled by `yoi resolve`
    settled_paths: list[str] = field(default_factory=list)
    usage_bytes: int = 0  # the usage folder at the remote after the last round
    usage_raw_bytes: int = 0  # the same events as the session files that first held them

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Session:
    clone: int
    round: int
    session_id: str
    activities: list[tuple[int, Activity]]  # (topic, activity)
    invokes: list[tuple[str, str]]


def plan_sessions(clones: int, rounds: int, seed: int, *, resume: bool = False) -> dict[tuple[int, int], list[Session]]:
    """The same sessions whatever order the clones push in (generated from the seed alone)."""
    rng = random.Random(seed)
    resume_rng = random.Random(seed + 1)  # its own stream: the sessions stay those of older campaigns
    last: dict[int, str] = {}
    plan: dict[tuple[int, int], list[Session]] = {}
    for rnd in range(rounds):
        for clone in range(clones):
            sessions = []
            for k in range(rng.choice((1, 1, 2))):
                sid = f"{clone:02d}{rnd:03d}{k}-" + "".join(rng.choice("0123456789abcdef") for _ in range(12))
                if resume and clone in last and resume_rng.random() < 0.25:
                    sid = last[clone]  # a resumed session: its usage file gets more lines (maybe compacted)
                last[clone] = sid
                topics = rng.sample(range(HOT), k=rng.choice((1, 2))) if rng.random() < 0.8 else \
                    [rng.randrange(len(TOPICS))]
                activities = []
                for topic in topics:
                    title, variant, intent, target = TOPICS[topic]
                    chosen_title = variant if variant and rng.random() < 0.3 else title
                    decision = Decision(title=chosen_title, options=[f"option {rng.randint(1, 4)}", "keep as is"],
                                        chosen=rng.choice(("", f"option {rng.randint(1, 4)}")),
                                        rationale=f"Session {sid} found {rng.choice(('it simpler', 'it faster', 'fewer moving parts'))}.")
                    request = Request(intent=intent, target=target,
                                      summary=f"{intent} ({rng.choice(('asked again', 'first ask', 'follow-up'))}).")
                    attempts = [Attempt(trial=f"pytest -k {topic}", result="failed on a fixture", outcome="failure"),
                                Attempt(trial="fix the fixture", result="tests pass", outcome="success")] \
                        if rng.random() < 0.3 else []
                    activities.append((topic, Activity(decisions=[decision], requests=[request], attempts=attempts)))
                invokes = [(_request_slug(TOPICS[t][2], TOPICS[t][3]), "request") for t in topics
                           if rng.random() < 0.5]
                sessions.append(Session(clone, rnd, sid, activities, invokes))
            plan[(rnd, clone)] = sessions
    return plan


def _slug(text: str) -> str:
    from yoi_tui.core.store.kinds import slugify

    return slugify(text)


def _request_slug(intent: str, target: str | None) -> str:
    """The slug Phase 2's rules engine gives a request (its title: the intent, with the target when
    the intent does not already name it), so a session's invokes name the record it read."""
    title = intent
    if target and not set(_slug(target).split("-")) <= set(_slug(intent).split("-")):
        title = f"{intent} {target}" if len(intent.split()) <= 3 else f"{intent} ({target})"
    return _slug(title)


Source3 = tuple[str, int, int]  # a source as (session id, range start, range end)


def _sources_of(text: str | None) -> set[tuple[str, int, int]]:
    if not text or not text.startswith("---"):
        return set()
    end = text.find("\n---", 3)
    try:
        meta = yaml.safe_load(text[3:end]) if end > 0 else None
    except yaml.YAMLError:
        return set()
    found: set[tuple[str, int, int]] = set()
    if isinstance(meta, dict):
        for key in ("sources", "last_sources"):
            for item in meta.get(key) or []:
                if isinstance(item, dict) and isinstance(item.get("range"), list) and len(item["range"]) == 2:
                    found.add((str(item.get("session_id")), int(item["range"][0]), int(item["range"][1])))
    return found


def lost_and_capped(base: set[Source3], ours: set[Source3], theirs: set[Source3], result: set[Source3],
                    sources_max: int) -> tuple[set[Source3], set[Source3]]:
    """Of the sources either side added, those the merged record lacks, split in two: ``capped``,
    the ones the documented cap drops (outside the last ``sources_max``, in canonical order, of
    everything the merge keeps: the base's sources neither side removed, and both sides' additions;
    docs/team.md), and ``lost``, every other one (a merge that lost data)."""
    added = (ours | theirs) - base
    kept = sorted((base & ours & theirs) | added)  # (session id, start, end): the canonical order
    allowed = set(kept[-sources_max:]) if sources_max > 0 else set(kept)
    missing = added - result
    return missing & allowed, missing - allowed


def _show(repo: Path, rev: str, path: str, env: dict[str, str]) -> str | None:
    done = run_git(repo, "show", f"{rev}:{path}", env=env, check=False)
    return done.stdout if done.returncode == 0 else None


def _changed(repo: Path, a: str, b: str, env: dict[str, str]) -> set[str]:
    out = run_git(repo, "diff", "--name-only", "--no-renames", a, b, env=env).stdout
    return {p for p in out.splitlines() if p.startswith(RECORD_PREFIXES)}


class Team:
    def __init__(self, root: Path, clones: int, *, driver: bool, gc_every: int, env: dict[str, str],
                 no_init: frozenset[int] = frozenset(), gc_turns: frozenset[tuple[int, int]] | None = None,
                 compact_usage: bool = False, deletes: dict[tuple[int, int], float] | None = None) -> None:
        self.root, self.env, self.gc_every = root, env, gc_every
        self.gc_turns = gc_turns  # (round, clone) turns that run GC; None: every gc_every rounds, staggered
        self.compact_usage = compact_usage
        self.deletes = deletes or {}  # (round, clone) turns where a person deletes a live record → which one
        self.next_line: dict[str, int] = {}
        from yoi_tui.core.store.kinds import slugify

        # The topics' own slugs (a decision's title and its variant, a request's): what a person may delete.
        self.topic_slugs = {slugify(t) for title, variant, _i, _t in TOPICS for t in (title, variant) if t} | \
            {_request_slug(intent, target) for _title, _variant, intent, target in TOPICS}
        self.no_init = no_init
        self.hooked: set[int] = set()
        self.grace_tokens = 2_000_000
        self.stats = Stats()
        self.remote = root / "remote.git"
        run_git(root, "init", "-q", "--bare", "-b", "main", str(self.remote), env=env)
        seed = root / "seed"
        run_git(root, "clone", "-q", str(self.remote), str(seed), env=env)
        done = yoi_cli(seed, "init", env=env)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        # Grace and thresholds scaled to a short campaign (the token clock runs ~150k per session).
        (seed / ".yoi/config.toml").write_text(
            f"[phase2]\nstaging_files = 1\n\n[gc]\nreplaced_grace_tokens = {self.grace_tokens}\n"
            "unused_min_age_tokens = 4000000\n",
            encoding="utf-8")
        run_git(seed, "add", "-A", env=env)
        run_git(seed, "commit", "-q", "-m", "yoi init", env=env)
        run_git(seed, "push", "-q", "origin", "HEAD:main", env=env)
        self.clones: list[Path] = []
        for n in range(clones):
            path = root / f"clone{n}"
            run_git(root, "clone", "-q", str(self.remote), str(path), env=env)
            self.clones.append(path)
            if n in no_init:
                continue  # a teammate who never ran `yoi init`: the first hook sets the clone up
            done = yoi_cli(path, "init", env=env)
            if done.returncode != 0:
                raise RuntimeError(done.stderr)
            if not driver:
                run_git(path, "config", "--remove-section", "merge.yoi", env=env)

    # ------------------------------------------------------------------ one clone's turn

    def start_session(self, n: int, session_id: str) -> None:
        """A no-init clone's first agent session starts: the real SessionStart hook (a subprocess)."""
        if n not in self.no_init or n in self.hooked:
            return
        path = self.clones[n]
        payload = json.dumps({"hook_event_name": "SessionStart", "session_id": session_id, "cwd": str(path)})
        done = yoi_cli(path, "hook", "claude-code", env=self.env, stdin=payload)
        if done.returncode != 0:
            raise RuntimeError(f"{path.name}: hook failed: {done.stderr}")
        self.stats.hook_registrations += "registered the record merge driver" in done.stderr
        self.hooked.add(n)

    def work(self, path: Path, sessions: list[Session]) -> None:
        ws = Workspace(path)
        for session in sessions:
            self.stats.sessions += 1
            start = self.next_line.get(session.session_id, 0)  # a resumed session goes on past its lines
            for _topic, activity in session.activities:
                end = start + 9
                write_staging(ws, Source(session_id=session.session_id, range=(start, end)),
                              Extractor(engine="rules"), activity)
                start = end + 1
            self.next_line[session.session_id] = start
            record_tokens(ws, 150_000, session_id=session.session_id)
            for slug, kind in session.invokes:
                record_invoke(ws, slug, kind, "search", session_id=session.session_id)
        run_phase2(Workspace(path), flush=True)
        self.stats.phase2_runs += 1

    def gc(self, path: Path) -> None:
        run_gc(Workspace(path))
        self.stats.gc_runs += 1
        if self.compact_usage:
            # Every closed session this clone began (0 days: every session not written this second).
            self.stats.sessions_compacted += len(compact(Workspace(path), older_than_days=0).sessions)

    def person_deletes(self, path: Path, pick: float) -> None:
        """A person deletes a live record (``git rm``), maybe the keeper another clone's GC merged
        into or one another clone is updating. Which one comes from the seed alone (``pick``), by
        name, so it is the same record in every push order: the live record whose name's hash with
        ``pick`` is smallest (records the clone lacks in one order are skipped in all: only names
        from the topics' own records are eligible)."""
        live = []
        for folder in ("memory/decisions", "memory/requests", "knowledge"):
            for record in sorted((path / folder).glob("*.md")):
                if record.name[:-3] not in self.topic_slugs:
                    continue
                text = record.read_text(encoding="utf-8", errors="replace")
                if "\nreplaced_by:" not in text.split("\n---", 1)[0]:
                    live.append(f"{folder}/{record.name}")
        if live:
            rel = min(live, key=lambda rel: hashlib.sha256(f"{pick}:{rel}".encode()).hexdigest())
            (path / rel).unlink()  # (committed by the sync's `git add -A`)
            self.stats.person_deletions += 1
            self.stats.deleted_paths.append(f"{path.name}: {rel}")

    def sync(self, path: Path, message: str) -> None:
        env = self.env
        run_git(path, "add", "-A", env=env)
        run_git(path, "commit", "-q", "-m", message, env=env, check=False)
        for _attempt in range(3):
            run_git(path, "fetch", "-q", "origin", env=env)
            ours, theirs = "HEAD", "origin/main"
            base = run_git(path, "merge-base", ours, theirs, env=env, check=False).stdout.strip()
            ours_rev = run_git(path, "rev-parse", ours, env=env).stdout.strip()
            theirs_rev = run_git(path, "rev-parse", theirs, env=env).stdout.strip()
            if base and base != theirs_rev and base != ours_rev:
                self._merge(path, base, ours_rev, theirs_rev)
            elif base == ours_rev:
                run_git(path, "merge", "-q", "--ff-only", theirs, env=env)
            pushed = run_git(path, "push", "-q", "origin", "HEAD:main", env=env, check=False)
            if pushed.returncode == 0:
                return
        raise RuntimeError(f"{path.name}: push kept failing")

    def _merge(self, path: Path, base: str, ours: str, theirs: str) -> None:
        env = self.env
        self.stats.merges += 1
        merged = run_git(path, "merge", "--no-edit", "-q", theirs, env=env, check=False)
        if merged.returncode != 0:
            unmerged = run_git(path, "diff", "--name-only", "--diff-filter=U", env=env).stdout.split()
            if not unmerged:
                raise RuntimeError(f"{path.name}: git merge failed:\n{merged.stdout}\n{merged.stderr}")
            # What git stops at without asking the driver (modify/delete of a record): settled by
            # the driver's rule (docs/team.md), a real `yoi resolve`; only what is left needs a person.
            settled = yoi_cli(path, "resolve", "--json", env=env)
            try:
                done = json.loads(settled.stdout)
            except ValueError:
                done = {"kept": [], "deleted": []}
            for rel in [*done.get("kept", []), *done.get("deleted", [])]:
                self.stats.settled_by_yoi += 1
                self.stats.settled_paths.append(f"{path.name}: {rel}")
            unmerged = run_git(path, "diff", "--name-only", "--diff-filter=U", env=env).stdout.split()
            status = run_git(path, "status", "--porcelain", env=env).stdout.splitlines()
            kinds = {line[3:]: line[:2] for line in status if line[:2] in ("UU", "AA", "UD", "DU", "AU", "UA", "DD")}
            self.stats.conflicted_merges += 1
            for rel in unmerged:
                self.stats.conflicted_files += 1
                code = kinds.get(rel, "UU")
                kind = ("modify/delete" if "D" in code else "add/add" if code == "AA" else "content")
                kind += " (summary)" if rel.endswith("summary.md") else ""
                self.stats.conflict_kinds[kind] = self.stats.conflict_kinds.get(kind, 0) + 1
                self.stats.conflicted_paths.append(f"{path.name}: {kind}: {rel}")
                # What a hurried person does: take theirs (or keep the surviving file).
                if "D" in code and _show(path, theirs, rel, env) is None:
                    run_git(path, "rm", "-q", "--", rel, env=env, check=False)
                else:
                    run_git(path, "checkout", "--theirs", "--", rel, env=env, check=False)
                    run_git(path, "add", "--", rel, env=env, check=False)
            run_git(path, "commit", "-q", "--no-edit", env=env, check=False)
        self._count_lost(path, base, ours, theirs)
        report = lint_workspace(Workspace(path))
        errors = [d for d in report.diagnostics if d.is_error]
        self.stats.lint_errors_after_merge += len(errors)
        self.stats.lint_examples.extend(f"{path.name}: {d.path}:{d.line} {d.rule} {d.message}" for d in errors[:3])

    def _count_lost(self, path: Path, base: str, ours: str, theirs: str) -> None:
        env = self.env
        cap = Workspace(path).config.records.sources_max
        for rel in sorted(_changed(path, base, ours, env) | _changed(path, base, theirs, env)):
            result_text = _show(path, "HEAD", rel, env)
            lost, capped = lost_and_capped(_sources_of(_show(path, base, rel, env)),
                                           _sources_of(_show(path, ours, rel, env)),
                                           _sources_of(_show(path, theirs, rel, env)), _sources_of(result_text), cap)
            self.stats.sources_capped += len(capped)
            if lost:
                self.stats.sources_lost += len(lost)
                self.stats.lost_examples.append(f"{path.name}: {rel}: {len(lost)} source(s)"
                                                + (" (file gone)" if result_text is None else ""))

    # ------------------------------------------------------------------ the campaign

    def run(self, plan: dict[tuple[int, int], list[Session]], rounds: int, order: list[int]) -> None:
        for rnd in range(rounds):
            for n in order:
                path = self.clones[n]
                if plan[(rnd, n)]:
                    self.start_session(n, plan[(rnd, n)][0].session_id)
                self.work(path, plan[(rnd, n)])
                if self.gc_turns is not None:
                    if (rnd, n) in self.gc_turns:
                        self.gc(path)
                elif self.gc_every and (rnd + n) % self.gc_every == self.gc_every - 1:
                    self.gc(path)
                if (rnd, n) in self.deletes:
                    self.person_deletes(path, self.deletes[(rnd, n)])
                self.sync(path, f"round {rnd}: clone {n}")
        for n in order:  # everyone pulls the final state
            self.sync(self.clones[n], "final sync")
        final = self.clones[order[-1]]
        tree = run_git(final, "ls-tree", "-r", "--name-only", "origin/main", env=self.env).stdout.splitlines()
        self.stats.staging_in_git = sum(1 for p in tree if "_staging/" in p)
        self.stats.records = sum(1 for p in tree if p.startswith(RECORD_PREFIXES))
        self.stats.usage_files = sum(1 for p in tree if p.startswith(".yoi/usage/"))
        self.stats.usage_bytes, self.stats.usage_raw_bytes = self.usage_sizes(final)

    def usage_sizes(self, path: Path) -> tuple[int, int]:
        """Bytes of the usage folder at the remote, and of the same events as the session files that
        first held them (each event re-encoded as ``usage.record_events`` writes it)."""
        from yoi_tui.core.usage.log import load_events

        listing = run_git(path, "ls-tree", "-r", "-l", "origin/main", "--", ".yoi/usage", env=self.env).stdout
        size = sum(int(line.split()[3]) for line in listing.splitlines() if line.split()[3].isdigit())
        run_git(path, "merge", "-q", "--ff-only", "origin/main", env=self.env, check=False)
        events, _problems = load_events(Workspace(path))
        raw = sum(len(json.dumps({k: v for k, v in e.items() if k != "session_id"}, ensure_ascii=False,
                                 separators=(",", ":")).encode("utf-8")) + 1 for e in events)
        return size, raw

    def settle(self, order: list[int]) -> None:
        """The grace period passes: one clone (the same one whatever the order; GC gives the same
        operations in every clone) runs GC twice — folding what a stub gained (in a git work tree
        GC keeps the stubs themselves: docs/team.md) — and everyone pulls."""
        path = self.clones[0]
        self.sync(path, "pull before the grace period")
        ws = Workspace(path)
        # One more session, after every clone's usage reached this one: its Phase 2 promotes what the
        # merged usage qualifies (docs/team.md: promotion is counted from the merged usage files).
        write_staging(ws, Source(session_id="team-settle", range=(0, 9)), Extractor(engine="rules"),
                      Activity(requests=[Request(intent="Write the release notes", target="CHANGELOG.md",
                                                 summary="Release notes for the campaign.")]))
        record_tokens(ws, self.grace_tokens + 1, session_id="team-settle")
        run_phase2(ws, flush=True)
        self.stats.phase2_runs += 1
        for _ in range(2):
            self.gc(path)
        self.sync(path, "after the grace period")
        for n in order:
            self.sync(self.clones[n], "final pull")

    def final_records(self) -> dict[str, Any]:
        """Records at the remote, normalised: timestamps aside (they are wall-clock by design)."""
        path = self.clones[0]
        run_git(path, "fetch", "-q", "origin", env=self.env)
        out: dict[str, Any] = {}
        names = run_git(path, "ls-tree", "-r", "--name-only", "origin/main", env=self.env).stdout.splitlines()
        for rel in names:
            if not rel.startswith(RECORD_PREFIXES):
                continue
            text = _show(path, "origin/main", rel, self.env) or ""
            end = text.find("\n---", 3)
            meta = yaml.safe_load(text[3:end]) if text.startswith("---") and end > 0 else {}
            meta = meta if isinstance(meta, dict) else {}
            body = text[end + 4:] if end > 0 else text
            lines = [line.rstrip() for line in body.splitlines() if line.strip()]
            out[rel] = {"sources": sorted(_sources_of(text)), "status": meta.get("status"),
                        "replaced_by": meta.get("replaced_by"), "body": sorted(set(lines)),
                        "duplicated_lines": len(lines) - len(set(lines)),
                        "exact": masked_stamps(text)}
        return out


STAMP_KEYS = ("created_at", "updated_at")


def masked_stamps(text: str) -> str:
    """The file's text with the values of the frontmatter's top-level ``created_at`` and
    ``updated_at`` lines replaced by ``*`` — the only bytes the push-order comparison excludes
    (they are wall-clock times by design). Every other byte counts: key order, source order,
    body lines, blank lines, the final newline."""
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    head = [f"{line.split(':', 1)[0]}: *" if line.split(":", 1)[0] in STAMP_KEYS else line
            for line in text[:end].split("\n")]
    return "\n".join(head) + text[end:]


def push_orders(clones: int, orders: int, seed: int) -> list[list[int]]:
    """The push orders to replay: forward, reverse, then shuffles drawn from the seed (distinct)."""
    found: list[list[int]] = []
    rng = random.Random(seed * 7919 + clones)
    candidates = [list(range(clones)), list(reversed(range(clones)))]
    for _attempt in range(orders * 20):
        if len(found) >= orders:
            break
        order = candidates.pop(0) if candidates else rng.sample(range(clones), clones)
        if order not in found:
            found.append(order)
    return found


def plan_gc(clones: int, rounds: int, seed: int, probability: float) -> frozenset[tuple[int, int]]:
    """The (round, clone) turns that run GC, each with ``probability``, drawn from the seed alone."""
    rng = random.Random(seed * 104729 + 1)
    return frozenset((rnd, n) for rnd in range(rounds) for n in range(clones) if rng.random() < probability)


def plan_deletes(clones: int, rounds: int, seed: int, probability: float) -> dict[tuple[int, int], float]:
    """The (round, clone) turns where a person deletes a record, and which (a fraction of the live
    ones), drawn from the seed alone."""
    rng = random.Random(seed * 15485863 + 3)
    return {(rnd, n): rng.random() for rnd in range(rounds) for n in range(clones) if rng.random() < probability}


def simulate(clones: int = 5, rounds: int = 20, seed: int = 16, *, orders: int = 1, driver: bool = True,
             gc_every: int = 5, gc_probability: float | None = None, no_init: int = 0, resume: bool = False,
             deletes: float = 0.0, workdir: Path | None = None, keep: bool = False, parallel: int = 1) -> dict[str, Any]:
    """Run the campaign (once per push order) and return the figures.

    ``gc_probability``: each clone runs GC after a turn with this probability (instead of every
    ``gc_every`` rounds); ``no_init``: that many clones (every other one from clone 1) never run
    `yoi init` — their first agent session's hook must set them up; ``resume``: a quarter of the
    sessions resume the clone's previous one, and every GC turn also compacts the usage files;
    ``parallel``: replay that many push orders at once (separate processes; each order has its own
    remote, clones and git home, so they share nothing)."""
    plan = plan_sessions(clones, rounds, seed, resume=resume)
    gc_turns = plan_gc(clones, rounds, seed, gc_probability) if gc_probability is not None else None
    delete_turns = plan_deletes(clones, rounds, seed, deletes) if deletes else None
    skip = frozenset(list(range(1, clones, 2))[:no_init])
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="yoi-team-"))
    runs: list[dict[str, Any]] = []
    ended: list[dict[str, Any]] = []  # the records right after the last round
    finals: list[dict[str, Any]] = []  # ... and after the grace period (stubs dropped)
    jobs = [(base / f"run{k}", order, clones, rounds, driver, gc_every, skip, gc_turns, resume, delete_turns, plan)
            for k, order in enumerate(push_orders(clones, orders, seed))]
    try:
        if parallel > 1 and len(jobs) > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(parallel, len(jobs))) as pool:
                done = list(pool.map(_one_order, *zip(*jobs, strict=True)))
        else:
            done = [_one_order(*job) for job in jobs]
        for stats, end, final in done:
            runs.append(stats)
            ended.append(end)
            finals.append(final)
    finally:
        if not keep and workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    result: dict[str, Any] = {"clones": clones, "rounds": rounds, "seed": seed, "driver": driver, "runs": runs}
    result["record_sets_after_rounds"] = [{"order": run["order"], **record_set(final)}
                                          for run, final in zip(runs, ended, strict=True)]
    result["record_sets"] = [{"order": run["order"], **record_set(final)} for run, final in zip(runs, finals, strict=True)]
    result["knowledge_records"] = [sorted(rel for rel, v in f.items() if rel.startswith("knowledge/")
                                          and not v["replaced_by"]) for f in finals]
    result["records_with_duplicated_lines"] = sorted({rel for f in [*ended, *finals] for rel, v in f.items()
                                                      if v["duplicated_lines"]})
    if len(finals) > 1:
        live = [{rel: {k: x for k, x in v.items() if k != "exact"} for rel, v in f.items() if not v["replaced_by"]}
                for f in ended]
        result["live_records_differing_after_rounds"] = _differing(live)
        exact_ended = [{rel: v["exact"] for rel, v in f.items() if not v["replaced_by"]} for f in ended]
        result["live_records_differing_in_bytes_after_rounds"] = _differing(exact_ended)
        exact = [{rel: v["exact"] for rel, v in f.items() if not v["replaced_by"]} for f in finals]
        result["live_records_differing_in_bytes"] = _differing(exact)
        result["exact_differences"] = {rel: [f.get(rel) for f in exact]
                                       for rel in result["live_records_differing_in_bytes"][:3]}
        result["same_bytes_whatever_the_order"] = not result["live_records_differing_in_bytes"] \
            and not result["live_records_differing_in_bytes_after_rounds"]
        # Every path, live records with their content and stubs with where they point. A stub's own
        # content is the record as it was when merged away (plus late edits git merged into it):
        # which sessions it held then depends on when the merge happened, i.e. on the push order,
        # and its keeper holds them all. Those differences are reported, not counted.
        sets = [{rel: ({k: x for k, x in v.items() if k != "exact"} if not v["replaced_by"] else
                       {"replaced_by": v["replaced_by"], "status": v["status"]}) for rel, v in f.items()}
                for f in finals]
        differing = _differing(sets)
        result["same_records_whatever_the_order"] = not differing and not result["live_records_differing_after_rounds"]
        result["records_differing_by_order"] = differing
        result["stubs_differing_in_content"] = _differing(
            [{rel: v["exact"] for rel, v in f.items() if v["replaced_by"]} for f in finals])
        result["differences"] = {rel: [f.get(rel) for f in finals] for rel in differing[:5]}
        # What a person's deletion removes is what that person's clone had pulled (docs/team.md), and
        # that depends on the push order: the records differing that a person's deletion touched in
        # some order — the record itself, or one of its slug (a knowledge record and the decision or
        # request it derives from: its last_sources are the origin's).
        slugs = {line.rsplit("/", 1)[1] for run in runs for line in run["deleted_paths"]}
        deleted = {rel for f in [*ended, *finals] for rel in f if rel.rsplit("/", 1)[-1] in slugs}
        every = {*differing, *result["live_records_differing_in_bytes"],
                 *result["live_records_differing_in_bytes_after_rounds"]}
        result["differing_records_a_person_deleted"] = sorted(deleted & every)
        result["differing_records_no_person_deleted"] = sorted(every - deleted)
    return result


def _one_order(root: Path, order: list[int], clones: int, rounds: int, driver: bool, gc_every: int,
               skip: frozenset[int], gc_turns: frozenset[tuple[int, int]] | None, resume: bool,
               delete_turns: dict[tuple[int, int], float] | None, plan: dict[tuple[int, int], list[Session]]
               ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """One push order's campaign in ``root`` (its own remote, clones and git home): the figures,
    the records right after the last round and after the grace period."""
    root.mkdir(parents=True)
    env = git_env(root / "home")
    team = Team(root, clones, driver=driver, gc_every=gc_every, env=env, no_init=skip, gc_turns=gc_turns,
                compact_usage=resume, deletes=delete_turns)
    team.stats.no_init_clones = len(skip)
    team.run(plan, rounds, order)
    stats = {"order": order, **team.stats.to_json()}
    end = team.final_records()
    team.settle(order)
    final = team.final_records()
    print(f"[order {order}] conflicted files {stats['conflicted_files']}, sources lost {stats['sources_lost']}, "
          f"lint errors {stats['lint_errors_after_merge']}, digest {record_set(final)['digest']}",
          file=sys.stderr, flush=True)
    return stats, end, final


def _differing(sets: list[dict[str, Any]]) -> list[str]:
    first = sets[0]
    return sorted({rel for f in sets[1:] for rel in set(first) | set(f) if first.get(rel) != f.get(rel)})


def record_set(final: dict[str, Any]) -> dict[str, Any]:
    """How many records (live, replaced) and one digest of them all: equal digests, equal record sets."""
    content = {rel: {k: x for k, x in v.items() if k != "exact"} if not v["replaced_by"] else
               {"replaced_by": v["replaced_by"], "status": v["status"]} for rel, v in final.items()}  # as compared
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]
    replaced = sum(1 for v in final.values() if v["replaced_by"])
    return {"records": len(final), "live": len(final) - replaced, "replaced": replaced, "digest": digest}


def print_report(result: dict[str, Any]) -> None:
    print(f"team simulation: {result['clones']} clones x {result['rounds']} rounds, seed {result['seed']}, "
          f"merge driver {'on' if result['driver'] else 'off'}")
    for run in result["runs"]:
        print(f"  push order {run['order']}: {run['sessions']} sessions, {run['merges']} merges "
              f"({run['conflicted_merges']} conflicted), Phase 2 x{run['phase2_runs']}, GC x{run['gc_runs']}")
        print(f"    conflicted files needing a person: {run['conflicted_files']} {run['conflict_kinds'] or ''}")
        for line in run["conflicted_paths"][:10]:
            print(f"      {line}")
        print(f"    sources lost: {run['sources_lost']} (and {run['sources_capped']} dropped by the "
              "records.sources_max cap: the last N of the canonical order are kept, as GC trims)")
        for line in run["lost_examples"][:10]:
            print(f"      {line}")
        print(f"    lint errors after merges: {run['lint_errors_after_merge']}")
        for line in run["lint_examples"][:10]:
            print(f"      {line}")
        print(f"    records a person deleted: {run['person_deletions']}; record modify/delete settled by "
              f"`yoi resolve` (no person): {run['settled_by_yoi']}")
        for line in run["settled_paths"][:5]:
            print(f"      {line}")
        print(f"    staging files in git: {run['staging_in_git']}; records: {run['records']}; "
              f"usage files: {run['usage_files']}")
        if run["usage_raw_bytes"]:
            print(f"    usage folder: {run['usage_bytes']} bytes against {run['usage_raw_bytes']} as raw session "
                  f"files ({run['usage_bytes'] / run['usage_raw_bytes']:.2f}x; {run['sessions_compacted']} "
                  "session file(s) compacted)")
        if run["no_init_clones"]:
            print(f"    clones that never ran `yoi init`: {run['no_init_clones']}, merge driver registered "
                  f"by their first hook: {run['hook_registrations']}")
    for title, key in (("after the last round", "record_sets_after_rounds"),
                       ("after the grace period (GC folded the stubs)", "record_sets")):
        print(f"  final records {title}:")
        for rs in result[key]:
            print(f"    push order {rs['order']}: {rs['records']} ({rs['live']} live, {rs['replaced']} "
                  f"replaced stubs), digest {rs['digest']}")
    dup = result["records_with_duplicated_lines"]
    print(f"  records with a body line twice: {len(dup)}" + (f" ({', '.join(dup[:5])})" if dup else ""))
    if "same_records_whatever_the_order" in result:
        live = result["live_records_differing_after_rounds"]
        print(f"  same live records after the last round whichever order the clones pushed in: "
              f"{'yes' if not live else f'NO ({len(live)} record(s) differ)'}")
        for rel in live[:10]:
            print(f"    {rel}")
        for when, key in (("the last round", "live_records_differing_in_bytes_after_rounds"),
                          ("the grace period", "live_records_differing_in_bytes")):
            in_bytes = result[key]
            print(f"  same live records byte for byte (created_at/updated_at values aside) after {when}: "
                  f"{'yes' if not in_bytes else f'NO ({len(in_bytes)} record(s) differ)'}")
            for rel in in_bytes[:10]:
                print(f"    {rel}")
        stubs = result["stubs_differing_in_content"]
        print(f"  replaced stubs whose own content differs by order (reported only: a stub holds what its record "
              f"held when merged away): {len(stubs)}")
        differing = result["records_differing_by_order"]
        print(f"  same records after the grace period whichever order the clones pushed in: "
              f"{'yes (identical record sets)' if not differing else f'NO ({len(differing)} record(s) differ)'}")
        for rel in differing[:10]:
            print(f"    {rel}")
        deleted = result["differing_records_a_person_deleted"]
        print(f"  of the records differing, deleted by a person in some order: {len(deleted)}"
              + (f" ({', '.join(deleted[:5])})" if deleted else ""))
        others = result["differing_records_no_person_deleted"]
        print(f"  records differing that no person deleted: {len(others)}" + (f" ({', '.join(others[:5])})" if others else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clones", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--orders", type=int, default=1, help="replay in this many push orders: forward, "
                        "reverse, then shuffles drawn from the seed")
    parser.add_argument("--gc-every", type=int, default=5, help="each clone runs GC every N rounds (staggered; 0: never)")
    parser.add_argument("--gc-probability", type=float, help="each clone runs GC after a turn with this "
                        "probability (drawn from the seed; instead of --gc-every)")
    parser.add_argument("--no-init", type=int, default=0, help="this many clones never run `yoi init` "
                        "(their first session's hook registers the merge driver)")
    parser.add_argument("--resume", action="store_true", help="resumed sessions, and GC turns compact usage files")
    parser.add_argument("--deletes", type=float, default=0.0, metavar="P", help="after a turn a person deletes "
                        "a live record with this probability (git rm; drawn from the seed)")
    parser.add_argument("--no-driver", action="store_true", help="git's own line merge instead of yoi merge-driver")
    parser.add_argument("--workdir", type=Path, help="keep the repositories here (default: a temporary folder)")
    parser.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="replay N push orders at once (separate processes)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = simulate(args.clones, args.rounds, args.seed, orders=args.orders, driver=not args.no_driver,
                      gc_every=args.gc_every, gc_probability=args.gc_probability, no_init=args.no_init,
                      resume=args.resume, deletes=args.deletes,
                      workdir=args.workdir, parallel=args.parallel)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_report(result)
    bad = any(run["conflicted_files"] or run["sources_lost"] or run["lint_errors_after_merge"] or run["staging_in_git"]
              for run in result["runs"])
    # A record a person deleted may differ by order (the deletion removes what that clone had
    # pulled, which the order decides; printed above); any other difference fails.
    differ = bool(result.get("differing_records_no_person_deleted"))
    return 1 if bad or differ else 0


if __name__ == "__main__":
    sys.exit(main())
