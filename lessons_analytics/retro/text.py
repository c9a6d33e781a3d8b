"""Text helpers of the retro pass: quotes, sentences, command and error signatures."""

from __future__ import annotations

import re
import shlex

from lessons_analytics.redact import redact

ELLIPSIS = "…"
_LEADING_TAGS = re.compile(r"\A(?:\s*<([A-Za-z][\w-]*)[^>]*>.*?</\1>)+", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_SPACES = re.compile(r"\s+")
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_EXIT_LINE = re.compile(r"^(Exit code \d+|Process exited with code \d+|Wall time:.*)$", re.I)
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


def one_line(text: str | None, limit: int = 120) -> str:
    flat = _SPACES.sub(" ", text or "").strip()
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


def error_line(result: str | None) -> str:
    """The first line of a failed call's output that says what went wrong (else the first
    line), without the runtime's ``Exit code N`` line."""
    lines = [line.strip() for line in (result or "").splitlines()]
    lines = [line for line in lines if line and not _EXIT_LINE.match(line)]
    for line in lines:
        if _ERROR_LINE.search(line):
            return line
    return lines[0] if lines else ""


def error_norm(line: str) -> str:
    return _NUMBER.sub("#", _HEX.sub("<sha>", _SPACES.sub(" ", line))).strip()[:160]


def error_class(line: str) -> str:
    """A short name for a kind of failure: an exception name, a well-known errno phrase, or
    the first words of the error line."""
    match = _ERROR_CLASS.search(line)
    if match:
        return match.group(1)
    match = _ERRNO.search(line)
    if match:
        return match.group(1).lower()
    words = error_norm(line.strip(" =-_*#>")).split()
    return " ".join(words[:6]) or "error"
