"""lessons-analytics: measure whether the lessons given to AI coding agents actually work.

import lessons_analytics as la
con = la.connect("~/.local/share/lessons-analytics/warehouse.duckdb", read_only=True)
la.metrics.coverage_by_week(con, la.metrics.Filters(since=...))   # a Polars DataFrame
from lessons_analytics import tables   # the terminal tables: short base names, one number format
print(tables.coverage(la.metrics.coverage_document(con, la.metrics.Filters())))
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lessons_analytics import formats, metrics
    from lessons_analytics.api import connect
    from lessons_analytics.ingestion import ingest
    from lessons_analytics.metrics import Filters

__version__ = "0.1.0"

__all__ = ["Filters", "__version__", "connect", "formats", "ingest", "metrics"]

# the public names resolve on first use: `lessons-analytics --version` (and every command
# that needs neither Polars nor DuckDB) then starts without importing them
_LAZY = {
    "metrics": ("lessons_analytics.metrics", None),
    "ingest": ("lessons_analytics.ingestion", "ingest"),
    "Filters": ("lessons_analytics.metrics", "Filters"),
    "connect": ("lessons_analytics.api", "connect"),
    "formats": ("lessons_analytics.formats", None),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'lessons_analytics' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value
