"""Build the warehouse layers of ``sql/``: staging views, then intermediate and mart tables.

Each file holds one ``select``; the file name is the object's name. Layers run in order and
inside a layer each model after those it names, so a model may use any earlier one.

A model whose header says ``-- incremental: session_id`` holds rows that depend only on
their own session (and on the bases). After a run that only added or changed transcripts,
such a model is refreshed for the touched sessions alone (their rows deleted and
recomputed); every other table is rebuilt whole. Which sessions, and whether a run may
refresh rather than rebuild, is decided by ``refresh.py``; this module only runs the models.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from lessons_analytics import sqlheader
from lessons_analytics.sqlfiles import layer_files, quote_identifier


def build(con: duckdb.DuckDBPyConnection, scope: Scope | None = None) -> list[str]:
    """(Re)create every model; returns their names in build order. With ``scope`` (set up by
    ``refresh.build_sessions``), incremental tables are refreshed for the scope's sessions
    only and every other table is rebuilt whole."""
    return [_build_one(con, path, scope) for path in layer_files()]


@dataclass(frozen=True)
class Scope:
    """The sessions an incremental build refreshes: ``sessions`` is a subquery of their
    ``session_id``s, ``inputs`` rewrites a model's body to read its scoped inputs."""

    sessions: str
    inputs: Callable[[str], str]


def model_body(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip().rstrip(";")


def _build_one(con: duckdb.DuckDBPyConnection, path: Path, scope: Scope | None) -> str:
    name = quote_identifier(path.stem)
    body = model_body(path)
    kind = materialization(path, body)
    if kind == "temp":
        _build_temp(con, path.stem, body, scope)
    elif scope is None:
        _drop_other_kind(con, path.stem, kind)
        con.execute(f"create or replace {kind} {name} as\n{body}")
    elif kind == "table" and is_incremental(body):
        con.execute(f"delete from {name} where session_id in {scope.sessions}")
        inputs = scope.inputs(body)
        con.execute(
            f"insert into {name} select * from (\n{inputs}\n) where session_id in {scope.sessions}"
        )
    elif kind == "table":
        con.execute(f"create or replace table {name} as\n{body}")
    return path.stem


def _build_temp(con: duckdb.DuckDBPyConnection, stem: str, body: str, scope: Scope | None) -> None:
    """A temporary table for the models of this build that read it, which shadows the view
    of the same name the file keeps (for the audits and whoever queries the warehouse). In an
    incremental build it holds the refreshed sessions only: its staging inputs are scoped
    already, an incremental model reads the scoped rows of the incremental tables, as an
    incremental table's refresh does, and keeps the rows of those sessions."""
    name = quote_identifier(stem)
    if scope is None:
        _drop_other_kind(con, stem, "view")
        con.execute(f"create or replace view {name} as\n{body}")
    elif is_incremental(body):
        body = f"select * from (\n{scope.inputs(body)}\n) where session_id in {scope.sessions}"
    con.execute(f"create or replace temp table {name} as\n{body}")


def _drop_other_kind(con: duckdb.DuckDBPyConnection, stem: str, kind: str) -> None:
    """A model that changed between view and table: `create or replace` does not replace an
    object of the other kind (a warehouse built by an older version of the models)."""
    other = "table" if kind == "view" else "view"
    found = con.execute(
        f"select 1 from duckdb_{other}s() where database_name = current_database()"
        f" and schema_name = 'main' and {other}_name = ? and not temporary",
        [stem],
    ).fetchall()
    if found:
        con.execute(f"drop {other} {quote_identifier(stem)}")


def is_incremental(body: str) -> bool:
    return sqlheader.parse(body).incremental == "session_id"


def materialization(path: Path, body: str) -> str:
    """Staging models are views and the rest tables, unless the file's header says
    ``-- materialized: view`` (an intermediate step read by one model, or cheaper to recompute
    than to store) or ``temp`` (an intermediate step read by several models: computed once per
    build into a temporary table, so the file neither stores nor commits its rows)."""
    return sqlheader.parse(body, path.stem, path.parent.name).materialized


def models_fingerprint() -> str:
    """Changes when any model file changes, so an upgrade rebuilds the layers."""
    digest = hashlib.blake2b(digest_size=16)
    for path in layer_files():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
