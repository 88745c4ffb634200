"""Choices told in Chinese or Japanese prose (issue 26: decisions on sessions nobody has read).

The English rules read cue words ("instead of", "so I'll", "to avoid"); an agent that works in
Chinese or Japanese states the same choices with its language's own cues, and the English sentence
splitter never cuts a CJK paragraph. Owns three shapes, each the counterpart of an English rule:

- **a contrast**: "采用初始版本，而不是做 MINOR 升级", "我们不是 Y，而是 X", "Y ではなく X を使います" - X
  chosen, Y set aside (a reason told before "所以" / "因此" is its reason);
- **a reason told first, then the choice**: "目录不存在，所以改用环境变量" - the choice must open with
  a choice verb (采用, 使用, 改用, 保留, 只 …), never a look-up (检查, 确认, 查看 …); in Japanese
  "…ので、古い関数は残します" - the choice a choice verb in the polite form (使います, 残します,
  採用します …) or "…ことにします";
- **the choice, then what it avoids**: "再补一个提交，避免把两批改动混在一起" - "X，避免 / 以免 / 防止 Y".

``cjk_choice`` reads one message's prose; ``rules_design.reasoned_accounts`` tells what it finds
where no other decision is near, like any reasoned account.
"""

from __future__ import annotations

import re

# A message holds a CJK choice only if one of these is in it (a substring test, before any regex).
CJK_CUES = ("而不是", "而非", "而是", "避免", "以免", "防止", "所以", "因此", "ではなく", "代わりに", "ので", "ため")
_SENTENCE_END_RE = re.compile(r"[。！？；!?;\n]+")
_CONTRAST_RE = re.compile(r"^(?P<chosen>.{2,160}?)[，,、]?\s*(?:而不是|而非)\s*(?P<other>.{2,120}?)[，,]?$")
# (Only with the agent as the subject: "这里的缓存并不是可选的，而是…" describes, it chooses nothing.)
_NOT_BUT_RE = re.compile(r"^(?:我们|我|咱们)(?:这次|这里)?(?:并)?不是(?P<other>[^，,]{2,80})[，,]\s*而是(?P<chosen>.{2,160}?)[，,]?$")
_JA_CONTRAST_RE = re.compile(r"^(?P<other>.{2,80}?)(?:ではなく|の代わりに)[、,]?\s*(?P<chosen>.{2,160}?)$")
_SO_RE = re.compile(r"^(?P<why>.{4,160}?)[，,]\s*(?:所以|因此|因而|于是)[，,]?\s*(?P<chosen>.{2,160})$")
_PURPOSE_RE = re.compile(r"^(?P<chosen>.{4,160}?)[，,]\s*(?:以)?(?P<cue>避免|以免|防止)(?P<why>.{2,120})$")
# Japanese: a reason, then the choice in the polite form ("既存の呼び出し元があるので、古い関数は残します").
_JA_REASON_RE = re.compile(r"^(?P<why>.{4,160}?)(?:ので|ため(?:に)?)[、,]\s*(?P<chosen>.{2,160}?(?:を|は|に|で)"
                           r"(?:使い|使用し|採用し|残し|保持し|追加し|分け|切り替え|変更し|統一し|限定し)(?:ます|ました)|"
                           r".{2,160}?ことにします)$")
# The agent as the subject and a modal ("我会", "我们将", "就"), never part of what is chosen.
_SUBJECT_RE = re.compile(r"^(?:我们|我|咱们)?(?:会|将|就|准备|打算|决定)?\s*")
_CHOICE_VERB_RE = re.compile(r"^(?:采用|使用|改用|改为|换成|选择|选用|决定|保留|只(?!有|是)|统一|沿用|继续使用|用|不(?:会|再)?(?:把|提交|加|改|用))")
# A look-up is how the agent works, not a choice: check, confirm, look, search, read, run, test, wait.
_LOOKUP_RE = re.compile(r"^(?:先|再|现在|马上)?(?:检查|查看|确认|看|搜索|读|查|验证|运行|测试|等|调查|排查|了解|回读)")


# The code or the project as the subject ("这个函数使用 …", "该服务 …", "它 …", "このモジュールは …"): a description.
_DESCRIBED_RE = re.compile(r"^(?:这个|这些|那个|该|此|这里的|它们?|この|その)")


def _clean(text: str) -> str:
    return " ".join(_SUBJECT_RE.sub("", text.strip(" ，,、：:")).split())


def _chosen_ok(chosen: str) -> bool:
    return len(chosen) >= 4 and not _LOOKUP_RE.match(chosen)


def cjk_sentences(text: str) -> list[str]:
    """The sentences of a CJK paragraph (cut at 。！？； and line ends)."""
    return [part.strip() for part in _SENTENCE_END_RE.split(text) if part.strip()]


def _contrast(sentence: str) -> tuple[str, str] | None:
    match = _CONTRAST_RE.match(sentence) or _NOT_BUT_RE.search(sentence) or _JA_CONTRAST_RE.match(sentence)
    if match is None:
        return None
    chosen, other = match.group("chosen"), match.group("other").strip(" ，,")
    why = ""
    told = _SO_RE.match(chosen)
    if told is not None:  # "这是首个版本，所以采用 X，而不是 Y": the reason before 所以
        why, chosen = told.group("why"), told.group("chosen")
    if _DESCRIBED_RE.match(chosen.strip()):
        return None  # "这个函数使用 Redis 而不是内存缓存": what the code does, nobody choosing
    chosen = _clean(chosen)
    if not _chosen_ok(chosen) or len(other) < 2:
        return None
    return chosen, why or f"rather than {other}"


def _reason_first(sentence: str) -> tuple[str, str] | None:
    match = _SO_RE.match(sentence)
    if match is None:
        return None
    chosen = _clean(match.group("chosen"))
    if not _CHOICE_VERB_RE.match(chosen) or not _chosen_ok(chosen):
        return None
    return chosen, match.group("why").strip(" ，,")


def _ja_reason_first(sentence: str) -> tuple[str, str] | None:
    match = _JA_REASON_RE.match(sentence)
    if match is None or _LOOKUP_RE.match(match.group("chosen")):
        return None
    return match.group("chosen").strip(" 、,"), match.group("why").strip(" 、,")


def _avoids(sentence: str) -> tuple[str, str] | None:
    match = _PURPOSE_RE.match(sentence)
    if match is None:
        return None
    chosen = _clean(match.group("chosen"))
    if not _chosen_ok(chosen):
        return None
    return chosen, f"{match.group('cue')}{match.group('why').strip()}"


def cjk_choice(text: str) -> tuple[str, str] | None:
    """(chosen, why) of the first choice a CJK message states (see the module docstring), else None."""
    if not any(cue in text for cue in CJK_CUES):
        return None  # cheap test first
    for sentence in cjk_sentences(text):
        found = _contrast(sentence) or _reason_first(sentence) or _avoids(sentence) or _ja_reason_first(sentence)
        if found is not None:
            return found
    return None


__all__ = ["CJK_CUES", "cjk_choice", "cjk_sentences"]
