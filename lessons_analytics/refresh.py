"""The incremental-refresh protocol: which sessions a run touched, which models were built
from which files, and whether this run rebuilds the layers whole or only the touched sessions.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl

from lessons_analytics import transform
from lessons_analytics.sqlfiles import layer_files
from lessons_analytics.transform import is_incremental, materialization, model_body


def touched_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create or replace temp table touched_lines (session_id varchar, uuid varchar)")


def touch(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> None:
    """Remember the sessions (and line ids) of files whose rows are about to change."""
    if not file_ids:
        return
    ids = pl.DataFrame({"file_id": file_ids}, schema={"file_id": pl.Int64})
    con.register("touched_ids", ids.to_arrow())
    con.execute(
        "insert into touched_lines select session_id, uuid from raw_events"
        " where file_id in (select file_id from touched_ids) and session_id is not null"
    )
    con.execute(
        "insert into touched_lines select session_id, null from raw_subagent_meta"
        " where file_id in (select file_id from touched_ids) and session_id is not null"
    )
    con.unregister("touched_ids")


def affected_sessions(con: duckdb.DuckDBPyConnection) -> str:
    """The sessions whose rows a refresh must recompute: those of the touched files, and
    those sharing a line id with them (a resume copy's keeper may change)."""
    con.execute(
        """
        create or replace temp table affected_sessions as
        select distinct session_id from touched_lines
        union
        select distinct events.session_id
        from raw_events events
        inner join (select distinct uuid from touched_lines where uuid is not null) touched
            using (uuid)
        where events.session_id is not null
        """
    )
    return "affected_sessions"


def built_with(con: duckdb.DuckDBPyConnection) -> str | None:
    """Fingerprint of the sql/ models the layers were last built from (None: never built)."""
    con.execute("create table if not exists meta_build (models varchar, built_at timestamptz)")
    rows = con.execute("select models from meta_build").fetchall()
    return rows[0][0] if rows else None


def record_build(con: duckdb.DuckDBPyConnection, models: str) -> None:
    con.execute("delete from meta_build")
    con.execute("insert into meta_build values (?, now())", [models])


def build_sessions(con: duckdb.DuckDBPyConnection, sessions_table: str) -> list[str]:
    """Run the models for the sessions of ``sessions_table`` (a table of ``session_id``s):
    incremental models are refreshed for those sessions only: while it runs, the incremental
    staging views pass only those sessions, whose rows depend on no other session's (the
    affected set holds every session that shares a line id with one of them)."""
    paths = layer_files()
    con.execute("delete from meta_build_sessions")
    con.execute(f"insert into meta_build_sessions select session_id from {sessions_table}")
    staging = [
        p for p in paths if p.parent.name == "staging" and is_incremental(model_body(p))
    ]
    scoped = _scoped_tables(con, paths)
    try:
        for path in staging:
            con.execute(
                f"create or replace view {path.stem} as select * from (\n{model_body(path)}\n)"
                f" where session_id in {_SCOPE}"
            )
        scope = transform.Scope(_SCOPE, lambda body: _in_scope(body, scoped))
        return transform.build(con, scope)
    finally:
        for path in staging:
            con.execute(f"create or replace view {path.stem} as\n{model_body(path)}")
        for name in scoped:
            con.execute(f"drop view if exists {_scoped_name(name)}")
        con.execute("delete from meta_build_sessions")


_SCOPE = "(select session_id from meta_build_sessions)"


def _scoped_name(table: str) -> str:
    return f"{table}__in_scope"


def _scoped_tables(con: duckdb.DuckDBPyConnection, paths: list[Path]) -> dict[str, re.Pattern[str]]:
    """The incremental tables, each with a temporary view of its rows of the refreshed
    sessions. An incremental model reads them through those views: its rows depend on its
    own session only, so the other sessions' rows cannot change them, and the refresh then
    reads the touched sessions instead of whole tables (the filter of ``_build_one`` is not
    pushed below DuckDB's joins, windows and aggregates)."""
    found = {}
    for path in paths:
        body = model_body(path)
        if materialization(path, body) == "table" and is_incremental(body):
            con.execute(
                f"create or replace temp view {_scoped_name(path.stem)} as"
                f" select * from {path.stem} where session_id in {_SCOPE}"
            )
            found[path.stem] = re.compile(rf"(?<![\w.]){path.stem}(?!\w)")
    return found


def _in_scope(body: str, scoped: dict[str, re.Pattern[str]]) -> str:
    for name, pattern in scoped.items():
        body = pattern.sub(_scoped_name(name), body)
    return body
