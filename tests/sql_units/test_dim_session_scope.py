"""dim_session_scope: every session once per base it belongs to, and once with no base."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "dim_session_scope"
CASES = [
    Case(
        "two bases, one base, no base, no start",
        given={
            "fct_sessions": [
                {"session_id": "s1", "started_at": "2026-11-02 10:00:00+00"},
                {"session_id": "s2", "started_at": "2026-11-03 09:30:00+00"},
                {"session_id": "s3", "started_at": "2026-11-04 08:00:00+00"},
                {"session_id": "s4", "started_at": None},  # a session whose start is unknown
            ],
            "dim_session_bases": [
                {"session_id": "s1", "base_path": "/a/LESSONS"},
                {"session_id": "s1", "base_path": "/b/LESSONS"},
                {"session_id": "s2", "base_path": "/a/LESSONS"},
                {"session_id": "gone", "base_path": "/a/LESSONS"},  # a link of no session
            ],
        },
        # worked out by hand: s1 twice (one row per base), s2 once, s3 and s4 once each
        # with a null base; the link of no session is not a session
        expected=[
            {"session_id": "s1", "base_path": "/a/LESSONS", "started_at": "2026-11-02 10:00:00+00"},
            {"session_id": "s1", "base_path": "/b/LESSONS", "started_at": "2026-11-02 10:00:00+00"},
            {"session_id": "s2", "base_path": "/a/LESSONS", "started_at": "2026-11-03 09:30:00+00"},
            {"session_id": "s3", "base_path": None, "started_at": "2026-11-04 08:00:00+00"},
            {"session_id": "s4", "base_path": None, "started_at": None},
        ],
    ),
    Case(
        "no sessions, a stray link",
        given={"dim_session_bases": [{"session_id": "gone", "base_path": "/a/LESSONS"}]},
        expected=[],
    ),
]
MUTANTS = [
    ("left join links", "inner join links"),  # sessions without a base vanish
    ("left join links", "full join links"),  # the stray link becomes a row
    ("sessions.session_id,", "links.session_id,"),  # a session without a base loses its id
    ("links.base_path,", "null as base_path,"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
