"""Exactness by running: every mart and every query on DuckDB and on local Spark over the
same Parquet export of the demo workspace must give the same rows."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("sqlglot")

from lessons_analytics import exchange, metrics, spark_engine, sqlfiles, warehouse  # noqa: E402
from tests.support.demo_warehouse import demo_warehouse
from tests.support.spark_support import canonical_rows, spark  # noqa: E402, F401

pytestmark = pytest.mark.spark

MARTS = sorted(p.stem for p in (sqlfiles.sql_root() / "marts").glob("*.sql"))
QUERIES = sorted(p.stem for p in sqlfiles.queries_root().glob("*.sql"))


@dataclass
class Engines:
    duck: Any
    spark: Any
    params: list[dict[str, Any]]


@pytest.fixture(scope="module")
def engines(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:  # noqa: F811
    root = tmp_path_factory.mktemp("spark-demo")
    _, db = demo_warehouse(root / "demo")
    export = root / "export"
    exchange.export_parquet(db, export, "demo")
    central = root / "central.duckdb"
    exchange.import_parquet(central, [export])
    started = time.perf_counter()
    spark_engine.register_contract(spark, [export])
    spark_engine.build(spark)
    print(f"\nspark contract + build: {time.perf_counter() - started:.1f} s")
    duck = warehouse.connect(central, read_only=True)
    yield Engines(duck, spark, _params(duck))
    duck.close()


def _params(duck: Any) -> list[dict[str, Any]]:
    """Everything open, then a window, one base and a named lesson, session, pattern."""
    ritual = duck.execute("select min(ritual) from dim_lessons").fetchall()[0][0]
    lesson, session = duck.execute(
        "select lesson_id, session_id from fct_recall_evidence order by 1, 2 limit 1"
    ).fetchall()[0]
    base = duck.execute("select min(base_path) from dim_bases").fetchall()[0][0]
    # cost_active: some calls' ids, so its capped gaps inside calls are compared, not zeros
    call_ids = [
        row[0]
        for row in duck.execute(
            "select tool_use_id from fct_tool_calls where tool_use_id is not null"
            " order by tool_use_id limit 200"
        ).fetchall()
    ]
    named = {
        "pattern": ritual,
        "lesson": lesson,
        "session": session,
        "sessions": [session],
        "call_ids": call_ids,
    }
    fixed = {
        "divisor": 4,
        "large_bytes": 20480,
        "gap_cap_s": 300,
        "retire_window_days": 60,
        "window_sessions": 20,
        "shown": 10,
    }
    window = {
        "bases": [base],
        "since": dt.datetime(2026, 10, 10, tzinfo=dt.UTC),
        "until": dt.datetime(2026, 11, 10, tzinfo=dt.UTC),
        "before": dt.datetime(2026, 11, 10, tzinfo=dt.UTC),
        "hits_only": True,  # effect_evidence: the sessions with a hit alone
    }
    return [{**named, **fixed}, {**named, **fixed, **window}]


def test_the_fixture_has_rows_in_every_mart(engines: Engines) -> None:
    empty = [
        m for m in MARTS if not engines.duck.execute(f"select count(*) from {m}").fetchall()[0][0]
    ]
    # the demo has no malformed input, so only the load-error mart is empty
    assert empty == ["fct_load_errors"]


@pytest.mark.parametrize("mart", MARTS)
def test_mart_equal_on_both_engines(engines: Engines, mart: str) -> None:
    duck = engines.duck.sql(f"select * from {mart}").to_arrow_table()
    spark_rows = engines.spark.table(mart).toArrow()
    assert sorted(duck.schema.names) == sorted(spark_rows.schema.names)
    assert canonical_rows(duck) == canonical_rows(spark_rows)


@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("name", QUERIES)
def test_query_equal_on_both_engines(engines: Engines, name: str, case: int) -> None:
    params = engines.params[case]
    sql = sqlfiles.load(name)
    bound = {n: params.get(n) for n in metrics._PARAM.findall(sql)}
    duck = engines.duck.sql(sql, params=bound).to_arrow_table()
    spark_rows = spark_engine.query(engines.spark, name, **params)
    assert duck.schema.names == spark_rows.schema.names
    assert canonical_rows(duck) == canonical_rows(spark_rows)
