"""Build the warehouse layers of ``sql/``: staging views, then intermediate and mart tables.

Each file holds one ``select``; the file name is the object's name. Layers run in order and
inside a layer each model after those it names, so a model may use any earlier one.

A model whose header says ``-- incremental: session_id`` holds rows that depend only on
their own session (and on the bases); ``-- incremental: file_id``, rows that depend only on
their own transcript file. After a run that only added or changed transcripts,
such a model is refreshed for the touched sessions alone (their rows deleted and
recomputed) by ``refresh.build_sessions``, which also decides whether a run may refresh
rather than rebuild; this module builds every model whole.
"""

from __future__ import annotations

from pathlib import Path

from lessons_analytics import sqlheader
from lessons_analytics.engine import duckdb
from lessons_analytics.sqlfiles import layer_files, quote_identifier


def build(con: duckdb.DuckDBPyConnection) -> list[str]:
    """(Re)create every model; returns their names in build order. A refresh of some
    sessions only is ``refresh.build_sessions``'s, which reads the same files.

    A ``temp`` model is computed once into a table of the file for the later models to
    read, and before the commit that table is dropped and the view the file keeps put back
    (``_settle_temps``), so the commit writes none of its rows. In the file, DuckDB writes
    such a table compressed as it fills it; as a temporary table it stayed uncompressed in
    memory, which DuckDB frees only at the commit even when the table is dropped, and the
    build spilled what passed its memory limit (on D at 1.25 GB: 1.6 GB of temporary
    tables, 190 MB compressed, 0.9 GB spilled; a full rebuild 13.6-15.6 -> 11.5-11.6 s).
    The blocks of the dropped tables stay in the file, free for later writes: a fresh cold
    ingest of D leaves 590 MB instead of 415, and once a rebuild has run (which frees the
    old marts' blocks) 716 MB instead of 661."""
    temps: list[tuple[str, str]] = []
    built = [_build_one(con, path, temps) for path in layer_files()]
    _settle_temps(con, temps)
    return built


def model_body(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip().rstrip(";")


def _build_one(con: duckdb.DuckDBPyConnection, path: Path, temps: list[tuple[str, str]]) -> str:
    """Build one model; a ``temp`` model's name and body go onto ``temps``, for
    ``_settle_temps``."""
    body = model_body(path)
    kind = materialization(path, body)
    if kind == "temp":
        _build_temp(con, path.stem, body)
        temps.append((path.stem, body))
    else:
        _drop_other_kind(con, path.stem, kind)
        con.execute(f"create or replace {kind} {quote_identifier(path.stem)} as\n{body}")
    return path.stem


def _build_temp(con: duckdb.DuckDBPyConnection, stem: str, body: str) -> None:
    """The rows of a ``temp`` model, for the models of this build that read it: a table of
    the file in place of the view the file keeps (``_settle_temps`` puts the view back)."""
    _drop_other_kind(con, stem, "table")
    con.execute(f"create or replace table {quote_identifier(stem)} as\n{body}")


def _settle_temps(con: duckdb.DuckDBPyConnection, temps: list[tuple[str, str]]) -> None:
    """The ``temp`` models' tables of this build dropped and their views put back, before
    the commit: the file keeps a view of each (for the audits and whoever queries the
    warehouse), and the commit writes none of their rows."""
    for stem, body in temps:
        name = quote_identifier(stem)
        con.execute(f"drop table {name}")
        con.execute(f"create view {name} as\n{body}")


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


def model_header(path: Path, body: str) -> sqlheader.Header:
    """The header of the model file at ``path`` whose text is ``body``, checked against the
    file's name and layer. Its ``incremental`` is the column a refresh replaces rows by:
    ``session_id``, or ``file_id`` for a model with one row per transcript file (refreshed
    for the files a run wrote); its ``materialized``: staging models are views and the rest
    tables, unless the header says ``-- materialized: view`` (an intermediate step read by
    one model, or cheaper to recompute than to store) or ``temp`` (an intermediate step read
    by several models: computed once per build into a table that the build drops before its
    commit, so the file keeps only its view and commits none of its rows)."""
    return sqlheader.parse(body, path.stem, path.parent.name)


def materialization(path: Path, body: str) -> str:
    """``view``, ``table`` or ``temp``: the ``materialized`` of ``model_header``."""
    return model_header(path, body).materialized
