"""int_mentions_kept: lesson ids seen on kept lines, once, with the line's run and file."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_mentions_kept"
CASES = [
    Case(
        "mentions on kept lines only, duplicates merged",
        given={
            "stg_mentions": [
                {"file_id": 1, "line_no": 1, "session_id": "s", "source": "tool_result",
                 "tool_use_id": "tu1", "lesson_id": "L-0001"},
                # the same mention twice (the parser found the id twice in one result)
                {"file_id": 1, "line_no": 1, "session_id": "s", "source": "tool_result",
                 "tool_use_id": "tu1", "lesson_id": "L-0001"},
                {"file_id": 1, "line_no": 2, "session_id": "s", "source": "user",
                 "tool_use_id": None, "lesson_id": "L-0002"},
                # a replayed line that deduplication dropped
                {"file_id": 2, "line_no": 1, "session_id": "r", "source": "user",
                 "tool_use_id": None, "lesson_id": "L-0003"},
            ],
            "int_events_deduplicated": [
                {"file_id": 1, "line_no": 1, "agent_key": "main", "file_path": "/p/s.jsonl"},
                {"file_id": 1, "line_no": 2, "agent_key": "a1", "file_path": "/p/s.jsonl"},
            ],
        },
        expected=[
            {"file_id": 1, "line_no": 1, "lesson_id": "L-0001", "tool_use_id": "tu1",
             "source": "tool_result", "agent_key": "main", "file_path": "/p/s.jsonl"},
            {"file_id": 1, "line_no": 2, "lesson_id": "L-0002", "tool_use_id": None,
             "source": "user", "agent_key": "a1", "file_path": "/p/s.jsonl"},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("select distinct", "select"),
    ("inner join kept_lines", "left join kept_lines"),
    ("kept_lines.agent_key,\n", "'main' as agent_key,\n"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
