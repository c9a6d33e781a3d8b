"""int_file_reads_targeted: what a read hit in a base (index, lesson, ...), kept runs only."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_file_reads_targeted"
READS = [
    ("tu1", 0, "/r/LESSONS/INDEX.md"),
    ("tu1", 1, "/r/LESSONS/L-0007-use-x.md"),
    ("tu2", 0, "/r/LESSONS/QUARANTINE.md"),
    ("tu2", 1, "/r/LESSONS/RETIRED.md"),
    ("tu3", 0, "/r/LESSONS/old/L-0008.md"),  # not directly in LESSONS/: other
    ("tu3", 1, "/r/src/main.py"),  # in no base
    ("tu3", 2, "/r/LESSONS-old/L-0001.md"),  # a sibling folder whose name starts alike
    ("tu3", 3, "/q/LESSONS/L-0002.md"),  # the second base
    ("tu4", 0, "/r/LESSONS/INDEX.md"),  # read by a warm-up run: dropped
    ("tu5", 0, "/r/LESSONS/INDEX.md"),  # its call is not kept: dropped
]
CASES = [
    Case(
        "targets of each read",
        given={
            "int_file_reads_kept": [
                {"tool_use_id": t, "read_idx": i, "path": p, "method": "cat"} for t, i, p in READS
            ],
            "int_tool_calls_paired": [
                {"tool_use_id": "tu1", "agent_run_id": "S/main", "session_id": "S"},
                {"tool_use_id": "tu2", "agent_run_id": "S/main", "session_id": "S"},
                {"tool_use_id": "tu3", "agent_run_id": "S/main", "session_id": "S"},
                {"tool_use_id": "tu4", "agent_run_id": "S/w1", "session_id": "S"},
            ],
            "stg_bases": [{"base_path": "/r/LESSONS"}, {"base_path": "/q/LESSONS"}],
            "int_agent_runs_identified": [
                {"agent_run_id": "S/main", "is_warmup": False},
                {"agent_run_id": "S/w1", "is_warmup": True},
            ],
        },
        # lesson_id: regexp_extract gives '' (not null) when the name is no lesson's
        expected=[
            {"tool_use_id": "tu1", "read_idx": 0, "base_path": "/r/LESSONS", "target": "index",
             "lesson_id": "", "session_id": "S"},
            {"tool_use_id": "tu1", "read_idx": 1, "base_path": "/r/LESSONS", "target": "lesson",
             "lesson_id": "L-0007", "session_id": "S"},
            {"tool_use_id": "tu2", "read_idx": 0, "base_path": "/r/LESSONS",
             "target": "quarantine", "lesson_id": "", "session_id": "S"},
            {"tool_use_id": "tu2", "read_idx": 1, "base_path": "/r/LESSONS", "target": "retired",
             "lesson_id": "", "session_id": "S"},
            {"tool_use_id": "tu3", "read_idx": 0, "base_path": "/r/LESSONS", "target": "other",
             "lesson_id": "", "session_id": "S"},
            {"tool_use_id": "tu3", "read_idx": 1, "base_path": None, "target": "other",
             "lesson_id": None, "session_id": "S"},
            {"tool_use_id": "tu3", "read_idx": 2, "base_path": None, "target": "other",
             "lesson_id": None, "session_id": "S"},
            {"tool_use_id": "tu3", "read_idx": 3, "base_path": "/q/LESSONS", "target": "lesson",
             "lesson_id": "L-0002", "session_id": "S"},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("bases.base_path || '/')", "bases.base_path)"),
    ("left join bases", "inner join bases"),
    ("'^L-[0-9]+[^/]*\\.md$'", "'L-[0-9]+.*\\.md$'"),
    ("inner join kept_runs using (agent_run_id)", ""),
    ("then 'quarantine'", "then 'other'"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
