"""The entry points a notebook or a script starts from."""

from __future__ import annotations

import os
from pathlib import Path

from lessons_analytics import warehouse
from lessons_analytics.engine import duckdb, with_relations


def connect(path: str | os.PathLike[str], *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """The warehouse at `path` (a ``str`` or a path; ``~`` expands), in UTC. With
    ``read_only=True`` a missing warehouse is ``NoWarehouse`` instead of a new empty file,
    and a nightly run may write meanwhile. The connection has all of DuckDB's Python API
    (``con.sql(...).pl()``): a notebook's own queries use it."""
    with_relations()
    return warehouse.connect(Path(path).expanduser(), read_only=read_only)
