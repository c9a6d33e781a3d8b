"""What a tool result shows: its size, truncation markers, line numbers, lesson ids.

Shared by the Claude Code and Codex parsers. The result text is the evidence of what the model
saw, so the parsers keep this summary (not the text, except for index reads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from lessons_analytics.lessonbase.shapes import LESSON_ID_IN_TEXT
from lessons_analytics.schema import Batch, EventRow, ToolResultRow
from lessons_analytics.transcripts import JsonObject

# ``... [2057 characters truncated] ...`` and ``... [102 lines truncated] ...`` (Claude Code
# <= 2.0), Codex's ``…N tokens truncated…`` and ``[... omitted N of M lines ...]``
_MARKER = re.compile(
    r"\.\.\. \[(\d+) (characters|lines) truncated\] \.\.\."
    r"|…(\d+) (tokens|chars|characters|lines) truncated…"
    r"|\[\.\.\. omitted (\d+) of \d+ (lines)[^\]]*\]"
)
# Line numbers at the start of a line, as (the first line, every later line): the Read tool
# (``     1→text`` or ``     1\ttext``), ``cat -n`` and ``nl -ba`` output; ``grep -n`` output
# (``12:text`` a match, ``12-text`` context). A later line's pattern starts with its newline,
# which the regex engine scans for far faster than for a multi-line ``^`` (3-6x on a long read).
_NUMBERED = (re.compile(r" *(\d+)(?:\t|→)"), re.compile(r"\n *(\d+)(?:\t|→)"))
_GREP_NUMBERED = (re.compile(r"(\d+)[:-]"), re.compile(r"\n(\d+)[:-]"))
_RESULT_TEXT_HEAD = 300
_SAVED_TO = "Full output saved to: "


@dataclass(slots=True)
class ResultSummary:
    chars: int
    lines: int
    text_head: str
    trunc_chars: int | None = None
    trunc_lines: int | None = None
    is_persisted: bool = False
    numbered_first: int | None = None
    numbered_last: int | None = None
    numbered_count: int | None = None
    head_part_lines: int | None = None
    tail_part_lines: int | None = None

    @property
    def is_truncated(self) -> bool:
        return self.is_persisted or self.trunc_chars is not None or self.trunc_lines is not None

    def columns(self) -> ToolResultRow:
        """The ``raw_tool_results`` columns this summary fills."""
        return {
            "result_chars": self.chars,
            "result_lines": self.lines,
            "text_head": self.text_head,
            "trunc_chars": self.trunc_chars,
            "trunc_lines": self.trunc_lines,
            "is_persisted": self.is_persisted,
            "is_truncated": self.is_truncated,
            "numbered_first": self.numbered_first,
            "numbered_last": self.numbered_last,
            "numbered_count": self.numbered_count,
            "head_part_lines": self.head_part_lines,
            "tail_part_lines": self.tail_part_lines,
        }


def summarize(text: str, read_style: str | None = None) -> ResultSummary:
    """Summarise a result; ``read_style`` ('numbered', 'grep', 'plain') when the call is a read."""
    summary = ResultSummary(
        chars=len(text), lines=_count_lines(text), text_head=text[:_RESULT_TEXT_HEAD]
    )
    if text.startswith("<persisted-output>"):
        summary.is_persisted = True
        # the head keeps the whole "saved to: <path>" line, however long the path: the body
        # cost (fct_body_reads) leaves the path out, so that it does not depend on where
        # the transcripts live
        end = text.find("\n", text.find(_SAVED_TO))
        if end >= _RESULT_TEXT_HEAD:
            summary.text_head = text[: end + 1]
    marker = _MARKER.search(text) if "truncated" in text or "omitted" in text else None
    if marker is not None:
        count = int(marker.group(1) or marker.group(3) or marker.group(5))
        unit = marker.group(2) or marker.group(4) or marker.group(6)
        if unit == "lines":
            summary.trunc_lines = count
        else:
            summary.trunc_chars = count
    if read_style is None:
        return summary
    if read_style in ("numbered", "grep"):
        first, later = _NUMBERED if read_style == "numbered" else _GREP_NUMBERED
        head = first.match(text)
        numbers = later.findall(text)
        if head is not None:
            numbers.insert(0, head.group(1))
        if numbers:
            summary.numbered_first = int(numbers[0])
            summary.numbered_last = int(numbers[-1])
            summary.numbered_count = len(numbers)
    if marker is not None:
        summary.head_part_lines = _count_lines(text[: marker.start()].rstrip("\n"))
        summary.tail_part_lines = _count_lines(text[marker.end() :].strip("\n"))
    return summary


def _count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


# ``LESSON_ID_IN_TEXT`` (``\bL-[0-9]+\b``) without its first ``\b``, so that the regex engine
# scans for the literal ``L-`` (20-30x faster on a long result); that boundary is tested by
# hand: no word character (``\w``: alphanumeric or ``_``) just before the ``L``
_LESSON_ID_FROM_L = re.compile(LESSON_ID_IN_TEXT.pattern.removeprefix(r"\b"))


def lesson_ids(text: str) -> list[str]:
    """Distinct lesson ids in a text, in order of first appearance."""
    if "L-" not in text:
        return []
    found = []
    for match in _LESSON_ID_FROM_L.finditer(text):
        at = match.start()
        if at and (text[at - 1].isalnum() or text[at - 1] == "_"):
            continue  # "XL-1": no boundary before the L
        found.append(match.group())
    return list(dict.fromkeys(found))


def block_text(content: object) -> str:
    """Text of a message or tool_result ``content``: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


_INPUT_STRING_KEEP = 200


def input_json(value: JsonObject) -> str:
    """The JSON of a call's input, compacted only when it is big (most are small)."""
    text = orjson.dumps(value)
    if len(text) > 4 * _INPUT_STRING_KEEP:
        text = orjson.dumps(compact_input(value))
    return text.decode("utf-8", "replace")


def compact_input(value: Any, depth: int = 0) -> Any:
    """A tool call's input kept small but valid JSON: long strings cut, long lists shortened.
    An Edit's old/new strings or a Write's content are not analysed, only glanced at."""
    if isinstance(value, str):
        return value if len(value) <= _INPUT_STRING_KEEP else value[:_INPUT_STRING_KEEP] + "…"
    if isinstance(value, dict):
        if depth >= 3:
            return "{…}"
        return {str(k): compact_input(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth >= 3:
            return "[…]"
        items = [compact_input(v, depth + 1) for v in value[:10]]
        return items + ["…"] if len(value) > 10 else items
    return value


def add_mentions(
    batch: Batch, env: EventRow, text: str, source: str, tool_use_id: str | None
) -> None:
    """A ``raw_mentions`` row per lesson id in ``text``, placed at the line of ``env``."""
    for lesson_id in lesson_ids(text):
        batch.mentions.add(
            {
                "file_id": env["file_id"],
                "line_no": env["line_no"],
                "session_id": env["session_id"],
                "agent_id": env["agent_id"],
                "ts": env["ts"],
                "source": source,
                "tool_use_id": tool_use_id,
                "lesson_id": lesson_id,
            }
        )
