"""Tests for lessons_analytics.shell.reads: a table of commands, then properties."""

from __future__ import annotations

import dataclasses
import posixpath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_analytics.shell import reads as shell_reads
from lessons_analytics.shell.reads import ShellRead, parse_reads

CWD = "/w"
HOME = "/home/u"


def _r(
    path: str,
    method: str,
    start: int | None = 1,
    end: int | None = None,
    *,
    tail_n: int | None = None,
    head_n: int | None = None,
    prefix: bool = False,
    numbered: bool = False,
    pattern: str | None = None,
    flags: str = "",
    n: int = 1,
) -> ShellRead:
    return ShellRead(
        path=path,
        method=method,
        start=start,
        end=end,
        tail_n=tail_n,
        head_n=head_n,
        is_prefix=prefix,
        numbered=numbered,
        grep_pattern=pattern,
        grep_flags=flags,
        n_files=n,
    )


def _head(path: str, n: int, files: int = 1) -> ShellRead:
    return _r(path, "head", 1, n, head_n=n, prefix=True, n=files)


def _cat(path: str, files: int = 1, numbered: bool = False) -> ShellRead:
    return _r(path, "cat", prefix=True, numbered=numbered, n=files)


def _grep(path: str, pattern: str, flags: str = "", files: int = 1) -> ShellRead:
    return _r(path, "grep", pattern=pattern, flags=flags, numbered="n" in flags, n=files)


F = "/w/F"

READS = [
    # head: every spelling of N, and the default of 10
    ("head -n 40 F", [_head(F, 40)]),
    ("head -40 F", [_head(F, 40)]),
    ("head -n40 F", [_head(F, 40)]),
    ("head --lines=40 F", [_head(F, 40)]),
    ("head --lines 40 F", [_head(F, 40)]),
    ("head F", [_head(F, 10)]),
    ("head -n 40 -- F", [_head(F, 40)]),
    ("head -qn 5 F", [_head(F, 5)]),
    ("head -n -5 F", [_r(F, "head")]),
    ("head -c 100 F", [_r(F, "other", None)]),
    # cat, nl, less, more, bat
    ("cat F", [_cat(F)]),
    ("cat -n F", [_cat(F, numbered=True)]),
    ("/bin/cat F", [_cat(F)]),
    ("cat F | head -30", [_head(F, 30)]),
    ("cat -n F | head -30", [_r(F, "head", 1, 30, head_n=30, prefix=True, numbered=True)]),
    ("nl F", [_r(F, "other", prefix=True, numbered=True)]),
    ("less F", [_r(F, "other", prefix=True)]),
    ("less -N F", [_r(F, "other", prefix=True, numbered=True)]),
    ("more +10 F", [_r(F, "other", prefix=True)]),
    ("bat F", [_r(F, "other", prefix=True)]),
    ("bat -n F", [_r(F, "other", prefix=True, numbered=True)]),
    ("bat -r 10:20 F", [_r(F, "other", 10, 20)]),
    ("bat --line-range=:30 F", [_r(F, "other", 1, 30, prefix=True)]),
    # sed
    ("sed -n '1,60p' F", [_r(F, "sed", 1, 60, prefix=True)]),
    ("sed -n '5,9p' F", [_r(F, "sed", 5, 9)]),
    ("sed -n '12p' F", [_r(F, "sed", 12, 12)]),
    ("sed -n '10,$p' F", [_r(F, "sed", 10, None)]),
    ("sed -n 5,9p F", [_r(F, "sed", 5, 9)]),
    ("sed -ne '5,9p' F", [_r(F, "sed", 5, 9)]),
    ("sed -n -e 5,9p F", [_r(F, "sed", 5, 9)]),
    ("sed -n '9,5p' F", [_r(F, "sed", 9, 9)]),
    ("sed -n '5,+3p' F", [_r(F, "sed", 5, 8)]),
    ("sed -n '10,20{p}' F", [_r(F, "sed", 10, 20)]),
    ("sed -n '$p' F", [_r(F, "sed", None, tail_n=1)]),
    ("sed -n '1,5p;10,12p' F", [_r(F, "sed", 1, 12)]),
    ("sed -n '/a/,/b/p' F", [_r(F, "sed")]),
    ("sed -n '1,100p;40q' F", [_r(F, "sed", 1, 40, prefix=True)]),
    ("sed 5q F", [_r(F, "sed", 1, 5, prefix=True)]),
    ("sed '1,3d' F", [_r(F, "sed", 4, None)]),
    ("sed 's/a/b/' F", [_r(F, "sed", prefix=True)]),
    ("nl -ba F | sed -n '5,9p'", [_r(F, "sed", 5, 9, numbered=True)]),
    # tail
    ("tail -n 20 F", [_r(F, "tail", None, tail_n=20)]),
    ("tail -20 F", [_r(F, "tail", None, tail_n=20)]),
    ("tail F", [_r(F, "tail", None, tail_n=10)]),
    ("tail -n +5 F", [_r(F, "tail", 5, None)]),
    ("tail +5 F", [_r(F, "tail", 5, None)]),
    ("tail -f F", [_r(F, "tail", None, tail_n=10)]),
    ("tail -c 20 F", [_r(F, "other", None)]),
    # grep and rg
    ('grep -n "L-01" F', [_grep(F, "L-01", "n")]),
    ("grep -E 'a|b' F1 F2", [_grep("/w/F1", "a|b", "E", 2), _grep("/w/F2", "a|b", "E", 2)]),
    ("grep -rn pat DIR", [_grep("/w/DIR", "pat", "n")]),
    ("grep -r pat", [_grep(CWD, "pat")]),
    ("grep -inEvw x F", [_grep(F, "x", "inEvw")]),
    ("grep -e a -e b F", [_grep(F, "a\nb")]),
    ("grep --regexp=a -A 3 F", [_grep(F, "a")]),
    ("grep -5 x F", [_grep(F, "x")]),
    ("egrep -i x F", [_grep(F, "x", "iE")]),
    ("fgrep -w x F", [_grep(F, "x", "Fw")]),
    ("rg pat F", [_grep(F, "pat")]),
    ("rg -n -i pat F", [_grep(F, "pat", "in")]),
    ("rg -E utf8 -F pat F", [_grep(F, "pat", "F")]),
    ("rg -n pat", [_grep(CWD, "pat", "n")]),
    ("rg -g '*.md' pat LESSONS", [_grep("/w/LESSONS", "pat")]),
    ("cat F | grep X", [_grep(F, "X")]),
    ("cat F | grep -n X", [_grep(F, "X", "n")]),
    ("grep x F | head -3", [_grep(F, "x")]),
    ("head -40 F | grep x", [_r(F, "grep", 1, 40, pattern="x")]),
    # awk
    ("awk 'NR<=40' F", [_r(F, "other", 1, 40, prefix=True)]),
    ("awk 'NR<41' F", [_r(F, "other", 1, 40, prefix=True)]),
    ("awk 'NR>=5 && NR<=9' F", [_r(F, "other", 5, 9)]),
    ("awk 'NR==3' F", [_r(F, "other", 3, 3)]),
    ("awk 'NR>5' F", [_r(F, "other", 6, None)]),
    ("awk 'NR==5,NR==10' F", [_r(F, "other", 5, 10)]),
    ("awk 'NR==3 {print; exit}' F", [_r(F, "other", 3, 3)]),
    ("awk '{print}' F", [_r(F, "other", prefix=True)]),
    ("awk -F: '{print $1}' F", [_r(F, "other", prefix=True)]),
    ("awk '/x/' F", [_r(F, "other")]),
    ("awk 'NR>1 && /x/' F", [_r(F, "other", 2, None)]),
    # ranges compose through pipelines of line filters
    ("head -100 F | tail -20", [_r(F, "tail", 81, 100)]),
    ("sed -n '1,200p' F | head -50", [_head(F, 50)]),
    ("tail -n +3 F | head -2", [_r(F, "head", 3, 4)]),
    ("cat F | sed -n '3,$p' | head -2", [_r(F, "head", 3, 4)]),
    ("head -40 F | head -100", [_head(F, 40)]),
    ("head -5 F | tail -20", [_r(F, "tail", 1, 5, prefix=True)]),
    ("tail -20 F | tail -5", [_r(F, "tail", None, tail_n=5)]),
    ("tail -20 F | sed -n '6,$p'", [_r(F, "sed", None, tail_n=15)]),
    ("head -40 F | sort | uniq", [_head(F, 40)]),
    # working directory
    ("cd /repo && head -40 LESSONS/INDEX.md", [_head("/repo/LESSONS/INDEX.md", 40)]),
    ("cd sub; cat a.md", [_cat("/w/sub/a.md")]),
    ("cd ..; cat a.md", [_cat("/a.md")]),
    ("(cd /x && cat y); cat z", [_cat("/x/y", 2), _cat("/w/z", 2)]),
    ("pushd /a; cat b; popd; cat c", [_cat("/a/b", 2), _cat("/w/c", 2)]),
    ("cd /a; cd /b; cd -; cat x", [_cat("/a/x")]),
    ("cd; cat x", [_cat("/home/u/x")]),
    ("cd /a | cat x", [_cat("/w/x")]),
    ("cd $X && cat a; cat /abs", [_cat("/abs")]),
    ("cat ~/x", [_cat("/home/u/x")]),
    ('cat "$HOME/x" $PWD/y', [_cat("/home/u/x", 2), _cat("/w/y", 2)]),
    ("cat ./a/../b//c", [_cat("/w/b/c")]),
    # quoting
    ('cat "My Docs/INDEX.md"', [_cat("/w/My Docs/INDEX.md")]),
    ("head -n 40 'LESSONS/INDEX.md'", [_head("/w/LESSONS/INDEX.md", 40)]),
    (r"cat My\ Docs/INDEX.md", [_cat("/w/My Docs/INDEX.md")]),
    ("cat $'a\\tb'", [_cat("/w/a\tb")]),
    ('cat "a\\"b"', [_cat('/w/a"b')]),
    # several files per command
    ("cat A B", [_cat("/w/A", 2), _cat("/w/B", 2)]),
    ("head -5 A B", [_head("/w/A", 5, 2), _head("/w/B", 5, 2)]),
    ("cat A && cat B; head -3 C", [_cat("/w/A", 3), _cat("/w/B", 3), _head("/w/C", 3, 3)]),
    ("cat A || cat B\ncat C", [_cat("/w/A", 3), _cat("/w/B", 3), _cat("/w/C", 3)]),
    ("cat A & cat B", [_cat("/w/A", 2), _cat("/w/B", 2)]),
    ("{ cat a; cat b; } | head -5", [_head("/w/a", 5, 2), _head("/w/b", 5, 2)]),
    ("cat A | cat - B", [_cat("/w/A", 2), _cat("/w/B", 2)]),
    ("cat A | cat B", [_cat("/w/B")]),
    # prefixes and wrappers
    ("LC_ALL=C cat F", [_cat(F)]),
    ("sudo cat F", [_cat(F)]),
    ("sudo -u root -- cat F", [_cat(F)]),
    ("command cat F", [_cat(F)]),
    ("time cat F", [_cat(F)]),
    ("nice -n 5 cat F", [_cat(F)]),
    ("env X=1 cat F", [_cat(F)]),
    ("timeout 5 cat F", [_cat(F)]),
    ("nohup cat F", [_cat(F)]),
    ("! grep x F", [_grep(F, "x")]),
    ("if grep -q x F; then cat F; fi", [_cat(F)]),
    # nested shells
    ("bash -lc 'head -40 F'", [_head(F, 40)]),
    ('bash -lc "cd /t && head -40 F"', [_head("/t/F", 40)]),
    ("sh -c 'cat F'", [_cat(F)]),
    ("bash -o pipefail -c 'cat F | head -2'", [_head(F, 2)]),
    ("gsed -n 2,3p F", [_r(F, "sed", 2, 3)]),
    ("bash -c 'cd /t' && cat F", [_cat(F)]),
    ("eval 'cat F'", [_cat(F)]),
    ("bash -lc 'cat F' | head -3", [_head(F, 3)]),
    # redirections
    ("cat F 2>/dev/null", [_cat(F)]),
    ("cat F 2>&1", [_cat(F)]),
    ("cat F >&2", [_cat(F)]),
    ("cat F > /dev/stderr", [_cat(F)]),
    ("cat F |& head -3", [_head(F, 3)]),
    ("cat F | tee x", [_cat(F)]),
    ("cat < F", [_cat(F)]),
    ("head -3 < F", [_head(F, 3)]),
    ("cat <<EOF\ncat X\nEOF\ncat G", [_cat("/w/G")]),
    ("cat <<-'EOF' > out\n\tbody\n\tEOF\nhead -2 G", [_head("/w/G", 2)]),
    # substitutions are not run
    ("cat $(ls) F `x`", [_cat(F)]),
    ("cat 'unbalanced", [_cat("/w/unbalanced")]),
]

NOT_READS = [
    "ls -la",
    "echo cat x",
    "git log --oneline | head -5",
    "wc -l F",
    "python x.py F",
    "grep -l pat F",
    "grep -L pat F",
    "grep -c pat F",
    "grep -q pat F",
    "rg --files",
    "rg -l pat",
    "sed -i 's/a/b/' F",
    "awk 'END{print NR}' F",
    "awk '{n++}' F",
    "head -n 0 F",
    "tail -n 0 F",
    "cat F > out.txt",
    "cat F >> x",
    "cat F &> log",
    "cat F >/dev/null 2>&1",
    "head -40 F | wc -l",
    "cat F | python -",
    "cat x | xargs cat",
    "cat <<EOF\nhello\nEOF",
    "cat <<< hi",
    "echo $(cat F)",
    "x=$(cat F)",
    "cat *.md",
    "cat {a,b}.md",
    "cat $F",
    "cat ~bob/x",
    "cat /dev/null",
    "command -v cat",
    "bash script.sh",
    "cd - ; cat a",
    "grep pat",
]


@pytest.mark.parametrize(("command", "expected"), READS, ids=[c for c, _ in READS])
def test_reads(command: str, expected: list[ShellRead]) -> None:
    assert parse_reads(command, CWD, HOME) == expected


@pytest.mark.parametrize("command", NOT_READS)
def test_not_reads(command: str) -> None:
    assert parse_reads(command, CWD, HOME) == []


def test_relative_paths_need_a_cwd() -> None:
    assert parse_reads("cat a /b", None) == [_cat("/b")]
    assert parse_reads("cd /r && cat a", None) == [_cat("/r/a")]


def test_tilde_kept_without_home() -> None:
    assert parse_reads("cat ~/x", CWD) == [_cat("~/x")]


def test_result_is_a_fresh_list() -> None:
    parse_reads("cat F", CWD).clear()
    assert parse_reads("cat F", CWD) == [_cat(F)]


def test_codex_joined_argv() -> None:
    inner = "cd /repo && sed -n '1,80p' LESSONS/INDEX.md"
    expected = [_r("/repo/LESSONS/INDEX.md", "sed", 1, 80, prefix=True)]
    assert parse_reads(inner, CWD) == expected
    assert parse_reads(f"bash -lc {inner!r}", CWD) == expected


# --- properties --------------------------------------------------------------------------

_SHELLISH = st.text(alphabet="catheadslgrpn -|&;()<>'\"\\$`~*{}\n#=019/.+", max_size=80)
_FRAGMENTS = st.lists(
    st.sampled_from(
        ["cat", "head", "tail", "sed", "grep", "rg", "awk", "nl", "-n", "-40", "+3", "'1,5p'"]
        + ["'NR<=3'", "F", "a/b", "/abs", "..", "~", "|", "&&", ";", "(", ")", "{", "}", "cd"]
        + ["<", ">", "2>&1", "<<EOF", "\n", "EOF", "bash", "-lc", "'", '"', "$(", "`", "-c"]
    ),
    max_size=16,
).map(" ".join)
_NAME = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,15}", fullmatch=True)
_DIR = st.lists(_NAME, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))
_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.one_of(st.text(max_size=120), _SHELLISH, _FRAGMENTS))
def test_never_raises(command: str) -> None:
    # the unguarded core, so that a bug is not hidden by parse_reads' safety net
    shell_reads._reads(command, CWD, HOME)
    shell_reads._reads(command, None, None)
    parse_reads(command, CWD)


@_SETTINGS
@given(st.one_of(_SHELLISH, _FRAGMENTS))
def test_paths_absolute_and_ranges_sane(command: str) -> None:
    for r in shell_reads._reads(command, CWD, HOME):
        assert r.path.startswith("/")
        assert posixpath.normpath(r.path) == r.path
        if r.start is not None and r.end is not None:
            assert r.start <= r.end
        assert r.tail_n is None or r.tail_n > 0
        assert r.method in {"cat", "head", "tail", "sed", "grep", "other"}


@_SETTINGS
@given(st.integers(min_value=1, max_value=10**6), _NAME, st.booleans())
def test_head_n(n: int, name: str, attached: bool) -> None:
    command = f"head -n{n} {name}" if attached else f"head -n {n} {name}"
    assert parse_reads(command, CWD) == [_head(posixpath.normpath(f"{CWD}/{name}"), n)]


_TEMPLATES = st.sampled_from(
    ["cat {f}", "head -n 7 {f}", "tail -3 {f}", "sed -n '2,4p' {f}", "grep -n x {f}"]
    + ["cat {f} | head -5", "nl -ba {f} | sed -n '1,2p'", "awk 'NR<=3' {f}", "cd {f}"]
)
_COMMANDS = st.lists(
    st.tuples(_TEMPLATES, st.one_of(_NAME, _DIR), st.sampled_from([" && ", "; ", "\n"])),
    min_size=1,
    max_size=4,
).map(lambda parts: "".join(t.format(f=f) + sep for t, f, sep in parts))


@_SETTINGS
@given(_COMMANDS, _DIR)
def test_cd_prefix_changes_only_paths(command: str, directory: str) -> None:
    plain = parse_reads(command, CWD)
    moved = parse_reads(f"cd {directory} && {command}", CWD)
    assert len(plain) == len(moved)
    for a, b in zip(plain, moved, strict=True):
        assert dataclasses.replace(a, path=b.path) == b


@_SETTINGS
@given(st.one_of(_SHELLISH, _FRAGMENTS, _COMMANDS).filter(lambda c: "'" not in c))
def test_bash_lc_wrapping_is_transparent(command: str) -> None:
    assert parse_reads(f"bash -lc '{command}'", CWD, HOME) == parse_reads(command, CWD, HOME)


# --- PowerShell and Windows paths --------------------------------------------------------

WIN = "C:\\Users\\Dev\\Shop"
W = "c:/users/dev/shop"

PS_READS: list[tuple[str, list[ShellRead]]] = [
    ("Get-Content README.md", [_cat(f"{W}/readme.md")]),
    ("gc README.md", [_cat(f"{W}/readme.md")]),
    ("type README.md", [_cat(f"{W}/readme.md")]),
    ("cat .\\docs\\a.md", [_cat(f"{W}/docs/a.md")]),
    ("Get-Content -Raw '.codex/prompts/x.md'", [_cat(f"{W}/.codex/prompts/x.md")]),
    ("Get-Content -Path C:\\Users\\Dev\\Shop\\..\\Other\\A.MD", [_cat("c:/users/dev/other/a.md")]),
    ("Get-Content -LiteralPath 'D:\\x [1].md'", [_cat("d:/x [1].md")]),
    ("Get-Content a.md -TotalCount 40", [_head(f"{W}/a.md", 40)]),
    ("Get-Content a.md -First 40", [_head(f"{W}/a.md", 40)]),
    ("Get-Content a.md -Head 40", [_head(f"{W}/a.md", 40)]),
    ("Get-Content a.md -TotalCount:40", [_head(f"{W}/a.md", 40)]),
    ("Get-Content a.md -tot 40", [_head(f"{W}/a.md", 40)]),
    ("GET-CONTENT a.md -TOTALCOUNT 40", [_head(f"{W}/a.md", 40)]),
    ("Get-Content a.md -Tail 15", [_r(f"{W}/a.md", "tail", None, None, tail_n=15)]),
    ("Get-Content a.md -Last 15", [_r(f"{W}/a.md", "tail", None, None, tail_n=15)]),
    ("Get-Content a.md | Select-Object -First 30", [_head(f"{W}/a.md", 30)]),
    ("gc a.md | select -First 30", [_head(f"{W}/a.md", 30)]),
    ("Get-Content a.md | Select-Object -Last 5", [_r(f"{W}/a.md", "tail", None, None, tail_n=5)]),
    ("Get-Content a.md | Select-Object -Skip 10 -First 20", [_r(f"{W}/a.md", "other", 11, 30)]),
    ("Get-Content a.md -TotalCount 100 | Select-Object -Last 20",
     [_r(f"{W}/a.md", "tail", 81, 100)]),
    ("(Get-Content a.md)[0..49]", [_head(f"{W}/a.md", 50)]),
    ("(Get-Content a.md)[100..149]", [_r(f"{W}/a.md", "other", 101, 150)]),
    ("(Get-Content a.md)[-10..-1]", [_r(f"{W}/a.md", "tail", None, None, tail_n=10)]),
    ("Get-Content a.md, b.md", [_cat(f"{W}/a.md", 2), _cat(f"{W}/b.md", 2)]),
    ("Get-Content a.md | Out-String", [_cat(f"{W}/a.md")]),
    ("Get-Content a.md 2>&1 | ForEach-Object { $_ }", [_cat(f"{W}/a.md")]),
    ("Set-Location docs; Get-Content a.md -First 3", [_head(f"{W}/docs/a.md", 3)]),
    ("cd ..; gc a.md", [_cat("c:/users/dev/a.md")]),
    ("Select-String -Path a.md -Pattern 'L-0042'",
     [_r(f"{W}/a.md", "grep", pattern="L-0042", flags="i")]),
    ("sls TODO a.md -CaseSensitive", [_r(f"{W}/a.md", "grep", pattern="TODO")]),
    ("findstr /n TODO a.md", [_r(f"{W}/a.md", "grep", numbered=True, pattern="TODO", flags="n")]),
    ("powershell.exe -NoProfile -Command 'Get-Content a.md -TotalCount 5'",
     [_head(f"{W}/a.md", 5)]),
    ('powershell -NoLogo -ExecutionPolicy Bypass -Command "type a.md"', [_cat(f"{W}/a.md")]),
    ("pwsh -c 'gc a.md | Select-Object -First 2'", [_head(f"{W}/a.md", 2)]),
    # Unix programs PowerShell finds on the PATH, and Unix commands under a Windows cwd
    ("Get-Content a.md | head -n 5", [_head(f"{W}/a.md", 5)]),
    ("sed -n '1,200p' AGENTS.md", [_r(f"{W}/agents.md", "sed", 1, 200, prefix=True)]),
    ("cd spec-kit && cat README.md", [_cat(f"{W}/spec-kit/readme.md")]),
    ("rg -n TODO src/app.py", [_grep(f"{W}/src/app.py", "TODO", "n")]),
    ("cat 'G:\\Repo\\LESSONS\\INDEX.md'", [_cat("g:/repo/lessons/index.md")]),
]  # fmt: skip

PS_NOT_READS = [
    "Get-Content a.md | Out-Null",
    "Get-Content a.md > $null",
    "Get-Content a.md | Set-Content b.md",
    "Get-Content a.md | Measure-Object -Line",
    "Get-Content *.md",
    "Get-Content $env:USERPROFILE\\a.md",
    "Get-Content a.md -TotalCount 0",
    "Get-Content a.md -TotalCount 5 -Tail 5",
    "Select-String -Path a.md -Pattern x -Quiet",
    "Get-ChildItem",
    "powershell -File build.ps1",
    "Get-Content a.md | Select-Object -ExpandProperty Length",
]


@pytest.mark.parametrize(("command", "expected"), PS_READS, ids=[c for c, _ in PS_READS])
def test_powershell_reads(command: str, expected: list[ShellRead]) -> None:
    assert parse_reads(command, WIN, HOME) == expected


@pytest.mark.parametrize("command", PS_NOT_READS)
def test_powershell_not_reads(command: str) -> None:
    assert parse_reads(command, WIN, HOME) == []


def test_cmdlets_are_powershell_under_a_posix_cwd_too() -> None:
    # pwsh on Linux or macOS: the same cmdlets, POSIX paths
    assert parse_reads("Get-Content ./a.md -TotalCount 3", CWD) == [_head("/w/a.md", 3)]
    assert parse_reads("gc a.md | Select-Object -First 3", CWD) == [_head("/w/a.md", 3)]
    # but a bare ``type`` is the bash builtin there
    assert parse_reads("type a.md", CWD) == []


@pytest.mark.parametrize(
    "command",
    [
        'grep "load\\|voice-feedback" a.md',  # a word-word inside quotes, after a quoted |
        "pre-commit run && cat a.md",  # a POSIX command spelt word-word
        "git-lfs ls-files; cat a.md",
    ],
)
def test_word_word_is_not_a_cmdlet(command: str) -> None:
    assert [r.path for r in parse_reads(command, CWD)] == ["/w/a.md"]


def test_windows_paths_are_one_spelling() -> None:
    spellings = ["C:\\Src\\A.md", "c:/src/a.md", "C:\\src\\lib\\..\\A.MD", "c:\\SRC\\.\\a.md"]
    assert {parse_reads(f"Get-Content '{p}'", WIN)[0].path for p in spellings} == {"c:/src/a.md"}
    # the root of the current drive
    assert parse_reads("Get-Content \\notes.md", WIN) == [_cat("c:/notes.md")]


_PS_TEMPLATES = st.sampled_from(
    ["Get-Content {f}", "gc {f} -TotalCount 7", "Get-Content {f} -Tail 3",
     "Get-Content {f} | Select-Object -First 4", "type {f}", "(Get-Content {f})[2..5]",
     "Select-String -Path {f} -Pattern x", "cat {f} | Select-Object -Skip 2 -First 2",
     "Set-Location {f}"]
)  # fmt: skip
_WIN_NAME = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,12}", fullmatch=True).filter(
    lambda n: n.strip(".") != ""
)
_WIN_REL = st.lists(_WIN_NAME, min_size=1, max_size=3).map("\\".join)
_PS_COMMANDS = st.lists(
    st.tuples(_PS_TEMPLATES, _WIN_REL, st.sampled_from(["; ", "\n", " && "])),
    min_size=1,
    max_size=4,
).map(lambda parts: "".join(t.format(f=f) + sep for t, f, sep in parts))
_PS_SHELLISH = st.text(alphabet="GetContn-|;()[]{}'\"`$ .\\/:,0129*>&#\n", max_size=80)


@_SETTINGS
@given(st.one_of(st.text(max_size=120), _PS_SHELLISH, _PS_COMMANDS))
def test_powershell_never_raises_and_paths_are_canonical(command: str) -> None:
    for cwd in (WIN, CWD, None):
        for r in shell_reads._reads(command, cwd, HOME):
            if cwd == WIN and not r.path.startswith("/"):
                assert r.path == shell_reads.windows_path(r.path)
                assert r.path == r.path.lower() and "\\" not in r.path
            if r.start is not None and r.end is not None:
                assert r.start <= r.end
            assert r.tail_n is None or r.tail_n > 0
            assert r.method in {"cat", "head", "tail", "sed", "grep", "other"}


@_SETTINGS
@given(_PS_COMMANDS)
def test_powershell_wrapping_is_transparent(command: str) -> None:
    wrapped = f"powershell.exe -NoProfile -Command '{command.replace(chr(39), chr(39) * 2)}'"
    assert parse_reads(wrapped, WIN) == parse_reads(command, WIN)


@_SETTINGS
@given(_PS_COMMANDS, st.sampled_from(["C:\\Work", "d:\\a\\b", "G:\\"]))
def test_windows_cwd_changes_only_paths(command: str, other: str) -> None:
    here, there = parse_reads(command, WIN), parse_reads(command, other)
    assert len(here) == len(there)
    for a, b in zip(here, there, strict=True):
        assert dataclasses.replace(a, path=b.path) == b
