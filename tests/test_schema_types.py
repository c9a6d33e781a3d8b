"""One polars -> DuckDB type map, one identifier quoting, one ISO-week helper."""

from __future__ import annotations

from datetime import date
from typing import Any

import duckdb
import polars as pl
import pytest

from lessons_analytics import nightly, report, weeks
from lessons_analytics.schema import (
    BASE_TABLES,
    RAW_TABLES,
    STORED_TABLES,
    create_sql,
    duck_type,
    polars_schema,
)
from lessons_analytics.sqlfiles import quote_identifier

ALL_TABLES: dict[str, dict[str, Any]] = {**RAW_TABLES, **BASE_TABLES, **STORED_TABLES}


@pytest.mark.parametrize("table", sorted(ALL_TABLES))
def test_the_map_is_what_duckdb_makes_of_the_frame(table: str) -> None:
    # DuckDB's own reading of an empty frame of the declared types must be the map's type
    con = duckdb.connect()
    frame = pl.DataFrame(schema=polars_schema(ALL_TABLES[table]))
    con.register("frame", frame.to_arrow())
    made = dict(con.execute("select column_name, column_type from (describe frame)").fetchall())
    cols = ", ".join(f"{quote_identifier(n)} {duck_type(t)}" for n, t in ALL_TABLES[table].items())
    con.execute(f"create table declared ({cols})")
    declared = con.execute("select column_name, column_type from (describe declared)").fetchall()
    assert made == dict(declared)


def test_stored_tables_are_created_from_the_schema() -> None:
    con = duckdb.connect()
    con.execute(create_sql("fct_sign_history"))
    con.execute(create_sql("fct_sign_history"))  # if not exists: a second run is harmless
    columns = con.execute("select column_name from (describe fct_sign_history)").fetchall()
    assert [c for (c,) in columns] == list(STORED_TABLES["fct_sign_history"])
    with pytest.raises(TypeError, match="no DuckDB type"):
        duck_type(pl.Int32)


def test_quote_identifier() -> None:
    con = duckdb.connect()
    odd = 'a "b"; drop table x'
    con.execute(f"create table {quote_identifier(odd)} ({quote_identifier('select')} int)")
    assert con.execute("select table_name from duckdb_tables()").fetchall() == [(odd,)]
    assert quote_identifier("raw_files") == '"raw_files"'
    with pytest.raises(ValueError):
        quote_identifier("")


def test_one_last_complete_week() -> None:
    assert nightly.last_complete_week is weeks.last_complete_week
    assert report.last_complete_week is weeks.last_complete_week
    assert weeks.last_complete_week(date(2026, 12, 6)) == "2026-W48"  # Sunday: W49 still runs
    assert weeks.last_complete_week(date(2026, 12, 7)) == "2026-W49"  # Monday
    assert weeks.last_complete_week(date(2027, 1, 4)) == "2026-W53"  # 2026 has 53 ISO weeks
