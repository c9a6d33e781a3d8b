"""What each reading program (cat, head, tail, sed, grep, rg, nl, awk, bat...) does to the
lines of its files, for ``shell.reads``: line selections and how they compose."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lessons_analytics.shell.parser import Word

# --- line selections ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sel:
    """Lines start..end (1-based, end None = to EOF), or the last tail_n lines."""

    start: int | None = 1
    end: int | None = None
    tail_n: int | None = None
    filtered: bool = False  # only some lines of that range (matches, several ranges)


ALL = Sel()
_UNKNOWN = Sel(None, None, None, True)


def compose(r: Sel, f: Sel) -> Sel | None:
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


def _compose_abs(s: int, e: int | None, f: Sel) -> Sel:
    if f.start is None:
        t = f.tail_n or 0
        if e is None:
            return Sel(None, None, t, f.filtered)
        return Sel(max(s, e - t + 1), e, None, f.filtered)
    end = e if f.end is None else s + f.end - 1
    if e is not None and end is not None:
        end = min(end, e)
    return Sel(s + f.start - 1, end, None, f.filtered)


def _compose_tail(t: int, f: Sel) -> Sel:
    if f.start is None:
        return Sel(None, None, min(t, f.tail_n or 0), f.filtered)
    left = t - f.start + 1
    narrower = f.end is not None and f.end - f.start + 1 < left
    return Sel(None, None, left, f.filtered or narrower)


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) else None


# --- reading programs --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prog:
    """What one reading program does to each file operand, or to stdin without one."""

    method: str
    sel: Sel
    files: tuple[Word, ...] = ()
    numbered: bool = False
    pattern: str | None = None
    flags: str = ""
    default_dir: bool = False  # no path operand means the working directory


_Opts = list[tuple[str, str]]


def _getopt(
    args: Sequence[Word],
    with_arg: str,
    long_arg: frozenset[str] = frozenset(),
    numeric: bool = False,
) -> tuple[_Opts, list[Word]]:
    """GNU-style options (clustered, attached values, permuted); ``-N``/``+N`` as ``-#``."""
    opts: _Opts = []
    operands: list[Word] = []
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
                val = next(it, Word("")).text
            opts.append((name, val))
        elif len(t) > 1 and t[0] == "-":
            for j, ch in enumerate(t[1:], 2):
                if ch in with_arg:
                    opts.append(("-" + ch, t[j:] or next(it, Word("")).text))
                    break
                opts.append(("-" + ch, ""))
        else:
            operands.append(w)
    return opts, operands


def _lines_opt(val: str, tail: bool) -> Sel:
    n = _int(val.lstrip("+-"))
    if n is None:
        return _UNKNOWN
    if val.startswith("-"):  # head -n -N: all but the last N, a prefix of unknown length
        return Sel(1, None, None, True)
    if tail:
        return Sel(max(n, 1), None) if val.startswith("+") else Sel(None, None, n)
    return Sel(1, n)


def _head_tail(args: Sequence[Word], tail: bool) -> Prog:
    opts, files = _getopt(args, "ncs", frozenset({"--lines", "--bytes"}), numeric=True)
    method = "tail" if tail else "head"
    sel = Sel(None, None, 10) if tail else Sel(1, 10)
    for name, val in opts:
        if name in ("-n", "--lines", "-#"):
            sel = _lines_opt(val, tail)
        elif name in ("-c", "--bytes"):
            sel, method = _UNKNOWN, "other"
    return Prog(method, sel, tuple(files))


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


def _sed_sel(script: str, quiet: bool) -> Sel | None:
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
    return Sel(start, cap, None, filtered)


def _sed_printed(printed: list[_Range], cap: int | None) -> Sel | None:
    if not printed:
        return None
    if len(printed) == 1 and printed[0][0] is None:
        return Sel(None, None, 1)  # sed -n '$p'
    ends = [hi for _, hi, _ in printed]
    end = None if None in ends else max(e for e in ends if e is not None)
    if cap is not None:
        end = cap if end is None else min(cap, end)
    exact = len(printed) == 1 and printed[0][2]
    return Sel(min(lo or 1 for lo, _, _ in printed), end, None, not exact)


def _sed(args: Sequence[Word]) -> Prog | None:
    opts, operands = _getopt(args, "efl", frozenset({"--expression", "--file", "--line-length"}))
    names = {n for n, _ in opts}
    if names & {"-i", "--in-place"}:
        return None
    if names & {"-f", "--file"}:
        return Prog("sed", _UNKNOWN, tuple(operands))
    scripts = [v for n, v in opts if n in ("-e", "--expression")]
    if not scripts:
        if not operands:
            return None
        scripts, operands = [operands[0].text], operands[1:]
    sel = _sed_sel("\n".join(scripts), bool(names & {"-n", "--quiet", "--silent"}))
    return None if sel is None else Prog("sed", sel, tuple(operands))


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


def _awk_sel(program: str) -> Sel | None:
    body = _AWK_BEGIN_END.sub("", program).strip()
    pattern, brace, action = body.partition("{")
    if not body or (brace and "print" not in action):
        return None  # no per-line output
    if not pattern.strip():
        return ALL
    ends = [_AWK_NR.fullmatch(p.strip()) for p in pattern.split(",")]
    if len(ends) == 2 and ends[0] and ends[1] and ends[0][1] == ends[1][1] == "==":
        return Sel(int(ends[0][2]), max(int(ends[0][2]), int(ends[1][2])))
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
    return Sel(lo, hi, None, not exact)


def _awk(args: Sequence[Word]) -> Prog | None:
    opts, operands = _getopt(args, "Fvf", frozenset({"--field-separator", "--assign", "--file"}))
    if any(n in ("-f", "--file") for n, _ in opts):
        return Prog("other", _UNKNOWN, tuple(operands))
    sel = _awk_sel(operands[0].text) if operands else None
    return None if sel is None else Prog("other", sel, tuple(operands[1:]))


def _bat(args: Sequence[Word]) -> Prog:
    opts, files = _getopt(args, "lHrm", frozenset({"--line-range", "--language", "--style"}))
    numbered = any(n in ("-n", "--number") or (n == "--style" and "numbers" in v) for n, v in opts)
    ranges = [re.fullmatch(r"(\d*):(\d*)|(\d+)", v) for n, v in opts if n in ("-r", "--line-range")]
    sel = ALL
    if len(ranges) == 1 and (m := ranges[0]):
        lo = _int(m[1] or m[3] or "1") or 1
        sel = Sel(lo, lo if m[3] else _int(m[2] or ""))
    elif ranges:
        sel = Sel(1, None, None, True)
    return Prog("other", sel, tuple(files), numbered)


def _viewer(method: str, with_arg: str, numbered_by: frozenset[str] | None) -> _Handler:
    def handler(args: Sequence[Word]) -> Prog:
        opts, files = _getopt(args, with_arg)
        numbered = numbered_by is None or any(n in numbered_by for n, _ in opts)
        # less/more take +N / +/pattern as commands, not files
        kept = tuple(f for f in files if not f.text.startswith("+"))
        return Prog(method, ALL, kept, numbered)

    return handler


def word_set(text: str) -> frozenset[str]:
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
_GREP_LONG = word_set(
    "--regexp --file --max-count --after-context --before-context --context --include "
    "--exclude --exclude-dir --exclude-from --label --binary-files --devices "
    "--directories --group-separator"
)
_RG_SILENT = word_set(
    "-l -c -q --files --files-with-matches --files-without-match --count "
    "--count-matches --quiet --type-list --help --version"
)
_RG_LONG = word_set(
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear "
    "--max-count --context --after-context --before-context --encoding --threads "
    "--max-columns --replace --max-depth --max-filesize --color --colors --sort "
    "--sortr --path-separator --engine --context-separator --field-match-separator "
    "--field-context-separator --pre --pre-glob --ignore-file --dfa-size-limit "
    "--regex-size-limit --hyperlink-format --generate"
)


def _grep_prog(opts: _Opts, operands: list[Word], implied: str, rg: bool) -> Prog | None:
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
    sel = Sel(1, None, None, True)
    return Prog("grep", sel, tuple(operands), "n" in flags, pattern, flags, recursive)


def _grep(implied: str) -> _Handler:
    def handler(args: Sequence[Word]) -> Prog | None:
        opts, operands = _getopt(args, "efmABCdD", _GREP_LONG, numeric=True)
        return _grep_prog(opts, operands, implied, rg=False)

    return handler


def _rg(args: Sequence[Word]) -> Prog | None:
    opts, operands = _getopt(args, "efgtTmABCEjMrd", _RG_LONG)
    return _grep_prog(opts, operands, "", rg=True)


_Handler = Callable[[Sequence[Word]], "Prog | None"]
_CAT_NUMBERED = frozenset({"-n", "-b", "--number", "--number-nonblank"})
HANDLERS: dict[str, _Handler] = {
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
PASSTHROUGH = word_set("tee sort uniq cut tr column fold fmt expand unexpand tac rev pr iconv ts")
