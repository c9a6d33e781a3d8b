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
* PowerShell (``shell.powershell``): a ``powershell``/``pwsh -Command`` string, or a command that
  starts with a cmdlet (``Get-Content …``, or ``gc``/``type``/``cat`` under a Windows cwd),
  is read in PowerShell's syntax.
* Windows paths: a cwd or an operand with a drive letter (``C:\\src``, ``g:/x``) is a Windows
  path; relative paths join it, ``..`` is resolved, and the path gets one spelling:
  forward slashes and lower case (NTFS names ignore case), ``c:/src/readme.md``.  Unix
  commands run under a Windows cwd read Windows paths.
"""

from __future__ import annotations

import functools
import ntpath
import posixpath
import re
from dataclasses import dataclass, field, replace

from lessons_analytics.shell import powershell
from lessons_analytics.shell.parser import Cmd, Parser, Redir, Word, tokenize
from lessons_analytics.shell.programs import (
    ALL,
    HANDLERS,
    PASSTHROUGH,
    Prog,
    Sel,
    compose,
    word_set,
)

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
    r"|(?i:\b(?:get-content|gc|type|select-string|sls|findstr|powershell|pwsh)\b)"
)


@functools.lru_cache(maxsize=65536)
def _cached(command: str, cwd: str | None, home: str | None) -> tuple[ShellRead, ...]:
    try:
        return _reads(command, cwd, home)
    except Exception:  # noqa: BLE001 - a corpus-wide scan must survive any odd command
        return ()


def _reads(command: str, cwd: str | None, home: str | None) -> tuple[ShellRead, ...]:
    st = _State(_abs_or_none(cwd), _abs_or_none(home))
    if powershell.looks_like_powershell(command, is_windows(st.cwd)):
        reads = _eval_pwsh(command, st)
    else:
        reads = _eval_source(command, st)
    return tuple(_public(r, len(reads)) for r in reads)


_DRIVE = re.compile(r"^[A-Za-z]:(?:[\\/]|$)")


def _abs_or_none(path: str | None) -> str | None:
    if path and path.startswith("/"):
        return posixpath.normpath(path)
    if path and _DRIVE.match(path):
        return windows_path(path)
    return None


def is_windows(path: str | None) -> bool:
    return bool(path and _DRIVE.match(path))


def windows_path(path: str) -> str:
    """The one spelling of a Windows path: ``C:\\Src\\..\\A.md`` is ``c:/a.md``."""
    norm = ntpath.normpath(path).replace("\\", "/").lower()
    return norm + "/" if len(norm) == 2 else norm


# --- abstract evaluation -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Read:
    path: str
    method: str  # "" until a reading program names it (a read through ``< F``)
    sel: Sel
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
    pwsh: bool = False  # words are PowerShell's: a backslash separates path parts

    def fork(self) -> _State:
        return _State(self.cwd, self.home, self.prev, list(self.stack), self.depth, self.pwsh)


_MAX_DEPTH = 8
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_RESERVED = word_set("{ } ! if then else elif fi do done while until esac")
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
    return _eval_list(Parser(tokenize(source)).parse_list(None, 0), st)


def _eval_pwsh(script: str, st: _State) -> list[_Read]:
    if st.depth > _MAX_DEPTH:
        return []
    st.depth += 1
    was, st.pwsh = st.pwsh, True
    try:
        return _eval_ps_statements(powershell.parse_script(script), st)
    finally:
        st.pwsh = was


def _eval_ps_statements(statements: list[list[powershell.PsStage]], st: _State) -> list[_Read]:
    out: list[_Read] = []
    for stages in statements:
        stream: list[_Read] = []
        for k, stage in enumerate(stages):
            stream = [] if stage.hidden else _eval_ps_stage(stage, stream, st, k == 0)
        out.extend(stream)
    return out


def _eval_ps_stage(
    stage: powershell.PsStage, stream: list[_Read], st: _State, first: bool
) -> list[_Read]:
    if stage.group is not None:
        out = _eval_ps_statements(stage.group, st)
        if stage.index is None:
            return out
        method = "tail" if stage.index.tail_n is not None else "other"
        if stage.index.start == 1 and not stage.index.filtered:
            method = "head"
        prog = Prog(method, stage.index)
        return [f for r in out if (f := _filter(r, prog)) is not None]
    words = stage.words[1:] if stage.words and stage.words[0].text in ("&", ".") else stage.words
    if not words or words[0].expands:
        return []
    name, args = words[0].text, words[1:]
    low = name.lower()
    if powershell.is_wrapper(name):
        script = powershell.wrapper_script([w.text for w in args])
        return _eval_pwsh(script, st.fork()) if script else []
    if low in ("bash", "bash.exe", "sh", "wsl"):
        return _eval_shell(args, st) if low != "wsl" else []
    if low in powershell.LOCATION:
        verb = {"push-location": "pushd", "pushd": "pushd", "pop-location": "popd"}.get(low)
        dirs = [a for a in args if a.text.lower() not in ("-path", "-literalpath")]
        _chdir(verb or ("popd" if low == "popd" else "cd"), dirs, st)
        return []
    if low in powershell.PASSTHROUGH:
        return stream
    program = powershell.ps_program(name, args)
    return [] if program is None else _run(program, stream, st, first)


def _eval_list(pipelines: list[list[Cmd]], st: _State) -> list[_Read]:
    # Every pipeline of a list writes to the same stdout, whatever ; && || decide.
    return [r for stages in pipelines for r in _eval_pipeline(stages, st)]


def _eval_pipeline(stages: list[Cmd], st: _State) -> list[_Read]:
    stream: list[_Read] = []
    for k, cmd in enumerate(stages):
        # Stages of a real pipeline run in subshells: a cd there does not last.
        stream = _eval_stage(cmd, stream, st.fork() if len(stages) > 1 else st, k == 0)
    return stream


def _eval_stage(cmd: Cmd, stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    stdin = _stdin(cmd.redirs, st)
    if stdin is not None:
        stream, first = stdin, False
    if cmd.body is not None:
        out = _eval_list(cmd.body, st.fork() if cmd.subshell else st)
    else:
        out = _eval_simple(cmd.words, stream, st, first)
    return [] if _stdout_hidden(cmd.redirs) else out


def _stdin(redirs: list[tuple[Redir, Word | None]], st: _State) -> list[_Read] | None:
    stdin: list[_Read] | None = None
    for redir, target in redirs:
        if redir.op in ("<<", "<<-", "<<<"):
            stdin = []
        elif redir.op == "<" and redir.fd in (None, 0) and target is not None:
            path = _resolve(target, st)
            stdin = [_Read(path, "", ALL)] if path else []
    return stdin


_VISIBLE = frozenset({"/dev/stdout", "/dev/stderr", "/dev/tty"})


def _stdout_hidden(redirs: list[tuple[Redir, Word | None]]) -> bool:
    for redir, target in redirs:
        dest = target.text if target else ""
        if redir.op in ("&>", "&>>") and dest not in _VISIBLE:
            return True
        to_file = redir.op in (">", ">>", ">|") or (redir.op == ">&" and not dest.isdigit())
        if to_file and redir.fd in (None, 1) and dest not in _VISIBLE:
            return True
    return False


def _eval_simple(words: list[Word], stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    args = _strip_prefix(words)
    if not args or args[0].expands:
        return []
    if powershell.is_wrapper(args[0].text):
        script = powershell.wrapper_script([w.text for w in args[1:]])
        return _eval_pwsh(script, st.fork()) if script else []
    name, args = posixpath.basename(args[0].text), args[1:]
    if name in ("cd", "pushd", "popd"):
        _chdir(name, args, st)
        return []
    if name in _SHELLS:
        return _eval_shell(args, st)
    if name == "eval":
        return _eval_source(" ".join(w.text for w in args), st)
    if name in PASSTHROUGH:
        return stream
    handler = HANDLERS.get(name)
    prog = handler(args) if handler else None
    return [] if prog is None else _run(prog, stream, st, first)


def _strip_prefix(words: list[Word]) -> list[Word]:
    """Drop assignments, reserved words and wrappers (sudo, env, time ...) before the command."""
    args: list[Word] | None = words
    while args:
        head = args[0].text
        if _ASSIGN.match(head) or head in _RESERVED:
            args = args[1:]
        elif head in _WRAPPERS:
            args = _strip_wrapper(head, args[1:])
        else:
            return args
    return []


def _strip_wrapper(name: str, args: list[Word]) -> list[Word] | None:
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


def _eval_shell(args: list[Word], st: _State) -> list[_Read]:
    i = 0
    while i < len(args) and args[i].text.startswith(("-", "+")):
        t = args[i].text
        i += 1
        if not t.startswith("--") and "c" in t[1:]:
            return _eval_source(args[i].text, st.fork()) if i < len(args) else []
        if t[1:] in ("o", "O"):
            i += 1  # -o pipefail
    return []  # a script file, or stdin: nothing we can see


def _chdir(name: str, args: list[Word], st: _State) -> None:
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


def _resolve(word: Word, st: _State) -> str | None:
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
    if st.pwsh:
        if text.lower() in ("$null", "nul") or text.startswith("~"):
            return None  # PowerShell's home is not the one we know
        if not is_windows(st.cwd) and not _DRIVE.match(text):
            text = text.replace("\\", "/")
    if _DRIVE.match(text):
        return windows_path(text)
    if st.cwd is not None and is_windows(st.cwd) and not text.startswith("/"):
        if st.pwsh and text.startswith("\\"):
            return windows_path(st.cwd[:2] + text)  # the root of the current drive
        return windows_path(ntpath.join(st.cwd, text))
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


def _run(prog: Prog, stream: list[_Read], st: _State, first: bool) -> list[_Read]:
    if prog.files:
        inputs: list[_Read] = []
        for w in prog.files:
            if w.text == "-":
                inputs.extend(stream)
            elif path := _resolve(w, st):
                inputs.append(_Read(path, "", ALL))
    elif prog.default_dir and first:
        inputs = [_Read(st.cwd, "", ALL)] if st.cwd else []
    else:
        inputs = stream
    return [out for r in inputs if (out := _filter(r, prog)) is not None]


def _filter(r: _Read, prog: Prog) -> _Read | None:
    sel = compose(r.sel, prog.sel)
    if sel is None:
        return None
    if r.method == "grep":
        return replace(r, sel=sel, numbered=r.numbered or prog.numbered)
    method = prog.method if (prog.sel != ALL or not r.method) else r.method
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
