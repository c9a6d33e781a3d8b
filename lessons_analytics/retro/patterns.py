"""What counts as a retro signal: the default patterns, and the ``[retro]`` table that
overrides them.

Every pattern is a Python regular expression, matched case-insensitively (``\\b`` is
Unicode-aware, so the Russian patterns get word boundaries too). A table in
``lessons-analytics.toml`` replaces the defaults key by key::

    [retro]
    fix_window_hours = 24
    reject_patterns = ['\\bREJECT(ED)?\\b', 'вернуть на доработку']

    [retro.corrections]          # family -> patterns; a family given here replaces the default
    told-you = ['\\bI told you\\b', '\\bя же говорил']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lessons_analytics.errors import ConfigError

# A correction family: what the user's wording says about the agent's last turn.
CORRECTIONS: dict[str, list[str]] = {
    "not-like-that": [
        r"^\W*no\s*[,.!:;—–-]+\s*(?!(problem|worries|rush|hurry|need|thanks|thank)\b)\S",
        r"\bnot like (that|this)\b",
        r"\bnot what I (asked|wanted|meant|said)\b",
        r"^\W*not (that|this) (one|file|way|function|command)\b",
        r"^\W*нет\s*[,.!:;—–-]+\s*(?!(проблем|спасибо|не надо|не нужно благодар)\w*)\S",
        r"\bне так\s*([,.!:;—–-]|$)",
        r"\bне то,? что я (просил|хотел|имел в виду)",
    ],
    "told-you": [
        r"\bI (already )?(told|asked) you\b",
        r"\bas I (said|asked|told you|mentioned)\b",
        r"\bI said\b.{0,40}\b(not|don'?t|never|only)\b",
        r"\bя же (говорил|просил|сказал|писал)\w*",
        r"\bя (уже )?(говорил|просил|сказал)\w*,? (же|ведь)\b",
        r"\bкак я (говорил|просил|сказал)\w*",
    ],
    "wrong": [
        r"\b(that|this|it)('?s| is) (wrong|incorrect|not right|not correct|broken)\b",
        r"\bwhy did you\b",
        r"\byou (forgot|missed|broke|ignored|skipped)\b",
        r"\bstill (broken|failing|wrong|not working|doesn'?t work)\b",
        r"\b(это )?неправильно\b",
        r"\bневерно\b",
        r"\bзачем ты\b",
        r"\bты (забыл|сломал|пропустил|проигнорировал)\w*",
        r"\bвсё ещё (не работает|падает|сломан)\w*",
    ],
    # "again" is common in plain requests ("run it again"): it counts at the start of a
    # sentence, with "!", or next to a failure word.
    "again": [
        r"^\W*again\b",
        r"\bagain\s*!",
        r"\b(broke|broken|breaking|failing|fails|failed|forgot|ignored|missed|skipped|wrong|"
        r"same (mistake|error|thing|problem|issue))\W+(\w+\W+){0,3}?again\b",
        r"\b(not|never|\w+n't)\W+(\w+\W+){0,4}?again\b",
        r"^\W*(опять|снова)\b",
        r"\b(опять|снова)\s+(\w+\s+){0,2}?(не|без|сломал\w*|упал\w*|пада\w*|забыл\w*|ошиб\w*)",
        r"\b(сломал\w*|упал\w*|пада\w*|забыл\w*|ошиб\w*|не работает)\W+"
        r"(\w+\W+){0,2}?(опять|снова)\b",
    ],
    "undo": [
        r"\b(revert|undo|roll back) (that|this|it|the last|your)\b",
        r"^\W*(stop|don'?t|do not)\b(?!\s+(forget|worry|hesitate|mind|bother)\b)",
        r"\b(верни|откати)\w*",
        r"^\W*(не (надо|нужно|трогай|делай|запускай|меняй|коммить|трогать)|стоп)\b",
    ],
}

# Look-alikes: a sentence matching one of these never counts ("no problem", "again, thanks!").
LOOKALIKES = [
    r"\bno (problem|worries|rush|hurry|need to)\b",
    r"\b(thanks?|thank you)\b",
    r"\b(great|perfect|nice|awesome|excellent|exactly|looks good|lgtm)\b",
    r"\b(that'?s|it'?s) (fine|ok|okay|good|alright)\b",
    r"\b(всё|все) (хорошо|отлично|норм\w*)\b",
    r"\bнет проблем\b",
    r"\b(спасибо|благодарю|отлично|супер|молодец|выручил\w*|здорово)\b",
]
# Text that is not a human turn (harness output, compaction summaries, slash commands).
NOT_HUMAN = [
    r"^\s*<",
    r"^\s*\[Request interrupted by user",
    r"^\s*Caveat: ",
    r"^\s*This session is being continued from a previous conversation",
    r"^\s*# AGENTS\.md instructions",
]
INTERRUPT = [r"^\s*\[Request interrupted by user"]
REJECT = [
    r"^\W*(REJECT(ED)?|CHANGES REQUESTED|NOT APPROVED|FAIL(ED)?)\b",
    r"\bneeds? (rework|more work|changes)\b",
    r"\bвернуть на доработку\b",
    r"\bна доработку\b",
    r"^\W*(отклонено|не принято)\b",
]
ACCEPT = [
    r"^\W*(APPROVE[DS]?|ACCEPT(ED)?|LGTM|PASS(ED)?)\b",
    r"^\W*(принято|одобрено|утверждено)\b",
]
REVIEWERS = [
    r"\b(review\w*|gate\w*|judge|audit\w*|verif\w*|critic|qa)\b",
    r"\b(ревью\w*|проверк\w*|проверяющ\w*|рецензент\w*)\b",
]
FIXES = [
    r"^\s*(fix|fixup|hotfix|bugfix)\b",
    r"\b(fix(es|ed)?|repair\w*|correct(s|ed)?)\b",
    r"\b(исправ\w*|почин\w*|фикс\w*)\b",
]
REVERTS = [r"^\s*Revert\b", r"\bThis reverts commit [0-9a-f]{7,40}\b"]


@dataclass
class Patterns:
    corrections: dict[str, list[re.Pattern[str]]] = field(default_factory=dict)
    lookalikes: list[re.Pattern[str]] = field(default_factory=list)
    not_human: list[re.Pattern[str]] = field(default_factory=list)
    interrupt: list[re.Pattern[str]] = field(default_factory=list)
    reject: list[re.Pattern[str]] = field(default_factory=list)
    accept: list[re.Pattern[str]] = field(default_factory=list)
    reviewers: list[re.Pattern[str]] = field(default_factory=list)
    fixes: list[re.Pattern[str]] = field(default_factory=list)
    reverts: list[re.Pattern[str]] = field(default_factory=list)
    fix_window_hours: float = 24.0
    repeat_min: int = 2
    quote_chars: int = 300


_LISTS = {
    "lookalike_patterns": LOOKALIKES,
    "not_human_patterns": NOT_HUMAN,
    "interrupt_patterns": INTERRUPT,
    "reject_patterns": REJECT,
    "accept_patterns": ACCEPT,
    "reviewer_patterns": REVIEWERS,
    "fix_patterns": FIXES,
    "revert_patterns": REVERTS,
}
_NUMBERS = {"fix_window_hours": float, "repeat_min": int, "quote_chars": int}
_KNOWN = {*_LISTS, *_NUMBERS, "corrections"}


def load_patterns(table: dict[str, Any] | None = None) -> Patterns:
    """The patterns of the ``[retro]`` table (None or {}: the defaults)."""
    table = dict(table or {})
    unknown = set(table) - _KNOWN
    if unknown:
        raise ConfigError(f"[retro]: unknown key(s) {', '.join(sorted(unknown))}")
    families = {name: list(items) for name, items in CORRECTIONS.items()}
    for name, items in (table.get("corrections") or {}).items():
        families[name] = _strings(items, f"corrections.{name}")
    out = Patterns(corrections={k: _compile(v, k) for k, v in families.items() if v})
    for key, default in _LISTS.items():
        attr = key.removesuffix("_patterns")
        attr = {
            "lookalike": "lookalikes",
            "reviewer": "reviewers",
            "fix": "fixes",
            "revert": "reverts",
            "not_human": "not_human",
        }.get(attr, attr)
        setattr(out, attr, _compile(_strings(table.get(key, default), key), key))
    for key, kind in _NUMBERS.items():
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"[retro]: {key} must be a number, not {value!r}")
            setattr(out, key, kind(value))
    return out


def _strings(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[retro]: {key} must be a list of regular expressions")
    return list(value)


def _compile(items: list[str], key: str) -> list[re.Pattern[str]]:
    out = []
    for item in items:
        try:
            out.append(re.compile(item, re.IGNORECASE | re.MULTILINE))
        except re.error as exc:
            raise ConfigError(f"[retro]: {key}: bad regular expression {item!r}: {exc}") from exc
    return out


def any_match(patterns: list[re.Pattern[str]], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return match
    return None
