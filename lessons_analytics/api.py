"""The entry points a notebook or a script starts from."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from lessons_analytics import warehouse


def connect(path: str | os.PathLike[str], *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """The warehouse at `path` (a ``str`` or a path; ``~`` expands), in UTC. With
    ``read_only=True`` a missing warehouse is ``NoWarehouse`` instead of a new empty file,
    and a nightly run may write meanwhile."""
    return warehouse.connect(Path(path).expanduser(), read_only=read_only)
