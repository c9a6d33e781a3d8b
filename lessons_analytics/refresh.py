"""The incremental-refresh protocol: which sessions a run touched, which models were built
from which files, and whether this run rebuilds the layers whole or only the touched sessions.
"""

from __future__ import annotations

import duckdb
import polars as pl


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
