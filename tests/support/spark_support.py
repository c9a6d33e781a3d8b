"""One local SparkSession for every Spark test (starting one takes 15-20 s)."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    from lessons_analytics.spark_engine import session

    started = dt.datetime.now()
    spark = session("local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    print(f"\nspark session start: {(dt.datetime.now() - started).total_seconds():.1f} s")
    yield spark
    spark.stop()


def _value(v: Any) -> Any:
    if isinstance(v, float | decimal.Decimal):
        v = float(v)
        # floats equal to 9 significant digits: sums may add in another order
        return None if math.isnan(v) else float(f"{v:.9g}")
    if isinstance(v, dt.datetime):
        return v.astimezone(dt.UTC) if v.tzinfo else v.replace(tzinfo=dt.UTC)
    if isinstance(v, list | tuple):
        return tuple(_value(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _value(x)) for k, x in v.items()))
    return v


def canonical_rows(table: Any) -> list[tuple[Any, ...]]:
    """A pyarrow table's rows, each as sorted (column, value) pairs, the rows sorted:
    results compared by column name and as a multiset of rows."""
    rows = [tuple(sorted((k, _value(v)) for k, v in row.items())) for row in table.to_pylist()]
    return sorted(rows, key=repr)
