"""lessons-analytics: measure whether the lessons given to AI coding agents actually work.

import lessons_analytics as la
con = la.connect("~/.local/share/lessons-analytics/warehouse.duckdb", read_only=True)
la.metrics.coverage_by_week(con, la.metrics.Filters(since=...))   # a Polars DataFrame
from lessons_analytics import tables   # the terminal tables: short base names, one number format
print(tables.coverage(la.metrics.coverage_document(con, la.metrics.Filters())))
"""

from __future__ import annotations

from lessons_analytics import formats, metrics
from lessons_analytics.api import connect
from lessons_analytics.ingest import ingest
from lessons_analytics.metrics import Filters

__version__ = "0.1.0"

__all__ = ["Filters", "__version__", "connect", "formats", "ingest", "metrics"]
