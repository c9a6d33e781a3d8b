"""warehouse.connect: a writer attaches the file with small row groups, and the catalog keeps
the name a plain connect gives it (the readers' and the older code's)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lessons_analytics import warehouse
from lessons_analytics.errors import NoWarehouse
from tests.support.locks import writer_elsewhere


def _row_groups(con: duckdb.DuckDBPyConnection, table: str) -> int:
    (count,) = con.execute(
        "select count(distinct row_group_id) from pragma_storage_info(?)", [table]
    ).fetchall()[0]
    return int(count)


def test_a_writer_stores_quarter_row_groups(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    con = warehouse.connect(db)
    assert con.execute("select current_database()").fetchall() == [("w",)]
    # spills beside the file, as a plain connect of it has them, not in the working directory
    assert con.execute("select current_setting('temp_directory')").fetchall() == [(f"{db}.tmp",)]
    con.execute("create table t as select range as i from range(100_000)")
    con.commit()
    # 100,000 rows: one group at DuckDB's default 122,880 rows, four at 30,720
    assert _row_groups(con, "t") == 4
    con.close()
    reader = warehouse.connect(db, read_only=True)
    assert reader.execute("select count(*), sum(i) from t").fetchall() == [
        (100_000, 100_000 * 99_999 // 2)
    ]
    reader.close()


def test_a_file_named_like_a_duckdb_catalog_opens(tmp_path: Path) -> None:
    # a plain connect names the catalog "memory"; an attached file cannot take that name
    db = tmp_path / "memory.duckdb"
    con = warehouse.connect(db)
    con.execute("create table t (i integer)")
    con.execute("insert into t values (1)")
    con.close()
    with duckdb.connect(str(db), read_only=True) as plain:
        assert plain.execute("select i from t").fetchall() == [(1,)]


def test_a_writers_cursor_reads_the_file(tmp_path: Path) -> None:
    con = warehouse.connect(tmp_path / "w.duckdb")
    con.execute("create table t as select 1 as i")
    other = warehouse.cursor(con)
    assert other.execute("select current_database()").fetchall() == [("w",)]
    assert other.execute("select i from t").fetchall() == [(1,)]
    assert other.execute("select current_setting('TimeZone')").fetchall() == [("UTC",)]
    con.close()


def test_files_with_rows_are_those_with_a_row_in_any_file_table(tmp_path: Path) -> None:
    con = warehouse.connect(tmp_path / "w.duckdb")
    warehouse.ensure_raw_tables(con)
    con.execute("insert into raw_events (file_id, line_no) values (1, 1), (1, 2)")
    # an error alone (a file that never loaded) counts, a raw_files row alone does not
    con.execute("insert into raw_load_errors (file_id, line_no) values (2, 0)")
    con.execute("insert into raw_files (file_id, path) values (3, 'x.jsonl')")
    assert warehouse.files_with_rows(con, [1, 2, 3, 4]) == [1, 2]
    assert warehouse.files_with_rows(con, []) == []


def test_an_opening_hands_its_connection_over_once(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with warehouse.Opening(db) as opening:
        con = opening.take()
        with pytest.raises(RuntimeError, match="taken already"):
            opening.take()
        con.execute("create table t as select 1 as i")
    # taken: the caller's to close, and still open after the opening is left
    assert con.execute("select i from t").fetchall() == [(1,)]
    assert writer_elsewhere(db) != 0  # this process still holds the file
    con.close()
    assert writer_elsewhere(db) == 0


def test_an_opening_never_taken_is_closed_and_keeps_its_error(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    warehouse.connect(db).close()
    with warehouse.Opening(db) as untaken:
        pass  # e.g. the caller's imports failed before it took the connection
    # closed, not left to the garbage collector: ``untaken`` is still referenced here
    assert writer_elsewhere(db) == 0, "the untaken writer still holds the file"
    del untaken
    # connect's error is raised where the connection is taken, and only there
    missing = tmp_path / "missing.duckdb"
    with (
        warehouse.Opening(missing, read_only=True) as opening,
        pytest.raises(NoWarehouse, match="no warehouse yet"),
    ):
        opening.take()
    with warehouse.Opening(missing, read_only=True):
        pass
    assert not missing.exists()
