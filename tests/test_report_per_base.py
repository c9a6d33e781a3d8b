"""The report asks its per-base queries once for every base (``metrics.per_base``) and a
ritual's calls once for all time (``metrics.by_time``): each base's rows, each window's
slice, are the answer asked for that base, that window alone, in the same order."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import duckdb
import pytest

from lessons_analytics import effect, metrics, warehouse
from lessons_analytics.report.data import BY_TIME, PER_BASE
from lessons_analytics.settings import Thresholds
from tests.support.demo_warehouse import demo_warehouse


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    _, db = demo_warehouse(tmp_path_factory.mktemp("per-base"))
    return warehouse.connect(db, read_only=True)


PARAMS: dict[str, Any] = {"divisor": 4.0, "large_bytes": 20480, "retire_window_days": 60,
                          "window_sessions": 20, "lesson": None}  # fmt: skip
WINDOWS = [
    (None, None),
    (None, datetime(2026, 11, 30, tzinfo=UTC)),
    (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)),
    (datetime(2026, 9, 7, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)),
]


def _bases(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r["base_path"] for r in metrics.query_rows(con, "bases")]


def test_the_demo_has_several_bases(con: duckdb.DuckDBPyConnection) -> None:
    assert len(_bases(con)) == 3


@pytest.mark.parametrize("name", PER_BASE)
@pytest.mark.parametrize(("since", "until"), WINDOWS)
def test_a_base_gets_its_own_answer(
    con: duckdb.DuckDBPyConnection, name: str, since: datetime | None, until: datetime | None
) -> None:
    bases = _bases(con)
    params = {**PARAMS, "since": since, "until": until}
    alone = {b: metrics.query(con, name, **params, bases=[b]) for b in bases}
    with metrics.remembering(con), metrics.per_base(con, bases, PER_BASE):
        shared = {b: metrics.query(con, name, **params, bases=[b]) for b in bases}
    assert any(frame.height for frame in alone.values())
    for base in bases:
        assert shared[base].schema == alone[base].schema, (name, base)
        assert shared[base].rows() == alone[base].rows(), (name, base)


def test_a_split_keeps_each_bases_rows_in_the_answers_order() -> None:
    # a base's rows together are a slice, a base's rows apart are gathered; the bases come
    # in the order of their first row, as partition_by(maintain_order=True) gave them
    import polars as pl

    frame = pl.DataFrame(
        {"base_path": ["/b", "/b", "/a", "/c", "/a", "/c", "/c"], "n": [1, 2, 3, 4, 5, 6, 7]},
        schema={"base_path": pl.Utf8, "n": pl.Int32},
    )
    parts = metrics._split_by_base(frame)
    assert list(parts) == ["/b", "/a", "/c"]
    assert {base: part["n"].to_list() for base, part in parts.items()} == {
        "/b": [1, 2], "/a": [3, 5], "/c": [4, 6, 7]
    }  # fmt: skip
    assert all(part.schema == frame.schema for part in parts.values())
    assert metrics._split_by_base(frame.clear()) == {}


def test_per_base_runs_a_query_once_for_every_base(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[str] = []
    real = metrics._run

    def counted(c: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any]) -> Any:
        runs.append(sql)
        return real(c, sql, bound)

    monkeypatch.setattr(metrics, "_run", counted)
    bases = _bases(con)
    with metrics.remembering(con), metrics.per_base(con, bases, ["heads"]):
        for base in bases:
            metrics.query_rows(con, "heads", bases=[base])
        metrics.query_rows(con, "coverage", bases=[bases[0]])  # not named: its own run
        metrics.query_rows(con, "heads", bases=["/not/a/base/of/the/report"])
    assert len(runs) == 3
    runs.clear()
    with metrics.per_base(con, bases, ["heads"]):  # without a memo it changes nothing
        metrics.query(con, "heads", bases=[bases[0]])
    assert len(runs) == 1


def test_outside_the_block_a_base_is_asked_alone(con: duckdb.DuckDBPyConnection) -> None:
    bases = _bases(con)
    with metrics.remembering(con):
        with metrics.per_base(con, bases, ["heads"]):
            pass
        frame = metrics.query(con, "heads", bases=[bases[0]])
    assert frame["base_path"].to_list() == [bases[0]]


@pytest.mark.parametrize("name", sorted(BY_TIME))
@pytest.mark.parametrize(("since", "until"), [*WINDOWS[1:], (WINDOWS[2][0], None)])
def test_a_window_is_its_slice_of_all_time(
    con: duckdb.DuckDBPyConnection, name: str, since: datetime | None, until: datetime | None
) -> None:
    rituals = metrics.query_rows(con, "lesson_rituals")
    assert rituals
    for item in rituals:
        params = {"bases": [item["base_path"]], "pattern": item["ritual"]}
        alone = metrics.query(con, name, **params, since=since, until=until)
        with metrics.remembering(con), metrics.by_time(con, BY_TIME):
            sliced = metrics.query(con, name, **params, since=since, until=until)
        assert sliced.schema == alone.schema
        assert sliced.rows() == alone.rows(), item


@pytest.mark.parametrize("name", PER_BASE)
@pytest.mark.parametrize(("since", "until"), WINDOWS)
def test_a_base_gets_its_own_rows(
    con: duckdb.DuckDBPyConnection, name: str, since: datetime | None, until: datetime | None
) -> None:
    # rows_per_base (stats, without Polars): each base's rows, once; asked again, alone
    bases = _bases(con)
    params = {**PARAMS, "since": since, "until": until}
    alone = {b: metrics.query_rows(con, name, **params, bases=[b]) for b in bases}
    with metrics.rows_per_base(con, bases, PER_BASE):
        shared = {b: metrics.query_rows(con, name, **params, bases=[b]) for b in bases}
        again = metrics.query_rows(con, name, **params, bases=[bases[0]])
    assert any(alone.values())
    assert shared == alone, name
    assert again == alone[bases[0]], name


@pytest.mark.parametrize("name", PER_BASE)
def test_an_answer_fetched_ahead_is_each_bases_own(
    con: duckdb.DuckDBPyConnection, name: str
) -> None:
    # stats fetches its slowest question ahead on a cursor of its own thread: each base
    # still gets its own rows, and the answer fetched ahead is the one taken (not asked
    # a second time on the connection)
    bases = _bases(con)
    params = {**PARAMS, "since": None, "until": None}
    alone = {b: metrics.query_rows(con, name, **params, bases=[b]) for b in bases}
    with metrics.rows_per_base(con, bases, PER_BASE):
        metrics.fetch_ahead(con, name, **params)
        shared = metrics._ROWS.get()
        assert shared is not None and len(shared.fetching) == 1
        taken = {b: metrics.query_rows(con, name, **params, bases=[b]) for b in bases}
        assert not shared.fetching
    assert taken == alone, name


def test_an_answer_fetched_ahead_and_never_taken_is_let_go(
    con: duckdb.DuckDBPyConnection,
) -> None:
    import threading

    bases = _bases(con)
    params = {**PARAMS, "since": None, "until": None}
    windowed = {**params, "until": datetime(2026, 11, 10, tzinfo=UTC)}  # mid-data
    threads = threading.active_count()
    with metrics.rows_per_base(con, bases, PER_BASE):
        metrics.fetch_ahead(con, "effect_lessons", **params)
        assert threading.active_count() == threads + 1  # the thread fetching ahead
        # another question (a window) is asked as it is, not answered by the one ahead
        asked = metrics.query_rows(con, "effect_lessons", **windowed, bases=[bases[0]])
    assert threading.active_count() == threads  # the fetch not taken is let go
    alone = metrics.query_rows(con, "effect_lessons", **windowed, bases=[bases[0]])
    whole = metrics.query_rows(con, "effect_lessons", **params, bases=[bases[0]])
    assert asked == alone != whole  # the window changes the answer
    # outside rows_per_base nothing is fetched ahead: no thread is started
    metrics.fetch_ahead(con, "effect_lessons", **params)
    assert threading.active_count() == threads


def test_stats_fetches_ahead_the_lesson_rows_it_then_asks(con: duckdb.DuckDBPyConnection) -> None:
    # signs.bases_stats fetches effect_lessons ahead: it must be the question
    # lesson_effect_rows asks of one base, or the answer is fetched for nothing
    bases = _bases(con)
    thresholds = Thresholds()
    with metrics.rows_per_base(con, bases, PER_BASE):
        effect.lesson_rows_ahead(con, thresholds)
        shared = metrics._ROWS.get()
        assert shared is not None and len(shared.fetching) == 1
        effect.lesson_effect_rows(con, metrics.Filters((bases[0],)), thresholds, costs={})
        assert not shared.fetching


def test_stats_fetches_ahead_the_ritual_calls_it_then_times(
    con: duckdb.DuckDBPyConnection,
) -> None:
    # signs.bases_stats fetches each base's ritual calls ahead, as lesson_costs asks them:
    # the costs are the same, and every fetch ahead is taken or dropped, none left over
    bases = _bases(con)
    thresholds = Thresholds()
    alone = {b: effect.lesson_costs(con, metrics.Filters((b,)), thresholds) for b in bases}
    assert any(hours for costs in alone.values() for hours, _ in costs.values())
    with metrics.rows_per_base(con, bases, PER_BASE):
        effect.ritual_times_ahead(con, bases)
        shared = metrics._ROWS.get()
        assert shared is not None and shared.fetching
        ahead = {b: effect.lesson_costs(con, metrics.Filters((b,)), thresholds) for b in bases}
        assert not shared.fetching
    assert ahead == alone
