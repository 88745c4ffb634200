"""The demo workspace: a realistic, deterministic sample project memory for ``yoi-tui --demo``.

``create_demo_workspace(root)`` writes every record kind (summary, decisions in each status,
requests, knowledge), a few deliberate lint problems, two staging files, three native session logs
(``sessions/``) and usage events (``.yoi/usage/``, so frequencies and the candidate report have
data) into ``root``. Everything is fixed (timestamps, ids, text), so snapshot tests and the
README's screenshots are stable; ``extra`` adds seeded filler records for scrolling and benchmarks
(10,000 records for the startup target). No Textual here: tests and the CLI use it too.

The sample project is "ledgerline", a small invoicing API, so the records read like the memory a
coding agent would build up while working on it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..core.phase1.pointer import pointer_path
from ..core.store.atomic import atomic_write_text
from ..core.store.kinds import RecordKind, path_for
from ..core.store.workspace import Workspace, init_workspace
from ..core.store.writer import new_record_text

BASE_TIME = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SESSIONS = ("sess-2026-01-05-a1", "sess-2026-01-12-b2", "sess-2026-01-19-c3")

# The lint problems the demo carries on purpose (path relative to the root, rule); tests assert
# these and the README walks a new user through fixing the first one.
DELIBERATE_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("memory/decisions/api-versioning-in-path.md", "bad-status"),
    ("memory/decisions/pdf-rendering-service.md", "dangling-ref"),
    ("knowledge/fact-api-rate-limits.md", "unknown-field"),
    ("memory/requests/explain-migrations-first.md", "field-type"),
    ("memory/decisions/retry-webhook-with-backoff.md", "similar-slugs"),
)


def _ts(step: int) -> datetime:
    """A fixed timestamp ``step`` hours after the demo's base time (written as ISO 8601 with offset)."""
    return BASE_TIME + timedelta(hours=step)


def _src(session: int, start: int, end: int) -> dict[str, Any]:
    return {"session_id": SESSIONS[session], "range": [start, end]}


@dataclass
class DemoRecord:
    """One record of the demo: where it goes, its frontmatter in order, its body."""

    kind: RecordKind
    slug: str
    meta: dict[str, Any]
    body: str
    raw: str | None = None  # a literal file text (used where the frontmatter is broken on purpose)


@dataclass
class DemoSummary:
    """What ``create_demo_workspace`` wrote (counts by kind, for messages and tests)."""

    root: Path
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _decision(slug: str, step: int, status: str, body: str, *, sources: list[dict[str, Any]] | None = None,
              replaced_by: str | None = None) -> DemoRecord:
    meta: dict[str, Any] = {"created_at": _ts(step), "updated_at": _ts(step + 30),
                            "sources": sources or [_src(step % 3, step, step + 12)], "status": status}
    if replaced_by:
        meta["replaced_by"] = replaced_by
    return DemoRecord(RecordKind.DECISION, slug, meta, body)


def _request(slug: str, step: int, body: str, *, replaced_by: str | None = None) -> DemoRecord:
    meta: dict[str, Any] = {"created_at": _ts(step), "updated_at": _ts(step + 6),
                            "sources": [_src(step % 3, step * 2, step * 2 + 4)]}
    if replaced_by:
        meta["replaced_by"] = replaced_by
    return DemoRecord(RecordKind.REQUEST, slug, meta, body)


def _knowledge(slug: str, step: int, kind: str, description: str, body: str, *, model: bool = False,
               user: bool = True, replaced_by: str | None = None,
               extra: dict[str, Any] | None = None) -> DemoRecord:
    meta: dict[str, Any] = {"kind": kind, "description": description, "model_invokation": model,
                            "user_invocable": user, "last_sources": [_src(step % 3, step, step + 8)],
                            "created_at": _ts(step), "updated_at": _ts(step + 48)}
    if replaced_by:
        meta["replaced_by"] = replaced_by
    if extra:
        meta.update(extra)
    return DemoRecord(RecordKind.KNOWLEDGE, slug, meta, body)


SUMMARY_BODY = """\
# ledgerline

A small multi-tenant invoicing API: FastAPI on Python 3.12, PostgreSQL 16, a nightly
invoice run, and webhooks to accounting tools. Money is stored as integer cents
(#rule-money-as-integer-cents); every timestamp is UTC (#rule-utc-timestamps).

## Where things stand

- The ledger lives in Postgres; the Redis cache was dropped (see decision drop-redis-cache).
- Webhooks retry with exponential backoff; debugging them: #howto-debug-webhooks.
- PDF rendering is still open: a separate service or in-process.
- Tests run with `uv run pytest -q` (#howto-run-tests-locally).

## How the user likes to work

Small pull requests, migrations explained before they run, ruff before every commit.
"""

KNOWLEDGE: tuple[DemoRecord, ...] = (
    _knowledge("rule-money-as-integer-cents", 1, "rule",
               "Amounts are integer cents, never floats. Read before touching prices, totals or tax.",
               "# Money is integer cents\n\nStore and compute every amount as an `int` number of cents.\n"
               "Convert to a decimal string only at the API edge (`format_cents`).\n\n"
               "Why: float rounding produced a one-cent drift in the January invoice run.\n", model=True),
    _knowledge("rule-utc-timestamps", 2, "rule",
               "All timestamps are timezone-aware UTC. Read when adding a datetime column or field.",
               "# UTC everywhere\n\nUse `datetime.now(UTC)`; columns are `timestamptz`.\n"
               "Render local time only in the dashboard.\n", model=True),
    _knowledge("howto-run-tests-locally", 3, "howto",
               "How to run the test suite and a single test. Read before running or fixing tests.",
               "# Running tests\n\n```sh\nuv run pytest -q            # whole suite, ~40 s\n"
               "uv run pytest -q -k invoice  # one area\n```\n\n"
               "The suite needs a local Postgres: `docker compose up -d db`.\n", model=True),
    _knowledge("howto-add-migration", 4, "howto",
               "Steps to add an Alembic migration safely. Read when changing the schema.",
               "# Adding a migration\n\n1. `uv run alembic revision --autogenerate -m \"...\"`\n"
               "2. Read the generated file; autogenerate misses renames.\n"
               "3. Explain the migration to the user before applying it.\n"
               "4. `uv run alembic upgrade head` on the dev database.\n"),
    _knowledge("howto-debug-webhooks", 5, "howto",
               "Where webhook deliveries are logged and how to replay one. Read when a webhook fails.",
               "# Debugging webhooks\n\nDeliveries are in `webhook_attempts`; replay with\n"
               "`uv run ledgerline webhooks replay ATTEMPT_ID`. Backoff is described in the\n"
               "decision retry-webhooks-with-backoff.\n"),
    _knowledge("howto-release", 6, "howto",
               "How a release is cut and deployed to Fly.io. Read before tagging or deploying.",
               "# Releasing\n\n1. Update `CHANGELOG.md`.\n2. `git tag vX.Y.Z && git push --tags`.\n"
               "3. CI builds the image and runs `fly deploy`.\n"),
    _knowledge("howto-deploy-heroku", 7, "howto",
               "Old Heroku deploy steps (replaced by the Fly.io release process).",
               "# Deploying to Heroku\n\n`git push heroku main` — no longer used.\n",
               replaced_by="howto-release"),
    _knowledge("term-invoice-run", 8, "term",
               "What the nightly 'invoice run' is. Read when working on billing jobs or schedules.",
               "# Invoice run\n\nThe nightly job that turns each tenant's usage into invoices at 02:00 UTC.\n"
               "It is idempotent per tenant and day (see decision nightly-invoice-run).\n"),
    _knowledge("term-tenant", 9, "term",
               "What a tenant is and how tenant isolation works. Read when a query touches tenant data.",
               "# Tenant\n\nA customer organisation. Every table carries `tenant_id`; row-level\n"
               "security enforces isolation in Postgres.\n"),
    _knowledge("term-dunning", 10, "term",
               "Dunning: reminding customers of unpaid invoices. Read when changing reminder e-mails.",
               "# Dunning\n\nReminders at 7, 14 and 30 days after the due date.\n", user=False),
    _knowledge("policy-no-orm-in-handlers", 11, "policy",
               "Request handlers never query the ORM directly. Read when adding an endpoint.",
               "# No ORM in handlers\n\nHandlers call a service function; services own the session.\n"
               "This keeps transactions in one place and handlers testable.\n"),
    _knowledge("policy-secrets-in-vault", 12, "policy",
               "Secrets live in 1Password and reach CI as masked variables. Read before adding a key.",
               "# Secrets\n\nNever commit a secret, not even in a test. Ask the user to add it to the\n"
               "vault and reference it by name.\n"),
    _knowledge("fact-postgres-version", 13, "fact",
               "Production runs PostgreSQL 16.2 on Fly.io. Read when using a Postgres feature.",
               "# Postgres version\n\nProduction: 16.2. Local docker image: `postgres:16`.\n"),
    _knowledge("fact-api-rate-limits", 14, "fact",
               "Public API rate limits per plan. Read when changing throttling or plan features.",
               "# Rate limits\n\n| plan | requests/min |\n|---|---|\n| free | 60 |\n| team | 600 |\n",
               extra={"model_invocation": True}),
    _knowledge("howto-write-changelog", 15, "howto",
               "How the user wants CHANGELOG entries written. Read before editing CHANGELOG.md.",
               "# Changelog entries\n\nOne line per change, imperative mood, link the PR.\n"),
)

DECISIONS: tuple[DemoRecord, ...] = (
    _decision("use-postgres-for-ledger", 20, "resolved",
              "# Use PostgreSQL for the ledger\n\nOptions: PostgreSQL, SQLite, DynamoDB.\n\n"
              "Chosen: PostgreSQL — transactions across invoices and payments, row-level security\n"
              "for tenants (#term-tenant), and the team knows it. Version: #fact-postgres-version.\n"),
    _decision("cache-invoices-in-redis", 21, "replaced",
              "# Cache rendered invoices in Redis\n\nCached invoice JSON for 10 minutes to speed up the dashboard.\n",
              replaced_by="drop-redis-cache"),
    _decision("drop-redis-cache", 22, "resolved",
              "# Drop the Redis cache\n\nThe cache served stale totals after refunds. Postgres with the right\n"
              "index answers in 4 ms, so the cache is gone and one moving part fewer.\n"),
    _decision("money-as-integer-cents", 23, "resolved",
              "# Money as integer cents\n\nAfter the one-cent drift, amounts moved from `float` to `int` cents.\n"
              "The rule is kept in #rule-money-as-integer-cents.\n"),
    _decision("adopt-fastapi", 24, "resolved",
              "# Adopt FastAPI\n\nOptions: Flask, Django REST, FastAPI. Chosen: FastAPI for typed request\n"
              "models and the OpenAPI document the accounting partners need.\n"),
    _decision("pdf-rendering-service", 25, "open",
              "# PDF rendering: service or in-process?\n\nWeasyPrint in-process blocks a worker for ~800 ms per\n"
              "invoice. A separate service costs one more deployment. See #howto-render-pdf for\n"
              "the current setup.\n"),
    _decision("retry-webhooks-with-backoff", 26, "resolved",
              "# Retry webhooks with exponential backoff\n\n5 attempts: 1 min, 5 min, 30 min, 2 h, 12 h. After that the\n"
              "delivery is marked failed and the tenant is e-mailed. See #howto-debug-webhooks.\n"),
    _decision("retry-webhook-with-backoff", 27, "open",
              "# Retry webhook deliveries\n\nA second note on webhook retries, written in another session;\n"
              "probably the same subject as retry-webhooks-with-backoff.\n"),
    _decision("split-tenant-schemas", 28, "open",
              "# One schema per tenant?\n\nDiscussed for the enterprise plan. Row-level security is enough for now;\n"
              "revisit above 500 tenants.\n"),
    _decision("nightly-invoice-run", 29, "resolved",
              "# Nightly invoice run at 02:00 UTC\n\nOne job per tenant, idempotent per day. See #term-invoice-run.\n"),
    _decision("use-uv-for-dependencies", 30, "resolved",
              "# Use uv for dependencies\n\n`uv.lock` is committed; `uv sync` in CI. Faster than pip-tools by 10x here.\n"),
    _decision("sentry-for-errors", 31, "open",
              "# Error tracking\n\nSentry or the Fly.io log drain? Sentry's free tier fits; waiting on the user.\n"),
    _decision("api-versioning-in-path", 32, "accepted",
              "# Version the API in the path\n\n`/v1/invoices` rather than a header: partners' tools\n"
              "cache by URL. Rate limits per version: #fact-api-rate-limits.\n"),
    _decision("tax-rates-from-table", 33, "resolved",
              "# Tax rates from a table\n\nRates live in `tax_rates` with validity ranges instead of constants,\n"
              "so a rate change is a data migration (#howto-add-migration).\n"),
    _decision("soft-delete-invoices", 34, "resolved",
              "# Invoices are never deleted\n\nA cancelled invoice gets `cancelled_at`; a credit note reverses it.\n"
              "Auditors require the full sequence.\n"),
)

REQUESTS: tuple[DemoRecord, ...] = (
    _request("small-pull-requests", 40,
             "# Keep pull requests small\n\nThe user reviews on a phone: one concern per PR, under ~300 lines.\n"),
    _request("explain-migrations-first", 41,
             "# Explain migrations before applying\n\nSay what a migration changes and whether it locks a table,\n"
             "then wait for an OK (#howto-add-migration).\n"),
    _request("run-ruff-before-commit", 42,
             "# Run ruff before every commit\n\n`uv run ruff check --fix && uv run ruff format`.\n"),
    _request("dark-mode-invoice-pdf", 43,
             "# Dark-mode friendly invoice PDF\n\nThe user asked for a PDF that prints well and reads well on dark\n"
             "screens: no pure black backgrounds.\n"),
    _request("export-csv-from-dashboard", 44,
             "# CSV export from the dashboard\n\nOne button per table; amounts in the tenant's currency, not cents.\n"),
    _request("shorter-test-output", 45,
             "# Shorter test output\n\nRun pytest with `-q` and show only failures in summaries.\n"),
    _request("changelog-in-every-pr", 46,
             "# Update the changelog in every PR\n\nSee #howto-write-changelog.\n",
             replaced_by="small-pull-requests"),
    _request("german-invoice-template", 47,
             "# German invoice template\n\nA tenant in Berlin needs \u00a714 UStG fields on invoices.\n"),
)

# A request whose created_at is a bare date (a field-type error) — written literally, since the
# writer would emit a valid timestamp.
_BROKEN_REQUEST_SLUG = "explain-migrations-first"


def _broken_request_text(record: DemoRecord) -> str:
    meta = dict(record.meta)
    meta["created_at"] = "2026-01-06"
    return new_record_text(meta, record.body).replace('created_at: "2026-01-06"', "created_at: 2026-01-06")


_FILLER_TOPICS = ("invoice", "payment", "refund", "tenant", "webhook", "report", "export", "tax", "plan",
                  "coupon", "currency", "dashboard", "auth", "audit", "email", "queue", "schema", "cache")
_FILLER_VERBS = ("use", "drop", "split", "merge", "retry", "batch", "validate", "log", "limit", "index",
                 "rename", "move", "cache", "version", "sign", "archive")


def _filler(extra: int, seed: int) -> Iterator[DemoRecord]:
    """``extra`` seeded filler records (decisions, requests, knowledge in a 5:2:3 ratio)."""
    rng = random.Random(seed)
    used: set[str] = set()
    for n in range(extra):
        while True:
            slug = f"{rng.choice(_FILLER_VERBS)}-{rng.choice(_FILLER_TOPICS)}-{rng.choice(_FILLER_TOPICS)}-{n}"
            if slug not in used:
                used.add(slug)
                break
        topic = slug.replace("-", " ")
        step = 100 + n
        slot = n % 10
        if slot < 5:
            status = ("open", "resolved", "resolved", "resolved", "open")[slot]
            yield _decision(slug, step, status, f"# {topic.capitalize()}\n\nGenerated filler decision about {topic}.\n")
        elif slot < 7:
            yield _request(slug, step, f"# {topic.capitalize()}\n\nGenerated filler request about {topic}.\n")
        else:
            yield _knowledge(slug, step, ("term", "fact", "howto")[slot - 7],
                             f"Filler knowledge about {topic}. Read when working on {topic.split()[1]}.",
                             f"# {topic.capitalize()}\n\nGenerated filler knowledge.\n")


def demo_records(extra: int = 0, seed: int = 7) -> list[DemoRecord]:
    """Every record of the demo (the fixed ones, then ``extra`` seeded fillers)."""
    records = [DemoRecord(RecordKind.SUMMARY, "summary",
                          {"updated_at": _ts(60), "last_rewritten_from_range": [0, 120]}, SUMMARY_BODY)]
    records.extend(KNOWLEDGE)
    records.extend(DECISIONS)
    for record in REQUESTS:
        if record.slug == _BROKEN_REQUEST_SLUG:
            record = DemoRecord(record.kind, record.slug, record.meta, record.body, _broken_request_text(record))
        records.append(record)
    records.extend(_filler(extra, seed))
    return records


def _staging_files() -> list[dict[str, Any]]:
    """Two Phase 1 outputs waiting for Phase 2 (fixed UUIDv7-shaped ids): what Phase 1 took from
    entries 0–8 and 9–13 of the third session's log (``_LAST_SESSION``), whose pointer says so."""
    return [
        {"id": "019b8a10-0000-7000-8000-000000000001", "created_at": _ts(70).isoformat(),
         "source": _src(2, 0, 8), "extractor": {"engine": "rules", "model": None},
         "activity": {
             "decisions": [{"title": "Render PDFs in a separate service",
                            "options": ["in-process WeasyPrint", "separate render service"],
                            "chosen": "separate render service",
                            "rationale": "in-process rendering blocks API workers for ~800 ms"}],
             "discussions": [{"topic": "Sentry vs log drain", "points": ["free tier is enough",
                                                                         "log drain loses stack context"]}],
             "attempts": [{"trial": "uv run pytest -q -k pdf", "result": "3 passed", "outcome": "success"}],
             "requests": []}},
        {"id": "019b8a10-0000-7000-8000-000000000002", "created_at": _ts(71).isoformat(),
         "source": _src(2, 9, 13), "extractor": {"engine": "rules", "model": None},
         "activity": {
             "decisions": [],
             "discussions": [],
             "attempts": [{"trial": "alembic upgrade head", "result": "lock timeout on invoices",
                           "outcome": "failure"}],
             "requests": [{"intent": "explain", "target": "migrations",
                           "summary": "say whether a migration locks a table before running it"}]}},
    ]


def _uuid7(when: datetime, counter: int) -> str:
    """A UUIDv7 with a fixed time and counter (the demo must not depend on the clock or randomness)."""
    ms = int(when.timestamp() * 1000)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (counter & 0xFFF) << 64 | 0b10 << 62 | counter
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


# (session index, input tokens before the invokes, invokes as (slug, record kind, via)).
_USAGE: tuple[tuple[int, int, tuple[tuple[str, str, str], ...]], ...] = (
    (0, 420_000, (("rule-money-as-integer-cents", "knowledge", "expand"),
                 ("howto-run-tests-locally", "knowledge", "slug"),
                 ("money-as-integer-cents", "decision", "search"))),
    (1, 610_000, (("rule-money-as-integer-cents", "knowledge", "search"),
                 ("howto-add-migration", "knowledge", "expand"),
                 ("explain-migrations-first", "request", "search"),
                 ("drop-redis-cache", "decision", "search"))),
    (2, 350_000, (("rule-money-as-integer-cents", "knowledge", "slug"),
                 ("howto-debug-webhooks", "knowledge", "expand"),
                 ("explain-migrations-first", "request", "search"),
                 ("pdf-rendering-service", "decision", "search"))),
)


def _usage_files() -> dict[str, str]:
    """``.yoi/usage/<session>.jsonl`` text per session: a token tick, then the session's invokes."""
    files: dict[str, str] = {}
    counter = 0
    for session, tokens, invokes in _USAGE:
        when = BASE_TIME + timedelta(days=7 * session, hours=1)
        events: list[dict[str, Any]] = []
        counter += 1
        events.append({"id": _uuid7(when, counter), "type": "tokens", "input_tokens": tokens})
        for position, (slug, kind, via) in enumerate(invokes):
            counter += 1
            events.append({"id": _uuid7(when + timedelta(minutes=position + 1), counter), "type": "invoke",
                           "slug": slug, "record_kind": kind, "via": via})
        if session == len(_USAGE) - 1:
            # Work after the last invokes: old, once-used records fall below the protection threshold.
            counter += 1
            events.append({"id": _uuid7(when + timedelta(hours=3), counter), "type": "tokens",
                           "input_tokens": 900_000})
        files[SESSIONS[session]] = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
    return files


_FIRST_SESSIONS_ENTRIES: list[dict[str, Any]] = [
    {"role": "user", "text": "The invoice totals are off by a cent for tenant 42. Can you look?"},
    {"role": "assistant", "text": "I'll check how totals are computed.", "input_tokens": 5200},
    {"role": "assistant", "kind": "tool_call", "tool_name": "Bash",
     "tool_input": {"command": "rg -n 'float' ledgerline/billing"}},
    {"role": "tool", "kind": "tool_result", "text": "billing/totals.py:18: total = float(sum(lines))",
     "is_error": False},
    {"role": "assistant", "text": "Totals use floats. I'll switch to integer cents.", "input_tokens": 8100},
    {"role": "user", "text": "Yes, and remember that for the future."},
]

# The third session: the one the demo's staging came from (entries 0–8, then 9–13), already read
# by Phase 1 (its pointer is written), so running Phase 1 in the demo stages the other two only.
_LAST_SESSION_ENTRIES: list[dict[str, Any]] = [
    {"role": "user", "text": "Rendering the invoice PDF blocks the API. Should it move out of process?"},
    {"role": "assistant", "text": "Two options: keep WeasyPrint in-process, or a separate render service. "
                                  "In-process rendering blocks API workers for ~800 ms per invoice.",
     "input_tokens": 6400},
    {"role": "user", "text": "Go with a separate render service."},
    {"role": "assistant", "text": "Chosen: a separate render service; the API enqueues a render job.",
     "input_tokens": 7200},
    {"role": "assistant", "kind": "tool_call", "tool_name": "Bash", "tool_input": {"command": "uv run pytest -q -k pdf"}},
    {"role": "tool", "kind": "tool_result", "text": "3 passed in 0.41s", "is_error": False},
    {"role": "user", "text": "For errors: Sentry or the log drain?"},
    {"role": "assistant", "text": "Sentry's free tier is enough; the log drain loses the stack context.",
     "input_tokens": 7900},
    {"role": "user", "text": "Fine, we'll decide that later."},
    {"role": "user", "text": "Now run the migration for the render jobs table."},
    {"role": "assistant", "kind": "tool_call", "tool_name": "Bash", "tool_input": {"command": "alembic upgrade head"}},
    {"role": "tool", "kind": "tool_result", "text": "lock timeout on invoices", "is_error": True},
    {"role": "assistant", "text": "The migration timed out waiting for a lock on invoices.", "input_tokens": 8800},
    {"role": "user", "text": "Before running a migration, say whether it locks a table."},
]
_LAST_SESSION = len(SESSIONS) - 1


def _session_log(session_id: str, day: int, entries: list[dict[str, Any]]) -> str:
    """A short native-format session log (SPEC 7) for ``session_id``."""
    t0 = BASE_TIME + timedelta(days=day)
    lines = [json.dumps({"yoi_session": 1, "session_id": session_id, "created_at": t0.isoformat()})]
    for position, entry in enumerate(entries):
        stamped = {**entry, "timestamp": (t0 + timedelta(minutes=position)).isoformat()}
        lines.append(json.dumps(stamped, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def create_demo_workspace(root: Path, *, extra: int = 0, seed: int = 7) -> DemoSummary:
    """Write the demo workspace into ``root`` (created if missing; existing records are overwritten).

    ``extra`` adds that many seeded filler records. Session logs go to ``root/sessions/``.
    """
    ws, _ = init_workspace(Path(root))
    summary = DemoSummary(ws.root)
    for record in demo_records(extra, seed):
        path = path_for(ws, record.kind, record.slug)
        text = record.raw if record.raw is not None else new_record_text(record.meta, record.body)
        _write(path, text)
        summary.counts[record.kind.value] = summary.counts.get(record.kind.value, 0) + 1
    for staging in _staging_files():
        _write(ws.staging_dir / f"{staging['id']}.json", json.dumps(staging, indent=2) + "\n")
    for session_id, text in _usage_files().items():
        _write(ws.usage_dir / f"{session_id}.jsonl", text)
    sessions = ws.root / "sessions"
    for number, session_id in enumerate(SESSIONS):
        entries = _LAST_SESSION_ENTRIES if number == _LAST_SESSION else _FIRST_SESSIONS_ENTRIES
        _write(sessions / f"{session_id}.jsonl", _session_log(session_id, number * 7, entries))
    # Phase 1's pointer for the log the staging came from (the format of phase1.pointer, with a
    # fixed time: the demo is byte-for-byte deterministic).
    last = SESSIONS[_LAST_SESSION]
    pointer = {"session_id": last, "last_index": len(_LAST_SESSION_ENTRIES) - 1, "log": f"sessions/{last}.jsonl",
               "updated_at": _ts(71).isoformat(timespec="seconds")}
    _write(pointer_path(ws, last), json.dumps(pointer, indent=2) + "\n")
    return summary


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        atomic_write_text(path, text)
    else:
        # A fresh demo writes thousands of files: skip the per-file fsync of atomic writes.
        path.write_text(text, encoding="utf-8")


def demo_workspace(root: Path, *, extra: int = 0) -> Workspace:
    """Create the demo in ``root`` and return its ``Workspace``."""
    create_demo_workspace(root, extra=extra)
    return Workspace(root)
