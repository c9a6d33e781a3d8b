"""effect_lessons asked up to an end that leaves out none of the bases' exposures and hits
(``queries/effect_until.sql``) is the question asked without the end: the report asks it
once for both (its signs without an end, its effects up to the week's end)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import pytest

from lessons_analytics import metrics, warehouse
from lessons_analytics.effect import lesson_effect_rows, lesson_effects
from lessons_analytics.metrics import Filters
from lessons_analytics.settings import Thresholds
from tests.support.demo_warehouse import demo_warehouse


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    _, db = demo_warehouse(tmp_path_factory.mktemp("effect-until"))
    return warehouse.connect(db, read_only=True)


def _ends(con: duckdb.DuckDBPyConnection) -> list[datetime]:
    """Ends around the last session start and the last hit, and each week's end."""
    (last_start, last_hit) = con.execute(
        "select (select max(started_at) from fct_lesson_exposures),"
        " (select max(coalesce(missed_at, hit_date::timestamptz)) from fct_hit_attribution)"
    ).fetchall()[0]
    tick = timedelta(microseconds=1)
    ends = {last_start, last_start + tick, last_hit, last_hit + tick}
    ends |= {last_start + timedelta(days=7) - timedelta(days=7 * k) for k in range(12)}
    return sorted(e.astimezone(UTC) for e in ends)


def _bases(con: duckdb.DuckDBPyConnection) -> list[list[str] | None]:
    return [None, *([r["base_path"]] for r in metrics.query_rows(con, "bases"))]


def _rows(con: duckdb.DuckDBPyConnection, bases: Any, until: datetime | None) -> list[Any]:
    return metrics.query_rows(
        con, "effect_lessons", bases=bases, since=None, until=until, retire_window_days=60
    )


def test_an_end_that_leaves_nothing_out_gives_the_unbounded_answer(
    con: duckdb.DuckDBPyConnection,
) -> None:
    seen = set()
    for bases in _bases(con):
        unbounded = _rows(con, bases, None)
        for until in _ends(con):
            (row,) = metrics.query_rows(con, "effect_until", bases=bases, until=until)
            seen.add(row["unchanged"])
            if row["unchanged"]:
                assert _rows(con, bases, until) == unbounded, (bases, until)
    assert seen == {True, False}  # both sides of the test are exercised


def test_the_report_memo_gives_what_asking_alone_gives(con: duckdb.DuckDBPyConnection) -> None:
    t = Thresholds()
    for bases in _bases(con):
        for until in _ends(con)[-6:]:
            filters = Filters(tuple(bases or ()), None, until)
            alone = lesson_effects(con, filters, t)
            rows = lesson_effect_rows(con, filters, t)
            with metrics.remembering(con):
                lesson_effect_rows(con, Filters(tuple(bases or ())), t)  # the signs' question
                shared = lesson_effects(con, filters, t)
                shared_rows = lesson_effect_rows(con, filters, t)
            assert shared.schema == alone.schema
            assert shared.rows() == alone.rows(), (bases, until)
            assert shared_rows == rows, (bases, until)
