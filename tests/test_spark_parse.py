"""Parsing on Spark: the raw tables a Spark job writes equal those a local ingest writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

pytest.importorskip("pyspark")

from lessons_analytics import exchange  # noqa: E402
from lessons_analytics.demo import build_demo  # noqa: E402
from lessons_analytics.ingestion import ingest  # noqa: E402
from lessons_analytics.schema import RAW_TABLES  # noqa: E402
from lessons_analytics.spark_parse import parse_to_contract  # noqa: E402
from tests.support.spark_support import spark  # noqa: E402, F401

pytestmark = pytest.mark.spark


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    rows = con.execute(sql, params).fetchall()
    return sorted(rows, key=lambda row: tuple((v is None, str(v)) for v in row))


def test_spark_parse_equals_local_ingest(spark: Any, tmp_path: Path) -> None:  # noqa: F811
    workspace = build_demo(tmp_path / "ws", seed=7)
    sources = workspace.sources
    db = tmp_path / "local.duckdb"
    ingest(db, sources, workspace.bases)
    out = tmp_path / "bucket"
    totals = parse_to_contract(spark, sources, out, "bucket", files_per_task=40)
    exchange.check_export(out)
    con = duckdb.connect(str(db), read_only=True)
    assert totals["raw_events"] > 1000 and totals["raw_files"] > 100
    for table, columns in RAW_TABLES.items():
        # when the file was loaded differs between the two runs, and nothing else
        names = ", ".join(c for c in columns if c != "loaded_at")
        local = _rows(con, f"select {names} from {table}", [])
        files = exchange.table_files([out], table)
        assert len(local) == totals[table], table
        if not files:
            assert local == [], table
            continue
        parsed = _rows(con, f"select {names} from read_parquet(?)", [files])
        assert parsed == local, table
    # event tables are partitioned by day
    assert all(
        p.name.startswith("date=") for p in (out / "raw_events" / "machine=bucket").iterdir()
    )
