"""The incremental-refresh protocol: which sessions a run touched, which models the layers
were built from, and whether this run rebuilds the layers whole or only the touched sessions.

A run that only added or changed transcripts refreshes the incremental models (header
``-- incremental: session_id``) for the affected sessions alone: those of the touched files
and those sharing a line id with them (a resume copy's keeper may change). A first build, a
change of the ``sql/`` models, or a change of a base rebuilds every table whole.
tests/test_incremental.py checks that both give exactly the same tables.

The table written here (``meta_build``: the models of the last full build, and when) is
declared in ``schema.META_TABLES`` and created with the raw tables; ``touched_lines``,
``affected_sessions`` and the ``<model>__in_scope`` rows of a refresh are temporary
objects of this connection, so a refresh writes nothing to the warehouse file but the rows
that change (each table written costs the commit's checkpoint time).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path

from lessons_analytics import transform
from lessons_analytics.engine import duckdb
from lessons_analytics.lessonbase.loading import LINK_TABLE, BaseRefresh
from lessons_analytics.schema import BASE_TABLES, META_TABLES, RAW_TABLES
from lessons_analytics.sqlfiles import layer_files, models_fingerprint, quote_identifier
from lessons_analytics.transform import model_body, model_header

_TOUCHED = "touched_lines"
_AFFECTED = "affected_sessions"
_FILES = "touched_files"


class Refresh:
    """One ingest run's refresh: told which files change while they load, then builds."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.paths = layer_files()  # read and ordered once, for the fingerprint and the build
        self.models = models_fingerprint(self.paths)
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
            build_sessions(
                self.con, affected_sessions(self.con), bases.links_changed, _FILES, self.paths
            )
            return "incremental"  # built from the models meta_build names already
        transform.build(self.con)
        record_build(self.con, self.models)
        return "full"


def touched_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        f"create or replace temp table {quote_identifier(_TOUCHED)}"
        " (session_id varchar, uuid varchar)"
    )
    con.execute(f"create or replace temp table {quote_identifier(_FILES)} (file_id bigint)")


def touch(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> None:
    """Remember the sessions (and line ids) of files whose rows are about to change."""
    if not file_ids:
        return
    touched = quote_identifier(_TOUCHED)
    # the ids as one bound list: a handful per run, no frame (and no PyArrow) needed
    con.execute(
        f"insert into {quote_identifier(_FILES)} select unnest($ids::bigint[])", {"ids": file_ids}
    )
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


def build_sessions(
    con: duckdb.DuckDBPyConnection,
    sessions_table: str,
    links_changed: bool = True,
    files_table: str | None = None,
    paths: list[Path] | None = None,
) -> list[str]:
    """Refresh the models for the sessions of ``sessions_table`` (a table of
    ``session_id``s); returns the names of the models it wrote, in build order.

    Each model reads its inputs' rows of those sessions only, and each such set of rows is
    computed once, into a temporary table (``<model>__in_scope``) the later models read:

    - an incremental staging view's rows of the sessions (one scan of its raw table);
    - an intermediate view over them (its body over the scoped inputs, computed once into
      a temporary table; a view none of whose inputs is scoped is read whole);
    - an incremental table's new rows of the sessions, which then replace its old ones.

    This is exact because an incremental model's rows depend on their own session only,
    and the affected set holds every session that shares a line id with a touched one. A
    table that is not incremental is rebuilt whole, unless nothing it reads (through any
    chain of models) changed: one that reads only the raw base tables keeps its rows when
    no base changed (``links_changed``: whether the cwd -> base links did).

    A table incremental on ``file_id`` (one row per transcript file) has the rows of the
    files of ``files_table`` (those whose rows this run wrote) replaced, computed from its
    inputs as they stand (whole: a session scope says nothing of files); without
    ``files_table`` it is rebuilt whole.

    ``paths`` are the model files in build order (``layer_files()`` when not given).
    """
    few = _few_sessions(con, sessions_table)
    # the scope as a predicate on session_id, with the values it binds
    if few is None:
        scope = f"session_id in (select session_id from {quote_identifier(sessions_table)})"
        bound: dict[str, object] = {}
    else:
        scope, bound = "list_contains($sessions::varchar[], session_id)", {"sessions": few}
    files = f"(select file_id from {quote_identifier(files_table)})" if files_table else None
    paths = layer_files() if paths is None else paths
    names = {path.stem for path in paths}
    # what a model may read: the models and the tables the schema declares
    # (tests/test_refresh.py holds every name a model reads to these)
    known = names | set(RAW_TABLES) | set(BASE_TABLES) | set(META_TABLES)
    # the raw tables this run did not write; every other table counts as written
    stable = set(BASE_TABLES) - ({LINK_TABLE} if links_changed else set())
    unchanged: set[str] = set()
    scoped: set[str] = set()
    created: list[tuple[str, str]] = []
    built: list[str] = []
    replaced = _few_sessions_settings(con) if few is not None else {}
    try:
        for path in paths:
            body = model_body(path)
            header = model_header(path, body)  # once per model: twice was 3 ms a refresh
            kind, incremental = header.materialized, header.incremental == "session_id"
            if not incremental and not _inputs(body, known, path.stem) - stable - unchanged:
                unchanged.add(path.stem)
            if kind in ("view", "temp"):  # a temp model is a view in the file
                if path.parent.name == "staging" and not incremental:
                    continue  # read whole, as the full build reads it
                # the persistent view stays as it is; later models read these rows
                inputs = _in_scope(body, scoped)
                if incremental:
                    _scoped_rows(con, path.stem, inputs, scope, bound, created)
                elif inputs != body:
                    _scoped_table(con, path.stem, inputs, created)
                else:
                    continue  # nothing of it is scoped: read whole, as the full build does
                scoped.add(path.stem)
                continue
            if incremental:
                _scoped_rows(con, path.stem, _in_scope(body, scoped), scope, bound, created)
                scoped.add(path.stem)
                name = quote_identifier(path.stem)
                con.execute(f"delete from {name} where {scope}", bound)
                con.execute(
                    f"insert into {name} select * from {quote_identifier(_scoped_name(path.stem))}"
                )
                built.append(path.stem)
            elif path.stem in unchanged:
                continue
            elif files is not None and kind == "table" and header.incremental == "file_id":
                name = quote_identifier(path.stem)
                con.execute(f"delete from {name} where file_id in {files}")
                con.execute(
                    f"insert into {name} select * from (\n{body}\n) where file_id in {files}"
                )
                built.append(path.stem)
            else:
                con.execute(f"create or replace table {quote_identifier(path.stem)} as\n{body}")
                built.append(path.stem)
    finally:
        # temporary objects go with the connection anyway; after a failed statement the
        # transaction refuses these drops, and the first error is the one to see
        with contextlib.suppress(duckdb.Error):
            for object_kind, name in reversed(created):
                con.execute(f"drop {object_kind} if exists {quote_identifier(name)}")
        for setting, value in replaced.items():
            with contextlib.suppress(duckdb.Error):
                con.execute(f"set {setting} = $value", {"value": value})
    return built


# A refresh of at most this many sessions binds them as one list and runs on one thread.
# Its statements move a few thousand rows each, so they are nearly all planning: the join
# with the sessions' table was a tenth of that, and DuckDB's second thread mostly waited
# (its blocked time matched the work's CPU time). Measured on a +1 of the D corpus: the
# refresh 0.30 -> 0.25 s. Past a handful, a list is searched once per row (linear), and a
# bigger refresh has rows enough for both threads.
FEW_SESSIONS = 16

# The optimizer passes such a refresh skips: they pay off on many rows, and its statements
# move a few thousand, so their planning was all they added (the others stay: filter
# pushdown is what scopes each scan to the sessions). Each pass alone saved 0-9 ms; together
# they took the refresh 200 -> 175 ms on a +1 of R and 278 -> 254 ms on D (in one process,
# each refresh rolled back, medians of 8 alternated); disabling every pass that can be was
# no quicker (175 and 256 ms).
FEW_SESSIONS_UNOPTIMIZED = (
    "join_order", "statistics_propagation", "common_subplan", "compressed_materialization",
    "projection_pullup", "projection_placement", "column_lifetime", "duplicate_groups",
    "common_subexpressions",
)  # fmt: skip


def _few_sessions_settings(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    """Set up a refresh of a few sessions (one thread, ``FEW_SESSIONS_UNOPTIMIZED`` off as
    well as the passes the caller turned off); returns the values it replaced, which the
    refresh puts back. Only the passes this engine has are named: DuckDB adds and renames
    passes between versions (1.1 had no ``common_subplan``), and it refuses the whole setting
    for one name it does not know."""
    # current_setting, not a scan of duckdb_settings() (4 ms): 1.4 ms with the known passes
    threads, passes, known = con.execute(
        "select current_setting('threads'), current_setting('disabled_optimizers'),"
        " (select list(name) from duckdb_optimizers() where list_contains($wanted, name))",
        {"wanted": list(FEW_SESSIONS_UNOPTIMIZED)},
    ).fetchall()[0]
    off = [name.strip() for name in str(passes).split(",") if name.strip()] + list(known or [])
    con.execute("set threads = 1")
    con.execute("set disabled_optimizers = $passes", {"passes": ",".join(dict.fromkeys(off))})
    return {"threads": threads, "disabled_optimizers": passes}


def _few_sessions(con: duckdb.DuckDBPyConnection, sessions_table: str) -> list[str] | None:
    """The sessions of ``sessions_table`` when there are at most ``FEW_SESSIONS``."""
    rows = con.execute(
        f"select session_id from {quote_identifier(sessions_table)} limit $n",
        {"n": FEW_SESSIONS + 1},
    ).fetchall()
    return [row[0] for row in rows] if len(rows) <= FEW_SESSIONS else None


def _inputs(body: str, known: set[str], own: str) -> set[str]:
    """The tables and models a model's body names (a word in a comment counts too, which
    only ever makes a rebuild more likely)."""
    return (set(re.findall(r"\b[a-z_][a-z0-9_]*\b", body)) & known) - {own}


def _scoped_rows(
    con: duckdb.DuckDBPyConnection,
    model: str,
    body: str,
    scope: str,
    bound: dict[str, object],
    created: list[tuple[str, str]],
) -> None:
    name = quote_identifier(_scoped_name(model))
    created.append(("table", _scoped_name(model)))
    con.execute(
        f"create or replace temp table {name} as select * from (\n{body}\n) where {scope}", bound
    )


def _scoped_table(
    con: duckdb.DuckDBPyConnection, model: str, body: str, created: list[tuple[str, str]]
) -> None:
    """A view over scoped inputs, computed once: its rows are few, and a view would be
    planned again inside every model that reads it (chains of them made most of a
    refresh's planning time)."""
    created.append(("table", _scoped_name(model)))
    con.execute(f"create or replace temp table {quote_identifier(_scoped_name(model))} as\n{body}")


def _scoped_name(model: str) -> str:
    return f"{model}__in_scope"


# a word not inside a longer word or after a dot (a column of a table alias)
_WORD = re.compile(r"(?<![\w.])\w+")


def _in_scope(body: str, scoped: set[str]) -> str:
    """The body reading the scoped rows of the models in ``scoped``: one pass over its
    words. The scoped names are plain words (a model's file stem plus a suffix), so the
    model's own unquoted references can be replaced by them as they stand."""
    return _WORD.sub(lambda word: _scoped_name(word[0]) if word[0] in scoped else word[0], body)
