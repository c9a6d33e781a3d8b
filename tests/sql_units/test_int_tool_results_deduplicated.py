"""int_tool_results_deduplicated: results of kept lines, the first per tool_use_id."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_tool_results_deduplicated"
CASES = [
    Case(
        "first result per call by time, then file path; id-less and dropped lines out",
        given={
            "stg_tool_results": [
                {"file_id": 1, "line_no": 4, "tool_use_id": "tu1", "result_chars": 10,
                 "ts": "2026-11-02 10:00:06+00"},
                # a second result of tu1, later: not the one that counts
                {"file_id": 1, "line_no": 7, "tool_use_id": "tu1", "result_chars": 99,
                 "ts": "2026-11-02 10:00:30+00"},
                # same time, two files: /p/a.jsonl sorts before /p/b.jsonl
                {"file_id": 2, "line_no": 2, "tool_use_id": "tu2", "result_chars": 2,
                 "ts": "2026-11-02 10:01:00+00"},
                {"file_id": 1, "line_no": 9, "tool_use_id": "tu2", "result_chars": 1,
                 "ts": "2026-11-02 10:01:00+00"},
                {"file_id": 1, "line_no": 8, "tool_use_id": None, "result_chars": 5,
                 "ts": "2026-11-02 10:02:00+00"},
                # a result on a line deduplication dropped
                {"file_id": 3, "line_no": 1, "tool_use_id": "tu3", "result_chars": 3,
                 "ts": "2026-11-02 10:03:00+00"},
            ],
            "int_events_deduplicated": [
                {"file_id": 1, "line_no": 4, "file_path": "/p/a.jsonl"},
                {"file_id": 1, "line_no": 7, "file_path": "/p/a.jsonl"},
                {"file_id": 1, "line_no": 8, "file_path": "/p/a.jsonl"},
                {"file_id": 1, "line_no": 9, "file_path": "/p/a.jsonl"},
                {"file_id": 2, "line_no": 2, "file_path": "/p/b.jsonl"},
            ],
        },
        expected=[
            {"tool_use_id": "tu1", "result_chars": 10, "line_no": 4, "file_path": "/p/a.jsonl"},
            {"tool_use_id": "tu2", "result_chars": 1, "line_no": 9, "file_path": "/p/a.jsonl"},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("where copy_rank = 1", "where copy_rank >= 1"),
    ("order by results.ts, results.file_path", "order by results.ts desc, results.file_path"),
    ("results.ts, results.file_path,", "results.ts, results.file_path desc,"),
    ("where stg_tool_results.tool_use_id is not null", "where true"),
    # a call with two results must be ranked, not kept twice as a single
    ("having count(*) > 1", "having count(*) > 2"),
    ("anti join duplicated", "left join duplicated"),
    ("inner join kept_lines", "left join kept_lines"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
