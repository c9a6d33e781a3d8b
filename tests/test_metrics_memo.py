"""The report's query memo and the Polars-free rows: the same answers as a plain run."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from lessons_analytics import metrics, warehouse
from lessons_analytics.ingestion import ingest
from tests.support import scenario

ROWS_QUERIES = ("bases", "heads", "heads_by_method", "heads_by_week", "coverage",
                "coverage_by_week", "hits", "hits_by_caught", "hits_by_lesson", "hits_by_class",
                "hits_list", "bodies", "bodies_by_lesson", "lesson_rituals", "cost_scope",
                "cost_calls", "effect_lessons", "effect_interventions",
                "effect_evidence")  # fmt: skip


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    tmp = tmp_path_factory.mktemp("memo")
    world = scenario.build(tmp)
    db = tmp / "w.duckdb"
    ingest(db, [world.projects, world.codex])
    return warehouse.connect(db, read_only=True)


PARAMS = {"divisor": 4.0, "large_bytes": 4000, "gap_cap_s": 300.0, "pattern": "^git commit",
          "retire_window_days": 60, "window_sessions": 2}  # fmt: skip


@pytest.mark.parametrize("name", ROWS_QUERIES)
@pytest.mark.parametrize("since", [None, datetime(2026, 3, 3, tzinfo=UTC)])
def test_rows_are_the_frames_rows(
    con: duckdb.DuckDBPyConnection, name: str, since: datetime | None
) -> None:
    frame = metrics.query(con, name, **PARAMS, since=since).to_dicts()
    rows = metrics.query_rows(con, name, **PARAMS, since=since)
    assert [list(r.items()) for r in rows] == [list(r.items()) for r in frame]
    # the same Python types too: a Decimal where Polars gives a float would change --json
    assert [[type(v) for v in r.values()] for r in rows] == [
        [type(v) for v in r.values()] for r in frame
    ]


def _count_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL run on the engine (as a frame or as rows), in order."""
    runs: list[str] = []
    for name in ("_run", "_fetch"):
        real = getattr(metrics, name)

        def counted(c: object, sql: str, bound: object, real: object = real) -> object:
            runs.append(sql)
            return real(c, sql, bound)  # type: ignore[operator]

        monkeypatch.setattr(metrics, name, counted)
    return runs


def test_a_remembered_query_runs_once(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _count_runs(monkeypatch)
    filters = metrics.Filters()
    outside = metrics.ritual_cost(con, "^make test", filters, None, 300.0)
    # cost_scope, then cost_calls and cost_active in one statement: 3 calls matched
    assert len(runs) == 2 and "ritual_calls as materialized" in runs[1]
    runs.clear()
    with metrics.remembering(con):
        first = metrics.ritual_cost(con, "^make test", filters, None, 300.0)
        again = metrics.ritual_cost(con, "^make test", filters, None, 300.0)
        assert runs[1] == runs[-1]  # the same two statements as outside, remembered
        assert len(runs) == 2
        metrics.ritual_cost(con, "^make test", filters, None, 60.0)
        # another cap binds other values in both
        assert len(runs) == 4
    assert first == again == outside
    metrics.ritual_cost(con, "^make test", filters, None, 300.0)
    assert len(runs) == 6  # the memo ends with its block


def test_no_call_no_active_time_query(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the calls and the time inside them in one statement, which finds no call and so
    # weighs no gap, in the memo as outside it
    runs = _count_runs(monkeypatch)
    with metrics.remembering(con):
        cost = metrics.ritual_cost(con, "^no such ritual$", metrics.Filters(), None, 300.0)
    assert cost["calls"] == 0 and cost["share_of_active_time"] == 0.0
    assert len(runs) == 2  # cost_scope, and the calls with their active time
    assert metrics.ritual_cost(con, "^no such ritual$", metrics.Filters(), None, 300.0) == cost


def test_the_memo_is_for_its_connection_only(con: duckdb.DuckDBPyConnection) -> None:
    other = duckdb.connect()
    other.execute("create table dim_bases as select 'x' as base_path, 'p' as project_dir")
    with metrics.remembering(con):
        mine = metrics.query(con, "bases")
        theirs = metrics.query(other, "bases")
    assert theirs["base_path"].to_list() == ["x"]
    assert mine["base_path"].to_list() != ["x"]
