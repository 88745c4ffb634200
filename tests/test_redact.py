"""Secret redaction: one positive and at least one negative case per kind, plus table invariants."""

from __future__ import annotations

import pytest

from yoi_tui.core.text.secrets import SECRET_PATTERNS, find_secrets, redact, redact_value

# Built from pieces so the test file itself does not look like it leaks credentials.
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
OPENAI_LEGACY = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4"
ANTHROPIC = "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-dCbA_12345"
AWS_ID = "AKIA" + "Q3EGRT7YH2BXN4KM"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "9a8b7c6d5e"
GITHUB = "ghp_" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE = "sk_live_" + "51HqLyjWDarjtT1zdp7dcXYZ"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBvZXlvZXlvZXlvZXlvZXlvZXlvZXlvZXlvZXlvZXlvZXlvZQAAAJg=\n"
    "-----END OPENSSH PRIVATE KEY-----"
)

# (kind, text containing a secret, the secret value that must disappear)
POSITIVE: list[tuple[str, str, str]] = [
    ("openai_key", f"export OPENAI_API_KEY={OPENAI}", OPENAI),
    ("openai_key", f"key is {OPENAI_LEGACY}.", OPENAI_LEGACY),
    ("anthropic_key", f"client = Anthropic(api_key='{ANTHROPIC}')", ANTHROPIC),
    ("aws_access_key", f"aws_access_key_id = {AWS_ID}", AWS_ID),
    ("aws_secret", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("github_token", f"git push https://x:{GITHUB}@github.com/o/r", GITHUB),
    ("github_token", f"GH_TOKEN={GITHUB_PAT} gh pr list", GITHUB_PAT),
    ("slack_token", f"slack token {SLACK} posted", SLACK),
    ("google_api_key", f"maps key {GOOGLE}", GOOGLE),
    ("stripe_key", f"stripe.api_key = '{STRIPE}'", STRIPE),
    ("jwt", f"cookie session={JWT}", JWT),
    ("bearer_token", 'curl -H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4"', "9f8e7d6c5b4a39281706f5e4"),
    ("bearer_token", "authorization: basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("private_key", f"key file:\n{PEM}\nend", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
    ("url_credentials", "DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"),
    ("url_credentials", "clone https://alice:hunter2@example.com/repo.git", "hunter2"),
    ("password", "password=hunter2", "hunter2"),
    ("password", 'db:\n  password: "correct horse battery"', "correct horse battery"),
    ("password", "DB_PASSWORD=supersecret", "supersecret"),
    ("password", '{"user": "bob", "password": "pa55word!"}', "pa55word!"),
    ("password", "mysql --password s3cr3tpw --host db", "s3cr3tpw"),
    ("token", "token: 8c1f0e9a7b6d", "8c1f0e9a7b6d"),
    ("token", "https://api.example.com/v1/items?access_token=q9w8e7r6t5&limit=5", "q9w8e7r6t5"),
    ("api_key", "api_key=abcd1234efgh", "abcd1234efgh"),
    ("api_key", "X-Api-Key: 0f9e8d7c6b5a4f3e", "0f9e8d7c6b5a4f3e"),
    ("secret", "client_secret = 'zq8XY7wv6UT5'", "zq8XY7wv6UT5"),
    ("secret", "SECRET_KEY=django-insecure-abc123", "django-insecure-abc123"),
    ("shopify_token", "SHOPIFY_TOKEN " + "shpat_" + "0123456789abcdef" * 2, "shpat_" + "0123456789abcdef" * 2),
    ("docker_auth", '{"auths": {"r.io": {"auth": "dXNlcjpzM2NyM3Q="}}}', "dXNlcjpzM2NyM3Q="),
    ("azure_key", "Endpoint=sb://n/;SharedAccessKey=k9Lm8Nb7Vc6Xz5As4Df3Gh2J=", "k9Lm8Nb7Vc6Xz5As4Df3Gh2J="),
    ("slack_webhook", "POST https://hooks.slack.com/services/T0AB/B0CD/a1B2c3D4e5F6g7H8",
     "https://hooks.slack.com/services/T0AB/B0CD/a1B2c3D4e5F6g7H8"),
]

# (kind the text must NOT be flagged as, text)
NEGATIVE: list[tuple[str, str]] = [
    ("openai_key", "install scikit-learn (sk-learn) first"),
    ("openai_key", "the task-runner-for-everything-in-this-repo script"),
    ("openai_key", "sk-this-is-a-long-hyphenated-slug-without-digits"),
    ("anthropic_key", "sk-ant- is the prefix of Anthropic keys"),
    ("aws_access_key", "AKIA is the prefix of an AWS access key id"),
    ("aws_secret", "set aws_secret_access_key in ~/.aws/credentials"),
    ("github_token", "ghp_ tokens are classic personal access tokens"),
    ("github_token", "github_pat_ prefix"),
    ("slack_token", "xoxo, gossip girl"),
    ("google_api_key", "AIza is a Google prefix"),
    ("stripe_key", "sk_live_ keys are secret"),
    ("jwt", 'eyJ is base64 for {"'),
    ("bearer_token", "Authorization: Bearer $API_TOKEN"),
    ("bearer_token", "send a bearer token in the header"),
    ("private_key", "files that start with -----BEGIN RSA PRIVATE KEY----- are keys"),
    ("url_credentials", "open http://localhost:8080/path and git@github.com:o/r.git"),
    ("url_credentials", "postgres://${DB_USER}:${DB_PASSWORD}@db/app"),
    ("password", "the password is required"),
    ("password", "password: string"),
    ("password", "password: z.string().min(8)"),
    ("password", "login(user, password=password)"),
    ("password", 'password: ""'),
    ("password", "password_hash = bcrypt(pw)"),
    ("password", "password: ********"),
    ("token", "the token expired yesterday"),
    ("token", "token: string | null;"),
    ("token", "token: data.token,"),
    ("token", "const token = localStorage.getItem('token')"),
    ("token", "max_tokens=4096 and input_tokens: 3505"),
    ("token", "token: 16038"),
    ("token", "csrfToken = document.querySelector('meta').content"),
    ("api_key", "api_key=settings.api_key"),
    ("api_key", "api_key: Optional[str] = None"),
    ("api_key", "apiKey: process.env.API_KEY"),
    ("secret", "secret: the value lives in vault"),
    ("secret", "a secret: keep it"),
    ("shopify_token", "shpat_ is the prefix of a Shopify admin token"),
    ("docker_auth", '"auth": "" in ~/.docker/config.json means a credential helper'),
    ("azure_key", "set SharedAccessKey= from the portal"),
    ("slack_webhook", "post to https://hooks.slack.com/ with a webhook"),
]


def _kinds(text: str) -> list[str]:
    return [kind for kind, _start, _end in find_secrets(text)]


@pytest.mark.parametrize(("kind", "text", "secret"), POSITIVE)
def test_positive(kind: str, text: str, secret: str) -> None:
    assert kind in _kinds(text)
    out = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize(("kind", "text"), NEGATIVE)
def test_negative(kind: str, text: str) -> None:
    assert kind not in _kinds(text)


def test_every_kind_has_positive_and_negative_cases() -> None:
    kinds = {pattern.kind for pattern in SECRET_PATTERNS}
    assert kinds == {kind for kind, _t, _s in POSITIVE}
    assert kinds == {kind for kind, _t in NEGATIVE}


def test_prose_about_secrets_is_untouched() -> None:
    prose = (
        "We rotate the API key monthly. The token expires after an hour, and the password "
        "policy needs 12 characters. Never put a secret in a commit; use the vault token helper."
    )
    assert find_secrets(prose) == []
    assert redact(prose) == prose


def test_only_the_value_of_an_assignment_is_replaced() -> None:
    assert redact("password=hunter2 user=bob") == "password=[REDACTED:password] user=bob"
    assert (
        redact("https://alice:hunter2@example.com/x")
        == "https://alice:[REDACTED:url_credentials]@example.com/x"
    )
    assert redact('-H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4"') == (
        '-H "Authorization: Bearer [REDACTED:bearer_token]"'
    )


def test_specific_kind_wins_over_generic() -> None:
    assert _kinds(f"OPENAI_API_KEY={OPENAI}") == ["openai_key"]
    assert _kinds(f"Authorization: Bearer {ANTHROPIC}") == ["anthropic_key"]
    assert _kinds(f'"token": "{GITHUB}"') == ["github_token"]


def test_spans_are_sorted_and_disjoint() -> None:
    text = f"{OPENAI} and password=hunter2 and {AWS_ID}\n{PEM}\n token: 8c1f0e9a7b6d"
    spans = find_secrets(text)
    assert [k for k, _s, _e in spans] == ["openai_key", "password", "aws_access_key", "private_key", "token"]
    for (_k1, _s1, end), (_k2, start, _e2) in zip(spans, spans[1:], strict=False):
        assert end <= start


@pytest.mark.parametrize(("kind", "text", "secret"), POSITIVE)
def test_redaction_is_idempotent(kind: str, text: str, secret: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


def test_redact_value_walks_nested_structures() -> None:
    value = {
        "command": f"curl -H 'Authorization: Bearer {GITHUB}' https://api.github.com",
        "env": ["A=1", "DB_PASSWORD=supersecret"],
        "nested": {"timeout": 30, "flag": True, "token": None},
    }
    out = redact_value(value)
    assert GITHUB not in str(out) and "supersecret" not in str(out)
    assert out["nested"] == {"timeout": 30, "flag": True, "token": None}
    assert out["env"][0] == "A=1"
    assert value["env"][1] == "DB_PASSWORD=supersecret"  # input not mutated


def test_truncated_pem_is_still_redacted() -> None:
    truncated = PEM.rsplit("\n", 1)[0]  # no END line: a log cut mid-key
    out = redact(truncated + "\n")
    assert "b3BlbnNzaC1rZXkt" not in out
    assert "[REDACTED:private_key]" in out
