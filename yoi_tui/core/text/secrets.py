"""Secret detection and redaction: the one detector yoi uses for secrets.

Phase 1 cleaning (``redact``) and the record linter's ``secret`` rule (``find_secrets``) share
``all_patterns()`` so that what the linter flags in a record is exactly what cleaning would have
removed from a session log. The patterns are the regexes of the maintained ``detect-secrets``
plugins (``secret_library``) plus this module's hand table ``SECRET_PATTERNS``, kept for what the
library misses (generic ``password=``/``token:`` assignments and CLI flags, Anthropic keys, URL
credentials without a user, Shopify, Docker ``"auth"``, Azure ``SharedAccessKey``) and for the
whole extent of a private key block.

Each pattern names a *kind*; a match is replaced by ``[REDACTED:<kind>]``. For assignments,
headers and URLs only the value is replaced (``password=[REDACTED:password]``), so the text stays
readable and the reader still learns that a password was set.

False positives matter as much as misses: session logs are full of code (``token: string``,
``api_key=settings.api_key``, ``max_tokens=4096``) and prose ("the token expired"). Generic
assignment patterns therefore require a value that looks like a literal secret, and vendor
patterns require their fixed prefixes and lengths. Redaction is idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..text.prefilter import NeedlePlan, fold, unfolds_exactly

Span = tuple[str, int, int]


class LazyRegex:
    """A regex compiled on its first use. Compiling costs ~0.3 ms a pattern; of the ~60 secret
    patterns a text's literal words admit only a few, so a lint of one file or a short Phase 1 run
    compiles a handful instead of all (~40 ms of start-up)."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
            self.flags = self._compiled.flags  # as re reports them (re.UNICODE added for str patterns)
        return self._compiled

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled().search(text)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().match(text, pos)


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret.

    ``span`` picks the part of a match to redact (default: the whole match) and may reject the
    match by returning None, for checks a regex cannot express well. ``needles``: lower-case
    literals of which any match holds at least one (see ``core.text.prefilter``); a text holding none
    of them (or missing one of ``requires``) is not scanned with the regex at all.
    """

    kind: str
    regex: re.Pattern[str] | LazyRegex
    span: Callable[[re.Match[str]], tuple[int, int] | None] | None = None
    needles: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    run: frozenset[str] = frozenset()
    precheck: re.Pattern[str] | LazyRegex | None = None  # a regex every match holds a match of (cheaper to search)

    def finditer(self, text: str) -> list[Span]:
        found: list[Span] = []
        if self.precheck is not None and self.precheck.search(text) is None:
            return found
        for match in self._matches(text):
            where = self.span(match) if self.span else match.span()
            if where is not None and where[1] > where[0]:
                found.append((self.kind, where[0], where[1]))
        return found

    def _matches(self, text: str) -> Iterator[re.Match[str]]:
        """``regex.finditer(text)``, trying only the starts that can reach a needle.

        With ``run`` set, every match holds one of ``needles`` and everything between the match's
        start and that needle is made of ``run`` characters (``my_api_key=``, ``--db-password``).
        So a match can only start in the stretch of ``run`` characters right before a needle:
        trying ``regex.match`` at those positions, left to right, finds exactly what
        ``finditer`` finds, without trying a lazy, look-behind-led pattern at every position of
        the text (a third of a cold lint's secret check). The needles are found in ``text.lower()``,
        which keeps positions unless the text holds one of the four characters an IGNORECASE
        pattern matches to an ASCII letter (``unfolds_exactly``); such a text is scanned whole.
        """
        if not self.run or not self.needles or not unfolds_exactly(text):
            yield from self.regex.finditer(text)
            return
        low = text.lower()
        starts: list[int] = []
        for needle in self.needles:
            at = low.find(needle)
            while at >= 0:
                starts.append(at)
                at = low.find(needle, at + 1)
        starts.sort()
        regex = self.regex.compiled() if isinstance(self.regex, LazyRegex) else self.regex
        run, match_at = self.run, regex.match
        resume = 0  # no match starts before this: the end of the last match, or positions tried
        for at in starts:
            if at < resume:
                continue
            first = at
            while first > resume and text[first - 1] in run:
                first -= 1
            for start in range(first, at + 1):
                match = match_at(text, start)
                if match is not None:
                    yield match
                    resume = match.end()
                    break
            else:
                resume = at + 1


def _group(name: str) -> Callable[[re.Match[str]], tuple[int, int] | None]:
    def pick(match: re.Match[str]) -> tuple[int, int] | None:
        return match.span(name) if match.group(name) is not None else None

    return pick


def _has_digit_and_letter(match: re.Match[str]) -> tuple[int, int] | None:
    value = match.group(0)
    ok = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return match.span() if ok else None


def _bare_bearer(match: re.Match[str]) -> tuple[int, int] | None:
    value = match.group("secret")
    return match.span("secret") if any(c.isdigit() for c in value) else None


# -- generic "key = value" assignments ------------------------------------------------------------

_PLACEHOLDERS = frozenset(
    {
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "bytes",
        "int",
        "number",
        "boolean",
        "bool",
        "optional",
        "required",
        "redacted",
        "changeme",
        "example",
        "your_password",
        "your_token",
        "your_api_key",
        "password",
        "token",
        "secret",
        "api_key",
        "apikey",
        "xxx",
        "...",
        "empty",
        "env",
        "omitted",
        "hidden",
        "masked",
        "placeholder",
    }
)
_IDENTIFIER_CHAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _is_placeholder(value: str) -> bool:
    lowered = value.lower()
    return (
        lowered in _PLACEHOLDERS
        or lowered.startswith(
            ("[redacted", "redacted", "<", "${", "$", "%(", "{{", "process.env", "os.environ")
        )
        or len(set(value)) == 1  # "********", "xxxxxxxx"
    )


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _shell_context(text: str, start: int) -> bool:
    """True when the key starts a shell/env line or a URL query (``export KEY=``, ``?token=``)."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    return prefix.strip() in ("", "export", "set", "ENV") or prefix.endswith(("?", "&", ";"))


def _assignment_span(kind: str) -> Callable[[re.Match[str]], tuple[int, int] | None]:
    """Accept an assignment only when its value looks like a literal secret."""

    def pick(match: re.Match[str]) -> tuple[int, int] | None:
        for group in ("dq", "sq"):
            value = match.group(group)
            if value is not None:
                if len(value) < 4 or _is_placeholder(value):
                    return None
                # A quoted token/secret with spaces is a description, not a value.
                if kind != "password" and any(c.isspace() for c in value):
                    return None
                return match.span(group)
        value = match.group("bare")
        if value is None or len(value) < 4 or _is_placeholder(value):
            return None
        # settings.api_key is a variable; SENDGRID_API_KEY=SG.abc.def (env style, no spaces) is a value.
        env_style = match.group("key").isupper() and match.group("sep") == "="
        if _IDENTIFIER_CHAIN.fullmatch(value) and not env_style:
            return None
        has_digit = any(c.isdigit() for c in value)
        identifier = _IDENTIFIER.fullmatch(value) is not None
        word = match.group("word").lower().replace("-", "_")
        # Code passes variables around: token=token, token=auth_token, apiKey: apiKey.
        if identifier and word in value.lower() and (not has_digit or "_" in value):
            return None
        if value.isdigit() and kind != "password":
            return None  # "token: 16038" is a count, not a credential
        span = match.span("bare")
        if match.group("key").isupper():
            return span  # DB_PASSWORD=..., API_TOKEN: ... are configuration, not code
        if match.group("sep") == "=":  # key=value with no spaces
            if not identifier or has_digit or _shell_context(match.string, match.start("key")):
                return span
            return None  # f(password=pw_input): a keyword argument holding a variable
        # "key: value" / "key = value": code and prose live here, so demand a non-word value.
        if len(value) >= 6 and (has_digit or not identifier):
            return span
        return None

    return pick


_FLAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_KEY_CHARS = _FLAG_CHARS | frozenset("_.")


def _assignment(kind: str, words: str, needles: tuple[str, ...]) -> SecretPattern:
    regex = LazyRegex(
        r"(?P<key>(?<![A-Za-z0-9])[A-Za-z0-9_.-]*?(?P<word>" + words + r"))(?![A-Za-z0-9])"
        r"[\"']?(?P<sep>[ \t]*(?::=|=>|=|:)[ \t]*)"
        r"(?:\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'"
        r"|(?P<bare>[^\s\"',;&(){}\[\]<>`|]+))",
        re.IGNORECASE,
    )
    return SecretPattern(kind, regex, _assignment_span(kind), needles, run=_KEY_CHARS)


def _cli_flag(kind: str, words: str, needles: tuple[str, ...]) -> SecretPattern:
    # --password hunter2 / --api-key=abc123: a value after a space is common on command lines.
    regex = LazyRegex(
        r"(?<![A-Za-z0-9-])--(?:[a-z0-9]+-)*(?:" + words + r")(?:=|[ \t]+)(?P<secret>[^\s\"'-][^\s\"']{3,})",
        re.IGNORECASE,
    )

    def pick(match: re.Match[str]) -> tuple[int, int] | None:
        value = match.group("secret")
        return None if _is_placeholder(value) else match.span("secret")

    return SecretPattern(kind, regex, pick, needles, run=_FLAG_CHARS)


def _url_credentials(match: re.Match[str]) -> tuple[int, int] | None:
    return None if _is_placeholder(match.group("secret")) else match.span("secret")


# Order is priority: when two patterns cover the same text, the earlier (more specific) kind wins.
SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private_key",
        LazyRegex(
            r"-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
            r"(?:[\s\S]*?-{4,5} ?END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
            r"|(?:(?:\s|\\n)*[A-Za-z0-9+/=:,-]{16,})+)"
        ),
        needles=("private key",),
    ),
    SecretPattern("anthropic_key", LazyRegex(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"), needles=("sk-ant-",)),
    SecretPattern(
        "openai_key",
        LazyRegex(r"(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        _has_digit_and_letter,
        needles=("sk-",),
    ),
    SecretPattern("aws_access_key", LazyRegex(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), needles=("akia", "asia")),
    SecretPattern(
        "aws_secret",
        LazyRegex(
            r"aws_?secret_?(?:access_?)?key[\"']?[ \t]*(?::=|=>|=|:)[ \t]*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
            re.IGNORECASE,
        ),
        _group("secret"),
        needles=("secret",),
    ),
    SecretPattern("github_token", LazyRegex(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b"),
                  needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    SecretPattern("github_token", LazyRegex(r"\bgithub_pat_[A-Za-z0-9_]{22,}"), needles=("github_pat_",)),
    SecretPattern("slack_token", LazyRegex(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), needles=("xox",)),
    SecretPattern("google_api_key", LazyRegex(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), needles=("aiza",)),
    # "_test_" is common in code (test names); the match starts at the "sk"/"rk" right before it,
    # so only those starts are tried (a \b-led pattern is otherwise tried at every position).
    SecretPattern("stripe_key", LazyRegex(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}\b"),
                  needles=("_live_", "_test_"), run=frozenset("skr")),
    SecretPattern("jwt", LazyRegex(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
                  needles=("eyj",)),
    SecretPattern(
        "bearer_token",
        LazyRegex(
            r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
            re.IGNORECASE,
        ),
        _group("secret"),
        needles=("authorization",),
    ),
    SecretPattern(
        "bearer_token", LazyRegex(r"\bBearer[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)"), _bare_bearer,
        needles=("bearer",),
    ),
    SecretPattern(
        "url_credentials",
        LazyRegex(r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s:/@'\"<>]*:(?P<secret>[^\s@/'\"<>]+)@"),
        _url_credentials,
        needles=("://",),
        requires=("@",),
    ),
    SecretPattern("shopify_token", LazyRegex(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), needles=("shp",)),
    SecretPattern("docker_auth", LazyRegex(r"\"auth\"[ \t]*:[ \t]*\"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})\""),
                  _group("secret"), needles=('"auth"',)),
    SecretPattern("azure_key", LazyRegex(r"(?:SharedAccessKey|AccountKey)=(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
                                          re.IGNORECASE), _group("secret"), needles=("accesskey=", "accountkey=")),
    SecretPattern("slack_webhook", LazyRegex(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"),
                  needles=("hooks.slack.com",)),
    _assignment("password", r"password|passwd|passphrase", ("pass",)),
    _assignment("api_key", r"api[_-]?key", ("api",)),
    _assignment("secret", r"secret(?:[_-]?key)?|secret[_-]?access[_-]?key", ("secret",)),
    _assignment("token", r"token", ("token",)),
    _cli_flag("password", r"password|passwd|passphrase", ("pass",)),
    _cli_flag("api_key", r"api-?key", ("api",)),
    _cli_flag("secret", r"secret", ("secret",)),
    _cli_flag("token", r"token", ("token",)),
)


def all_patterns() -> tuple[SecretPattern, ...]:
    """The detector: the hand table first (its kinds win a tie), then the detect-secrets plugins."""
    global _ALL
    if _ALL is None:
        from .secret_library import library_patterns

        _ALL = SECRET_PATTERNS + library_patterns()
    return _ALL


_ALL: tuple[SecretPattern, ...] | None = None


_PLAN: NeedlePlan | None = None  # which patterns a text can match, from one pass over it
_PLANNED: tuple[SecretPattern, ...] | None = None


def secret_needles() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``(needles, requires)`` of each pattern of ``all_patterns()``, in order (a ``NeedlePlan``'s table)."""
    return [(p.needles, p.requires) for p in all_patterns()]


def find_secrets(text: str, ranks: list[int] | None = None) -> list[Span]:
    """Every secret in ``text`` as ``(kind, start, end)``, sorted, never overlapping. ``ranks``: the
    patterns the prefilter admits, when the caller asked it already (``secret_needles`` in a ``JointPlan``)."""
    global _PLAN, _PLANNED
    patterns = all_patterns()
    if ranks is None:
        if _PLAN is None or _PLANNED is not patterns:
            _PLAN, _PLANNED = NeedlePlan(secret_needles()), patterns
        ranks = _PLAN.candidates(fold(text))
    candidates: list[tuple[int, int, int, str]] = []
    for rank in ranks:
        for kind, start, end in patterns[rank].finditer(text):
            candidates.append((start, -(end - start), rank, kind))
    candidates.sort()
    chosen: list[Span] = []
    last_end = -1
    for start, negative_length, _rank, kind in candidates:
        if start < last_end:
            continue  # overlaps a longer or higher-priority match
        end = start - negative_length
        chosen.append((kind, start, end))
        last_end = end
    return chosen


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    spans = find_secrets(text)
    if not spans:
        return text
    parts: list[str] = []
    cursor = 0
    for kind, start, end in spans:
        parts.append(text[cursor:start])
        parts.append(f"[REDACTED:{kind}]")
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def redact_value(value: Any) -> Any:
    """Redact every string inside a JSON-like value (tool inputs); keys are left alone."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    return value


__all__ = ["SECRET_PATTERNS", "SecretPattern", "all_patterns", "find_secrets", "redact", "redact_value"]
