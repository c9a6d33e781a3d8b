"""The lint over sql/ and queries/: nothing that Spark would read differently."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlglot")

from lessons_analytics import sqlfiles  # noqa: E402
from lessons_analytics.spark_engine import portable_problems, to_spark  # noqa: E402


def _every_file() -> list[str]:
    paths = [*sqlfiles.layer_files(), *sorted(sqlfiles.queries_root().glob("*.sql"))]
    return [str(p) for p in paths]


@pytest.mark.parametrize("path", _every_file())
def test_every_model_and_query_translates(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        assert portable_problems(handle.read()) == []


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("select * from a asof join b on a.t >= b.t", "ASOF"),
        ("select x from t qualify row_number() over (order by y) = 1 limit 5", "QUALIFY"),
        ("select quantile_cont(x, 0.9) from t", "quantile"),
        ("select median(x) from t", "quantile"),
        ("select list(x order by x) from t", "ordered aggregate"),
        ("select string_agg(x, ',' order by x) from t", "ordered aggregate"),
        ("select epoch(ts) from t", "unix_timestamp"),
        ("select strftime(ts, '%Y-%V') from t", "week-based"),
        ("select epoch_ns(ts) from t", "untranslated"),
    ],
)
def test_the_known_traps_are_refused(sql: str, words: str) -> None:
    problems = portable_problems(sql)
    assert problems and words in " ".join(problems)


def test_portable_forms_pass() -> None:
    for sql in (
        "select date_diff('microsecond', a, b) / 1e6 from t",
        "select (epoch_us(b) - epoch_us(a)) / 1e6 from t",
        "select list_sort(list(x)) from t",
        "select strftime(ts, '%G-W%V') from t",
        "with r as (select x, row_number() over (order by y) as n from t)"
        " select x from r where n = 1 limit 5",
    ):
        assert portable_problems(sql) == [], sql


def test_epoch_us_is_spark_unix_micros() -> None:
    assert to_spark("select epoch_us(ts) - epoch_us(t0) as d from t") == (
        "SELECT UNIX_MICROS(ts) - UNIX_MICROS(t0) AS d FROM t"
    )


def test_the_iso_week_and_parameters_are_rewritten() -> None:
    spark_sql = to_spark("select strftime(ts, '%G-W%V') as w from t where $since is null")
    assert "YEAROFWEEK" in spark_sql and "WEEKOFYEAR" in spark_sql
    assert "CAST(:since AS TIMESTAMP)" in spark_sql


def test_a_materialization_hint_is_dropped() -> None:
    # DuckDB's planner advice (queries/effect_lessons.sql); Spark's grammar has no place for it
    duck = "with a as not materialized (select 1 as x), b as materialized (select 2 as y)"
    assert to_spark(f"{duck} select * from a, b") == (
        "WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT * FROM a, b"
    )
