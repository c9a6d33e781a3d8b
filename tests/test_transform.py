"""How the layers are materialized: a ``temp`` model is a table of the file for the rest of
the build and a view in the file after it, and a warehouse whose models were built as another
kind still rebuilds."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lessons_analytics import transform, warehouse
from lessons_analytics.sqlfiles import layer_files

EVENTS = (
    "insert into raw_files (file_id, path) values (1, '/p/a.jsonl'), (2, '/p/b.jsonl');"
    " insert into raw_events (file_id, line_no, session_id, uuid, ts, line_type) values"
    " (1, 1, 'A', 'u1', '2026-11-02 10:00:00+00', 'user'),"
    " (1, 2, 'A', 'u2', '2026-11-02 10:00:05+00', 'assistant'),"
    # B resumes A: it replays u1 and adds u3
    " (2, 1, 'B', 'u1', '2026-11-02 10:00:00+00', 'user'),"
    " (2, 2, 'B', 'u3', '2026-11-02 11:00:00+00', 'user')"
)


def _temp_models() -> list[str]:
    return [p.stem for p in layer_files() if transform.materialization(p, p.read_text()) == "temp"]


def _kind(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """How ``name`` is stored in the file: 'table', 'view' or None."""
    rows = con.execute(
        "select 'table' from duckdb_tables() where table_name = ? and not temporary"
        " union all select 'view' from duckdb_views() where view_name = ? and not temporary",
        [name, name],
    ).fetchall()
    assert len(rows) <= 1
    return rows[0][0] if rows else None


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = warehouse.connect(path)
    warehouse.ensure_raw_tables(con)
    con.execute(EVENTS)
    con.close()
    return path


def test_temp_models_are_views_in_the_file_and_give_the_build_s_rows(db: Path) -> None:
    assert "int_events_deduplicated" in _temp_models()
    con = warehouse.connect(db)
    con.begin()
    transform.build(con)
    # before the commit the file holds a view of each, not the build's table (whose rows
    # the commit would write), and nothing temporary
    assert {name: _kind(con, name) for name in _temp_models()} == dict.fromkeys(
        _temp_models(), "view"
    )
    assert con.execute("select table_name from duckdb_tables() where temporary").fetchall() == []
    con.commit()
    during = sorted(
        con.execute("select session_id, line_no from int_events_deduplicated").fetchall()
    )
    con.close()
    # u1 is kept once, in A (which started first, ended first); B keeps only its own line
    assert during == [("A", 1), ("A", 2), ("B", 2)]
    con = warehouse.connect(db, read_only=True)
    assert {name: _kind(con, name) for name in _temp_models()} == dict.fromkeys(
        _temp_models(), "view"
    )
    after = sorted(
        con.execute("select session_id, line_no from int_events_deduplicated").fetchall()
    )
    assert after == during
    assert con.execute("select count(*) from fct_events").fetchall() == [(3,)]
    con.close()


def test_a_warehouse_built_with_other_kinds_rebuilds(db: Path) -> None:
    """An older version stored the temp models as tables and some tables as views."""
    con = warehouse.connect(db)
    con.execute("create table int_events_deduplicated as select 1 as stale")
    con.execute("create view fct_events as select 1 as stale")
    transform.build(con)
    assert _kind(con, "int_events_deduplicated") == "view"
    assert _kind(con, "fct_events") == "table"
    assert con.execute("select count(*) from fct_events").fetchall() == [(3,)]
    # and a second build over the first
    transform.build(con)
    assert con.execute("select count(*) from fct_events").fetchall() == [(3,)]
    con.close()


def test_a_temp_model_is_computed_once_into_a_table_of_the_file(db: Path) -> None:
    """Its later readers read its rows from a table of the file (compressed as DuckDB writes
    it, where a temporary table stayed in memory until the commit), not its view again."""
    con = warehouse.connect(db)
    con.begin()
    temps: list[tuple[str, str]] = []
    for path in layer_files():
        transform._build_one(con, path, temps)
        if path.stem == "int_events_deduplicated":
            break
    assert [stem for stem, _ in temps] == ["int_events_deduplicated"]
    assert _kind(con, "int_events_deduplicated") == "table"
    assert con.execute("select table_name from duckdb_tables() where temporary").fetchall() == []
    transform._settle_temps(con, temps)
    assert _kind(con, "int_events_deduplicated") == "view"
    con.rollback()
    con.close()
