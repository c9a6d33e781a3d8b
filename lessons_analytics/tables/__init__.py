"""The terminal form of every ``--json`` document: one renderer per document.

A command parses its options, makes one library call and hands the document to the renderer
of the same name here, which returns the text to print; no command builds a table itself.
"""

from __future__ import annotations

from lessons_analytics.tables.analyses import bodies, cost, coverage, heads, hits, recalled
from lessons_analytics.tables.base_files import check, lint
from lessons_analytics.tables.demo import demo
from lessons_analytics.tables.effect import effect
from lessons_analytics.tables.runs import explore, ingest_summary
from lessons_analytics.tables.stats import stats

__all__ = [
    "bodies",
    "check",
    "cost",
    "coverage",
    "demo",
    "effect",
    "explore",
    "heads",
    "hits",
    "ingest_summary",
    "lint",
    "recalled",
    "stats",
]
