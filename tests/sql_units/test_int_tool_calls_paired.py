"""int_tool_calls_paired: each call with its result and duration."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_tool_calls_paired"
CASES = [
    Case(
        "recorded duration wins, else result minus call to the microsecond; no result",
        given={
            "int_tool_calls_deduplicated": [
                {"session_id": "s", "agent_key": "main", "tool_use_id": "tu1", "line_no": 3,
                 "ts": "2026-11-02 10:00:00.250+00", "transcript_file": "/p/s.jsonl"},
                {"session_id": "s", "agent_key": "a7", "tool_use_id": "tu2", "line_no": 5,
                 "ts": "2026-11-02 10:00:00+00"},
                {"session_id": "s", "agent_key": "main", "tool_use_id": "tu3", "line_no": 8,
                 "ts": "2026-11-02 10:00:00+00"},
            ],
            "int_tool_results_deduplicated": [
                # 10:00:01.750 - 10:00:00.250 = 1.5 s
                {"tool_use_id": "tu1", "ts": "2026-11-02 10:00:01.750+00", "line_no": 4,
                 "file_path": "/p/s.jsonl", "is_error": True, "exit_code": 2},
                # Codex wall time 0.125 s recorded; the timestamps say 60 s
                {"tool_use_id": "tu2", "ts": "2026-11-02 10:01:00+00", "duration_s": 0.125,
                 "line_no": 6},
                # a result of a call not kept: no row
                {"tool_use_id": "tu9", "ts": "2026-11-02 10:01:00+00", "line_no": 9},
            ],
        },
        expected=[
            {"tool_use_id": "tu1", "agent_run_id": "s/main", "has_result": True,
             "duration_s": 1.5, "is_error": True, "exit_code": 2, "call_line": 3,
             "result_line": 4, "is_truncated": False},
            {"tool_use_id": "tu2", "agent_run_id": "s/a7", "has_result": True,
             "duration_s": 0.125, "is_error": False, "exit_code": None, "call_line": 5,
             "result_line": 6, "is_truncated": False},
            {"tool_use_id": "tu3", "agent_run_id": "s/main", "has_result": False,
             "duration_s": None, "is_error": False, "exit_code": None, "call_line": 8,
             "result_line": None, "is_truncated": False},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("left join results", "inner join results"),
    (
        "(epoch_us(results.ts) - epoch_us(calls.ts)) / 1e6",
        "date_diff('second', calls.ts, results.ts)",
    ),
    # the two instants the other way round: a negative duration
    ("epoch_us(results.ts) - epoch_us(calls.ts)", "epoch_us(calls.ts) - epoch_us(results.ts)"),
    ("results.duration_s,\n", "null,\n"),
    ("coalesce(results.is_error, false)", "results.is_error"),
    ("results.tool_use_id is not null as has_result", "true as has_result"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
