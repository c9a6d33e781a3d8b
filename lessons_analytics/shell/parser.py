"""The shell tokenizer and grammar behind ``shell.reads``: words, operators and redirections,
then lists, pipelines and ( ) / { } groups. Nothing is executed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- tokens ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    expands: bool = False  # holds $VAR, $(...) or backticks, kept raw in text
    glob: bool = False
    tilde: bool = False


@dataclass(frozen=True, slots=True)
class Op:
    text: str


@dataclass(frozen=True, slots=True)
class Redir:
    op: str
    fd: int | None


_Token = Word | Op | Redir
_OPS = re.compile(r"&>>|&>|&&|\|&|\|\||;;|>>|>&|>\||<<<|<<-|<<|<&|<>|[|&;()<>\n]")
_FD = re.compile(r"\d{1,4}(?=[<>])")
_PLAIN = re.compile(r"[^ \t\n|&;()<>'\"\\$`]+")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "e": "\x1b", "0": "\0"}


def tokenize(s: str) -> list[_Token]:
    toks: list[_Token] = []
    heredocs: list[tuple[str, bool]] = []
    i, n, fd = 0, len(s), None
    while i < n:
        c = s[i]
        if c in " \t" or s.startswith("\\\n", i):
            i += 1 if c != "\\" else 2
        elif c == "#":
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif m := _FD.match(s, i):
            fd, i = int(m.group()), m.end()
        elif m := _OPS.match(s, i):
            op, i = m.group(), m.end()
            if "<" in op or ">" in op:
                toks.append(Redir(op, fd))
            elif op == "\n":
                toks.append(Op(op))
                i = _skip_heredocs(s, i, heredocs)
                heredocs = []
            else:
                toks.append(Op(";" if op == ";;" else op))
            fd = None
        else:
            w, j = _read_word(s, i)
            last = toks[-1] if toks else None
            if isinstance(last, Redir) and last.op in ("<<", "<<-"):
                heredocs.append((w.text, last.op == "<<-"))
            toks.append(w)
            i = max(j, i + 1)
    return toks


def _skip_heredocs(s: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    for delim, strip_tabs in heredocs:
        while i < len(s):
            j = s.find("\n", i)
            line, i = (s[i:], len(s)) if j < 0 else (s[i:j], j + 1)
            if (line.lstrip("\t") if strip_tabs else line) == delim:
                break
    return i


def _read_word(s: str, i: int) -> tuple[Word, int]:
    parts: list[str] = []
    expands = glob = False
    tilde = s.startswith("~", i)
    n = len(s)
    while i < n:
        c = s[i]
        if m := _PLAIN.match(s, i):
            parts.append(m.group())
            glob = glob or any(ch in m.group() for ch in "*?[{")
            i = m.end()
        elif c == "'":
            j = s.find("'", i + 1)
            j = n if j < 0 else j
            parts.append(s[i + 1 : j])
            i = j + 1
        elif c == '"':
            text, i, dyn = _read_dquote(s, i + 1)
            parts.append(text)
            expands = expands or dyn
        elif c == "\\":
            parts.append(s[i + 1 : i + 2] if s[i + 1 : i + 2] != "\n" else "")
            i += 2
        elif c == "$":
            text, i, dyn = _read_dollar(s, i, in_dq=False)
            parts.append(text)
            expands = expands or dyn
        elif c == "`":
            j = _find_backtick(s, i + 1)
            parts.append(s[i:j])
            i, expands = j, True
        else:
            break
    return Word("".join(parts), expands, glob, tilde), i


def _read_dquote(s: str, i: int) -> tuple[str, int, bool]:
    parts: list[str] = []
    dyn = False
    while i < len(s):
        c = s[i]
        if m := _DQ_PLAIN.match(s, i):
            parts.append(m.group())
            i = m.end()
        elif c == '"':
            return "".join(parts), i + 1, dyn
        elif c == "\\":
            nxt = s[i + 1 : i + 2]
            parts.append(nxt if nxt in '$`"\\' else ("" if nxt == "\n" else c + nxt))
            i += 2
        elif c == "$":
            text, i, d = _read_dollar(s, i, in_dq=True)
            parts.append(text)
            dyn = dyn or d
        else:
            j = _find_backtick(s, i + 1)
            parts.append(s[i:j])
            i, dyn = j, True
    return "".join(parts), len(s), dyn


def _read_dollar(s: str, i: int, in_dq: bool) -> tuple[str, int, bool]:
    nxt = s[i + 1 : i + 2]
    if nxt == "(":
        j = _skip_parens(s, i + 2)
        return s[i:j], j, True
    if nxt == "{":
        j = s.find("}", i + 2)
        j = len(s) if j < 0 else j + 1
        return s[i:j], j, True
    if nxt == "'" and not in_dq:
        j = i + 2
        while j < len(s) and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        text = re.sub(r"\\(.)", lambda m: _ANSI.get(m[1], m[1]), s[i + 2 : j], flags=re.S)
        return text, j + 1, False
    if nxt == '"' and not in_dq:
        return "", i + 1, False
    if m := _NAME.match(s, i + 1):
        return s[i : m.end()], m.end(), True
    return "$", i + 1, False


def _skip_parens(s: str, i: int) -> int:
    # Flat scan on purpose: nested quoting inside $(...) only needs to be skipped, and a
    # recursive reader could be driven past the recursion limit by hostile input.
    depth, n = 1, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 1
        elif c in "'\"":
            j = s.find(c, i + 1)
            i = n if j < 0 else j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _find_backtick(s: str, i: int) -> int:
    while i < len(s) and s[i] != "`":
        i += 2 if s[i] == "\\" else 1
    return min(i + 1, len(s))


# --- grammar -----------------------------------------------------------------------------


@dataclass(slots=True)
class Cmd:
    words: list[Word] = field(default_factory=list)
    redirs: list[tuple[Redir, Word | None]] = field(default_factory=list)
    body: list[list[Cmd]] | None = None  # the list inside ( ) or { }
    subshell: bool = False


_MAX_NEST = 20


class Parser:
    def __init__(self, toks: list[_Token]) -> None:
        self.toks = toks
        self.i = 0

    def _peek(self) -> _Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse_list(self, closer: str | None, depth: int) -> list[list[Cmd]]:
        out: list[list[Cmd]] = []
        while (t := self._peek()) is not None:
            if isinstance(t, Op) and t.text != "(":
                self.i += 1  # a separator, or a stray ")"
                if t.text == ")" and closer == ")":
                    return out
            elif isinstance(t, Word) and t.text == "}" and closer == "}":
                self.i += 1
                return out
            else:
                out.append(self._pipeline(depth))
        return out

    def _pipeline(self, depth: int) -> list[Cmd]:
        stages = [self._command(depth)]
        while isinstance(t := self._peek(), Op) and t.text in ("|", "|&"):
            self.i += 1
            stages.append(self._command(depth))
        return stages

    def _command(self, depth: int) -> Cmd:
        cmd, t = Cmd(), self._peek()
        if isinstance(t, Op) and t.text == "(":
            self.i += 1
            if depth < _MAX_NEST:
                cmd.body, cmd.subshell = self.parse_list(")", depth + 1), True
        elif isinstance(t, Word) and t.text == "{" and depth < _MAX_NEST:
            self.i += 1
            cmd.body = self.parse_list("}", depth + 1)
        while (t := self._peek()) is not None and not isinstance(t, Op):
            self.i += 1
            if isinstance(t, Redir):
                target = self._peek()
                if isinstance(target, Word):
                    self.i += 1
                cmd.redirs.append((t, target if isinstance(target, Word) else None))
            elif cmd.body is None:
                cmd.words.append(t)
        return cmd
