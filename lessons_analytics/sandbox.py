"""Run a user's SQL against the warehouse in a sandbox.

    frame = run_user_sql(Path("warehouse.duckdb"), "select count(*) from fct_sessions", {})

The connection is read-only, DuckDB's external access is off (no file, URL, extension or
other database can be reached: ``COPY … TO``, ``read_csv('/etc/passwd')``, ``INSTALL``,
``ATTACH`` all fail) and the configuration is locked, so the query cannot switch any of that
back on. Only one ``SELECT`` (or ``EXPLAIN``) statement runs; anything else is refused
before it runs, with a one-line reason. Writing the rows (``--csv``, ``--parquet``) is the
package's job, on the Python side, never the query's.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import polars as pl

from lessons_analytics.engine import duckdb
from lessons_analytics.errors import LessonsAnalyticsError, LockBusy, NoWarehouse
from lessons_analytics.metrics import run_sql
from lessons_analytics.warehouse import MEMORY_LIMIT

__all__ = ["QueryRefused", "check_statement", "connect_sandboxed", "run_user_sql"]

_ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


class QueryRefused(LessonsAnalyticsError):
    """The query is not one read-only SELECT, or it reached outside the warehouse."""


def connect_sandboxed(path: Path) -> duckdb.DuckDBPyConnection:
    """The warehouse at ``path``, read-only, external access off, configuration locked."""
    if not path.exists():
        raise NoWarehouse(f"{path}: no warehouse yet; run `lessons-analytics ingest` first")
    try:
        con = duckdb.connect(
            str(path),
            read_only=True,
            config={
                "enable_external_access": False,
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "allow_community_extensions": False,
            },
        )
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise LockBusy(f"{path}: the warehouse is in use by another run ({exc})") from exc
        raise
    con.execute("set TimeZone = 'UTC'")
    con.execute("set memory_limit = $limit", {"limit": MEMORY_LIMIT})
    with contextlib.suppress(duckdb.InvalidInputException):
        con.execute("set enable_progress_bar = false")
    con.execute("set lock_configuration = true")  # last: nothing above can be undone
    return con


def check_statement(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise ``QueryRefused`` unless ``sql`` is exactly one SELECT or EXPLAIN statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryRefused(f"query refused: it does not parse: {_first_line(exc)}") from exc
    if len(statements) != 1:
        raise QueryRefused(
            f"query refused: {len(statements)} statements; a query is one SELECT statement"
        )
    kind = statements[0].type
    if kind not in _ALLOWED:
        name = str(kind).rsplit(".", 1)[-1]
        raise QueryRefused(
            f"query refused: {name} statements are not allowed; a query is one read-only SELECT"
            " (use --csv or --parquet to save the rows)"
        )


def run_user_sql(path: Path, sql: str, params: dict[str, object]) -> pl.DataFrame:
    """The rows of ``sql`` (one SELECT) run in the sandbox, ``params`` bound."""
    con = connect_sandboxed(path)
    try:
        check_statement(con, sql)
        try:
            return run_sql(con, sql, params)
        except duckdb.PermissionException as exc:
            raise QueryRefused(
                "query refused: it reaches outside the warehouse (external access is"
                f" disabled): {_first_line(exc)}"
            ) from exc
        except duckdb.Error as exc:  # the user's SQL or values: theirs to fix
            raise QueryRefused(f"query failed: {_first_line(exc)}") from exc
    finally:
        con.close()


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
