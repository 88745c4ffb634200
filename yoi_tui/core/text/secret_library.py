"""Secret patterns from a maintained source: the regex plugins of ``detect-secrets`` (Yelp).

``detect-secrets`` keeps vendor patterns current (Slack webhooks, SendGrid, Twilio, Azure storage,
GitLab, npm, PyPI, Discord, Telegram, Mailchimp, Square, ...). Its own scanner is far too slow for
yoi (about 250 s for a 50 MB session log with every plugin, and its entropy and keyword plugins
flag thousands of harmless strings in code-heavy logs; see docs/reliability.md), so only the
*regexes* of its regex-based plugins are used, wrapped as ``SecretPattern``s with literal
prefilter needles, so they run through the same cheap prefilter as yoi's hand patterns and the
linter stays fast. A plugin this table does not know yet still runs (no needle: always scanned),
so an upgrade of the library only ever adds detection.

Kinds are the plugin's secret type in snake case (``slack_token``, ``sendgrid_api_key``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .secrets import LazyRegex, SecretPattern

# Plugins left out: a public IP address is not a secret; the private-key plugin matches the header
# line alone (prose *about* key files), while the hand pattern matches a header with its key body.
_SKIPPED = {"IPPublicDetector", "PrivateKeyDetector"}

# Lower-case literals at least one of which every match of the plugin's regexes contains
# (``core.text.prefilter``), and literals every match contains.
_NEEDLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ArtifactoryDetector": (("akc", "ap"), ()),
    "AWSKeyDetector": (("a3t", "abia", "acca", "akia", "asia", "aws"), ()),
    "AzureStorageKeyDetector": (("accountkey=",), ()),
    "BasicAuthDetector": (("://",), ("@",)),
    "CloudantDetector": (("cl",), ()),
    "DiscordBotTokenDetector": ((), (".",)),
    "GitHubTokenDetector": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), ()),
    "GitLabTokenDetector": (("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-",
                             "glptt-", "glagent-", "gloas-"), ()),
    "IbmCloudIamDetector": (("key", "pwd", "pw", "pass", "token"), ()),
    "IbmCosHmacDetector": (("secret",), ()),
    "JwtTokenDetector": (("eyj",), ()),
    "MailchimpDetector": (("-us",), ()),
    "NpmDetector": (("_authtoken",), ()),
    "OpenAIDetector": (("t3blbkfj",), ()),
    "PrivateKeyDetector": (("private key", "putty-user-key"), ()),
    "PypiTokenDetector": (("pypi-",), ()),
    "SendGridDetector": (("sg.",), ()),
    "SlackDetector": (("xox", "hooks.slack.com"), ()),
    "SoftlayerDetector": (("sl", "softlayer"), ()),
    "SquareOAuthDetector": (("sq0csp-",), ()),
    "StripeDetector": (("k_live_",), ()),
    "TelegramBotTokenDetector": ((), (":",)),
    # Twilio's "AC…"/"SK…" regexes start with their literal (found by search, case-sensitive); the
    # letter pairs are in nearly every text: no needle, always scanned.
    "TwilioKeyDetector": ((), ()),
}
# Per regex (plugin, position in its denylist) where one regex of a plugin needs other literals
# than the rest: the keyword regexes need the keyword *and* the vendor word.
_KEYWORDS = ("key", "pw", "pass", "token")
_REGEX_NEEDLES: dict[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("ArtifactoryDetector", 0): (("akc",), ()),
    ("AWSKeyDetector", 1): (_KEYWORDS, ("aws",)),
    ("AWSKeyDetector", 0): (("a3t", "abia", "acca", "akia", "asia"), ()),
    ("CloudantDetector", 0): (_KEYWORDS, ("cl",)),
    ("CloudantDetector", 1): (_KEYWORDS, ("cl",)),
    ("CloudantDetector", 2): (("cloudant.com",), ()),
    ("CloudantDetector", 3): (("cloudant.com",), ()),
    ("IbmCosHmacDetector", 0): (("secret",), ("key",)),
    ("SoftlayerDetector", 0): (_KEYWORDS, ("sl",)),
    ("SoftlayerDetector", 1): (("api.softlayer.com",), ()),
}
# Regexes left out: Artifactory's "AP" + 9 letters matches ordinary upper-case words; the keyword
# regexes (IBM Cloud IAM, IBM COS HMAC, Cloudant, SoftLayer: "<vendor>_<key|password|token> =
# <value>") are the hand table's assignment patterns with a vendor prefix — those already match
# them, with their false-positive rules — and cost most of the library's scan time (their
# look-behinds are tried at every position).
_SKIPPED_REGEXES = {("ArtifactoryDetector", 1), ("IbmCloudIamDetector", 0), ("IbmCosHmacDetector", 0),
                    ("CloudantDetector", 0), ("CloudantDetector", 1), ("SoftlayerDetector", 0)}
_EDGE = " \t\r\n=:\"'"


def _kind(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


def _span(match: re.Match[str]) -> tuple[int, int] | None:
    """The secret inside a plugin match: its capture groups if any (the value, not the key), then
    without the delimiters some plugins match around the value."""
    # A group is the value (a password between ':' and '@') unless it is the match's prefix or a
    # short optional part (GitLab's "glpat", "glcbt-ab_"): then the whole match is the secret.
    spans = [match.span(i) for i in range(1, (match.re.groups or 0) + 1)
             if match.group(i) and match.start(i) > match.start() and len(match.group(i)) >= 4]
    start, end = (min(s for s, _ in spans), max(e for _, e in spans)) if spans else match.span()
    text = match.string
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return (start, end) if end > start else None


_CACHE_VERSION = 2


def _library_signature() -> str | None:
    """Names the installed detect-secrets (its files' sizes and times) and this module, without
    importing the library; None when it is not installed."""
    from importlib.util import find_spec

    try:
        spec = find_spec("detect_secrets")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    digest = hashlib.sha256(f"{_CACHE_VERSION}".encode())
    digest.update(Path(__file__).read_bytes())
    for folder in spec.submodule_search_locations:
        for sub in ("", "plugins", "core", os.path.join("core", "plugins")):
            try:
                with os.scandir(os.path.join(folder, sub)) as entries:
                    for entry in sorted(entries, key=lambda e: e.name):
                        if entry.name.endswith(".py"):
                            st = entry.stat()
                            digest.update(f"{sub}/{entry.name} {st.st_size} {st.st_mtime_ns}".encode())
            except OSError:
                continue
    return digest.hexdigest()


def _cache_file(signature: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "yoi" / f"secret-patterns-{signature[:32]}.json"


def _from_rows(rows: list[list[Any]]) -> tuple[SecretPattern, ...]:
    from .secrets import LazyRegex, SecretPattern

    return tuple(SecretPattern(kind, LazyRegex(source, flags), _span, tuple(needles), tuple(requires),
                               precheck=_precheck(source, flags))
                 for kind, source, flags, needles, requires in rows)


# Regexes with no literal word to filter on, tried on every text; each match holds a short stretch
# that starts with a literal, which ``re`` finds at C speed: a text without it is not scanned.
# Keyed by the plugin regex's own source, so a changed regex simply runs unfiltered.
_PRECHECKS = {
    r"\d{8,10}:[0-9A-Za-z_-]{35}": r":[0-9A-Za-z_-]{35}",  # Telegram bot token
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": r"\.[a-zA-Z\d_-]{6}\.",  # Discord
}


def _precheck(source: str, flags: int) -> LazyRegex | None:
    from .secrets import LazyRegex

    check = _PRECHECKS.get(source)
    return LazyRegex(check, flags) if check is not None else None


_TABLE_VERSION = 1  # the cached pattern table's format (store/json_cache.py)


@lru_cache(maxsize=1)
def library_patterns() -> tuple[SecretPattern, ...]:
    """The regex plugins of detect-secrets as ``SecretPattern``s (empty when it is not installed).

    Importing the library and its plugins costs ~0.3 s (it pulls in ``requests``), more than a
    lint after one edit spends on everything else; the pattern table is kept in the user's cache
    folder, keyed by the installed library's files, so the library is imported only when it
    changes. A missing, unreadable or unwritable cache only costs that import.
    """
    signature = _library_signature()
    if signature is None:
        return ()
    target = _cache_file(signature)
    from ..store.json_cache import read_cache, write_cache

    stored = read_cache(target, _TABLE_VERSION)
    try:
        if stored is not None:
            rows = stored["rows"]
            # The regexes are compiled on first use, so a damaged file must be caught here, by the
            # digest of what was written, not by a compile error in the middle of a lint.
            if stored["check"] == _rows_digest(rows):
                return _from_rows(rows)
    except (ValueError, TypeError, KeyError, re.error):
        pass
    patterns = _imported_patterns()
    rows = [[p.kind, p.regex.pattern, p.regex.flags, list(p.needles), list(p.requires)] for p in patterns]
    write_cache(target, {"version": _TABLE_VERSION, "rows": rows, "check": _rows_digest(rows)})
    return patterns


def _rows_digest(rows: Any) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def _imported_patterns() -> tuple[SecretPattern, ...]:
    """The table built by importing detect-secrets' plugins."""
    from .secrets import SecretPattern

    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import RegexBasedDetector
    except ImportError:
        return ()
    patterns: list[SecretPattern] = []
    pick: Callable[[re.Match[str]], tuple[int, int] | None] = _span
    detectors: dict[str, type] = get_mapping_from_secret_type_to_class()
    for secret_type, plugin in sorted(detectors.items()):
        if not issubclass(plugin, RegexBasedDetector) or plugin.__name__ in _SKIPPED:
            continue
        needles, requires = _NEEDLES.get(plugin.__name__, ((), ()))
        try:
            regexes = list(plugin().denylist)
        except Exception:  # noqa: BLE001 - a third-party plugin that cannot start is skipped, not fatal
            continue
        for position, regex in enumerate(regexes):
            key = (plugin.__name__, position)
            if key in _SKIPPED_REGEXES:
                continue
            own_needles, own_requires = _REGEX_NEEDLES.get(key, (needles, requires))
            patterns.append(SecretPattern(_kind(secret_type), regex, pick, own_needles, own_requires,
                                          precheck=_precheck(regex.pattern, regex.flags)))
    return tuple(patterns)


__all__ = ["library_patterns"]
