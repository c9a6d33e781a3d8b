"""What the shell prints: index/body reads rendered exactly from the file version at hand,
and plausible outputs for the checks, test runs and commits the sessions make."""

from __future__ import annotations

import random

from .util import hex_id, lines_of


def head(text: str, n: int) -> str:
    return "\n".join(lines_of(text)[:n])


def sed_range(text: str, first: int, last: int) -> str:
    return "\n".join(lines_of(text)[first - 1 : last])


def grep_n(text: str, needle: str) -> str:
    return "\n".join(f"{i}:{ln}" for i, ln in enumerate(lines_of(text), start=1) if needle in ln)


def nl_ba(text: str, first: int, last: int) -> str:
    rows = [f"{i:>6}\t{ln}" for i, ln in enumerate(lines_of(text), start=1)]
    return "\n".join(rows[first - 1 : last])


def index_command(rng: random.Random, rel: str, text: str, repo: str) -> tuple[str, str]:
    """A shell read of INDEX.md: (command, exact stdout without the final newline)."""
    n = rng.choice((40, 40, 40, 30, 50, 60, 20))
    options = [
        (30, f"head -{n} {rel}", head(text, n)),
        (8, f"head -n {n} {rel}", head(text, n)),
        (8, f"cat {rel} | head -{n}", head(text, n)),
        (5, f"cd {repo} && head -40 LESSONS/INDEX.md", head(text, 40)),
        (8, f"sed -n '1,60p' {rel}", sed_range(text, 1, 60)),
        (10, f"cat {rel}", text.rstrip("\n")),
        (4, f"grep -n '{_grep_prefix(text)}' {rel}", grep_n(text, _grep_prefix(text))),
    ]
    weights = [w for w, _, _ in options]
    _, cmd, out = rng.choices(options, weights=weights)[0]
    return cmd, out


def _grep_prefix(text: str) -> str:
    # The id prefix used by this base: `L-00`, `L-01` or `L-02`.
    for ln in lines_of(text):
        if ln.startswith("| L-"):
            return ln[2:6]
    return "L-0"


def truncate_chars(out: str, limit: int = 30000) -> str:
    """Claude Code <= 2.0 cuts the middle of long Bash output and says how much it cut."""
    if len(out) <= limit:
        return out
    keep = limit // 2
    cut = len(out) - 2 * keep
    return f"{out[:keep]}\n\n... [{cut} characters truncated] ...\n\n{out[-keep:]}"


def truncate_lines(out: str, keep: int = 120) -> str:
    rows = out.split("\n")
    if len(rows) <= keep:
        return out
    return "\n".join(rows[:keep]) + f"\n\n... [{len(rows) - keep} lines truncated] ..."


def check_output(rng: random.Random, project: str, ok: bool, failure: str = "") -> str:
    if project.startswith("atlas"):
        return _atlas_check(rng, ok, failure)
    return _harbor_check(rng, ok, failure)


def _atlas_check(rng: random.Random, ok: bool, failure: str) -> str:
    secs = rng.uniform(95, 200)
    lines = [
        "ruff check atlas tests ... ok",
        "ruff format --check ... 58 files already formatted",
        "mypy atlas ... Success: no issues found in 41 source files",
        "pytest -q",
        "." * 72 + " [ 33%]",
        "." * 72 + " [ 67%]",
    ]
    if ok:
        lines += [
            "." * 68 + "     [100%]",
            f"212 passed in {secs:.2f}s",
            "All checks passed (lint, types, 212 tests)",
        ]
    else:
        lines += [
            "." * 40 + "F" + "." * 27 + "     [100%]",
            "=" * 20 + " FAILURES " + "=" * 20,
            failure
            or "FAILED tests/test_render.py::test_z12_berlin - tile differs from golden (412 px)",
            f"1 failed, 211 passed in {secs:.2f}s",
            "check failed: pytest",
        ]
    return "\n".join(lines)


def _harbor_check(rng: random.Random, ok: bool, failure: str) -> str:
    lines = [
        "pnpm -C web build && pnpm -C web test",
        f"vite v5.4.8 building for production...\n✓ 412 modules transformed.\n✓ built in {rng.uniform(8, 20):.2f}s",  # noqa: E501
        f" Test Files  38 passed (38)\n      Tests  291 passed (291)\n   Duration  {rng.uniform(9, 30):.2f}s",  # noqa: E501
        "make -C services/api test",
    ]
    if ok:
        lines += [
            f"148 passed, 3 skipped in {rng.uniform(20, 60):.2f}s",
            "contract: 24 passed",
            "make check: OK",
        ]
    else:
        lines += [
            failure or "FAILED tests/test_bookings.py::test_slot_end_utc - assert 13 == 10",
            f"1 failed, 147 passed, 3 skipped in {rng.uniform(20, 60):.2f}s",
            "make: *** [Makefile:5: check] Error 1",
        ]
    return "\n".join(lines)


def verbose_tests(rng: random.Random, count: int = 260) -> str:
    """A long `pytest -v` listing (long enough for the harness to truncate it)."""
    mods = ("test_render", "test_cache", "test_clip", "test_projection", "test_cli", "test_tiles")
    rows = []
    for i in range(count):
        mod = mods[i % len(mods)]
        rows.append(
            f"tests/{mod}.py::test_case_{i:03d} PASSED{' ' * 20}[{100 * (i + 1) // count:3d}%]"
        )
    rows.append(f"{count} passed in {rng.uniform(90, 200):.2f}s")
    return "\n".join(rows)


def commit_output(rng: random.Random, message: str, project: str, ok: bool = True) -> str:
    hooks = ["ruff" + "." * 69 + "Passed"]
    if project.startswith("atlas"):
        hooks = [
            "migration lint" + "." * 59 + "Passed",
            "golden diff" + "." * 62 + "Passed",
            *hooks,
        ]
    else:
        hooks = ["eslint" + "." * 67 + "Passed", "pytest (api, fast)" + "." * 55 + "Passed", *hooks]
    if not ok:
        hooks[-1] = (
            hooks[-1].replace("Passed", "Failed")
            + "\n- hook id: ruff\n- exit code: 1\n\natlas/clip.py:7:1: F401 unused import"
        )
        return "\n".join(hooks)
    files = rng.randint(1, 6)
    hooks += [
        f"[main {hex_id(rng, 7)}] {message}",
        f" {files} file{'s' if files > 1 else ''} changed, {rng.randint(2, 120)} insertions(+), {rng.randint(0, 40)} deletions(-)",  # noqa: E501
    ]
    return "\n".join(hooks)
