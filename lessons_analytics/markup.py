"""Escape data for the Markdown outputs (``report.md``, retro's ``digest.md``).

Data (lesson ids, classes, rules, prompts, commands, paths) never changes the structure of
a Markdown file: no raw HTML, no link, image, emphasis, heading or table cell comes out of
it. Every output builds its text from these helpers:

    md_text("<b>x</b> [a](javascript:b)")  # "\\<b\\>x\\</b\\> \\[a\\](javascript:b)"
    md_code("a `b` c")  # "``a `b` c``"
    md_inline("see `L-1` *direction only*")  # the layout's own two marks kept, the rest escaped

Backslash escapes are CommonMark's (any ASCII punctuation may be escaped); a renderer shows
the character itself, so the text reads the same.
"""

from __future__ import annotations

import re

__all__ = ["md_code", "md_inline", "md_link", "md_text"]

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


# The layout's mini-language: `code` and *emphasis*, nothing else.
_MARKS = re.compile(r"`([^`]+)`|\*([^*]+)\*")


def md_inline(text: str, *, cell: bool = False) -> str:
    """Text in the report layout's mini-language (`code`, *emphasis*) as Markdown: the two
    marks are kept, everything else is escaped with ``md_text`` (``cell``: in a table)."""
    out: list[str] = []
    pos = 0
    for match in _MARKS.finditer(text):
        out.append(md_text(text[pos : match.start()]))
        if match.group(1) is not None:
            out.append(md_code(match.group(1), cell=cell))
        else:
            out.append(f"*{md_text(match.group(2))}*")
        pos = match.end()
    out.append(md_text(text[pos:]))
    return "".join(out)
