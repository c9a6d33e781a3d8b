"""Turn one shell command string, as an agent ran it, into the file reads it performs.

An agent's Bash (Claude Code) or exec (Codex) call is a small shell program.  It is
tokenized (quotes, escapes, ``$(...)``, backticks, heredocs, redirections), parsed with the
usual grammar (lists ``; && || & newline``, pipelines ``| |&``, ``( )`` and ``{ }``) and then
run abstractly: the working directory and the file lines flowing to stdout are tracked,
nothing is executed.

Choices:

* A read is a file whose lines reach stdout, which is what the model sees.  ``cat F > x``,
  ``&> log``, ``| wc -l``, ``| python``, ``| xargs ...`` deliver nothing, so give no read;
  ``2>/dev/null``, ``2>&1``, ``>&2`` and ``| tee x`` keep it.  ``< F`` is a read of F.
* Reading programs: cat, head, tail, sed, grep (egrep, fgrep), rg, nl, less, more, awk
  (gawk), bat (batcat).  Methods: rg, egrep, fgrep -> "grep"; nl, less, more, awk, bat,
  ``head -c`` and ``tail -c`` -> "other".  tee, sort, uniq, cut, tr, column, ... pass lines
  through; any other program consumes them.
* In a pipeline the last stage that narrows the range names the method (``cat F | head -30``
  is "head", ``nl F | sed -n 5,9p`` is "sed"), but once grep filtered, the method stays
  "grep": what follows are matches, not file lines.
* Ranges compose through head, tail, ``sed -n 'A,Bp'`` / ``Nq`` / ``1,Nd`` and awk ``NR``
  filters: ``head -100 F | tail -20`` is 81..100 (method "tail").  A filter after several
  files (``cat A B | head -5``) is applied to each of them: an upper bound.  start, end
  and tail_n all None means the range is unknown (bytes with ``-c``, ``sed -f``,
  ``awk -f``).  Reads that keep a subset of their range (grep, regex addresses, several
  sed ranges) keep the range they scanned and are never prefix reads.  An empty range
  (``head -n 0``) is no read.
* Not reads: ``grep -l/-L/-c/-q``, ``rg -l/-c/--files``, ``sed -i``, awk with no per-line
  print, heredocs, here-strings, and all non-reading programs.
* Paths decided at run time (``$VAR`` other than ``$HOME``/``$PWD``, ``$(...)``, backticks,
  globs, braces) are dropped, and so are relative paths when the working directory is
  unknown (cwd None, ``cd "$X"``).  ``~`` expands to ``home``, or stays ``~/...`` when home
  is None; ``~user`` is dropped.  ``/dev/*`` is not a file.
* ``grep -r`` and ``rg`` with no path, first in a pipeline, read the working directory.
* ``grep -e A -e B`` has the pattern ``"A\\nB"``, grep's own syntax for a pattern list.
* ``n_files`` counts the reads of the whole command: all of them share one tool result.
* Reads inside ``$(...)`` are ignored; ``bash -c``, ``sh -c`` and ``eval`` strings are parsed;
  assignments and wrappers (sudo, env, command, time, nice, timeout, nohup, exec, stdbuf)
  are skipped.  Broken syntax (an unclosed quote runs to the end) gives a best effort.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

__all__ = ["ShellRead", "parse_reads"]


@dataclass(frozen=True)
class ShellRead:
    """One file (or directory, for recursive grep) whose lines a shell command delivered."""

    path: str
    method: str
    start: int | None
    end: int | None
    tail_n: int | None
    head_n: int | None
    is_prefix: bool
    numbered: bool
    grep_pattern: str | None
    grep_flags: str
    n_files: int


def parse_reads(command: str, cwd: str | None, home: str | None = None) -> list[ShellRead]:
    """Return the reads ``command`` performs when run in ``cwd``; never raises."""
    if not _PRECHECK.search(command):
        return []
    return list(_cached(command, cwd, home))


# Most shell calls read nothing; this skips tokenizing them.
_PRECHECK = re.compile(
    r"\b(?:cat|head|tail|g?sed|grep|egrep|fgrep|rg|nl|less|more|awk|gawk|bat|batcat)\b"
)


@functools.lru_cache(maxsize=65536)
def _cached(command: str, cwd: str | None, home: str | None) -> tuple[ShellRead, ...]:
    try:
        return _reads(command, cwd, home)
    except Exception:  # noqa: BLE001 - a corpus-wide scan must survive any odd command
        return ()


def _reads(command: str, cwd: str | None, home: str | None) -> tuple[ShellRead, ...]:
    st = _State(_abs_or_none(cwd), _abs_or_none(home))
    reads = _eval_source(command, st)
    return tuple(_public(r, len(reads)) for r in reads)


def _abs_or_none(path: str | None) -> str | None:
    return posixpath.normpath(path) if path and path.startswith("/") else None


# --- tokens ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    expands: bool = False  # holds $VAR, $(...) or backticks, kept raw in text
    glob: bool = False
    tilde: bool = False


@dataclass(frozen=True, slots=True)
class _Op:
    text: str


@dataclass(frozen=True, slots=True)
class _Redir:
    op: str
    fd: int | None


_Token = _Word | _Op | _Redir
_OPS = re.compile(r"&>>|&>|&&|\|&|\|\||;;|>>|>&|>\||<<<|<<-|<<|<&|<>|[|&;()<>\n]")
_FD = re.compile(r"\d{1,4}(?=[<>])")
_PLAIN = re.compile(r"[^ \t\n|&;()<>'\"\\$`]+")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "e": "\x1b", "0": "\0"}


def _tokenize(s: str) -> list[_Token]:
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
                toks.append(_Redir(op, fd))
            elif op == "\n":
                toks.append(_Op(op))
                i = _skip_heredocs(s, i, heredocs)
                heredocs = []
            else:
                toks.append(_Op(";" if op == ";;" else op))
            fd = None
        else:
            w, j = _read_word(s, i)
            last = toks[-1] if toks else None
            if isinstance(last, _Redir) and last.op in ("<<", "<<-"):
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


def _read_word(s: str, i: int) -> tuple[_Word, int]:
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
    return _Word("".join(parts), expands, glob, tilde), i


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
class _Cmd:
    words: list[_Word] = field(default_factory=list)
    redirs: list[tuple[_Redir, _Word | None]] = field(default_factory=list)
    body: list[list[_Cmd]] | None = None  # the list inside ( ) or { }
    subshell: bool = False


_MAX_NEST = 20


class _Parser:
    def __init__(self, toks: list[_Token]) -> None:
        self.toks = toks
        self.i = 0

    def _peek(self) -> _Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse_list(self, closer: str | None, depth: int) -> list[list[_Cmd]]:
        out: list[list[_Cmd]] = []
        while (t := self._peek()) is not None:
            if isinstance(t, _Op) and t.text != "(":
                self.i += 1  # a separator, or a stray ")"
                if t.text == ")" and closer == ")":
                    return out
            elif isinstance(t, _Word) and t.text == "}" and closer == "}":
                self.i += 1
                return out
            else:
                out.append(self._pipeline(depth))
        return out

    def _pipeline(self, depth: int) -> list[_Cmd]:
        stages = [self._command(depth)]
        while isinstance(t := self._peek(), _Op) and t.text in ("|", "|&"):
            self.i += 1
            stages.append(self._command(depth))
        return stages

    def _command(self, depth: int) -> _Cmd:
        cmd, t = _Cmd(), self._peek()
        if isinstance(t, _Op) and t.text == "(":
            self.i += 1
            if depth < _MAX_NEST:
                cmd.body, cmd.subshell = self.parse_list(")", depth + 1), True
        elif isinstance(t, _Word) and t.text == "{" and depth < _MAX_NEST:
            self.i += 1
            cmd.body = self.parse_list("}", depth + 1)
        while (t := self._peek()) is not None and not isinstance(t, _Op):
            self.i += 1
            if isinstance(t, _Redir):
                target = self._peek()
                if isinstance(target, _Word):
                    self.i += 1
                cmd.redirs.append((t, target if isinstance(target, _Word) else None))
            elif cmd.body is None:
                cmd.words.append(t)
        return cmd


# --- line selections ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sel:
    """Lines start..end (1-based, end None = to EOF), or the last tail_n lines."""

    start: int | None = 1
    end: int | None = None
    tail_n: int | None = None
    filtered: bool = False  # only some lines of that range (matches, several ranges)


_ALL = _Sel()
_UNKNOWN = _Sel(None, None, None, True)


def _compose(r: _Sel, f: _Sel) -> _Sel | None:
    """Apply the selection ``f`` to the lines ``r`` delivered; None when nothing is left."""
    if r.filtered or (r.start is None and r.tail_n is None):
        return r  # a filtered stream's positions no longer map to file lines
    if f.start is None and f.tail_n is None:
        return _UNKNOWN
    if r.start is not None:
        sel = _compose_abs(r.start, r.end, f)
    else:
        sel = _compose_tail(r.tail_n or 0, f)
    if sel.tail_n is not None and sel.tail_n <= 0:
        return None
    if sel.start is not None and sel.end is not None and sel.start > sel.end:
        return None
    return sel


def _compose_abs(s: int, e: int | None, f: _Sel) -> _Sel:
    if f.start is None:
        t = f.tail_n or 0
        if e is None:
            return _Sel(None, None, t, f.filtered)
        return _Sel(max(s, e - t + 1), e, None, f.filtered)
    end = e if f.end is None else s + f.end - 1
    if e is not None and end is not None:
        end = min(end, e)
    return _Sel(s + f.start - 1, end, None, f.filtered)


def _compose_tail(t: int, f: _Sel) -> _Sel:
    if f.start is None:
        return _Sel(None, None, min(t, f.tail_n or 0), f.filtered)
    left = t - f.start + 1
    narrower = f.end is not None and f.end - f.start + 1 < left
    return _Sel(None, None, left, f.filtered or narrower)


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) else None


# --- reading programs --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Prog:
    """What one reading program does to each file operand, or to stdin without one."""

    method: str
    sel: _Sel
    files: tuple[_Word, ...] = ()
    numbered: bool = False
    pattern: str | None = None
    flags: str = ""
    default_dir: bool = False  # no path operand means the working directory


_Opts = list[tuple[str, str]]


def _getopt(
    args: Sequence[_Word],
    with_arg: str,
    long_arg: frozenset[str] = frozenset(),
    numeric: bool = False,
) -> tuple[_Opts, list[_Word]]:
    """GNU-style options (clustered, attached values, permuted); ``-N``/``+N`` as ``-#``."""
    opts: _Opts = []
    operands: list[_Word] = []
    it = iter(args)
    for w in it:
        t = w.text
        if t == "--":
            operands.extend(it)
        elif numeric and len(t) > 1 and t[0] in "-+" and t[1:].isdigit():
            opts.append(("-#", t if t[0] == "+" else t[1:]))
        elif t.startswith("--"):
            name, eq, val = t.partition("=")
            if not eq and name in long_arg:
                val = next(it, _Word("")).text
            opts.append((name, val))
        elif len(t) > 1 and t[0] == "-":
            for j, ch in enumerate(t[1:], 2):
                if ch in with_arg:
                    opts.append(("-" + ch, t[j:] or next(it, _Word("")).text))
                    break
                opts.append(("-" + ch, ""))
        else:
            operands.append(w)
    return opts, operands


def _lines_opt(val: str, tail: bool) -> _Sel:
    n = _int(val.lstrip("+-"))
    if n is None:
        return _UNKNOWN
    if val.startswith("-"):  # head -n -N: all but the last N, a prefix of unknown length
        return _Sel(1, None, None, True)
    if tail:
        return _Sel(max(n, 1), None) if val.startswith("+") else _Sel(None, None, n)
    return _Sel(1, n)


def _head_tail(args: Sequence[_Word], tail: bool) -> _Prog:
    opts, files = _getopt(args, "ncs", frozenset({"--lines", "--bytes"}), numeric=True)
    method = "tail" if tail else "head"
    sel = _Sel(None, None, 10) if tail else _Sel(1, 10)
    for name, val in opts:
        if name in ("-n", "--lines", "-#"):
            sel = _lines_opt(val, tail)
        elif name in ("-c", "--bytes"):
            sel, method = _UNKNOWN, "other"
    return _Prog(method, sel, tuple(files))


_SED_ADDR = r"(\d+|\$|/(?:[^/\\]|\\.)*/|\\(.)(?:(?!\2).)*\2)"
_SED_ADDR2 = r"(\+?\d+|\$|/(?:[^/\\]|\\.)*/)"
_SED_CMD = re.compile(rf"\s*(?:{_SED_ADDR}(?:\s*,\s*{_SED_ADDR2})?)?\s*(!?)\s*(.?)")


_Range = tuple[int | None, int | None, bool]  # first (None = $), last, exact
# Anchored after a separator: unanchored, a long script without "{" costs quadratic time.
_SED_BLOCK = re.compile(r"(?:^|(?<=[;\n]))([^;{}\n]*)\{([^{}]*)\}")


def _sed_unblock(m: re.Match[str]) -> str:
    # Commands of ``A,B{...}`` act on A..B: give them the block's address.
    inner = (c.strip() for c in m[2].replace("\n", ";").split(";"))
    return ";".join(c if c[:1] in "0123456789$/\\" else m[1] + c for c in inner if c)


def _sed_addr(part: str) -> tuple[int | None, int | None, bool, str]:
    """(first, last, exact, command) of one sed command; first None means ``$``."""
    m = _SED_CMD.match(part)
    if m is None:
        return 1, None, False, ""
    a1, _, a2, neg, cmd = m.groups()
    if neg:
        return 1, None, False, cmd
    if a1 is None:
        return 1, None, True, cmd
    if a1 == "$" and a2 is None:
        return None, None, True, cmd
    lo = _int(a1)
    if a2 is None:
        return (lo, lo, True, cmd) if lo is not None else (1, None, False, cmd)
    hi = None if a2 == "$" else _int(a2.lstrip("+"))
    if hi is not None and lo is not None:
        hi = lo + hi if a2.startswith("+") else max(hi, lo)  # GNU: A,B with B < A prints A
    exact = lo is not None and (hi is not None or a2 == "$")
    return (lo or 1), hi, exact, cmd


def _sed_sel(script: str, quiet: bool) -> _Sel | None:
    printed: list[_Range] = []
    start, cap, filtered = 1, None, False
    script = _SED_BLOCK.sub(_sed_unblock, script)
    for part in re.split(r"[;\n{}]", script):
        if not part.strip():
            continue
        lo, hi, exact, cmd = _sed_addr(part)
        if cmd in ("q", "Q") and exact and lo is not None and lo == hi:
            cut = lo if cmd == "q" else lo - 1
            cap = cut if cap is None else min(cap, cut)
        elif cmd == "p" and quiet:
            printed.append((lo, hi, exact))
        elif cmd == "d" and not quiet:
            if exact and lo == 1 and hi is not None:
                start = max(start, hi + 1)
            else:
                filtered = True
    if quiet:
        return _sed_printed(printed, cap)
    return _Sel(start, cap, None, filtered)


def _sed_printed(printed: list[_Range], cap: int | None) -> _Sel | None:
    if not printed:
        return None
    if len(printed) == 1 and printed[0][0] is None:
        return _Sel(None, None, 1)  # sed -n '$p'
    ends = [hi for _, hi, _ in printed]
    end = None if None in ends else max(e for e in ends if e is not None)
    if cap is not None:
        end = cap if end is None else min(cap, end)
    exact = len(printed) == 1 and printed[0][2]
    return _Sel(min(lo or 1 for lo, _, _ in printed), end, None, not exact)


def _sed(args: Sequence[_Word]) -> _Prog | None:
    opts, operands = _getopt(args, "efl", frozenset({"--expression", "--file", "--line-length"}))
    names = {n for n, _ in opts}
    if names & {"-i", "--in-place"}:
        return None
    if names & {"-f", "--file"}:
        return _Prog("sed", _UNKNOWN, tuple(operands))
    scripts = [v for n, v in opts if n in ("-e", "--expression")]
    if not scripts:
        if not operands:
            return None
        scripts, operands = [operands[0].text], operands[1:]
    sel = _sed_sel("\n".join(scripts), bool(names & {"-n", "--quiet", "--silent"}))
    return None if sel is None else _Prog("sed", sel, tuple(operands))


_AWK_NR = re.compile(r"\(?\s*F?NR\s*(<=|>=|==|<|>)\s*(\d{1,9})\s*\)?")
_AWK_BEGIN_END = re.compile(r"\b(?:BEGIN|END)\s*\{[^{}]*\}")
_Bounds = Callable[[int], tuple[int, int | None]]
_AWK_GT: _Bounds = lambda v: (v + 1, None)  # noqa: E731
_AWK_OPS: dict[str, _Bounds] = {
    "<=": lambda v: (1, v),
    "<": lambda v: (1, v - 1),
    "==": lambda v: (v, v),
    ">=": lambda v: (v, None),
}


def _awk_sel(program: str) -> _Sel | None:
    body = _AWK_BEGIN_END.sub("", program).strip()
    pattern, brace, action = body.partition("{")
    if not body or (brace and "print" not in action):
        return None  # no per-line output
    if not pattern.strip():
        return _ALL
    ends = [_AWK_NR.fullmatch(p.strip()) for p in pattern.split(",")]
    if len(ends) == 2 and ends[0] and ends[1] and ends[0][1] == ends[1][1] == "==":
        return _Sel(int(ends[0][2]), max(int(ends[0][2]), int(ends[1][2])))
    lo, hi, exact = 1, None, True
    for conj in pattern.split("&&"):
        m = _AWK_NR.fullmatch(conj.strip())
        if m is None:
            exact = False
            continue
        first, last = _AWK_OPS.get(m[1], _AWK_GT)(int(m[2]))
        lo = max(lo, first)
        if last is not None:
            hi = last if hi is None else min(hi, last)
    return _Sel(lo, hi, None, not exact)


def _awk(args: Sequence[_Word]) -> _Prog | None:
    opts, operands = _getopt(args, "Fvf", frozenset({"--field-separator", "--assign", "--file"}))
    if any(n in ("-f", "--file") for n, _ in opts):
        return _Prog("other", _UNKNOWN, tuple(operands))
    sel = _awk_sel(operands[0].text) if operands else None
    return None if sel is None else _Prog("other", sel, tuple(operands[1:]))


def _bat(args: Sequence[_Word]) -> _Prog:
    opts, files = _getopt(args, "lHrm", frozenset({"--line-range", "--language", "--style"}))
    numbered = any(n in ("-n", "--number") or (n == "--style" and "numbers" in v) for n, v in opts)
    ranges = [re.fullmatch(r"(\d*):(\d*)|(\d+)", v) for n, v in opts if n in ("-r", "--line-range")]
    sel = _ALL
    if len(ranges) == 1 and (m := ranges[0]):
        lo = _int(m[1] or m[3] or "1") or 1
        sel = _Sel(lo, lo if m[3] else _int(m[2] or ""))
    elif ranges:
        sel = _Sel(1, None, None, True)
    return _Prog("other", sel, tuple(files), numbered)


def _viewer(method: str, with_arg: str, numbered_by: frozenset[str] | None) -> _Handler:
    def handler(args: Sequence[_Word]) -> _Prog:
        opts, files = _getopt(args, with_arg)
        numbered = numbered_by is None or any(n in numbered_by for n, _ in opts)
        # less/more take +N / +/pattern as commands, not files
        kept = tuple(f for f in files if not f.text.startswith("+"))
        return _Prog(method, _ALL, kept, numbered)

    return handler


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GREP_FLAGS = {
    "i": ("-i", "-y", "--ignore-case"),
    "n": ("-n", "--line-number"),
    "E": ("-E", "--extended-regexp"),
    "F": ("-F", "--fixed-strings"),
    "v": ("-v", "--invert-match"),
    "w": ("-w", "--word-regexp"),
}
_GREP_SILENT = frozenset(
    {"-l", "-L", "-c", "-q", "--files-with-matches", "--files-without-match", "--count"}
    | {"--quiet", "--silent"}
)
_GREP_LONG = _names(
    "--regexp --file --max-count --after-context --before-context --context --include "
    "--exclude --exclude-dir --exclude-from --label --binary-files --devices "
    "--directories --group-separator"
)
_RG_SILENT = _names(
    "-l -c -q --files --files-with-matches --files-without-match --count "
    "--count-matches --quiet --type-list --help --version"
)
_RG_LONG = _names(
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear "
    "--max-count --context --after-context --before-context --encoding --threads "
    "--max-columns --replace --max-depth --max-filesize --color --colors --sort "
    "--sortr --path-separator --engine --context-separator --field-match-separator "
    "--field-context-separator --pre --pre-glob --ignore-file --dfa-size-limit "
    "--regex-size-limit --hyperlink-format --generate"
)


def _grep_prog(opts: _Opts, operands: list[_Word], implied: str, rg: bool) -> _Prog | None:
    names = {n for n, _ in opts}
    if names & (_RG_SILENT if rg else _GREP_SILENT):
        return None
    patterns = [v for n, v in opts if n in ("-e", "--regexp")]
    if not patterns and not names & {"-f", "--file"}:
        if not operands:
            return None
        patterns, operands = [operands[0].text], operands[1:]
    flags = "".join(
        ch
        for ch, spellings in _GREP_FLAGS.items()
        if ch in implied or names.intersection(s for s in spellings if not (rg and s == "-E"))
    )
    if rg and names & {"-N", "--no-line-number"}:
        flags = flags.replace("n", "")
    recursive = rg or bool(names & {"-r", "-R", "--recursive", "--dereference-recursive"})
    pattern = "\n".join(patterns) if patterns else None
    sel = _Sel(1, None, None, True)
    return _Prog("grep", sel, tuple(operands), "n" in flags, pattern, flags, recursive)


def _grep(implied: str) -> _Handler:
    def handler(args: Sequence[_Word]) -> _Prog | None:
        opts, operands = _getopt(args, "efmABCdD", _GREP_LONG, numeric=True)
        return _grep_prog(opts, operands, implied, rg=False)

    return handler


def _rg(args: Sequence[_Word]) -> _Prog | None:
    opts, operands = _getopt(args, "efgtTmABCEjMrd", _RG_LONG)
    return _grep_prog(opts, operands, "", rg=True)


_Handler = Callable[[Sequence[_Word]], "_Prog | None"]
_CAT_NUMBERED = frozenset({"-n", "-b", "--number", "--number-nonblank"})
_HANDLERS: dict[str, _Handler] = {
    "cat": _viewer("cat", "", _CAT_NUMBERED),
    "nl": _viewer("other", "bdfhilnsvw", None),
    "less": _viewer("other", "bhjkoOpPtTxyz#", frozenset({"-N", "--LINE-NUMBERS"})),
    "more": _viewer("other", "n", frozenset()),
    "head": lambda args: _head_tail(args, tail=False),
    "tail": lambda args: _head_tail(args, tail=True),
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "grep": _grep(""),
    "egrep": _grep("E"),
    "fgrep": _grep("F"),
    "rg": _rg,
    "bat": _bat,
    "batcat": _bat,
}
# Lines go through these unchanged, near enough for "which file lines did the model see".
_PASSTHROUGH = _names("tee sort uniq cut tr column fold fmt expand unexpand tac rev pr iconv ts")


# --- abstract evaluation -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Read:
    path: str
    method: str  # "" until a reading program names it (a read through ``< F``)
    sel: _Sel
    numbered: bool = False
    pattern: str | None = None
    flags: str = ""


@dataclass(slots=True)
class _State:
    cwd: str | None
    home: str | None
    prev: str | None = None
    stack: list[str | None] = field(default_factory=list)
    depth: int = 0

    def fork(self) -> _State:
        return _State(self.cwd, self.home, self.prev, list(self.stack), self.depth)


_MAX_DEPTH = 8
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_RESERVED = _names("{ } ! if then else elif fi do done while until esac")
# wrapper -> its short options that take a value
_WRAPPERS = {
    "sudo": "ugCDhprtU",
    "command": "",
    "builtin": "",
    "time": "fo",
    "nice": "n",
    "nohup": "",
    "exec": "a",
    "stdbuf": "ioe",
    "timeout": "sk",
    "env": "uCS",
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


def _eval_source(source: str, st: _State) -> list[_Read]:
    if st.depth > _MAX_DEPTH:
        return []
    st.depth += 1
    return _eval_list(_Parser(_tokenize(source)).parse_list(None, 0), st)


def _eval_list(pipelines: list[list[_Cmd]], st: _State) -> list[_Read]:
    # Every pipeline of a list writes to the same stdout, whatever ; && || decide.
    return [r for stages in pipelines for r in _eval_pipeline(stages, st)]


def _eval_pipeline(stages: list[_Cmd], st: _State) -> list[_Read]:
    stream: list[_Read] = []
    for k, cmd in enumerate(stages):
        # Stages of a real pipeline run in subshells: a cd there does not last.
        stream = _eval_stage(cmd, stream, st.fork() if len(stages) > 1 else st, k == 0)
    return stream


def _eval_stage(cmd: _Cmd, stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    stdin = _stdin(cmd.redirs, st)
    if stdin is not None:
        stream, first = stdin, False
    if cmd.body is not None:
        out = _eval_list(cmd.body, st.fork() if cmd.subshell else st)
    else:
        out = _eval_simple(cmd.words, stream, st, first)
    return [] if _stdout_hidden(cmd.redirs) else out


def _stdin(redirs: list[tuple[_Redir, _Word | None]], st: _State) -> list[_Read] | None:
    stdin: list[_Read] | None = None
    for redir, target in redirs:
        if redir.op in ("<<", "<<-", "<<<"):
            stdin = []
        elif redir.op == "<" and redir.fd in (None, 0) and target is not None:
            path = _resolve(target, st)
            stdin = [_Read(path, "", _ALL)] if path else []
    return stdin


_VISIBLE = frozenset({"/dev/stdout", "/dev/stderr", "/dev/tty"})


def _stdout_hidden(redirs: list[tuple[_Redir, _Word | None]]) -> bool:
    for redir, target in redirs:
        dest = target.text if target else ""
        if redir.op in ("&>", "&>>") and dest not in _VISIBLE:
            return True
        to_file = redir.op in (">", ">>", ">|") or (redir.op == ">&" and not dest.isdigit())
        if to_file and redir.fd in (None, 1) and dest not in _VISIBLE:
            return True
    return False


def _eval_simple(words: list[_Word], stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    args = _strip_prefix(words)
    if not args or args[0].expands:
        return []
    name, args = posixpath.basename(args[0].text), args[1:]
    if name in ("cd", "pushd", "popd"):
        _chdir(name, args, st)
        return []
    if name in _SHELLS:
        return _eval_shell(args, st)
    if name == "eval":
        return _eval_source(" ".join(w.text for w in args), st)
    if name in _PASSTHROUGH:
        return stream
    handler = _HANDLERS.get(name)
    prog = handler(args) if handler else None
    return [] if prog is None else _run(prog, stream, st, first)


def _strip_prefix(words: list[_Word]) -> list[_Word]:
    """Drop assignments, reserved words and wrappers (sudo, env, time ...) before the command."""
    args: list[_Word] | None = words
    while args:
        head = args[0].text
        if _ASSIGN.match(head) or head in _RESERVED:
            args = args[1:]
        elif head in _WRAPPERS:
            args = _strip_wrapper(head, args[1:])
        else:
            return args
    return []


def _strip_wrapper(name: str, args: list[_Word]) -> list[_Word] | None:
    i, with_arg = 0, _WRAPPERS[name]
    while i < len(args) and args[i].text.startswith("-") and args[i].text != "-":
        t = args[i].text
        i += 1
        if t == "--":
            break
        if name == "command" and t in ("-v", "-V"):
            return None  # only looks the command up
        if len(t) == 2 and t[1] in with_arg:
            i += 1
    return args[i + 1 :] if name == "timeout" else args[i:]


def _eval_shell(args: list[_Word], st: _State) -> list[_Read]:
    i = 0
    while i < len(args) and args[i].text.startswith(("-", "+")):
        t = args[i].text
        i += 1
        if not t.startswith("--") and "c" in t[1:]:
            return _eval_source(args[i].text, st.fork()) if i < len(args) else []
        if t[1:] in ("o", "O"):
            i += 1  # -o pipefail
    return []  # a script file, or stdin: nothing we can see


def _chdir(name: str, args: list[_Word], st: _State) -> None:
    if name == "popd":
        if st.stack:
            st.cwd = st.stack.pop()
        return
    dirs = [a for a in args if not (a.text.startswith("-") and a.text != "-")]
    new: str | None
    if not dirs:
        new = st.home or "~"
    elif dirs[0].text == "-":
        new = st.prev
    else:
        new = _resolve(dirs[0], st)
    if name == "pushd":
        st.stack.append(st.cwd)
    st.prev, st.cwd = st.cwd, new


_HOME_VAR = re.compile(r"\$(?:HOME\b|\{HOME\})")
_PWD_VAR = re.compile(r"\$(?:PWD\b|\{PWD\})")


def _resolve(word: _Word, st: _State) -> str | None:
    """Absolute normalized path of a file operand, or None when the shell decides it later."""
    text = word.text
    if word.expands:
        if st.home:
            text = _HOME_VAR.sub(st.home, text)
        if st.cwd:
            text = _PWD_VAR.sub(st.cwd, text)
        if "$" in text or "`" in text:
            return None
    if word.glob or not text or text.startswith("/dev/"):
        return None
    if word.tilde:
        if text != "~" and not text.startswith("~/"):
            return None  # ~user: someone else's home
        if st.home is None:
            return posixpath.normpath(text)
        text = st.home + text[1:]
    if not text.startswith("/"):
        if st.cwd is None:
            return None
        text = posixpath.join(st.cwd, text)
    return posixpath.normpath(text)


def _run(prog: _Prog, stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    if prog.files:
        inputs: list[_Read] = []
        for w in prog.files:
            if w.text == "-":
                inputs.extend(stream)
            elif path := _resolve(w, st):
                inputs.append(_Read(path, "", _ALL))
    elif prog.default_dir and first:
        inputs = [_Read(st.cwd, "", _ALL)] if st.cwd else []
    else:
        inputs = stream
    return [out for r in inputs if (out := _filter(r, prog)) is not None]


def _filter(r: _Read, prog: _Prog) -> _Read | None:
    sel = _compose(r.sel, prog.sel)
    if sel is None:
        return None
    if r.method == "grep":
        return replace(r, sel=sel, numbered=r.numbered or prog.numbered)
    method = prog.method if (prog.sel != _ALL or not r.method) else r.method
    return _Read(r.path, method, sel, r.numbered or prog.numbered, prog.pattern, prog.flags)


def _public(r: _Read, n_files: int) -> ShellRead:
    s = r.sel
    is_prefix = s.start == 1 and not s.filtered
    head_n = s.end if r.method == "head" and is_prefix else None
    return ShellRead(
        path=r.path,
        method=r.method or "other",
        start=s.start,
        end=s.end,
        tail_n=s.tail_n,
        head_n=head_n,
        is_prefix=is_prefix,
        numbered=r.numbered,
        grep_pattern=r.pattern,
        grep_flags=r.flags,
        n_files=n_files,
    )
