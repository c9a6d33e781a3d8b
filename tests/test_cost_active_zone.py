"""queries/cost_active.sql weighs a gap against a call by the microseconds between them,
which are the same in every session time zone: around a daylight-saving change too (a
difference of local wall times would gain the hour)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import duckdb
import pytest

from lessons_analytics import metrics

# New York moves its clocks from 02:00 to 03:00 at 07:00 UTC on this day
CHANGE = "2026-03-08"


def _at(clock: str) -> datetime:
    return datetime.fromisoformat(f"{CHANGE}T{clock}+00:00")


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    con.execute("create table dim_session_scope (session_id varchar, base_path varchar,"
                " started_at timestamptz)")  # fmt: skip
    con.execute("create table fct_tool_calls (session_id varchar, tool_use_id varchar,"
                " called_at timestamptz, result_at timestamptz)")  # fmt: skip
    con.execute("create table fct_events (session_id varchar, ts timestamptz, gap_s double)")
    con.execute("insert into dim_session_scope values ('s', '/b', $t)", {"t": _at("06:50:00")})
    # one call across the change, 06:59:50 to 07:02:00 UTC
    con.execute(
        "insert into fct_tool_calls values ('s', 'call', $a, $b)",
        {"a": _at("06:59:50"), "b": _at("07:02:00")},
    )
    events = [
        ("06:59:40", None),  # the session's first event: no gap
        ("07:00:10", 30.0),  # from 06:59:40, before the call started: not inside
        ("07:01:00", 50.0),  # from 07:00:10: inside
    ]
    for clock, gap in events:
        con.execute(
            "insert into fct_events values ('s', $ts, $gap)", {"ts": _at(clock), "gap": gap}
        )
    yield con
    con.close()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_the_time_inside_a_call_is_the_same_in_every_session_zone(
    con: duckdb.DuckDBPyConnection, zone: str
) -> None:
    con.execute(f"set TimeZone = '{zone}'")
    (row,) = metrics.query_rows(
        con, "cost_active", call_ids=["call"], bases=None, since=None, until=None, gap_cap_s=300.0
    )
    assert row["active_seconds"] == 50.0
