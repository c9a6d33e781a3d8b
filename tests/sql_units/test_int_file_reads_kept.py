"""int_file_reads_kept: the reads of kept calls, with the text of their kept result."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_file_reads_kept"
CASES = [
    Case(
        "reads of kept calls; the text only of a kept result",
        given={
            "stg_file_reads": [
                {"file_id": 1, "tool_use_id": "tu1", "read_idx": 0, "path": "/r/LESSONS/INDEX.md",
                 "method": "read-tool"},
                # one call reading two files
                {"file_id": 1, "tool_use_id": "tu2", "read_idx": 0, "path": "/r/a",
                 "method": "cat"},
                {"file_id": 1, "tool_use_id": "tu2", "read_idx": 1, "path": "/r/b",
                 "method": "cat"},
                # the replayed copy of tu1 in file 2: its call was not the kept one
                {"file_id": 2, "tool_use_id": "tu1", "read_idx": 0, "path": "/r/LESSONS/INDEX.md",
                 "method": "read-tool"},
            ],
            "int_tool_calls_deduplicated": [
                {"file_id": 1, "tool_use_id": "tu1"},
                {"file_id": 1, "tool_use_id": "tu2"},
            ],
            "int_tool_results_deduplicated": [
                {"file_id": 1, "tool_use_id": "tu1"},
                {"file_id": 3, "tool_use_id": "tu2"},
            ],
            "stg_read_texts": [
                {"file_id": 1, "tool_use_id": "tu1", "text": "# Index"},
                {"file_id": 2, "tool_use_id": "tu1", "text": "# replayed"},
                # tu2's kept result is in file 3, this text is from file 1: not kept
                {"file_id": 1, "tool_use_id": "tu2", "text": "a b"},
            ],
        },
        expected=[
            {"file_id": 1, "tool_use_id": "tu1", "read_idx": 0, "read_text": "# Index"},
            {"file_id": 1, "tool_use_id": "tu2", "read_idx": 0, "read_text": None},
            {"file_id": 1, "tool_use_id": "tu2", "read_idx": 1, "read_text": None},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    (
        "inner join kept_calls using (file_id, tool_use_id)",
        "inner join kept_calls using (tool_use_id)",
    ),
    (
        "inner join kept_results using (file_id, tool_use_id)",
        "inner join kept_results using (tool_use_id)",
    ),
    ("left join texts", "inner join texts"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
