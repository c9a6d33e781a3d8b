"""Escape data for the Markdown outputs (``report.md``, retro's ``digest.md``).

Data (lesson ids, classes, rules, prompts, commands, paths) never changes the structure of
a Markdown file: no raw HTML, no link, image, emphasis, heading or table cell comes out of
it. Every output builds its text from these helpers:

    md_text("<b>x</b> [a](javascript:b)")  # "\\<b\\>x\\</b\\> \\[a\\](javascript:b)"
    md_code("a `b` c")  # "``a `b` c``"
    md_inline("see `L-1` *direction only*")  # the layout's own two marks kept, the rest escaped
    f"*{lit(lesson_id)}* rule: {lit(rule)}"  # data in the layout's mini-language (see lit)

Backslash escapes are CommonMark's (any ASCII punctuation may be escaped); a renderer shows
the character itself, so the text reads the same.
"""

from __future__ import annotations

import re

__all__ = [
    "inline_plain",
    "inline_spans",
    "lit",
    "lit_code",
    "md_code",
    "md_inline",
    "md_link",
    "md_text",
]

# Characters that open HTML, links, images, emphasis, code, tables, entities, strikethrough,
# autolinks; ``#``, ``>``, ``-``, ``+``, ``=`` and digits matter only at a line start, and
# md_text never lets data start a line (newlines become spaces).
_SPECIAL = re.compile(r"([\\`*_\[\]<>&|!~#])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
# http(s) URLs and paths without a scheme (no ``:`` at all, not ``//host``)
_SAFE_TARGET = re.compile(r"^(?:https?://[^\s<>\"'`\\]+|(?!//)[^\s:<>\"'`\\]+)$")


def md_text(text: object) -> str:
    """``text`` as Markdown text that shows exactly the characters of ``text`` on one line."""
    flat = _LINE_BREAKS.sub(" ", str(text))
    return _SPECIAL.sub(r"\\\1", flat)


def md_code(text: object, *, cell: bool = False) -> str:
    """``text`` as one code span: a fence longer than any backtick run inside (CommonMark
    shows a code span's content literally, HTML included). In a table ``cell``, ``|`` is
    escaped (GFM splits cells on it even inside a code span)."""
    flat = _LINE_BREAKS.sub(" ", str(text))
    if cell:
        flat = flat.replace("|", "\\|")
    if not flat:
        return "` `"
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_link(label: object, target: str) -> str:
    """A link to ``target`` when it is a path (no scheme) or an http(s) URL; otherwise the
    label and the target as code (never a ``javascript:`` or ``data:`` link)."""
    safe = target.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    if _SAFE_TARGET.match(safe):
        return f"[{md_text(label)}]({safe})"
    return f"{md_text(label)} ({md_code(target)})"


# The report layout's mini-language (report/layout.py and its sections build their texts in
# it; report/render.py turns it into Markdown and HTML):
#   `code`      a code span, fenced as CommonMark does (a run of N backticks, closed by the
#               next run of exactly N; one space each side stripped when both are there);
#   *emphasis*  up to the next unescaped ``*``;
#   \\ \` \*    the character itself (a backslash before anything else is a backslash).
# Data enters a text only through ``lit`` (literal text) or ``lit_code`` (a code span), so a
# backtick or an asterisk in data can never open, close or shift one of the two marks.
_LIT = re.compile(r"\\(?=[\\`*]|$)|[`*]")
_TICKS = re.compile(r"`+")
_PLAIN = re.compile(r"[^\\`*]+")


def lit(text: object) -> str:
    """Data as literal text of the layout's mini-language, on one line: no ``*`` or `` ` ``
    in it opens a mark."""
    flat = _LINE_BREAKS.sub(" ", str(text))
    return _LIT.sub(lambda m: "\\" + m.group(0), flat)


def lit_code(text: object) -> str:
    """Data as one code span of the layout's mini-language, whatever backticks it holds."""
    flat = _LINE_BREAKS.sub(" ", str(text))
    if not flat:
        return "` `"
    longest = max((len(run) for run in _TICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def inline_spans(text: str) -> list[tuple[str, str]]:
    """``text`` of the mini-language as (kind, content) spans, kind ``text``, ``code`` or
    ``em``; contents are the characters to show (escapes resolved)."""
    spans: list[tuple[str, str]] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            spans.append(("text", "".join(buf)))
            buf.clear()

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in "\\`*":
            buf.append(text[i + 1])
            i += 2
        elif c == "`":
            run = len(_TICKS.match(text, i).group(0))  # type: ignore[union-attr]
            close = re.compile(f"(?<!`)`{{{run}}}(?!`)").search(text, i + run)
            if close is None:
                buf.append("`" * run)
                i += run
                continue
            flush()
            content = text[i + run : close.start()]
            if len(content) > 1 and content[0] == content[-1] == " " and content.strip():
                content = content[1:-1]
            spans.append(("code", content))
            i = close.end()
        elif c == "*" and (end := _em_end(text, i + 1)) is not None:
            flush()
            spans.append(("em", _unescape(text[i + 1 : end])))
            i = end + 1
        elif c in "\\`*":
            buf.append(c)
            i += 1
        else:  # the run of plain characters up to the next mark, at once
            plain = _PLAIN.match(text, i).group(0)  # type: ignore[union-attr]
            buf.append(plain)
            i += len(plain)
    flush()
    return spans


def _em_end(text: str, start: int) -> int | None:
    """The index of the ``*`` closing an emphasis opened before ``start``, if any."""
    i = start
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "\\`*":
            i += 2
        elif text[i] == "*":
            return i if i > start else None
        else:
            i += 1
    return None


def _unescape(text: str) -> str:
    return re.sub(r"\\([\\`*])", r"\1", text)


def inline_plain(text: str) -> str:
    """The characters a reader sees of ``text`` (marks dropped), e.g. for a link label."""
    return "".join(content for _, content in inline_spans(text))


def md_inline(text: str, *, cell: bool = False) -> str:
    """Text in the report layout's mini-language (`code`, *emphasis*) as Markdown: the two
    marks are kept, everything else is escaped with ``md_text`` (``cell``: in a table)."""
    out: list[str] = []
    for kind, content in inline_spans(text):
        if kind == "code":
            out.append(md_code(content, cell=cell))
        elif kind == "em":
            out.append(f"*{md_text(content)}*")
        else:
            out.append(md_text(content))
    return "".join(out)
