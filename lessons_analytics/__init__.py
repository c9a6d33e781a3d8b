"""lessons-analytics: measure whether the lessons given to AI coding agents actually work.

from lessons_analytics import connect, metrics
con = connect(path_to_warehouse, read_only=True)
metrics.coverage_by_week(con, metrics.Filters(since=...))   # a Polars DataFrame
"""

from __future__ import annotations

from lessons_analytics import metrics
from lessons_analytics.ingest import ingest
from lessons_analytics.metrics import Filters
from lessons_analytics.warehouse import connect

__version__ = "0.1.0"

__all__ = ["Filters", "__version__", "connect", "ingest", "metrics"]
