"""Text helpers of the retro pass: quotes, sentences, command and error signatures."""

from __future__ import annotations

import json
import re
import shlex

from lessons_analytics.redact import redact

ELLIPSIS = "…"
_LEADING_TAGS = re.compile(r"\A(?:\s*<([A-Za-z][\w-]*)[^>]*>.*?</\1>)+", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_SPACES = re.compile(r"\s+")
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_EXIT_LINE = re.compile(
    r"^(Exit code:? \d+|Process exited with code \d+|Wall time:.*|Output:)$", re.I
)
_ERROR_LINE = re.compile(
    r"(error|failed|failure|fatal|exception|traceback|not found|no such|denied|cannot|"
    r"can't|refused|invalid|ошибк|не найден)",
    re.IGNORECASE,
)
_ERROR_CLASS = re.compile(r"\b([A-Z][A-Za-z]*(?:Error|Exception|Exit|Failure))\b")
_ERRNO = re.compile(
    r"(command not found|no such file or directory|permission denied|connection refused|"
    r"cannot find module|module not found|timed? ?out|merge conflict|not a git repository)",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"^\s*(?:cd\s+\S+\s*(?:&&|;)\s*|[A-Z_][A-Z0-9_]*=\S*\s+)+")
_TAIL = re.compile(r"\s*(?:2>&1|\|\s*(?:tail|head|grep|less|cat)\b.*)$")


def quote(text: str | None, start: int = 0, limit: int = 300) -> str:
    """At most ``limit`` characters of redacted ``text``, around offset ``start`` (an offset
    into the redacted text), cut with ``…`` marks. The text must already be redacted."""
    text = (text or "").strip()
    if len(text) <= limit:
        return text
    begin = max(0, min(start - 40, len(text) - limit + 1))
    if begin > 0:
        space = text.rfind(" ", max(0, begin - 20), begin + 1)
        begin = space + 1 if space >= 0 else begin
    room = limit - (1 if begin > 0 else 0)
    piece = text[begin : begin + room]
    if begin + room < len(text):
        piece = piece[: room - 1] + ELLIPSIS
    return (ELLIPSIS if begin > 0 else "") + piece


def redacted(text: str | None) -> str:
    return redact(text or "")


def strip_leading_tags(text: str) -> tuple[str, int]:
    """``text`` without the harness tag blocks it opens with (``<ide_opened_file>…``), and
    the offset where the rest starts."""
    match = _LEADING_TAGS.match(text)
    if not match:
        return text, 0
    rest = text[match.end() :]
    offset = match.end() + (len(rest) - len(rest.lstrip()))
    return text[offset:], offset


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs: split after ``.!?…`` followed by space, and at new lines."""
    out = []
    pos = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > pos:
            out.append((pos, text[pos : match.start()]))
        pos = match.end()
    if pos < len(text):
        out.append((pos, text[pos:]))
    return [(offset, s) for offset, s in out if s.strip()]


_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def one_line(text: str | None, limit: int = 120) -> str:
    """``text`` on one line for a reader: spaces collapsed, terminal escapes and control
    characters dropped, cut at ``limit`` with ``…``."""
    flat = _SPACES.sub(" ", _CONTROL.sub("", text or "")).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + ELLIPSIS


def command_norm(command: str) -> str:
    """A command as compared within a run: prefixes (``cd X &&``, ``VAR=1``) and output
    plumbing (``2>&1 | tail``) dropped, spaces collapsed, hashes and numbers masked."""
    text = _SPACES.sub(" ", command.strip())
    text = _PREFIX.sub("", text)
    text = _TAIL.sub("", text)
    return _NUMBER.sub("#", _HEX.sub("<sha>", text)).strip()


def command_signature(command: str, words: int = 3) -> str:
    """The head of a command as clustered across sessions: its first ``words`` words that
    are not options, paths reduced to their last part (``uv run pytest``)."""
    norm = command_norm(command.strip().splitlines()[0] if command.strip() else command)
    first = re.split(r"\s*(?:&&|\|\||;|\|)\s*", norm, maxsplit=1)[0]
    try:
        tokens = shlex.split(first)
    except ValueError:
        tokens = first.split()
    kept: list[str] = []
    for token in tokens:
        if token.startswith("-"):
            continue
        kept.append(token.rstrip("/").rsplit("/", 1)[-1] or token)
        if len(kept) == words:
            break
    return " ".join(kept) or norm[:40]


_BANNER = re.compile(r"^([=_*#~-]{3,}.*|.*[=_*#~-]{3,}|WARN(ING)?\b.*|warning:.*)$")
# pytest's own summary lines name the failure better than the first line that says "error"
_PYTEST = re.compile(r"^(E\s{2,}\S.*|FAILED \S.*|ERROR \S.* - .*)$")
_RAISED = re.compile(r"^[\w.]*(Error|Exception|Exit|Interrupt|Warning)\b:?")
_SUMMARY = re.compile(r"^=+ .*\b(failed|errors?|no tests ran)\b.* =+$", re.IGNORECASE)


def tool_output(result: str | None) -> str:
    """A tool result as the program printed it: Codex wraps shell output in a JSON object
    (``{"output": "...", "metadata": {...}}``)."""
    text = result or ""
    if text.lstrip().startswith('{"output"'):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            return str(value["output"])
    return text


def error_line(result: str | None) -> str:
    """The line of a failed call's output that says what went wrong: pytest's ``E``/
    ``FAILED`` line, else the first line with an error word, else the first line that is
    not a banner (``=== test session starts ===``, a ``WARN``), never the runtime's
    ``Exit code N`` line."""
    lines = [line.strip() for line in tool_output(result).splitlines()]
    lines = [line for line in lines if line and not _EXIT_LINE.match(line)]
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        # a Python traceback names its error on its last line
        raised = [line for line in lines if _RAISED.match(line)]
        if raised:
            return raised[-1]
    for pattern in (_PYTEST, _SUMMARY):
        for line in lines:
            if pattern.match(line):
                return line
    for line in lines:
        if _ERROR_LINE.search(line) and not _BANNER.match(line):
            return line
    plain = [line for line in lines if not _BANNER.match(line)]
    return (plain or lines or [""])[0]


def error_norm(line: str) -> str:
    return _NUMBER.sub("#", _HEX.sub("<sha>", _SPACES.sub(" ", line))).strip()[:160]


_PATHISH = re.compile(r"\(?[\w.~-]*(?:[/\\][\w.~:-]*)+\)?")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_TAG = re.compile(r"</?[A-Za-z_][\w-]*>")


def error_class(line: str) -> str:
    """A short name for a kind of failure: an exception name, a well-known errno phrase, or
    the first words of the error line with paths, quoted names and numbers masked (the same
    failure on another file or version is the same kind)."""
    match = _ERROR_CLASS.search(line)
    if match:
        return match.group(1)
    match = _ERRNO.search(line)
    if match:
        return match.group(1).lower()
    line = _TAG.sub(" ", line)
    line = _QUOTED.sub("<name>", _PATHISH.sub("<path>", line))
    words = error_norm(line.strip(" =-_*#>")).split()
    return " ".join(words[:6]).lower() or "error"


# ---------------------------------------------------------------- someone else's words

_FENCE = re.compile(r"^\s*(```|~~~).*?(^\s*(```|~~~)[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_BLOCKQUOTE = re.compile(r"^\s*>.*$", re.MULTILINE)
_INLINE_QUOTE = re.compile(r"«[^»\n]{3,}»|“[^”\n]{3,}”|\"[^\"\n]{3,}\"")


def _blank(match: re.Match[str]) -> str:
    return _blank_text(match.group(0))


def _blank_text(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


# Codex's IDE wrapper: the user's words follow this line; what comes before is context.
_REQUEST = re.compile(r"^## My request for Codex:[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^#{1,4} \S", re.MULTILINE)
# A turn with this many Markdown headings (or one, in a long turn) is a document (a slash
# command's prompt, a spec), not a reply to the agent.
DOCUMENT_HEADINGS = 3
DOCUMENT_CHARS = 2000


def after_wrapper(text: str) -> str:
    """The user's words of a turn that an IDE wrapped in context (Codex's ``# Context from
    my IDE setup: … ## My request for Codex:``); other turns unchanged."""
    request = list(_REQUEST.finditer(text))
    return text[request[-1].end() :].lstrip() if request else text


def own_words(text: str, paste_headers: list[re.Pattern[str]]) -> str:
    """``text`` with what the user quotes rather than says blanked out (same length, so
    offsets still point into the original): an IDE wrapper's context, a whole document
    (three Markdown headings or more), fenced code, ``>`` quote lines, inline quotes, and
    the lines after a line introducing a paste ("Here is the review:") up to a blank
    line."""
    request = list(_REQUEST.finditer(text))
    if request:
        cut = request[-1].end()
        text = _blank_text(text[:cut]) + text[cut:]
    headings = len(_HEADING.findall(text))
    if headings >= DOCUMENT_HEADINGS or (headings and len(text) > DOCUMENT_CHARS):
        return _blank_text(text)
    text = _FENCE.sub(_blank, text)
    text = _BLOCKQUOTE.sub(_blank, text)
    text = _INLINE_QUOTE.sub(_blank, text)
    out: list[str] = []
    pasting = False
    for line in text.split("\n"):
        if pasting and line.strip():
            out.append(" " * len(line))
            continue
        pasting = any(p.search(line) for p in paste_headers)
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------- commands

# Wrappers that run another program: the program they run is the one that failed.
_WRAPPERS = {
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pnpm", "exec"),
    ("npm", "exec"),
    ("bundle", "exec"),
    ("hatch", "run"),
    ("pdm", "run"),
}
_SINGLE_WRAPPERS = {"sudo", "env", "time", "npx", "bunx", "nohup", "command", "exec", "xargs"}


def program(command: str) -> str:
    """The program a command runs, without wrappers and paths: ``cd x && uv run pytest -q``
    is ``pytest``, ``python -m mypy`` is ``mypy``, ``/usr/bin/which python3`` is ``which``."""
    norm = command_norm(command.strip().splitlines()[0] if command.strip() else command)
    first = re.split(r"\s*(?:&&|\|\||;|\|)\s*", norm, maxsplit=1)[0]
    try:
        tokens = shlex.split(first)
    except ValueError:
        tokens = first.split()
    tokens = [t for t in tokens if "=" not in t or t.startswith("-")]
    while tokens:
        head = tokens[0].rsplit("/", 1)[-1]
        if len(tokens) > 1 and (head, tokens[1]) in _WRAPPERS:
            tokens = [t for t in tokens[2:] if not t.startswith("-")] or tokens[1:]
        elif head in _SINGLE_WRAPPERS and len(tokens) > 1:
            tokens = tokens[1:]
            while len(tokens) > 1 and tokens[0].startswith("-"):
                tokens = tokens[1:]
        elif re.fullmatch(r"python[\d.#]*", head) and len(tokens) > 2 and tokens[1] == "-m":
            tokens = tokens[2:]
        else:
            return head or norm[:40]
    return norm[:40]


# ---------------------------------------------------------------- what a signal is about

_TOKEN = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
# Words that say a correction happened, not what it was about.
_MARKERS = """
told asked said wrong again still broken broke forgot missed ignored skipped stop don
not never why did you your please just only also now then first before after thing
the and for with that this from into but are was were has have had its all any can does
done than them they there here what when which who how should would could been being
one two use used run ran make made agent user instead every time same other way
request interrupted tool doesn want proceed rejected reason rejection provided following
говорил просил сказал писал опять снова неправильно неверно зачем стоп надо нужно
это как что так нет для или уже еще ещё она они его меня мне тебя все всё там тут
потом сначала теперь тоже ведь же нас вас нам вам был была было были только
need needs think want wants using even actually maybe sure know keep try get got set let
see look looks like love really much more less some something thing things work works
way ways good bad new old yes okay can't won't isn't doesn't let's i'd i'm it's we're
html json yaml toml tsx jsx css txt file files path paths command commands stuff trying
error errors output line lines code script thanks seems seem seemed initial second third
isn doesn didn wasn aren weren hasn haven couldn shouldn wouldn without such
because about again there their these those where while since until into onto over under
been being having doing going gone come came take took give gave tell told find found
show shows call called start started stopped create created added adding should shall
might must will would could cannot every each other another same different first last
next still just also even only very really quite already always never sometimes
think thought know knew want wanted need needed like liked able other everything nothing
something anything someone people thing things time times part case cases
файл файлы файла файле
хочу надо можно нужно давай может просто очень сейчас
"""
_MARKER_WORDS = frozenset(_MARKERS.split())
# A few coding words in Russian, to their English stem, so that the same mechanism told in
# either language shares words ("перепиши весь файл" / "rewrite the whole file").
_GLOSSARY = {
    "тест": "test",
    "коммит": "commi",
    "закоммит": "commi",
    "ветк": "branc",
    "миграц": "migra",
    "перепис": "rewri",
    "весь": "whole",
    "цели": "whole",
    "удал": "delet",
    "сборк": "build",
    "собер": "build",
    "провер": "check",
    "зависимост": "depen",
    "конфиг": "confi",
    "пуст": "empty",
    "пуш": "push",
    "запуш": "push",
    "релиз": "relea",
    "импорт": "impor",
    "функци": "funct",
    "документац": "docum",
}


WORD = _TOKEN


def stem_of(word: str) -> str:
    """The topic stem of one lower-case word."""
    return _stem(word)


def _stem(word: str) -> str:
    for prefix, stem in _GLOSSARY.items():
        if word.startswith(prefix):
            return stem
    return word[:5]


_PATH_TOKEN = re.compile(r"(?:[\w.~-]*/)+([\w.-]*)")


def without_dirs(text: str) -> str:
    """Paths reduced to their last part: the directories say where, not what."""
    return _PATH_TOKEN.sub(lambda m: m.group(1), text)


_LOG_LINE = re.compile(
    r"^\s*(Traceback \(|File \"|at \S|\[?\d{1,2}:\d{2}|[\w.]*(Error|Exception)\b|error|warning|"
    r"note:|help:|-->|\||\$ |>>>|\(\.venv\))",
    re.IGNORECASE,
)


def without_logs(text: str) -> str:
    """``text`` without the lines that look like pasted program output (a traceback, a
    compiler message, a prompt): what the user wrote is what a mechanism is about."""
    return "\n".join(line for line in text.splitlines() if not _LOG_LINE.match(line))


def topic_words(text: str) -> set[str]:
    """The stems of what ``text`` is about: words of three letters or more that do not just
    mark a correction, cut to five letters, Russian coding words mapped to English."""
    out = set()
    for word in _TOKEN.findall(text.lower()):
        if len(word) >= 3 and word not in _MARKER_WORDS:
            out.add(_stem(word))
    return out
