"""A failed read delivers nothing; an empty output is an empty delivery, not an inverted range.

Each case is one call and its result, built in tmp_path in the runtimes' on-disk shapes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import ingest
from tests.support.transcripts import ClaudeSession, CodexRollout, numbered, reset_ids

CWD = "/home/dev/shop"


def _claude(tmp_path: Path) -> ClaudeSession:
    reset_ids()
    return ClaudeSession(tmp_path / "projects" / "-home-dev-shop", "s1", CWD, version="2.0.42")


def _reads(tmp_path: Path) -> list[tuple[Any, ...]]:
    db = tmp_path / "w.duckdb"
    # a source given that does not exist is an error: pass only the runtimes the test wrote
    sources = [tmp_path / name for name in ("projects", "codex") if (tmp_path / name).exists()]
    ingest(db, sources)
    con = duckdb.connect(str(db), read_only=True)
    return con.execute(
        "select path, range_source, is_delivered, delivered_from, delivered_to"
        " from fct_file_reads order by called_at"
    ).fetchall()


# (tool input, result text, is_error) -> a Read that delivered nothing
READ_TOOL_FAILURES = [
    ("missing.md", "<tool_use_error>File does not exist.</tool_use_error>", True),
    ("docs", "EISDIR: illegal operation on a directory, read", True),
    ("big.log", "File content (41234 tokens) exceeds maximum allowed tokens (25000). "
     "Please use offset and limit parameters to read specific portions of the file.", True),
    # the same texts without the flag are still errors of the Read tool
    ("missing.md", "<tool_use_error>File does not exist.</tool_use_error>", False),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "is_error"), READ_TOOL_FAILURES)
def test_a_read_tool_error_delivers_nothing(
    tmp_path: Path, name: str, text: str, is_error: bool
) -> None:
    s = _claude(tmp_path)
    call = s.read("2026-02-03T09:00:01Z", f"{CWD}/{name}")
    s.result(call, "2026-02-03T09:00:02Z", text, is_error=is_error)
    s.write()
    assert _reads(tmp_path) == [(f"{CWD}/{name}", "failed", False, None, None)]


# (command, output) -> a shell read of one file that failed
SHELL_FAILURES = [
    ("cat notes.md", "cat: notes.md: No such file or directory"),
    ("sed -n '1,40p' notes.md", "sed: can't read notes.md: No such file or directory"),
    ("head -20 docs", "head: error reading 'docs': Is a directory"),
    ("nl -ba notes.md | sed -n '1,5p'", "nl: notes.md: No such file or directory"),
]


@pytest.mark.parametrize(("command", "output"), SHELL_FAILURES)
def test_a_shell_read_of_a_missing_file_delivers_nothing(
    tmp_path: Path, command: str, output: str
) -> None:
    s = _claude(tmp_path)
    call = s.bash("2026-02-03T09:00:01Z", command)
    s.result(call, "2026-02-03T09:00:02Z", output, is_error=True)
    s.write()
    ((path, source, delivered, start, end),) = _reads(tmp_path)
    assert (source, delivered, start, end) == ("failed", False, None, None)


def test_a_shell_read_that_prints_an_error_about_another_file_still_delivers(
    tmp_path: Path,
) -> None:
    # the message names a different file: notes.md itself was shown (2 lines)
    s = _claude(tmp_path)
    call = s.bash("2026-02-03T09:00:01Z", "cat notes.md")
    s.result(call, "2026-02-03T09:00:02Z", "see other.md\nother.md: No such file or directory")
    s.write()
    assert _reads(tmp_path) == [(f"{CWD}/notes.md", "result", True, 1, 2)]


def test_an_empty_sed_output_is_an_empty_delivery(tmp_path: Path) -> None:
    # the file has fewer than 200 lines: nothing came back, not the range 200..199
    s = _claude(tmp_path)
    call = s.bash("2026-02-03T09:00:01Z", "sed -n '200,260p' notes.md")
    s.result(call, "2026-02-03T09:00:02Z", "")
    ok = s.bash("2026-02-03T09:00:03Z", "sed -n '2,3p' notes.md")
    s.result(ok, "2026-02-03T09:00:04Z", "b\nc\n")
    s.write()
    assert _reads(tmp_path) == [
        (f"{CWD}/notes.md", "empty", False, None, None),
        (f"{CWD}/notes.md", "result", True, 2, 3),
    ]


def test_a_numbered_read_still_gives_its_numbers(tmp_path: Path) -> None:
    s = _claude(tmp_path)
    call = s.read("2026-02-03T09:00:01Z", f"{CWD}/notes.md", offset=5, limit=2)
    s.result(call, "2026-02-03T09:00:02Z", numbered("e\nf\n", start=5))
    s.write()
    assert _reads(tmp_path) == [(f"{CWD}/notes.md", "result", True, 5, 6)]


def test_codex_harness_failure_of_a_read_delivers_nothing(tmp_path: Path) -> None:
    r = CodexRollout(tmp_path / "codex", "019c2a00-0000-7000-8000-0000000000a1", CWD,
                     "2026-02-03T09:00:00.000Z")  # fmt: skip
    r.exec("2026-02-03T09:00:01.000Z", "cat README.md", "2026-02-03T09:00:02.000Z", "# t\n", 0.01)
    call = r.exec(
        "2026-02-03T09:00:03.000Z", "cat missing.md", "2026-02-03T09:00:04.000Z", "", 0.01
    )
    # the second call's output is the sandbox refusing to run it
    r.lines[-1]["payload"]["output"] = "failed in sandbox: sandbox error: command was killed"
    assert r.lines[-1]["payload"]["call_id"] == call
    r.write()
    assert _reads(tmp_path) == [
        (f"{CWD}/README.md", "result", True, 1, 1),
        (f"{CWD}/missing.md", "failed", False, None, None),
    ]


def test_a_failed_or_empty_index_read_shows_no_row(tmp_path: Path) -> None:
    from tests.support.basebuilder import index_text, make_base

    project = tmp_path / "proj"
    make_base(project, index=index_text(["L-0001", "L-0002"]), when="2026-02-01T09:00:00Z")
    reset_ids()
    s = ClaudeSession(tmp_path / "projects" / "-proj", "s2", str(project), version="2.0.42")
    ok = s.bash("2026-02-03T09:00:01Z", "cat LESSONS/INDEX.md")
    s.result(ok, "2026-02-03T09:00:02Z", (project / "LESSONS" / "INDEX.md").read_text())
    # the Read tool failing on it (as it does on a directory): the read delivered nothing
    bad = s.read("2026-02-03T09:00:03Z", str(project / "LESSONS" / "INDEX.md"))
    s.result(
        bad, "2026-02-03T09:00:04Z", "EISDIR: illegal operation on a directory, read", is_error=True
    )
    # past the end of the file: nothing came back
    empty = s.bash("2026-02-03T09:00:05Z", "sed -n '200,260p' LESSONS/INDEX.md")
    s.result(empty, "2026-02-03T09:00:06Z", "")
    s.write()
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "projects"])
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "select range_source, line_from, line_to, lines_delivered, active_rows_seen"
        " from fct_index_reads order by called_at"
    ).fetchall() == [
        ("result", 1, 12, 12, 2),  # the whole file: 12 lines, both Active rows
        ("failed", 1, 0, 0, 0),
        ("empty", 1, 0, 0, 0),
    ]
