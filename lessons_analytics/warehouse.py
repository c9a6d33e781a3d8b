"""The DuckDB warehouse file: open it, create the raw tables, write a batch, read states."""

from __future__ import annotations

import contextlib
import errno
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessons_analytics.engine import duckdb, with_relations
from lessons_analytics.errors import LessonsAnalyticsError, LockBusy, NoWarehouse, StaleWarehouse
from lessons_analytics.sqlfiles import models_fingerprint, quote_identifier

if TYPE_CHECKING:
    import polars as pl

    from lessons_analytics.schema import DType, FileRow, FileState

# Polars and the raw schema (which declares its types in Polars) are imported inside the
# functions that write: every analysis command only calls ``connect`` and reads rows straight
# from DuckDB, and importing Polars would be most of its run time.


# DuckDB's buffer memory in every connection this package opens (the user's SQL sandbox too)
MEMORY_LIMIT = "512MB"


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    con = _connect(path, read_only=read_only)
    if read_only:
        _refuse_stale(con, path)
    return con


def _connect(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """``connect`` but for the stale check, which reads the models' files in Python."""
    if read_only and not path.exists():
        raise NoWarehouse(f"{path}: no warehouse yet; run `lessons-analytics ingest` first")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = _open(path, read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise LockBusy(f"{path}: the warehouse is in use by another run ({exc})") from exc
        raise
    _session_settings(con)
    con.execute("set preserve_insertion_order = false")
    # bounded memory: big loads spill to disk instead of growing with the corpus
    con.execute("set memory_limit = $limit", {"limit": MEMORY_LIMIT})
    # inside a Jupyter kernel without ipywidgets DuckDB refuses the setting itself
    with contextlib.suppress(duckdb.InvalidInputException):
        con.execute("set enable_progress_bar = false")
    return con


class Opening:
    """``connect(path, read_only=...)`` run on a thread of its own, started here and taken
    with ``take``; ``close`` (or leaving it as a context manager) closes a connection
    nobody took. DuckDB opens the file without holding the GIL, so the imports a caller
    makes meanwhile (which hold it) run beside it: a +1 ingest imports the loading modules
    while the writer opens the file (34 ms of a +1 of R), an analysis command its own
    modules (``cli.py``). ``take`` raises whatever ``connect`` raised, where ``connect``
    would have raised it; a caller that never takes the connection sees no error of it."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        import threading  # click has imported it already; a library caller may not need it

        self.path, self.read_only = path, read_only
        self._con: duckdb.DuckDBPyConnection | None = None
        self._error: BaseException | None = None
        self._taken = False
        self._thread = threading.Thread(target=self._open, name="warehouse-opening")
        self._thread.start()

    def _open(self) -> None:
        # the stale check is the taker's: its Python (reading the models' files) would
        # hold the GIL against the caller's imports
        try:
            self._con = _connect(self.path, read_only=self.read_only)
        except BaseException as exc:  # handed to the thread that takes the connection
            self._error = exc

    def take(self) -> duckdb.DuckDBPyConnection:
        """The connection, once: the caller closes it."""
        self._thread.join()
        if self._taken:
            raise RuntimeError(f"{self.path}: the opened connection was taken already")
        self._taken = True
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        assert self._con is not None
        if self.read_only:
            _refuse_stale(self._con, self.path)  # closes the connection when it refuses
        return self._con

    def __enter__(self) -> Opening:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Wait for the opening to end; close its connection unless it was taken."""
        self._thread.join()
        if not self._taken and self._con is not None:
            with contextlib.suppress(duckdb.Error):
                self._con.close()
        self._con = None


# Row groups of a quarter of DuckDB's default 122,880 rows in a file this package writes:
# at the default size nearly every table of a build is one row group, and the commit's
# checkpoint, which spreads a table's row groups over the threads, compressed them one after
# another on one core (3 s of a cold ingest of the D corpus at 0.31 GB). Measured on D
# (tests/bench/bench_build.py): the build and commit 9.0 -> 7.2 CPU s, the commit alone
# 2.2 -> 0.5 CPU s, the file 98 -> 107 MB; half the default saves less, an eighth compresses
# worse for no more speed.
_ROW_GROUP_ROWS = 30_720
# DuckDB's own catalogs, which an attached file cannot be named after
_RESERVED_CATALOGS = frozenset({"memory", "system", "temp"})


def _open(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection whose default catalog is the file at ``path``. A writer attaches it, since
    only ATTACH takes a row group size (the file does not keep it: each writer passes it);
    the catalog keeps the name a plain connect gives it, the file's stem, where DuckDB allows."""
    if read_only:
        return duckdb.connect(str(path), read_only=True)
    # spills where a plain connect of the file puts them (an in-memory database's are in ./.tmp)
    con = duckdb.connect(config={"temp_directory": f"{path}.tmp"})
    name = "warehouse" if path.stem.lower() in _RESERVED_CATALOGS else path.stem
    try:
        con.execute(
            f"attach $path as {quote_identifier(name)} (row_group_size $rows)",
            {"path": str(path), "rows": _ROW_GROUP_ROWS},
        )
        con.execute(f"use {quote_identifier(name)}")
    except BaseException:
        con.close()
        raise
    return con


def regex_problem(con: duckdb.DuckDBPyConnection, pattern: str) -> str | None:
    """Why the engine's regexes (RE2) refuse ``pattern``, or None when they compile it. RE2
    refuses some of what Python's ``re`` accepts (a lookahead, a backreference), so only
    the engine can say whether a pattern a query will match is one it reads. A refused
    pattern fails its statement, which aborts an open transaction: inside one, ask on a
    cursor of its own."""
    try:
        con.execute("select regexp_matches('', $pattern)", {"pattern": pattern}).fetchall()
    except duckdb.InvalidInputException as exc:
        return str(exc).strip().splitlines()[0].removeprefix("Invalid Input Error: ")
    return None


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Another cursor of ``con``, for a thread of its own: it reads the same database
    with the settings ``connect`` gives a session (a DuckDB cursor shares the database's
    settings, not the session's: its time zone would be the machine's, and a writer's
    cursor would start in DuckDB's in-memory catalog, not the file ``_open`` attached)."""
    other = con.cursor()
    _session_settings(other)
    # asked of the new cursor, not of ``con``, which another thread may be using: the one
    # database with a file is the warehouse (a writer's in-memory catalog has none)
    (catalog,) = other.execute(
        "select database_name from duckdb_databases() where path is not null and not internal"
    ).fetchall()[0]
    other.execute(f"use {quote_identifier(catalog)}")
    return other


def _session_settings(con: duckdb.DuckDBPyConnection) -> None:
    # ISO weeks and dates are UTC whatever the machine's zone
    con.execute("set TimeZone = 'UTC'")


def _refuse_stale(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """A warehouse built by other sql/ models lacks or misshapes what today's queries read:
    say so once, before a query fails on a missing mart or column. (A write connection is
    the ingest's, which rebuilds such a warehouse itself.)"""
    try:
        built = con.execute("select models from meta_build").fetchall()
    except duckdb.CatalogException:
        return  # never built by lessons-analytics: the query names what it misses
    if built and built[0][0] != models_fingerprint():
        con.close()
        raise StaleWarehouse(
            f"{path}: built by another version of lessons-analytics (other sql/ models);"
            " run `lessons-analytics ingest` to rebuild it"
        )


class ArrowStream:
    """A Polars frame offered to DuckDB through the Arrow C stream interface only: DuckDB
    scans it without PyArrow, whose import (with NumPy's) cost every loading run 0.2 s. A
    frame given as it is DuckDB converts with ``to_arrow``, which imports PyArrow."""

    __slots__ = ("frame",)

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def ensure_raw_tables(con: duckdb.DuckDBPyConnection) -> None:
    from lessons_analytics.schema import (
        BASE_TABLES,
        META_TABLES,
        RAW_TABLES,
        create_sql,
        empty_base_frame,
    )

    # one look at the catalog, then only what is missing (every run opens here: a statement
    # per table was 15 statements for nothing on all but the first)
    existing = {
        row[0]
        for row in con.execute(
            "select table_name from duckdb_tables()"
            " where database_name = current_database() and schema_name = 'main'"
        ).fetchall()
    }
    for table in [*RAW_TABLES, *META_TABLES]:
        if table not in existing:
            con.execute(create_sql(table))
    for table in BASE_TABLES:
        if table not in existing:
            replace_table(con, table, empty_base_frame(table))


def file_states(
    con: duckdb.DuckDBPyConnection, paths: list[str] | None = None
) -> dict[str, FileState]:
    """What raw_files holds of every loaded file, or of ``paths`` only."""
    import orjson

    from lessons_analytics.schema import FileState

    sql = (
        "select path, file_id, size_bytes, mtime_ns, consumed_bytes, consumed_lines,"
        " head_hash, context_json from raw_files"
    )
    if paths is None:
        rows = con.execute(sql).fetchall()
    else:
        where = " where path in (select unnest($paths::varchar[]))"
        rows = con.execute(sql + where, {"paths": paths}).fetchall()
    return {
        row[0]: FileState(row[1], row[2], row[3], row[4], row[5], row[6], orjson.loads(row[7]))
        for row in rows
    }


def files_with_rows(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> list[int]:
    """Those of ``file_ids`` that have rows in a table of transcript files. A file read from
    the top is most often a new one, which has none (and on a cold run every file is, each
    chunk's rows waiting in the spool): one question for all the tables then replaces a
    delete per table and the lookup of the files' sessions (12 ms of a run that adds a
    session to D; a delete per table and chunk was 0.25 CPU s of a cold run of D)."""
    if not file_ids:
        return []
    from lessons_analytics.schema import FILE_TABLES

    found = con.execute(
        " union ".join(
            f"select file_id from {quote_identifier(table)}"
            " where file_id in (select unnest($ids::bigint[]))"
            for table in FILE_TABLES
        ),
        {"ids": file_ids},
    ).fetchall()
    return sorted(row[0] for row in found)


def forget_files(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> None:
    """Drop every row of rewritten files before their new rows go in."""
    if not file_ids:
        return
    from lessons_analytics.schema import FILE_TABLES

    # the ids as one bound list, as refresh.touch binds them: no frame to build and register
    for table in FILE_TABLES:
        con.execute(
            f"delete from {quote_identifier(table)}"
            " where file_id in (select unnest($ids::bigint[]))",
            {"ids": file_ids},
        )


def keep_freed_blocks(con: duckdb.DuckDBPyConnection) -> None:
    """Before a big load and its build: DuckDB keeps up to the memory limit of the blocks it
    frees for reuse instead of handing them back to the system, which it otherwise did after
    each task only to fault the same amount in again for the next (the setting is DuckDB's
    ``block_allocator_memory``; the process, not the file, holds it). Measured on a cold
    ingest of the D corpus at 1.25 GB (56k files, alternating runs): system time 6.0-6.3 ->
    4.5-4.7 s, wall 24.7-25.8 -> 23.9-24.7 s, peak RSS 758 -> 784-796 MB; on R, 1.6 -> 1.3 s
    of system time. Not set for a small run, whose few blocks are not worth holding. A
    DuckDB older than the setting runs as it did."""
    with contextlib.suppress(duckdb.CatalogException):
        con.execute("set block_allocator_memory = $limit", {"limit": MEMORY_LIMIT})


def write_states(
    con: duckdb.DuckDBPyConnection, states: list[FileRow], *, as_frame: bool = False
) -> None:
    """The files' new states into raw_files, replacing their old ones. Bound as lists, so
    that a run that loads one file does not import Polars for it; ``as_frame`` (a big load,
    which has Polars loaded already) as a frame: the 56k states of the D corpus at 1.25 GB
    took 0.35 s bound as lists, 0.19 s as a frame (the same rows)."""
    if not states:
        return
    from lessons_analytics.schema import RAW_TABLES, Columns

    columns: Columns[FileRow] = Columns("raw_files")
    for state in states:
        columns.add(state)
    con.execute(
        "delete from raw_files where file_id in (select unnest($ids::bigint[]))",
        {"ids": [state["file_id"] for state in states]},
    )
    if as_frame:
        append(con, "raw_files", columns.frame())
    else:
        insert_lists(con, "raw_files", RAW_TABLES["raw_files"], columns.lists())


def register_frame(con: duckdb.DuckDBPyConnection, name: str, frame: pl.DataFrame) -> None:
    """``frame`` as the view ``name`` of ``con`` (``con.unregister(name)`` after), read
    through the Arrow C stream (``ArrowStream``); a scan of a Python Arrow object is
    DuckDB's Python layer (``engine.with_relations``)."""
    with_relations()
    con.register(name, ArrowStream(frame))


def append(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    register_frame(con, "incoming", frame)
    names = ", ".join(quote_identifier(name) for name in frame.columns)
    con.execute(f"insert into {quote_identifier(table)} ({names}) select {names} from incoming")
    con.unregister("incoming")


def insert_lists(
    con: duckdb.DuckDBPyConnection,
    table: str,
    kinds: Mapping[str, DType],
    columns: Mapping[str, list[Any]],
) -> None:
    """Rows given column by column as Python lists, each bound as one list parameter, into
    ``table``: a small batch without building a Polars frame (importing Polars costs more
    than such a batch). The unnests of one select zip the lists by position. An instant is
    bound as microseconds since the epoch (``schema.instant_us``), made a timestamptz in
    UTC as the frame path's ``Datetime("us", "UTC")`` arrives."""
    from lessons_analytics.schema import Ts, duck_type

    names = list(columns)
    if not names or not columns[names[0]]:
        return
    inner, outer = [], []
    for n, name in enumerate(names):
        kind = kinds[name]
        inner.append(f"unnest(?::{'bigint' if kind == Ts else duck_type(kind)}[]) as c{n}")
        # make_timestamp reads microseconds since the epoch as a UTC timestamp
        outer.append(f"make_timestamp(c{n}) at time zone 'UTC'" if kind == Ts else f"c{n}")
    quoted = ", ".join(quote_identifier(name) for name in names)
    con.execute(
        f"insert into {quote_identifier(table)} ({quoted})"
        f" select {', '.join(outer)} from (select {', '.join(inner)})",
        [columns[name] for name in names],
    )


def append_parquet(con: duckdb.DuckDBPyConnection, table: str, files: list[Path]) -> None:
    """Load the workers' Parquet files of one table in a single statement."""
    con.execute(
        f"insert into {quote_identifier(table)} by name select * from read_parquet(?)",
        [[str(f) for f in files]],
    )


def replace_table(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    """Bases are re-read whole; their raw tables are replaced each run."""
    register_frame(con, "incoming", frame)
    con.execute(f"create or replace table {quote_identifier(table)} as select * from incoming")
    con.unregister("incoming")


# ---------------------------------------------------------------- a full disk


class DiskFull(LessonsAnalyticsError):
    """The disk filled up while the warehouse was written; the transaction was rolled back."""


_NO_SPACE = re.compile(
    r"no space left on device|disk is full|disk quota exceeded|not enough space", re.IGNORECASE
)
_FAILED_FILE = re.compile(r'(?:write|create|open|extend|truncate) file "([^"]+)"', re.IGNORECASE)


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (an OSError, or DuckDB's or Polars' error text) says the disk is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return bool(_NO_SPACE.search(str(exc)))


def disk_full(exc: BaseException, db_path: Path) -> DiskFull:
    """One line for the user: what failed, where, and how much space is left there."""
    failed = _FAILED_FILE.search(str(exc))
    where = Path(failed.group(1)) if failed else Path(getattr(exc, "filename", None) or db_path)
    folder = where if where.is_dir() else where.parent
    try:
        usage = shutil.disk_usage(folder)
        space = f"{_size(usage.free)} free of {_size(usage.total)} on {folder}"
    except OSError:
        space = f"free space on {folder} unknown"
    return DiskFull(
        f"{db_path}: disk full while writing {where} ({space}); the warehouse was left as "
        "it was: free some space and run again"
    )


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
