"""What PowerShell's reading cmdlets do to file lines, for ``shell.reads``: parameter binding
(case-insensitive names, unambiguous prefixes, ``-Name:value``), Get-Content, Select-Object,
Select-String, findstr, Where-Object; the pass-through and location commands. The choices
are listed in ``shell.powershell``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lessons_analytics.shell.parser import Word
from lessons_analytics.shell.programs import ALL, HANDLERS, Prog, Sel

__all__ = ["LOCATION", "PASSTHROUGH", "ps_program"]

_Bound = tuple[dict[str, str], list[Word]]


def _bind(args: Sequence[Word], params: dict[str, str], switches: frozenset[str]) -> _Bound | None:
    """PowerShell parameter binding: ``params`` maps every accepted spelling (names and
    aliases) to its canonical name; a name may be cut to an unambiguous prefix. Returns
    (canonical name -> value, positional words), None on an unknown or ambiguous name."""
    named: dict[str, str] = {}
    positional: list[Word] = []
    i = 0
    while i < len(args):
        w = args[i]
        i += 1
        if not (w.text.startswith("-") and len(w.text) > 1 and not w.text[1].isdigit()):
            positional.append(w)
            continue
        name, colon, value = w.text[1:].partition(":")
        canon = _canonical(name.lower(), params)
        if canon is None:
            return None
        if canon in switches:
            named[canon] = "true"
        elif colon:
            named[canon] = value
        elif i < len(args):
            named[canon] = args[i].text
            i += 1
    return named, positional


def _canonical(name: str, params: dict[str, str]) -> str | None:
    if name in params:
        return params[name]
    hits = {canon for spelling, canon in params.items() if spelling.startswith(name)}
    return hits.pop() if len(hits) == 1 else None


_GET_CONTENT = {
    "path": "path", "literalpath": "literalpath", "pspath": "literalpath", "lp": "literalpath",
    "totalcount": "totalcount", "first": "totalcount", "head": "totalcount",
    "tail": "tail", "last": "tail", "raw": "raw", "encoding": "encoding",
    "readcount": "readcount", "delimiter": "delimiter", "wait": "wait", "stream": "stream",
    "filter": "filter", "include": "include", "exclude": "exclude", "force": "force",
    "asbytestream": "asbytestream", "credential": "credential",
}  # fmt: skip
_GET_CONTENT_SWITCHES = frozenset({"raw", "wait", "force", "asbytestream"})


def _count(text: str) -> int | None:
    return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text) else None


def _get_content(args: Sequence[Word]) -> Prog | None:
    bound = _bind(args, _GET_CONTENT, _GET_CONTENT_SWITCHES)
    if bound is None:
        return None
    named, positional = bound
    paths = _path_list(named, positional)
    if not paths or named.keys() & {"filter", "include", "exclude", "stream"}:
        return None
    if "asbytestream" in named or named.get("encoding", "").lower() == "byte":
        return Prog("other", Sel(None, None, None, True), paths)
    head, tail = named.get("totalcount"), named.get("tail")
    if head is not None and tail is not None:
        return None  # PowerShell refuses the pair
    if head is not None:
        n = _count(head)
        if n is None:
            return None
        return Prog("head", ALL if n < 0 else Sel(1, n), paths)
    if tail is not None:
        n = _count(tail)
        if n is None or n < 0:
            return None
        return Prog("tail", Sel(None, None, n), paths)
    return Prog("cat", ALL, paths)


def _path_list(named: dict[str, str], positional: list[Word]) -> tuple[Word, ...]:
    given = named.get("path") or named.get("literalpath")
    words = [Word(given)] if given is not None else positional
    literal = "literalpath" in named
    out = []
    for w in words:
        for part in w.text.split(","):
            if part.strip():
                out.append(Word(part.strip(), w.expands, w.glob and not literal))
    return tuple(out)


_SELECT = {
    "first": "first", "last": "last", "skip": "skip", "skiplast": "skiplast",
    "index": "index", "unique": "unique", "property": "property",
    "expandproperty": "expandproperty", "excludeproperty": "excludeproperty", "wait": "wait",
    "skipindex": "skipindex", "casesensitive": "casesensitive",
}  # fmt: skip
_SELECT_SWITCHES = frozenset({"unique", "wait", "casesensitive"})


def _select_object(args: Sequence[Word]) -> Prog | None:
    bound = _bind(args, _SELECT, _SELECT_SWITCHES)
    if bound is None:
        return None
    named, positional = bound
    if positional or named.keys() & {"property", "expandproperty", "excludeproperty"}:
        return None  # properties of objects, not lines
    skip = _count(named.get("skip", "0"))
    first = _count(named["first"]) if "first" in named else None
    last = _count(named["last"]) if "last" in named else None
    if skip is None or skip < 0 or (first is not None and first < 0):
        return None
    if named.keys() & {"index", "skipindex", "skiplast", "unique"}:
        return Prog("other", Sel(1, None, None, True))
    if last is not None:
        return None if last < 0 else Prog("tail", Sel(None, None, last))
    if first is not None:
        return Prog("head" if skip == 0 else "other", Sel(skip + 1, skip + first))
    return Prog("other", Sel(skip + 1, None)) if skip else Prog("other", ALL)


_SELECT_STRING = {
    "pattern": "pattern", "path": "path", "literalpath": "literalpath", "lp": "literalpath",
    "pspath": "literalpath", "simplematch": "simplematch", "casesensitive": "casesensitive",
    "notmatch": "notmatch", "context": "context", "quiet": "quiet", "list": "list",
    "allmatches": "allmatches", "encoding": "encoding", "include": "include",
    "exclude": "exclude", "raw": "raw", "noemphasis": "noemphasis", "culture": "culture",
    "inputobject": "inputobject",
}  # fmt: skip
_SELECT_STRING_SWITCHES = frozenset(
    {"simplematch", "casesensitive", "notmatch", "quiet", "list", "allmatches", "raw"}
    | {"noemphasis"}
)


def _select_string(args: Sequence[Word]) -> Prog | None:
    bound = _bind(args, _SELECT_STRING, _SELECT_STRING_SWITCHES)
    if bound is None:
        return None
    named, positional = bound
    if named.keys() & {"quiet", "list", "include", "exclude"}:
        return None
    pattern = named.get("pattern")
    if pattern is None:
        if not positional:
            return None
        pattern, positional = positional[0].text, positional[1:]
    files = _path_list(named, positional)
    flags = "".join(
        ch
        for ch, on in (
            ("i", "casesensitive" not in named),
            ("F", "simplematch" in named),
            ("v", "notmatch" in named),
        )
        if on
    )
    return Prog("grep", Sel(1, None, None, True), files, False, pattern, flags)


def _findstr(args: Sequence[Word]) -> Prog | None:
    opts = [w.text.lower() for w in args if w.text.startswith("/")]
    operands = [w for w in args if not w.text.startswith("/")]
    if not operands or any(o in ("/m", "/c") or o.startswith("/f:") for o in opts):
        return None
    flags = "".join(
        ch for ch, o in (("i", "/i"), ("v", "/v"), ("n", "/n"), ("F", "/l")) if o in opts
    )
    return Prog("grep", Sel(1, None, None, True), tuple(operands[1:]), "n" in flags,
                operands[0].text, flags)  # fmt: skip


def _where(args: Sequence[Word]) -> Prog:
    return Prog("other", Sel(1, None, None, True))  # some of the lines


_PsHandler = Callable[[Sequence[Word]], "Prog | None"]
_CMDLETS: dict[str, _PsHandler] = {
    "get-content": _get_content, "gc": _get_content, "cat": _get_content,
    "type": _get_content,
    "select-object": _select_object, "select": _select_object,
    "select-string": _select_string, "sls": _select_string,
    "findstr": _findstr, "findstr.exe": _findstr,
    "where-object": _where, "where": _where, "?": _where,
}  # fmt: skip
PASSTHROUGH = frozenset(
    {"out-string", "out-host", "write-output", "echo", "write", "foreach-object", "%"}
    | {"foreach", "sort-object", "sort", "tee-object", "tee", "format-table", "ft"}
    | {"format-list", "fl", "format-wide", "fw", "get-unique", "out-default", "more"}
)
LOCATION = frozenset(
    {"set-location", "sl", "cd", "chdir", "push-location", "pushd", "pop-location", "popd"}
)


def ps_program(name: str, args: Sequence[Word]) -> Prog | None:
    """What a command does to lines in PowerShell: a cmdlet, else a Unix program on PATH."""
    low = name.lower()
    handler = _CMDLETS.get(low)
    if handler is not None:
        return handler(args)
    unix = HANDLERS.get(low.removesuffix(".exe"))
    return unix(args) if unix else None
