"""The incremental-refresh protocol: which sessions a run touched, which models the layers
were built from, and whether this run rebuilds the layers whole or only the touched sessions.

A run that only added or changed transcripts refreshes the incremental models (header
``-- incremental: session_id``) for the affected sessions alone: those of the touched files
and those sharing a line id with them (a resume copy's keeper may change). A first build, a
change of the ``sql/`` models, or a change of a base rebuilds every table whole.
tests/test_incremental.py checks that both give exactly the same tables.

The tables written here (``meta_build``, ``meta_build_sessions``) are declared in
``schema.META_TABLES`` and created with the raw tables; ``touched_lines`` and
``affected_sessions`` are temporary tables of this connection.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import duckdb

from lessons_analytics import transform
from lessons_analytics.lessonbase.loading import BaseRefresh
from lessons_analytics.sqlfiles import layer_files, quote_identifier
from lessons_analytics.transform import is_incremental, materialization, model_body

_TOUCHED = "touched_lines"
_AFFECTED = "affected_sessions"
_SESSIONS = "meta_build_sessions"
_SCOPE = f"(select session_id from {quote_identifier(_SESSIONS)})"


class Refresh:
    """One ingest run's refresh: told which files change while they load, then builds."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.models = transform.models_fingerprint()
        self.built_with = built_with(con)
        # which sessions change matters only to an incremental refresh; a first build or a
        # model upgrade rebuilds everything anyway
        self.track = self.built_with == self.models
        touched_table(con)

    @property
    def models_changed(self) -> bool:
        """The layers were never built, or built from other ``sql/`` models."""
        return self.built_with != self.models

    def touch(self, file_ids: list[int]) -> None:
        """Call before the rows of ``file_ids`` change (rewritten) and after (appended)."""
        if self.track:
            touch(self.con, file_ids)

    def incremental(self, bases: BaseRefresh) -> bool:
        """Whether only the touched sessions need rebuilding. New links come only with new
        working directories, whose sessions are touched; any other base change is global."""
        return (
            not self.models_changed
            and not bases.reloaded
            and (bases.links_only_added or not bases.links_changed)
        )

    def build(self, bases: BaseRefresh, stage: Callable[[str], None]) -> str:
        """Rebuild the layers and record the build; returns ``incremental`` or ``full``."""
        incremental = self.incremental(bases)
        stage("building tables")
        if incremental:
            build_sessions(self.con, affected_sessions(self.con))
        else:
            transform.build(self.con)
        record_build(self.con, self.models)
        return "incremental" if incremental else "full"


def touched_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        f"create or replace temp table {quote_identifier(_TOUCHED)}"
        " (session_id varchar, uuid varchar)"
    )


def touch(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> None:
    """Remember the sessions (and line ids) of files whose rows are about to change."""
    if not file_ids:
        return
    touched = quote_identifier(_TOUCHED)
    # the ids as one bound list: a handful per run, no frame (and no PyArrow) needed
    con.execute(
        f"insert into {touched} select session_id, uuid from raw_events"
        " where file_id in (select unnest($ids::bigint[])) and session_id is not null",
        {"ids": file_ids},
    )
    con.execute(
        f"insert into {touched} select session_id, null from raw_subagent_meta"
        " where file_id in (select unnest($ids::bigint[])) and session_id is not null",
        {"ids": file_ids},
    )


def affected_sessions(con: duckdb.DuckDBPyConnection) -> str:
    """The sessions whose rows a refresh must recompute: those of the touched files, and
    those sharing a line id with them (a resume copy's keeper may change). Returns the name
    of the temporary table that holds them."""
    touched = quote_identifier(_TOUCHED)
    con.execute(
        f"""
        create or replace temp table {quote_identifier(_AFFECTED)} as
        select distinct session_id from {touched}
        union
        select distinct events.session_id
        from raw_events events
        inner join (select distinct uuid from {touched} where uuid is not null) touched
            using (uuid)
        where events.session_id is not null
        """
    )
    return _AFFECTED


def built_with(con: duckdb.DuckDBPyConnection) -> str | None:
    """Fingerprint of the sql/ models the layers were last built from (None: never built)."""
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
    sessions = quote_identifier(_SESSIONS)
    con.execute(f"delete from {sessions}")
    con.execute(f"insert into {sessions} select session_id from {quote_identifier(sessions_table)}")
    staging = [p for p in paths if p.parent.name == "staging" and is_incremental(model_body(p))]
    scoped = _scoped_tables(con, paths)
    try:
        for path in staging:
            con.execute(
                f"create or replace view {quote_identifier(path.stem)} as select * from (\n"
                f"{model_body(path)}\n) where session_id in {_SCOPE}"
            )
        scope = transform.Scope(_SCOPE, lambda body: _in_scope(body, scoped))
        return transform.build(con, scope)
    finally:
        for path in staging:
            con.execute(
                f"create or replace view {quote_identifier(path.stem)} as\n{model_body(path)}"
            )
        for name in scoped:
            con.execute(f"drop view if exists {quote_identifier(_scoped_name(name))}")
        con.execute(f"delete from {sessions}")


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
                f"create or replace temp view {quote_identifier(_scoped_name(path.stem))} as"
                f" select * from {quote_identifier(path.stem)} where session_id in {_SCOPE}"
            )
            found[path.stem] = re.compile(rf"(?<![\w.]){path.stem}(?!\w)")
    return found


def _in_scope(body: str, scoped: dict[str, re.Pattern[str]]) -> str:
    # the scoped views' names are plain words (a model's file stem plus a suffix), so the
    # model's own unquoted references can be replaced by them as they stand
    for name, pattern in scoped.items():
        body = pattern.sub(_scoped_name(name), body)
    return body
