"""Reading a warehouse file in a test: open read-only, fetch, close."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb


def rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (``?`` bound to ``params``) over the warehouse at ``db``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()
