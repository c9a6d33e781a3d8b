"""The demo workspace ingested, as ``lessons-analytics demo --out ROOT`` leaves it."""

from __future__ import annotations

from pathlib import Path

from lessons_analytics.demo import DemoWorkspace, build_demo
from lessons_analytics.ingestion import ingest


def demo_warehouse(root: Path, seed: int = 42) -> tuple[DemoWorkspace, Path]:
    """The demo built in ``root`` (empty, or an earlier build) and its warehouse,
    ``root/warehouse.duckdb``, ingested from its transcripts and bases."""
    workspace = build_demo(root, seed=seed)
    db = root / "warehouse.duckdb"
    ingest(db, workspace.sources, workspace.bases)
    return workspace, db
