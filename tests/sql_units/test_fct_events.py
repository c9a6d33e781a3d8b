"""fct_events: the kept lines of kept runs, each with its gap to the session's previous event."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "fct_events"


def line(file_id: int, line_no: int, session: str, run: str, ts: str | None) -> dict[str, object]:
    return {
        "file_id": file_id,
        "line_no": line_no,
        "session_id": session,
        "agent_key": run,
        "ts": None if ts is None else f"2026-11-02 {ts}+00",
    }


def row(file_id: int, line_no: int, run_id: str, gap_s: float | None) -> dict[str, object]:
    return {"file_id": file_id, "line_no": line_no, "agent_run_id": run_id, "gap_s": gap_s}


CASES = [
    Case(
        "gaps run over the session's runs in time order, ties by the key",
        given={
            "int_events_deduplicated": [
                line(1, 1, "A", "main", "10:00:00"),
                line(1, 2, "A", "main", "10:05:00"),
                line(1, 3, "A", "main", "10:01:30"),  # written after 10:05, happened before
                line(2, 1, "A", "sub", "10:02:00"),  # a subagent's file: same session
                line(2, 2, "A", "sub", "10:05:00"),  # same instant as (1, 2)
                line(1, 4, "A", "main", None),  # no ts: no gap, and breaks none
                line(1, 5, "A", "main", "10:05:00.25"),
                line(3, 1, "B", "main", "10:03:00"),  # in the middle of A's time line
                line(3, 2, "B", "main", "10:04:00"),
                line(4, 1, "A", "ghost", "10:04:00"),  # a run dim_agent_runs dropped
            ],
            "dim_agent_runs": [
                {"session_id": "A", "agent_key": "main"},
                {"session_id": "A", "agent_key": "sub"},
                {"session_id": "B", "agent_key": "main"},
            ],
        },
        # worked out by hand: A's timestamped events in time order are 10:00 (1,1), 10:01:30
        # (1,3), 10:02 (2,1), 10:05 (1,2) then (2,2) (the tie goes to the lower file_id
        # first), 10:05:00.25 (1,5); the ghost run's line is not A's; B starts afresh
        expected=[
            row(1, 1, "A/main", None),
            row(1, 3, "A/main", 90.0),
            row(2, 1, "A/sub", 30.0),
            row(1, 2, "A/main", 180.0),
            row(2, 2, "A/sub", 0.0),
            row(1, 4, "A/main", None),
            row(1, 5, "A/main", 0.25),
            row(3, 1, "B/main", None),
            row(3, 2, "B/main", 60.0),
        ],
    ),
    Case(
        "a session of one timestamped event has no gap",
        given={
            "int_events_deduplicated": [
                line(1, 1, "A", "main", None),
                line(1, 2, "A", "main", "10:00:00"),
            ],
            "dim_agent_runs": [{"session_id": "A", "agent_key": "main"}],
        },
        expected=[row(1, 1, "A/main", None), row(1, 2, "A/main", None)],
    ),
]
MUTANTS = [
    ("partition by events.session_id", "partition by events.agent_key"),  # per run, not session
    ("partition by events.session_id", "partition by 1"),  # B's first event lags A's
    # file order instead of time order
    ("order by events.ts asc nulls last,", "order by"),
    # the tie broken the other way: (2, 2) would carry the 180 s
    ("events.file_id asc, events.line_no asc", "events.file_id desc, events.line_no desc"),
    ("semi join runs", "left join runs"),  # the ghost run's line is kept
    ("inner join gaps", "left join gaps"),  # so is it here
    ("epoch_us(events.ts)\n", "epoch_us(events.ts) / 1000\n"),  # milliseconds minus us
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
