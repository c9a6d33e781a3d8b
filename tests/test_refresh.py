"""The refresh protocol on a hand-made warehouse: which sessions a change touches, and when a
run may refresh them instead of rebuilding every table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import refresh, transform, warehouse
from lessons_analytics.lessonbase.loading import BaseRefresh
from lessons_analytics.schema import META_TABLES
from lessons_analytics.sqlfiles import models_fingerprint


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    con = warehouse.connect(tmp_path / "w.duckdb")
    warehouse.ensure_raw_tables(con)
    # file 1 and 2 hold the same line u1 (a resumed session copies its parent's lines);
    # file 3 is unrelated; file 4 is a subagent's meta file
    con.execute(
        "insert into raw_events (file_id, session_id, uuid) values"
        " (1, 'A', 'u1'), (1, 'A', 'u2'), (2, 'B', 'u1'), (3, 'C', 'u3'), (3, null, 'u4')"
    )
    con.execute("insert into raw_subagent_meta (file_id, session_id) values (4, 'D')")
    return con


def _affected(con: duckdb.DuckDBPyConnection) -> list[str]:
    table = refresh.affected_sessions(con)
    return [row[0] for row in con.execute(f"select session_id from {table} order by 1").fetchall()]


def test_meta_tables_come_from_the_schema(con: duckdb.DuckDBPyConnection) -> None:
    for table, columns in META_TABLES.items():
        found = con.execute(
            "select column_name from information_schema.columns where table_name = ?"
            " order by ordinal_position",
            [table],
        ).fetchall()
        assert [name for (name,) in found] == list(columns)


def test_a_first_build_is_full_and_tracks_nothing(con: duckdb.DuckDBPyConnection) -> None:
    build = refresh.Refresh(con)
    assert build.models_changed
    assert not build.incremental(BaseRefresh(False, False, False))
    build.touch([1])
    assert _affected(con) == []


def test_touched_sessions_and_those_sharing_a_line(con: duckdb.DuckDBPyConnection) -> None:
    refresh.record_build(con, models_fingerprint())
    build = refresh.Refresh(con)
    assert not build.models_changed
    build.touch([1])
    # A was touched; B shares u1 with it; C shares nothing
    assert _affected(con) == ["A", "B"]
    build.touch([4])
    assert _affected(con) == ["A", "B", "D"]


def test_base_changes_decide_full_or_incremental(con: duckdb.DuckDBPyConnection) -> None:
    refresh.record_build(con, models_fingerprint())
    build = refresh.Refresh(con)
    assert build.incremental(BaseRefresh(False, False, False))
    # links for new working directories only: their sessions are touched anyway
    assert build.incremental(BaseRefresh(False, True, True))
    assert not build.incremental(BaseRefresh(False, True, False))
    assert not build.incremental(BaseRefresh(True, False, False))


def test_other_models_rebuild_whole(con: duckdb.DuckDBPyConnection) -> None:
    refresh.record_build(con, "an older set of models")
    build = refresh.Refresh(con)
    assert build.models_changed
    assert not build.incremental(BaseRefresh(False, False, False))


def test_every_table_a_model_reads_is_declared(con: duckdb.DuckDBPyConnection) -> None:
    # build_sessions knows the tables by the schema, not by asking the catalog: a model
    # reading a table the schema does not declare would never count that table as written
    from lessons_analytics.schema import BASE_TABLES, RAW_TABLES
    from lessons_analytics.sqlfiles import layer_files
    from lessons_analytics.transform import model_body

    transform.build(con)
    catalog = {
        row[0]
        for row in con.execute(
            "select table_name from duckdb_tables()"
            " union select view_name from duckdb_views() where not internal"
        ).fetchall()
    }
    paths = layer_files()
    declared = {p.stem for p in paths} | set(RAW_TABLES) | set(BASE_TABLES) | set(META_TABLES)
    for path in paths:
        named = refresh._inputs(model_body(path), catalog, path.stem)
        assert named <= declared, (path.stem, named - declared)
    assert {"raw_events", "stg_events", "raw_bases"} <= catalog  # the catalog was asked


def _settings(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(
        con.execute(
            "select name, value from duckdb_settings()"
            " where name in ('threads', 'disabled_optimizers')"
        ).fetchall()
    )


def test_a_refresh_of_a_few_sessions_puts_the_settings_back(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a refresh of at most FEW_SESSIONS runs on one thread with some optimizer passes off,
    # those the engine knows (DuckDB adds and renames passes, and refuses the whole setting for
    # one name it does not know), and the passes the caller turned off stay off; the
    # connection's own values, whatever they were, come back after it
    monkeypatch.setattr(
        refresh, "FEW_SESSIONS_UNOPTIMIZED", (*refresh.FEW_SESSIONS_UNOPTIMIZED, "no_such_pass")
    )
    transform.build(con)
    con.execute("set threads = 3")
    con.execute("set disabled_optimizers = 'top_n'")
    con.execute("create temp table chosen as select unnest(['A', 'B']) as session_id")
    during: list[dict[str, str]] = []
    scoped_rows = refresh._scoped_rows

    def recording(con: duckdb.DuckDBPyConnection, *args: Any) -> None:
        during.append(_settings(con))
        scoped_rows(con, *args)

    monkeypatch.setattr(refresh, "_scoped_rows", recording)
    assert "fct_sessions" in refresh.build_sessions(con, "chosen", False)
    assert during
    for seen in during:  # DuckDB lists the passes in an order of its own
        assert seen["threads"] == "1"
        assert set(seen["disabled_optimizers"].split(",")) == {
            "top_n",
            *refresh.FEW_SESSIONS_UNOPTIMIZED,
        } - {"no_such_pass"}
    assert _settings(con) == {"threads": "3", "disabled_optimizers": "top_n"}
    # more sessions than that: the refresh runs as the connection is set
    monkeypatch.setattr(refresh, "FEW_SESSIONS", 1)
    during.clear()
    refresh.build_sessions(con, "chosen", False)
    assert during
    assert all(seen == {"threads": "3", "disabled_optimizers": "top_n"} for seen in during)
