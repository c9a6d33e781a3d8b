"""DuckDB, named from one place: every module of the package writes
``from lessons_analytics.engine import duckdb`` and uses it as the ``duckdb`` package.

Since DuckDB 2.0 its Python package is two layers: the engine, the compiled module
``_duckdb`` (``connect``, the connection with ``execute``, ``fetchall``, ``register``,
``extract_statements``, the exception classes, ``StatementType``), and a Python layer over
it (relations: ``con.sql``, ``.pl()``; the scan of Python Arrow objects; the version, read
through ``importlib.metadata``), which the package's ``__init__`` imports and attaches to the
connection class. A command that reads rows needs the engine alone, and importing the
package was 100 ms of `heads`' 0.25 s on the D corpus (2026-12-07), the engine 23 ms. So
``duckdb`` here is the engine, and ``with_relations()`` imports the Python layer where one
is used: an Arrow stream handed to DuckDB (``warehouse.register_frame``), the Parquet rows
of ``exchange``; a frame's rows come from the engine's own Arrow stream (``arrow_stream``).
``tests/test_engine.py`` holds the package to this: no other import of ``duckdb`` at run
time, no name the engine lacks, no layer method called where ``with_relations()`` was not.
(The package requires DuckDB 2.0.1 or later, whose engine is ``_duckdb``.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

__all__ = ["ArrowStreamSource", "arrow_stream", "duckdb", "with_relations"]

if TYPE_CHECKING:
    import duckdb  # the same classes; the package's names are what the code is checked against
else:
    import _duckdb as duckdb


def with_relations() -> None:
    """Import DuckDB's Python layer (once: later calls find it in ``sys.modules``) before
    a relation method (``con.sql``) or a scan of a Python Arrow object (``register``)."""
    importlib.import_module("duckdb")


class ArrowStreamSource(Protocol):
    """What hands over an Arrow PyCapsule stream."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


class _Capsule:
    """An Arrow PyCapsule stream the engine made, handed over once: what
    ``polars.DataFrame`` takes. (``warehouse.ArrowStream`` is the other way: a frame offered
    to DuckDB, as many times as it asks.)"""

    def __init__(self, capsule: object) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._capsule


# rows per Arrow batch: the Python layer's default (duckdb._seam.DEFAULT_BATCH_SIZE)
_BATCH_ROWS = 131_072


def arrow_stream(
    con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]
) -> ArrowStreamSource:
    """The rows of ``sql`` with ``params`` bound, as an Arrow stream (PyCapsule) for
    ``polars.DataFrame``. From the engine's own submit of a statement to a stream, the call
    the Python layer's ``con.sql(...)`` makes when its relation is read: the layer first
    parses, tokenizes and binds the statement in Python, 2.7 ms of each of the report's 81
    questions on D (0.22 s), and importing it was 0.1 s. Through ``con.sql`` where the
    engine has no such call or it does not answer as this module asks it (``_submits``).
    Until the stream is read the connection runs nothing else; a stream dropped unread
    frees it."""
    if not _submits(con):
        with_relations()
        return con.sql(sql, params=params)
    return _Capsule(con._submit(sql, params or None, "stream", _BATCH_ROWS).arrow_capsule())


# Whether the engine's submit answers as ``arrow_stream`` calls it; None until a process
# first makes a frame.
_SUBMITS: bool | None = None


def _submits(con: duckdb.DuckDBPyConnection) -> bool:
    global _SUBMITS
    if _SUBMITS is None:
        _SUBMITS = submits(con)
    return _SUBMITS


def submits(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con``'s engine submits a statement to an Arrow stream as ``arrow_stream``
    calls it, asked with a statement without a table. The call is the engine's own, not
    its public API (DuckDB 2.0.1 has it), so a DuckDB that names, takes or answers it
    otherwise is read through the public way instead of failing every frame."""
    submit = getattr(con, "_submit", None)
    if submit is None:
        return False
    try:
        result = submit("select 1 as probe", None, "stream", _BATCH_ROWS)
    except Exception:  # noqa: BLE001 - another call than this one: the public way
        return False
    capsule = getattr(result, "arrow_capsule", None)
    if capsule is None:
        result.close()  # its open result would refuse the connection's next statement
        return False
    capsule()  # dropped unread: the connection is free again
    return True
