"""int_session_bases_linked: a session gets every base of every cwd its lines or calls record."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_session_bases_linked"
LINKS = [
    {"cwd": "/a/b", "base_path": "/a/LESSONS", "depth": 1},
    {"cwd": "/a/b", "base_path": "/a/b/LESSONS", "depth": 0},
    {"cwd": "/a/b/sub", "base_path": "/a/LESSONS", "depth": 2},
    {"cwd": "/c", "base_path": "/c/LESSONS", "depth": 0},
    {"cwd": "/d", "base_path": "/d/LESSONS", "depth": 0},
]
CASES = [
    Case(
        "cwds of lines and of calls, nested bases, nulls skipped",
        given={
            "int_events_deduplicated": [
                {"session_id": "s1", "cwd": "/a/b"},
                {"session_id": "s1", "cwd": "/a/b"},  # a second line in the same cwd
                {"session_id": "s1", "cwd": "/a/b/sub"},  # another cwd of the same outer base
                {"session_id": "s2", "cwd": None},
                {"session_id": None, "cwd": "/d"},  # a line of no session
                {"session_id": "s3", "cwd": "/nowhere"},  # a cwd in no base
            ],
            "int_tool_calls_deduplicated": [
                {"session_id": "s1", "cwd": "/c"},  # a call that moved into another repo
                {"session_id": "s2", "cwd": "/a/b"},
                {"session_id": None, "cwd": "/d"},
            ],
            "stg_cwd_bases": LINKS,
        },
        # worked out by hand: s1 -> /a/b (2 bases), /a/b/sub (/a again), /c; s2 -> /a/b
        # only; s3 none
        expected=[
            {"session_id": "s1", "base_path": "/a/LESSONS"},
            {"session_id": "s1", "base_path": "/a/b/LESSONS"},
            {"session_id": "s1", "base_path": "/c/LESSONS"},
            {"session_id": "s2", "base_path": "/a/LESSONS"},
            {"session_id": "s2", "base_path": "/a/b/LESSONS"},
        ],
    ),
    Case("no lines, no bases", given={"stg_cwd_bases": LINKS}, expected=[]),
]
MUTANTS = [
    ("select distinct session_cwds.session_id", "select session_cwds.session_id"),
    ("inner join links", "left join links"),
    (
        "from int_events_deduplicated where session_id is not null",
        "from int_events_deduplicated where true",
    ),
    ("from int_tool_calls_deduplicated where", "from int_tool_calls_deduplicated where false and"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
