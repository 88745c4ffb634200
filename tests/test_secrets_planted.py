"""Planted secrets of 40+ kinds: each is flagged by the ``secret`` lint rule and removed by redaction,
and none reaches staging, records or the run journal through ``yoi phase1`` + ``yoi phase2``.

The samples are built from pieces so this file does not itself look like a leak. They include the
nine kinds an independent campaign found passing both redaction and lint (issue 13): Slack webhook
URLs, ``redis://:password@host``, Twilio ``SK`` keys, SendGrid (also as ``SENDGRID_API_KEY=``),
Azure ``AccountKey=`` and ``SharedAccessKey=``, GitLab ``glpat-``, Shopify ``shpat_`` and a Docker
config ``"auth"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import decision_meta, make_ws, run_yoi, write_record

from yoi_tui.core.sessions.model import Entry
from yoi_tui.core.sessions.native import write_log
from yoi_tui.core.text.secrets import find_secrets, redact

A = "abcdefghijklmnopqrstuvwxyz"
HEX = "0123456789abcdef"
B64 = "Zm9vYmFyYmF6cXV4" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw"

# (kind label, text as it would appear in a log or record, the secret that must not survive)
PLANTED: list[tuple[str, str, str]] = [
    ("openai-project", "export OPENAI_API_KEY={s}", "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    ("openai-legacy", "key is {s}.", "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4"),
    ("openai-t3blbkfj", "OPENAI={s}", "sk-" + "abc123DEF456ghi789JKL0" + "T3BlbkFJ" + "mno345PQR678stu901VWX2"),
    ("anthropic", "Anthropic(api_key='{s}')", "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-dCbA_12345"),
    ("aws-key-id", "aws_access_key_id = {s}", "AKIA" + "Q3EGRT7YH2BXN4KM"),
    ("aws-secret", "aws_secret_access_key = {s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "9a8b7c6d5e"),
    ("github-classic", "git push https://x:{s}@github.com/o/r", "ghp_" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"),
    ("github-fine-grained", "GH_TOKEN={s} gh pr list", "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("slack-bot", "slack token {s} posted", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"),
    ("slack-webhook", "notify via {s}", "https://hooks.slack.com/services/" + "T0ABCDEF1/B0ABCDEF2/" + "a1B2c3D4e5F6g7H8i9J0k1L2"),
    ("google-api", "maps key {s}", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("stripe-secret", "stripe.api_key = '{s}'", "sk_live_" + "51HqLyjWDarjtT1zdp7dcXYZ"),
    ("stripe-restricted", "STRIPE_KEY {s}", "rk_live_" + "51HqLyjWDarjtT1zdp7dcXYZab"),
    ("jwt", "cookie session={s}", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("bearer-header", 'curl -H "Authorization: Bearer {s}"', "9f8e7d6c5b4a39281706f5e4"),
    ("basic-header", "authorization: basic {s}", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("openssh-private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
    ("pgp-private-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{s}\n-----END PGP PRIVATE KEY BLOCK-----",
     "lQOYBF0" + B64),
    ("postgres-url", "DATABASE_URL=postgres://app:{s}@db.internal:5432/app", "Sup3rS3cretPw"),
    ("redis-no-user", "REDIS_URL=redis://:{s}@cache.internal:6379/0", "r3d1sS3cr3tPw"),
    ("password-assign", "password={s}", "hunter2hunter2"),
    ("password-env", "DB_PASSWORD={s}", "supersecret99"),
    ("password-json", '{{"user": "bob", "password": "{s}"}}', "pa55word!x"),
    ("password-flag", "mysql --password {s} --host db", "s3cr3tpw77"),
    ("token-yaml", "token: {s}", "8c1f0e9a7b6d5e4f"),
    ("token-query", "https://api.example.com/v1/items?access_token={s}&limit=5", "q9w8e7r6t5y4"),
    ("api-key-assign", "api_key={s}", "abcd1234efgh5678"),
    ("api-key-header", "X-Api-Key: {s}", "0f9e8d7c6b5a4f3e"),
    ("client-secret", "client_secret = '{s}'", "zq8XY7wv6UT5rs4"),
    ("django-secret", "SECRET_KEY={s}", "django-insecure-abc123xyz"),
    ("twilio-api-key", "TWILIO_KEY {s}", "SK" + HEX * 2),
    ("twilio-account", "account {s}", "AC" + HEX[::-1] * 2),
    ("sendgrid", "using {s} for mail", "SG." + "ngeVfQFYQlKU0ufo8x5d1A" + "." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"),
    ("sendgrid-env", "SENDGRID_API_KEY={s}", "SG." + "x1y2z3" + "." + "a9b8c7d6"),
    ("azure-account-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core",
     (B64 * 2)[:86] + "=="),
    ("azure-sas", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s}",
     "k9Lm8Nb7Vc6Xz5As4Df3Gh2Jk1Qw0Er9Ty8Ui7Op6=="),
    ("gitlab-pat", "GITLAB {s}", "glpat-" + "xYz12AbC34dEf56GhI78"),
    ("gitlab-runner", "runner {s}", "glrt-" + "AbCdEf1234567890GhIjKlMn"),
    ("shopify", "SHOPIFY {s}", "shpat_" + HEX * 2),
    ("docker-auth", '{{"auths": {{"registry.example.com": {{"auth": "{s}"}}}}}}', "dXNlcjpzM2NyM3RQYXNzd29yZA=="),
    ("npm", "//registry.npmjs.org/:_authToken={s}", "npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("pypi", "password = {s}", "pypi-AgEIcHlwaS5vcmc" + ("Ab1-Cd2_" * 10)),
    ("discord", "DISCORD {s}", "MTA" + "xNzY3ODkwMTIzNDU2Nzg5" + "." + "GaBcDe" + "." + "AbCdEfGhIjKlMnOpQrStUvWxYz0"),
    ("telegram", "bot {s}", "123456789" + ":" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    ("mailchimp", "MAILCHIMP {s}", HEX * 2 + "-us12"),
    ("square", "SQUARE {s}", "sq0csp-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG"),
    ("artifactory", 'X-JFrog-Art-Api: "{s}"', "AKC" + "p8jQ9zN2rT5vX7yB4mK1"),
]


def _line(template: str, secret: str) -> str:
    return template.format(s=secret)


def test_at_least_forty_kinds() -> None:
    assert len({label for label, _t, _s in PLANTED}) >= 40


@pytest.mark.parametrize(("label", "template", "secret"), PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_secret_is_found_and_redacted(label: str, template: str, secret: str) -> None:
    text = _line(template, secret)
    assert find_secrets(text), f"{label}: not detected"
    out = redact(text)
    # Not the value, nor any 12-character piece of it (a partial redaction leaks the rest).
    assert secret not in out, out
    pieces = [secret[i:i + 12] for i in range(0, max(1, len(secret) - 11), 4)] if len(secret) >= 16 else []
    assert not [p for p in pieces if p in out], (label, out)


def test_planted_secrets_reach_neither_staging_nor_records_nor_journal(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    entries: list[Entry] = []
    for label, template, secret in PLANTED:
        entries.append(Entry(index=len(entries), role="user", kind="message",
                             text=f"We decided to keep the {label} credential here: {_line(template, secret)} "
                                  "because the deploy script reads it."))
        entries.append(Entry(index=len(entries), role="assistant", kind="message",
                             text=f"Done: stored {_line(template, secret)} in config.py.", input_tokens=10))
    log = tmp_path / "session.jsonl"
    write_log(log, "sess-secrets", entries)
    phase1 = run_yoi("phase1", "--force", "--workspace", str(ws.root), str(log))
    assert phase1.returncode == 0, phase1.stderr
    staging_text = "".join(p.read_text() for p in ws.staging_dir.glob("*.json"))
    assert staging_text, "phase1 wrote no staging: the test would prove nothing"
    phase2 = run_yoi("phase2", "--flush", "--workspace", str(ws.root))
    assert phase2.returncode in (0, 1), phase2.stderr
    everything = staging_text + "".join(p.read_text(errors="replace") for p in ws.root.rglob("*")
                                        if p.is_file() and p.suffix in (".md", ".json"))
    leaked = [label for label, _t, secret in PLANTED if secret in everything]
    assert leaked == []


def test_lint_flags_every_planted_secret_in_a_record(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    body = "\n# Credentials found in the wild\n\n" + "\n\n".join(_line(t, s) for _l, t, s in PLANTED) + "\n"
    write_record(ws, "memory/decisions/credentials.md", decision_meta(), body)
    result = run_yoi("lint", "--json", "--workspace", str(ws.root))
    import json

    found = [d for d in json.loads(result.stdout) if d["rule"] == "secret"]
    lines = {d["line"] for d in found}
    text = (ws.root / "memory/decisions/credentials.md").read_text()
    missed = []
    for label, template, secret in PLANTED:
        start = text.index(_line(template, secret))
        first = text.count("\n", 0, start) + 1
        last = first + _line(template, secret).count("\n")
        if not lines & set(range(first, last + 1)):
            missed.append(label)
    assert missed == []
