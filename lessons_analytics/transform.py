"""Build the warehouse layers of ``sql/``: staging views, then intermediate and mart tables.

Each file holds one ``select``; the file name is the object's name. Layers run in order and
inside a layer each model after those it names, so a model may use any earlier one.

A model whose header says ``-- incremental: session_id`` holds rows that depend only on
their own session (and on the bases). After a run that only added or changed transcripts,
such a model is refreshed for the touched sessions alone (their rows deleted and
recomputed); every other table is rebuilt whole. tests/test_incremental.py checks that
this gives exactly the tables a full build gives.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import duckdb

from lessons_analytics import sqlheader
from lessons_analytics.sqlfiles import layer_files


def build(con: duckdb.DuckDBPyConnection, sessions_table: str | None = None) -> list[str]:
    """(Re)create every model; returns their names in build order. With
    ``sessions_table`` (a table of ``session_id``s), incremental models are refreshed for
    those sessions only: while it runs, the incremental staging views pass only those
    sessions, whose rows depend on no other session's (the affected set holds every session
    that shares a line id with one of them)."""
    paths = layer_files()
    if sessions_table is None:
        return [_build_one(con, path, None) for path in paths]
    con.execute("delete from meta_build_sessions")
    con.execute(f"insert into meta_build_sessions select session_id from {sessions_table}")
    staging = [p for p in paths if p.parent.name == "staging" and is_incremental(_body(p))]
    scoped = _scoped_tables(con, paths)
    try:
        for path in staging:
            con.execute(
                f"create or replace view {path.stem} as select * from (\n{_body(path)}\n)"
                f" where session_id in {_SCOPE}"
            )
        return [_build_one(con, path, "meta_build_sessions", scoped) for path in paths]
    finally:
        for path in staging:
            con.execute(f"create or replace view {path.stem} as\n{_body(path)}")
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
        body = _body(path)
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


def _body(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip().rstrip(";")


def _build_one(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    sessions_table: str | None,
    scoped: dict[str, re.Pattern[str]] | None = None,
) -> str:
    name = path.stem
    body = _body(path)
    kind = materialization(path, body)
    if sessions_table is None:
        con.execute(f"create or replace {kind} {name} as\n{body}")
    elif kind == "table" and is_incremental(body):
        scope = f"(select session_id from {sessions_table})"
        con.execute(f"delete from {name} where session_id in {scope}")
        inputs = _in_scope(body, scoped or {})
        con.execute(f"insert into {name} select * from (\n{inputs}\n) where session_id in {scope}")
    elif kind == "table":
        con.execute(f"create or replace table {name} as\n{body}")
    return name


def is_incremental(body: str) -> bool:
    return sqlheader.parse(body).incremental == "session_id"


def materialization(path: Path, body: str) -> str:
    """Staging models are views and the rest tables, unless the file's header says
    ``-- materialized: view`` (an intermediate step read by few models, cheaper to recompute
    than to store)."""
    return sqlheader.parse(body, path.stem, path.parent.name).materialized


def models_fingerprint() -> str:
    """Changes when any model file changes, so an upgrade rebuilds the layers."""
    digest = hashlib.blake2b(digest_size=16)
    for path in layer_files():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
