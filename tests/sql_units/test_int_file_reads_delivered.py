"""int_file_reads_delivered: failed, empty, and the delivered line range of every read."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_file_reads_delivered"


def read(tid: str, method: str = "cat", **cols: object) -> dict[str, object]:
    row: dict[str, object] = {
        "tool_use_id": tid,
        "read_idx": 0,
        "path": "/r/LESSONS/L-0001.md",
        "method": method,
        "n_files": 1,
        "has_result": True,
        "runtime": "claude",
        "is_error": False,
        "is_numbered": False,
    }
    row.update(cols)
    return row


def out(tid: str, source: str, start: int | None, end: int | None) -> dict[str, object]:
    return {
        "tool_use_id": tid,
        "range_source": source,
        "is_delivered": source not in ("failed", "empty"),
        "delivered_from": start,
        "delivered_to": end,
    }


CASES = [
    Case(
        "the range each kind of read delivered",
        given={"int_file_reads_targeted": [
            # Read tool, numbered output lines 10..30
            read("num", "read-tool", is_numbered=True, numbered_first=10, numbered_last=30,
                 result_lines=21),
            read("r404", "read-tool", is_error=True, result_head="File does not exist.",
                 result_lines=1),
            read("cat404", result_head="cat: /r/LESSONS/L-0001.md: No such file or directory",
                 result_lines=1),
            # an error text naming another file is not this read's failure
            read("catother", result_head="grep: /tmp/other: No such file or directory",
                 result_lines=1, range_start=1),
            read("codexfail", runtime="codex", is_error=True, exit_code=None, result_lines=1),
            read("rejected", is_rejected=True, result_lines=1, range_start=1),
            read("empty", result_lines=0, range_start=1),
            # no result: the command's own range
            read("nores", "head", has_result=False, range_start=1, range_end=20),
            # plain cat of a 50-line file: 1..50
            read("plain", range_start=1, result_lines=50),
            # sed -n 5,10p of a file that ends at line 7: 5..7
            read("sed", "sed", range_start=5, range_end=10, result_lines=3),
            # a middle truncation kept 40 head lines
            read("trunc", range_start=1, result_lines=60, head_part_lines=40),
            # Read tool with the harness's own range: from 100, 20 lines
            read("tur", "read-tool", tur_start_line=100, tur_num_lines=20, result_lines=20),
            # multi-file reads and greps go by the command
            read("multi", n_files=2, range_start=1, range_end=None, result_lines=9),
        ]},
        expected=[
            out("num", "result", 10, 30),
            out("r404", "failed", None, None),
            out("cat404", "failed", None, None),
            out("catother", "result", 1, 1),
            out("codexfail", "failed", None, None),
            out("rejected", "failed", None, None),
            out("empty", "empty", None, None),
            out("nores", "command", 1, 20),
            out("plain", "result", 1, 50),
            out("sed", "result", 5, 7),
            out("trunc", "result", 1, 40),
            out("tur", "result", 100, 119),
            out("multi", "command", 1, None),
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("coalesce(is_rejected, false)", "false"),
    ("or (runtime = 'codex' and is_error and exit_code is null)", "or false"),
    ("lower(regexp_extract(path, '[^/]*$'))", "''"),
    ("when has_result and coalesce(result_lines, 0) = 0 then 'empty'", "when false then 'empty'"),
    ("else least(range_end, range_start + result_lines - 1)", "else range_end"),
    ("then tur_start_line + tur_num_lines - 1", "then tur_start_line + tur_num_lines"),
    (
        "when head_part_lines is not null then range_start + head_part_lines - 1",
        "when false then 0",
    ),
    ("then numbered_last", "then numbered_first"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
