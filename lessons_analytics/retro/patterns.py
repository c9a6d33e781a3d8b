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
from collections.abc import Mapping
from dataclasses import dataclass, field

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
        # a plain report that what the agent did fails
        r"\b(doesn'?t|does not|isn'?t|is not|don'?t|do not)\s+(work|working|do what)\b",
        r"\b(not|stopped) working\b",
        r"\b(we|you) (lost|deleted|removed|dropped) (the|my|our|all)\b",
        r"\b(tests?|build|ci|checks?)\b.{0,20}\b(unhappy|failing|fail now|broken now|red now)\b",
        r"^\W*are you sure\b",
        r"\bI did(n'?t| not) (ask|want) (for|you to)\b",
        r"^\W*(error|fatal)(\[\w+\])?:",
        r"^\W*Traceback \(most recent call last\)",
        r"\b(не работает|перестал\w* работать|ты (удалил|потерял)\w*)\b",
        r"\b(тесты?|сборка|ci)\b.{0,20}\b(падают|падает|упал\w*|красн\w*)\b",
        r"^\W*ты уверен\w*\b",
        r"\bя не просил\w*\b",
    ],
    # "again" is common in plain requests ("run it again", "снова запусти"): it counts alone
    # ("again?!"), or next to a failure word or a negation.
    "again": [
        r"^\W*again\s*[?!]",
        r"\b(broke|broken|breaking|failing|fails|failed|forgot|ignored|missed|skipped|wrong|"
        r"same (mistake|error|thing|problem|issue))\W+(\w+\W+){0,3}?again\b",
        r"\b(not|never|\w+n't)\W+(\w+\W+){0,4}?again\b",
        r"\bagain\b.{0,30}\b(without|instead of)\b",
        r"^\W*(опять|снова)\s*[?!]",
        r"^\W*опять\s+(ты|вы)\b",
        r"\b(опять|снова)\s+(\w+\s+){0,2}?(не|без|сломал\w*|упал\w*|пада\w*|забыл\w*|ошиб\w*)",
        r"\b(сломал\w*|упал\w*|пада\w*|забыл\w*|ошиб\w*|не работает)\W+"
        r"(\w+\W+){0,2}?(опять|снова)\b",
    ],
    "undo": [
        r"\b(revert|undo|roll back) (that|this|it|the last|your)\b",
        r"^\W*(stop|don'?t|do not)\b(?!\s+(forget|worry|hesitate|mind|bother)\b)",
        r"\b(верни|откати)\w*",
        r"^\W*(не (надо|нужно|трогай|делай|запускай|меняй|коммить|трогать)|стоп)\b",
        r"^\W*(хватит|прекрати|перестань)\b",
        r"\bникогда не (делай|трогай|запускай|коммить|пушь)\b",
        r"\bnever (do|touch|run|commit|push|force)\b",
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
    # greetings
    r"^\W*(hi|hello|hey|good (morning|afternoon|evening)|welcome back)\b",
    r"^\W*((снова|опять) )?(привет\w*|здравствуй\w*|добр(ое|ый) (утро|день|вечер))\b",
    # a third party (a test, a reviewer, a tool, the docs) is wrong, not the agent
    r"\b(test|tests|spec|reviewer|review|linter|ruff|mypy|pylint|eslint|ci|compiler|tool|"
    r"docs?|documentation|upstream|library|readme|comment)('s| is| are| was| were)\s+"
    r"(\w+\s+){0,2}?(wrong|incorrect|outdated|lying|mistaken)\b",
    r"\b(wrong|incorrect|outdated) in the (\w+ ){0,2}?(docs?|documentation|spec|test|readme)\b",
    r"\b(тест\w*|спек\w*|ревьюер\w*|рецензент\w*|линтер\w*|ruff|mypy|ci|компилятор\w*|"
    r"документаци\w*|библиотек\w*|инструмент\w*)\s+(\w+\s+){0,2}?"
    r"(неправ\w*|неверн\w*|ошиба\w*|врёт|врет|устарел\w*)",
    r"\b(неправильно|неверно|ошибка)\s+в\s+(\w+\s+)?(документаци|тест|спек|библиотек|readme)",
]
# Self-corrections: a turn holding one of these is the user correcting their own earlier
# words, not the agent; the whole turn never counts.
SELF_CORRECTIONS = [
    r"\bmy (bad|mistake|fault)\b",
    r"\bI (was wrong|misspoke|mixed (it|them|that) up|gave you the wrong|typed the wrong|"
    r"got (it|that) wrong|wrote the wrong|said the wrong)\b",
    r"\bsorry,? I (meant|said|wrote|gave)\b",
    r"\bя (ошибся|ошиблась|перепутал\w*|оговорил\w*|опечатал\w*)\b",
    r"\bмоя ошибка\b",
    r"\bя (неправильно|не то) (сказал|написал|указал|дал)\w*",
]
# Lines that introduce a paste (a review, a log): the lines after them, up to a blank line,
# are someone else's words.
PASTE_HEADERS = [
    r"\b(review|reviewer|log|output|traceback|comment|feedback|report|message)s?\b[^\n]*:\s*$",
    r"\b(отзыв|ревью|ревьюер\w*|лог|вывод|замечани|комментари|сообщени)\w*\b[^\n]*:\s*$",
]
# Reported speech: someone else's words, quoted inline.
REPORTED = [
    r"\b(wrote|writes|said|says|commented|replied)\b[^.!?]{0,20}:\s*[\"“«]",
    r"\b(написал\w*|пишет|сказал\w*|ответил\w*)\b[^.!?]{0,20}:\s*[\"“«]",
]
# Families an answer to the agent's own question reads like ("no, the other one", "не надо,
# оставь"): after an agent turn ending in a question they do not count.
ANSWER_FAMILIES = ["not-like-that", "undo"]
# A refusal or interrupt followed by one of these (the whole turn) gives no reason.
NO_REASON = [
    r"^\W*(ok|okay|continue|go on|go ahead|carry on|proceed|wait|hold on|later|never ?mind|"
    r"nvm)\W*$",
    r"^\W*((ok|okay|wait|hmm),? )?let me (think|check|look)\b",
    r"^\W*(ладно|продолжай\w*|дальше|подожди\w*|погоди\w*|секунду|потом)\W*$",
    r"^\W*((подожди|погоди)\w*,? )?я сам\b",
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
    r"^\W*((verdict|decision|result)\W*)?(APPROVE[DS]?|ACCEPT(ED)?|LGTM|PASS(ED)?)\b",
    r"^\W*((вердикт|решение|итог)\W*)?(принято|одобрено|утверждено)\b",
    r"\bno (changes|rework) (requested|needed|required)\b",
    r"\b(доработка|правки|изменения) не (нужн\w*|требу\w*)",
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
    self_corrections: list[re.Pattern[str]] = field(default_factory=list)
    paste_headers: list[re.Pattern[str]] = field(default_factory=list)
    reported: list[re.Pattern[str]] = field(default_factory=list)
    no_reason: list[re.Pattern[str]] = field(default_factory=list)
    answer_families: list[str] = field(default_factory=lambda: list(ANSWER_FAMILIES))
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
    "self_correction_patterns": SELF_CORRECTIONS,
    "paste_header_patterns": PASTE_HEADERS,
    "reported_patterns": REPORTED,
    "no_reason_patterns": NO_REASON,
    "not_human_patterns": NOT_HUMAN,
    "interrupt_patterns": INTERRUPT,
    "reject_patterns": REJECT,
    "accept_patterns": ACCEPT,
    "reviewer_patterns": REVIEWERS,
    "fix_patterns": FIXES,
    "revert_patterns": REVERTS,
}
_NUMBERS = {"fix_window_hours": float, "repeat_min": int, "quote_chars": int}
_KNOWN = {*_LISTS, *_NUMBERS, "corrections", "answer_families"}


def load_patterns(table: Mapping[str, object] | None = None) -> Patterns:
    """The patterns of the ``[retro]`` table (None or {}: the defaults)."""
    table = dict(table or {})
    unknown = set(table) - _KNOWN
    if unknown:
        raise ConfigError(
            f"[retro]: unknown key(s) {', '.join(sorted(unknown))}"
            f" (valid: {', '.join(sorted(_KNOWN))})"
        )
    families = {name: list(items) for name, items in CORRECTIONS.items()}
    corrections = table.get("corrections") or {}
    if not isinstance(corrections, dict):
        raise ConfigError("[retro]: corrections must be a table of lists of regular expressions")
    for name, items in corrections.items():
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
            "self_correction": "self_corrections",
            "paste_header": "paste_headers",
        }.get(attr, attr)
        setattr(out, attr, _compile(_strings(table.get(key, default), key), key))
    if "answer_families" in table:
        out.answer_families = _strings(table["answer_families"], "answer_families")
    for key, kind in _NUMBERS.items():
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"[retro]: {key} must be a number, not {value!r}")
            setattr(out, key, kind(value))
    return out


def _strings(value: object, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = [v for v in value if isinstance(v, str)] if isinstance(value, list) else None
    if items is None or isinstance(value, list) and len(items) != len(value):
        raise ConfigError(f"[retro]: {key} must be a list of regular expressions")
    return items


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
