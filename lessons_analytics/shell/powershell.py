"""PowerShell, as Codex runs it on Windows, for ``shell.reads``: wrappers, tokens and
pipelines; what the reading cmdlets do to file lines lives in ``shell.cmdlets``.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

from lessons_analytics.shell.cmdlets import LOCATION, PASSTHROUGH, ps_program
from lessons_analytics.shell.parser import Word
from lessons_analytics.shell.programs import Sel

__all__ = [
    "LOCATION",
    "PASSTHROUGH",
    "PsStage",
    "is_wrapper",
    "looks_like_powershell",
    "parse_script",
    "ps_program",
    "wrapper_script",
]

_WRAPPERS = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
_CMDLET = re.compile(r"^([A-Za-z]+)-[A-Za-z]+$")
# PowerShell's approved verbs (Get-Verb) that read, select or run things: a POSIX command
# spelt word-word (``voice-feedback``, ``pre-commit``) is not a cmdlet.
_VERBS = frozenset(
    [
        "add",
        "clear",
        "close",
        "compare",
        "convert",
        "convertfrom",
        "convertto",
        "copy",
        "enter",
        "exit",
        "export",
        "find",
        "format",
        "get",
        "import",
        "invoke",
        "join",
        "measure",
        "move",
        "new",
        "out",
        "pop",
        "push",
        "read",
        "remove",
        "rename",
        "resolve",
        "select",
        "set",
        "show",
        "sort",
        "split",
        "start",
        "stop",
        "test",
        "trace",
        "update",
        "use",
        "wait",
        "where",
        "write",
        "foreach",
        "tee",
    ]
)
# quoted text is data, never a command position (``grep "a\|b-c"``)
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


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
    unquoted = _QUOTED.sub("''", command)
    names = [m.group(1).lower() for m in _COMMAND_POSITION.finditer(unquoted)]
    if names and is_wrapper(names[0]):
        return False  # the POSIX reading of the line unwraps it just as well
    if any((m := _CMDLET.match(name)) and m.group(1) in _VERBS for name in names):
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
