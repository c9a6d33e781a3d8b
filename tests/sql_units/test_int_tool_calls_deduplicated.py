"""int_tool_calls_deduplicated: calls of kept lines, one per tool_use_id, the earliest copy."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_tool_calls_deduplicated"
KEPT = [
    {"file_id": 1, "line_no": 3, "agent_key": "main", "file_path": "/p/a.jsonl"},
    {"file_id": 2, "line_no": 3, "agent_key": "main", "file_path": "/p/b.jsonl"},
    {"file_id": 2, "line_no": 4, "agent_key": "x1", "file_path": "/p/b.jsonl"},
]
CASES = [
    Case(
        "a replayed call counts once, first by time; calls without id stay apart",
        given={
            "stg_tool_calls": [
                {"file_id": 1, "line_no": 3, "session_id": "s1", "tool_use_id": "tu1",
                 "tool_name": "Read", "ts": "2026-11-02 10:00:05+00"},
                # the resume replays tu1 later in another file: the first copy wins
                {"file_id": 2, "line_no": 3, "session_id": "s2", "tool_use_id": "tu1",
                 "tool_name": "Read", "ts": "2026-11-02 10:00:09+00"},
                # id-less calls: the line is their id, so two identical ones count once
                {"file_id": 2, "line_no": 4, "session_id": "s2", "tool_use_id": None,
                 "tool_name": "shell", "input_json": "{\"a\":1}", "ts": "2026-11-02 10:01:00+00"},
                {"file_id": 2, "line_no": 4, "session_id": "s2", "tool_use_id": None,
                 "tool_name": "shell", "input_json": "{\"a\":1}", "ts": "2026-11-02 10:01:00+00"},
                # a call on a line deduplication dropped
                {"file_id": 9, "line_no": 1, "session_id": "s9", "tool_use_id": "tu9",
                 "tool_name": "Bash", "ts": "2026-11-02 10:00:00+00"},
            ],
            "int_events_deduplicated": KEPT,
        },
        expected=[
            {"tool_use_id": "tu1", "session_id": "s1", "agent_key": "main",
             "transcript_file": "/p/a.jsonl", "line_no": 3},
            {"tool_use_id": None, "session_id": "s2", "agent_key": "x1",
             "transcript_file": "/p/b.jsonl", "line_no": 4},
        ],
    ),
    Case(
        "on a tie of time the first transcript file by path wins",
        given={
            "stg_tool_calls": [
                {"file_id": 2, "line_no": 3, "session_id": "s2", "tool_use_id": "tu1",
                 "ts": "2026-11-02 10:00:05+00"},
                {"file_id": 1, "line_no": 3, "session_id": "s1", "tool_use_id": "tu1",
                 "ts": "2026-11-02 10:00:05+00"},
            ],
            "int_events_deduplicated": KEPT,
        },
        expected=[{"tool_use_id": "tu1", "session_id": "s1", "transcript_file": "/p/a.jsonl"}],
    ),
]  # fmt: skip
MUTANTS = [
    ("where copy_rank = 1", "where copy_rank >= 1"),
    ("calls.ts, calls.transcript_file", "calls.ts desc, calls.transcript_file"),
    ("calls.ts, calls.transcript_file,", "calls.ts, calls.transcript_file desc,"),
    # a call with two copies must be ranked, not kept twice as a single
    ("having count(*) > 1", "having count(*) > 2"),
    ("anti join duplicated", "left join duplicated"),
    ("inner join kept_lines", "left join kept_lines"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
