"""int_index_rows_delivered: each index row an index read saw or missed."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_index_rows_delivered"


def read(tid: str, method: str, **cols: object) -> dict[str, object]:
    row: dict[str, object] = {
        "tool_use_id": tid,
        "read_idx": 0,
        "base_path": "/b",
        "version_id": "v1",
        "session_id": "S",
        "method": method,
        "n_lines": 10,
        "line_from": 1,
        "line_to": 10,
    }
    row.update(cols)
    return row


def index_row(version: str, line_no: int, lesson: str, text: str) -> dict[str, object]:
    return {
        "base_path": "/b",
        "version_id": version,
        "section": "active",
        "line_no": line_no,
        "lesson_id": lesson,
        "line_text": f"{text}  ",
    }


ROWS = [
    index_row("v1", 4, "L-0001", "- L-0001 use x"),
    index_row("v1", 5, "L-0002", "- L-0002 do y"),
    index_row("v1", 9, "L-0003", "- L-0003 run z"),
    index_row("v2", 4, "L-0009", "- L-0009 other"),  # another version: never paired
]


def seen(tid: str, text: bool, l1: bool, l2: bool, l3: bool) -> list[dict[str, object]]:
    return [
        {"tool_use_id": tid, "lesson_id": lesson, "has_text": text, "is_seen": flag}
        for lesson, flag in (("L-0001", l1), ("L-0002", l2), ("L-0003", l3))
    ]


CASES = [
    Case(
        "seen by the text, by a grep pattern, by the range and by a kept tail",
        given={
            "int_index_reads_versioned": [
                # Read output with line numbers; the second row is cut mid-line
                read("text", "read-tool", read_text="     4\t- L-0001 use x\n     5\t- L-0002 do"),
                # a grep without its output: rows matching l-000[13], case-insensitive
                read("grep", "grep", grep_pattern="l-000[13]", grep_flags="-i"),
                read("head", "head", line_from=1, line_to=5),
                # lines 1..4, and a truncation marker kept the last 2 lines (9 and 10)
                read("tail", "cat", line_from=1, line_to=4, tail_part_lines=2),
            ],
            "stg_index_rows": ROWS,
        },
        expected=[
            *seen("text", True, True, False, False),
            *seen("grep", False, True, False, True),
            *seen("head", False, True, True, False),
            *seen("tail", False, True, False, True),
        ],
    ),
    Case(
        "reads that deliver the same text, of one version or of two",
        given={
            "int_index_reads_versioned": [
                read("a1", "cat", read_text="- L-0001 use x\n- L-0003 run z"),
                read("a2", "cat", read_text="- L-0001 use x\n- L-0003 run z"),
                read("a3", "cat", read_text="- L-0002 do y"),
                # v2's row as v1's text: line 4 of v2, which is not v1's line 4
                read("a4", "cat", read_text="- L-0009 other"),
                read("b1", "cat", version_id="v2", read_text="- L-0001 use x\n- L-0003 run z"),
                read("b2", "cat", version_id="v2", read_text="- L-0009 other"),
            ],
            "stg_index_rows": ROWS,
        },
        expected=[
            *seen("a1", True, True, False, True),
            *seen("a2", True, True, False, True),
            *seen("a3", True, False, True, False),
            *seen("a4", True, False, False, False),
            {"tool_use_id": "b1", "lesson_id": "L-0009", "has_text": True, "is_seen": False},
            {"tool_use_id": "b2", "lesson_id": "L-0009", "has_text": True, "is_seen": True},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("ends_with(d.line, trim(rows.line_text))", "contains(d.line, left(trim(rows.line_text), 8))"),
    ("and d.version_id = rows.version_id", "and true"),
    (
        "left join texts using (base_path, version_id, read_text)",
        "left join texts using (base_path, read_text)",
    ),
    ("then '(?i)' || pairs.grep_pattern", "then pairs.grep_pattern"),
    ("pairs.line_no > pairs.n_lines - pairs.tail_part_lines", "false"),
    ("else pairs.line_no between pairs.line_from and pairs.line_to", "else true"),
    ("inner join rows using (base_path, version_id)", "inner join rows using (base_path)"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
