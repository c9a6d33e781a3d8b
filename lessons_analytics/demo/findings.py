"""What every analysis finds on the demo warehouse, gathered for the demo's printout."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from lessons_analytics import metrics
from lessons_analytics.documents import (
    BodiesDocument,
    CostDocument,
    CoverageDocument,
    HeadsDocument,
    HitsDocument,
)
from lessons_analytics.engine import duckdb
from lessons_analytics.settings import Thresholds
from lessons_analytics.signs import BaseStats, base_stats


@dataclass(frozen=True)
class DemoFindings:
    heads: HeadsDocument
    coverage: CoverageDocument
    hits: HitsDocument
    bodies: BodiesDocument
    cost: CostDocument
    stats: list[BaseStats]


def demo_findings(
    con: duckdb.DuckDBPyConnection, as_of: date, bases: list[Path], thresholds: Thresholds
) -> DemoFindings:
    """The documents of heads, coverage, hits, bodies and cost over everything, and the
    sleep signs of each base at `as_of`, under ``thresholds``."""
    everything = metrics.Filters()
    return DemoFindings(
        heads=metrics.heads_document(con, everything),
        coverage=metrics.coverage_document(con, everything),
        hits=metrics.hits_document(con, everything),
        bodies=metrics.bodies_document(
            con, everything, thresholds.chars_per_token, thresholds.large_body_bytes
        ),
        cost=metrics.cost_document(con, everything, gap_cap_s=thresholds.gap_cap_s),
        stats=[base_stats(base, as_of, thresholds, con) for base in bases],
    )
