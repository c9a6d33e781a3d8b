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
is used: a frame (``metrics._run``), an Arrow stream handed to DuckDB
(``warehouse.register_frame``), the Parquet rows of ``exchange``. Under DuckDB 1.x, whose
package is its engine, both are the package. ``tests/test_engine.py`` holds the package to
this: no other import of ``duckdb`` at run time, no name the engine lacks, no layer method
called where ``with_relations()`` was not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = ["duckdb", "with_relations"]

if TYPE_CHECKING:
    import duckdb  # the same classes; the package's names are what the code is checked against
else:
    try:
        import _duckdb as duckdb
    except ImportError:  # DuckDB 1.x: the package is the engine
        import duckdb


def with_relations() -> None:
    """Import DuckDB's Python layer (once: later calls find it in ``sys.modules``) before
    a relation method (``con.sql``) or a scan of a Python Arrow object (``register``)."""
    importlib.import_module("duckdb")
