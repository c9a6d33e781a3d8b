"""A ritual's calls and the active time inside them, asked of DuckDB in one statement
(``metrics.ritual_calls(active=True)``), are the two queries they are made of: cost_calls,
and cost_active given the ids of cost_calls' rows."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import duckdb
import pytest

from lessons_analytics import metrics, warehouse
from tests.support.demo_warehouse import demo_warehouse


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    _, db = demo_warehouse(tmp_path_factory.mktemp("rituals"))
    return warehouse.connect(db, read_only=True)


def _cases(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    rituals = [r for (r,) in con.execute("select distinct ritual from dim_lessons").fetchall()]
    bases = [b for (b,) in con.execute("select base_path from dim_bases order by 1").fetchall()]
    window = {
        "since": datetime(2026, 10, 10, tzinfo=UTC),
        "until": datetime(2026, 11, 10, tzinfo=UTC),
    }
    cases = []
    for pattern in [*(r for r in rituals if r), "^git ", "^no such command$"]:
        for scope in (None, [bases[0]]):
            for when in ({"since": None, "until": None}, window):
                for cap in (300.0, 10.0):
                    cases.append({"pattern": pattern, "bases": scope, **when, "gap_cap_s": cap})
    return cases


def test_one_statement_is_cost_calls_then_cost_active(con: duckdb.DuckDBPyConnection) -> None:
    weighed = 0
    for params in _cases(con):
        found = metrics.ritual_calls(con, params, active=True)
        rows = metrics.query_rows(con, "cost_calls", **params)
        weeks: dict[str | None, tuple[int, list[float]]] = {}
        for row in rows:
            count, durations = weeks.get(row["week"], (0, []))
            timed = [row["duration_s"]] if row["timed"] else []
            weeks[row["week"]] = (count + 1, durations + timed)
        ids = [row["tool_use_id"] for row in rows]
        (active,) = metrics.query_rows(con, "cost_active", **params, call_ids=ids)
        assert {w: (n, sorted(d)) for w, (n, d) in found.weeks.items()} == {
            w: (n, sorted(d)) for w, (n, d) in weeks.items()
        }, params
        assert found.active_seconds == (active["active_seconds"] if ids else 0.0), params
        weighed += bool(found.active_seconds)
    # the cases weigh real time: rituals with calls that hold gaps, in and out of a window
    assert weighed >= 8


@pytest.fixture
def overlapping() -> Iterator[duckdb.DuckDBPyConnection]:
    """One session, two calls of `^make` that overlap: 10:00:00-10:02:00 and
    10:01:00-10:03:00, and its events' gaps."""
    con = duckdb.connect()
    warehouse._session_settings(con)
    con.execute("create table dim_session_scope (session_id varchar, base_path varchar,"
                " started_at timestamptz)")  # fmt: skip
    con.execute("insert into dim_session_scope values ('s', '/b', $t)", {"t": _at("09:59:50")})
    con.execute("create table fct_tool_calls (session_id varchar, agent_run_id varchar,"
                " tool_use_id varchar, tool_name varchar, command varchar,"
                " called_at timestamptz, result_at timestamptz, has_result boolean,"
                " duration_s double, exit_code integer, is_error boolean,"
                " transcript_file varchar, call_line integer)")  # fmt: skip
    for call, command, start, end in (("a", "make test", "10:00:00", "10:02:00"),
                                      ("b", "make check", "10:01:00", "10:03:00")):  # fmt: skip
        con.execute(
            "insert into fct_tool_calls values ('s', 'r', $id, 'Bash', $command, $a, $b,"
            " true, 120.0, 0, false, 's.jsonl', 1)",
            {"id": call, "command": command, "a": _at(start), "b": _at(end)},
        )
    con.execute("create table fct_events (session_id varchar, ts timestamptz, gap_s double)")
    events = [
        ("09:59:50", None),  # the session's first event: no gap
        ("10:01:05", 75.0),  # from 09:59:50, before either call: not inside
        ("10:01:50", 45.0),  # from 10:01:05: inside both calls, weighed once
        ("10:02:50", 60.0),  # from 10:01:50: inside the second alone
        ("10:05:00", 130.0),  # from 10:02:50: after both
    ]
    for clock, gap in events:
        con.execute(
            "insert into fct_events values ('s', $ts, $gap)", {"ts": _at(clock), "gap": gap}
        )
    yield con
    con.close()


def _at(clock: str) -> datetime:
    return datetime.fromisoformat(f"2026-11-02T{clock}+00:00")


@pytest.mark.parametrize(("cap", "inside"), [(300.0, 45.0 + 60.0), (50.0, 45.0 + 50.0)])
def test_calls_that_overlap_weigh_each_gap_once(
    overlapping: duckdb.DuckDBPyConnection, cap: float, inside: float
) -> None:
    params = {"pattern": "^make", "bases": None, "since": None, "until": None, "gap_cap_s": cap}
    found = metrics.ritual_calls(overlapping, params, active=True)
    assert found.weeks == {"2026-W45": (2, [120.0, 120.0])}
    assert found.active_seconds == inside
    (by_ids,) = metrics.query_rows(overlapping, "cost_active", **params, call_ids=["a", "b"])
    assert by_ids["active_seconds"] == inside


def test_ritual_durations_are_each_questions_timed_calls(con: duckdb.DuckDBPyConnection) -> None:
    # one statement for every (base, pattern) asked gives each pair the durations that pair
    # asked alone (ritual_calls narrowed to the base) gives, for every window
    rituals = [r for (r,) in con.execute("select distinct ritual from dim_lessons").fetchall()]
    bases = [b for (b,) in con.execute("select base_path from dim_bases order by 1").fetchall()]
    patterns = [*(r for r in rituals if r), "^git ", "^no such command$"]
    asked = [(base, pattern) for base in bases for pattern in patterns]
    windows = (
        metrics.Filters(),
        metrics.Filters(since=datetime(2026, 10, 10, tzinfo=UTC)),
        metrics.Filters(until=datetime(2026, 11, 10, tzinfo=UTC)),
    )
    timed = 0
    for window in windows:
        found = metrics.ritual_durations(con, window, asked)
        assert list(found) == asked
        for base, pattern in asked:
            scoped = metrics.Filters((base,), window.since, window.until)
            alone = metrics.ritual_calls(con, {**scoped.params(), "pattern": pattern})
            expected = sorted(d for _, durations in alone.weeks.values() for d in durations)
            assert sorted(found[(base, pattern)]) == expected, (window, base, pattern)
            timed += len(expected)
    assert timed > 50  # the cases time real calls


@pytest.fixture
def nested() -> Iterator[duckdb.DuckDBPyConnection]:
    """Two bases, /app and /app/api (nested: session 'both' is in the scope of each),
    session 'none' in no base's, and their calls."""
    con = duckdb.connect()
    warehouse._session_settings(con)
    con.execute("create table dim_session_scope (session_id varchar, base_path varchar,"
                " started_at timestamptz)")  # fmt: skip
    for session, base in (("app", "/app"), ("both", "/app"), ("both", "/app/api"),
                          ("none", None)):  # fmt: skip
        con.execute(
            "insert into dim_session_scope values ($s, $b, $t)",
            {"s": session, "b": base, "t": _at("09:00:00")},
        )
    con.execute("create table fct_tool_calls (session_id varchar, agent_run_id varchar,"
                " tool_use_id varchar, tool_name varchar, command varchar,"
                " called_at timestamptz, result_at timestamptz, has_result boolean,"
                " duration_s double, exit_code integer, is_error boolean,"
                " transcript_file varchar, call_line integer)")  # fmt: skip
    calls = (
        ("a", "app", "make test", "10:00:00", True, 10.0),
        ("b", "app", "cd x && make test", "10:01:00", True, 20.0),  # matched after the split
        ("c", "app", "make test", "10:02:00", False, None),  # no result: not timed
        ("d", "app", "git commit -m x", "10:03:00", True, 1.5),
        ("e", "both", "make test", "10:04:00", True, 40.0),  # in /app's and /app/api's scope
        ("f", "both", "git commit", "10:05:00", True, 2.5),
        ("g", "none", "make test", "10:06:00", True, 80.0),  # in no base's scope
        ("h", "app", "echo make test", "10:07:00", True, 160.0),  # not at a command's start
        ("i", "app", "make test", "12:00:00", True, 320.0),  # after the window's end
    )
    for call, session, command, clock, has_result, duration in calls:
        con.execute(
            "insert into fct_tool_calls values ($s, 'r', $id, 'Bash', $command, $a, null,"
            " $has_result, $duration, 0, false, 's.jsonl', 1)",
            {"s": session, "id": call, "command": command, "a": _at(clock),
             "has_result": has_result, "duration": duration},
        )  # fmt: skip
    yield con
    con.close()


def test_ritual_durations_keep_each_bases_calls(nested: duckdb.DuckDBPyConnection) -> None:
    window = metrics.Filters(until=_at("11:00:00"))
    asked = [("/app", "^make test"), ("/app/api", "^make test"), ("/app", "^git commit"),
             ("/app/api", "^git commit"), ("/nowhere", "^make test"),
             ("/app", "^make test")]  # fmt: skip
    found = metrics.ritual_durations(nested, window, asked)
    assert {key: sorted(durations) for key, durations in found.items()} == {
        ("/app", "^make test"): [10.0, 20.0, 40.0],  # a, b and e; c untimed, g, h, i not
        ("/app/api", "^make test"): [40.0],  # e alone: its session is in both scopes
        ("/app", "^git commit"): [1.5, 2.5],
        ("/app/api", "^git commit"): [2.5],
        ("/nowhere", "^make test"): [],  # a base without a session times no call
    }
    assert metrics.ritual_durations(nested, window, []) == {}
