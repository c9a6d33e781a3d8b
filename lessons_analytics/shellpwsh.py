"""PowerShell, as Codex runs it on Windows, for ``shellparse``: tokens, pipelines and what
the reading cmdlets (Get-Content, Select-Object, Select-String) do to file lines.

Choices:

* Statements are split at newlines, ``;``, ``&&`` and ``||``; stages at ``|``. Quotes are
  PowerShell's: ``'…'`` is literal (``''`` is a quote), ``"…"`` expands ``$x`` / ``$(…)``
  (such a word is decided at run time, as in bash) and escapes with a backtick. A
  backslash is an ordinary character: ``C:\\src\\a.md`` is a path.
* ``Get-Content`` (aliases ``gc``, ``cat``, ``type``) reads its ``-Path`` / ``-LiteralPath``
  (or positional) files; ``-TotalCount`` / ``-First`` / ``-Head`` N is a head read,
  ``-Tail`` / ``-Last`` N a tail read, ``-Raw`` the whole file. Parameter names are
  case-insensitive and may be shortened to any unambiguous prefix, or given as ``-Name:value``.
* ``Select-Object -First/-Last/-Skip/-SkipLast/-Index`` narrows the lines like head, tail
  and sed; ``(Get-Content F)[A..B]`` indexes them (0-based). ``Select-String`` and
  ``findstr`` are grep. Out-String, Write-Output, ForEach-Object, Sort-Object, Tee-Object,
  Format-* pass lines through; Out-Null, Set-Content, Out-File, Measure-Object and every
  other command consume them; ``> $null`` / ``> file`` hide them.
* Unix programs that PowerShell finds on the PATH (head, sed, rg, grep, nl …) are read as
  in bash. ``Set-Location`` / ``cd`` / ``Push-Location`` / ``Pop-Location`` move the cwd.
* ``powershell``/``pwsh`` ``-Command`` strings are parsed; ``-File`` and ``-EncodedCommand``
  are not visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lessons_analytics.shellprograms import ALL, HANDLERS, Prog, Sel
from lessons_analytics.shelltokens import Word

__all__ = [
    "PsStage",
    "is_wrapper",
    "looks_like_powershell",
    "parse_script",
    "ps_program",
    "wrapper_script",
]

_WRAPPERS = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
_CMDLET = re.compile(r"^[A-Za-z]+-[A-Za-z]+$")


def is_wrapper(name: str) -> bool:
    return name.replace("\\", "/").rsplit("/", 1)[-1].lower() in _WRAPPERS


def wrapper_script(args: Sequence[str]) -> str | None:
    """The script a ``powershell -Command …`` line runs, None for -File / -EncodedCommand."""
    i = 0
    while i < len(args):
        low = args[i].lower()
        if not low.startswith("-"):
            return " ".join(args[i:])  # no -Command: the rest is the command
        if len(low) >= 2 and "-command".startswith(low):
            return " ".join(args[i + 1 :])
        if low in ("-f", "-ec") or (
            len(low) >= 3 and ("-file".startswith(low) or "-encodedcommand".startswith(low))
        ):
            return None
        # options whose value is the next word
        i += 2 if low in _VALUED else 1
    return None


_VALUED = frozenset(
    {"-executionpolicy", "-ex", "-ep", "-windowstyle", "-w", "-configurationname", "-wd"}
    | {"-workingdirectory", "-inputformat", "-outputformat", "-version", "-psconsolefile"}
)


def looks_like_powershell(command: str, windows_cwd: bool) -> bool:
    """A command string written in PowerShell rather than in a POSIX shell: a cmdlet
    (Verb-Noun) at a command position, or under a Windows cwd one of PowerShell's own aliases
    for reading (``gc``, ``type``, ``sls``, ``select``; ``cat`` with a backslash path)."""
    names = [m.group(1).lower() for m in _COMMAND_POSITION.finditer(command)]
    if names and is_wrapper(names[0]):
        return False  # the POSIX reading of the line unwraps it just as well
    if any(_CMDLET.match(name) for name in names):
        return True
    if not windows_cwd:
        return False
    # ``cat`` is Get-Content too; with a backslash path it is not a POSIX shell's cat
    return any(name in _PS_ALIASES for name in names) or ("cat" in names and "\\" in command)


_COMMAND_POSITION = re.compile(r"(?:^|[|;(\n]|&&)\s*&?\s*['\"]?([A-Za-z][\w.-]*)")
_PS_ALIASES = frozenset({"gc", "type", "sls", "select", "sl", "%", "?", "findstr"})


# --- tokens and pipelines ----------------------------------------------------------------


@dataclass(slots=True)
class PsStage:
    """One command of a pipeline: its words, or a ``( … )`` group and its ``[i..j]`` index."""

    words: list[Word] = field(default_factory=list)
    group: list[list[PsStage]] | None = None
    index: Sel | None = None
    hidden: bool = False  # stdout redirected to a file or $null


_SEPARATORS = ("\n", ";", "&&", "||", "\r")
_REDIR = re.compile(r"(?:[1-6*])?>>?(?:&[12])?")
_MAX_NEST = 10


def parse_script(script: str, depth: int = 0) -> list[list[PsStage]]:
    """The statements of a script, each a pipeline of stages."""
    parser = _Parser(script, depth)
    return parser.statements(None)


class _Parser:
    def __init__(self, s: str, depth: int) -> None:
        self.s, self.i, self.depth = s, 0, depth

    def statements(self, closer: str | None) -> list[list[PsStage]]:
        out: list[list[PsStage]] = []
        stages: list[PsStage] = [PsStage()]
        while self.i < len(self.s):
            c = self.s[self.i]
            if closer and c == closer:
                self.i += 1
                break
            if c in " \t":
                self.i += 1
            elif c == "#":
                self._comment()
            elif any(self.s.startswith(sep, self.i) for sep in _SEPARATORS):
                self.i += 2 if self.s[self.i] in "&|" else 1
                out.append(stages)
                stages = [PsStage()]
            elif c == "|":
                self.i += 1
                stages.append(PsStage())
            elif c == "(" and not stages[-1].words and stages[-1].group is None:
                self.i += 1
                if self.depth >= _MAX_NEST:
                    return out
                inner = _Parser(self.s, self.depth + 1)
                inner.i = self.i
                stages[-1].group = inner.statements(")")
                self.i = inner.i
                stages[-1].index = self._index()
            elif m := _REDIR.match(self.s, self.i):
                self.i = m.end()
                while self.s.startswith((" ", "\t"), self.i):
                    self.i += 1
                target = None if m.group().endswith(("&1", "&2")) else self._word()
                to_stdout = m.group()[0] in ">1*"
                if to_stdout and target is not None:
                    stages[-1].hidden = True
            else:
                word = self._word()
                if word is not None:
                    stages[-1].words.append(word)
        out.append(stages)
        return [p for p in out if any(st.words or st.group is not None for st in p)]

    def _comment(self) -> None:
        if self.s.startswith("<#", self.i - 1):
            end = self.s.find("#>", self.i)
        else:
            end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end + (2 if self.s[end] == "#" else 0)

    def _index(self) -> Sel | None:
        m = re.compile(r"\[\s*(-?\d{1,9})\s*(?:\.\.\s*(-?\d{1,9})\s*)?\]").match(self.s, self.i)
        if not m:
            return None
        self.i = m.end()
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if lo < 0 and hi == -1:
            return Sel(None, None, -lo)
        if lo < 0 or hi < lo:
            return Sel(1, None, None, True)  # counted from the end, or reversed
        return Sel(lo + 1, hi + 1)

    def _word(self) -> Word | None:
        s, n = self.s, len(self.s)
        text: list[str] = []
        expands = glob = False
        start = self.i
        while self.i < n:
            c = s[self.i]
            if c in " \t\n\r;|" or (c in "()" and text) or s.startswith("&&", self.i):
                break
            if c == ")" or (c == "(" and not text):
                if self.i == start:
                    self.i += 1  # a stray parenthesis
                break
            if c == ">" or (c in "12*" and self.i + 1 < n and s[self.i + 1] == ">" and not text):
                break
            if c == "'":
                end = self.i + 1
                while True:
                    end = s.find("'", end)
                    if end < 0 or not s.startswith("''", end):
                        break
                    end += 2
                end = n if end < 0 else end
                text.append(s[self.i + 1 : end].replace("''", "'"))
                self.i = end + 1
            elif c == '"':
                part, self.i, dollar = _double_quoted(s, self.i + 1)
                text.append(part)
                expands = expands or dollar
            elif c == "`":
                text.append(s[self.i + 1 : self.i + 2])
                self.i += 2
            elif c == "{":
                end = _matching(s, self.i, "{", "}")
                text.append(s[self.i : end])
                self.i, expands = end, True
            else:
                if c == "$" or c == "@":
                    expands = True
                elif c in "*?[":
                    glob = True
                text.append(c)
                self.i += 1
        if self.i == start:
            self.i += 1
            return None
        return Word("".join(text), expands=expands, glob=glob)


def _double_quoted(s: str, i: int) -> tuple[str, int, bool]:
    out: list[str] = []
    dollar = False
    while i < len(s) and s[i] != '"':
        if s[i] == "`" and i + 1 < len(s):
            out.append({"n": "\n", "t": "\t"}.get(s[i + 1], s[i + 1]))
            i += 2
            continue
        if s[i] == "$" and i + 1 < len(s) and (s[i + 1].isalnum() or s[i + 1] in "({_:"):
            dollar = True
        out.append(s[i])
        i += 1
    return "".join(out), i + 1, dollar


def _matching(s: str, i: int, opener: str, closer: str) -> int:
    depth = 0
    for j in range(i, len(s)):
        if s[j] == opener:
            depth += 1
        elif s[j] == closer:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


# --- cmdlets -----------------------------------------------------------------------------

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
