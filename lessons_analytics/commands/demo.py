"""``demo``: build the bundled demo workspace, ingest it, run every analysis."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import click

from lessons_analytics import tables, warehouse
from lessons_analytics.demo import build_demo
from lessons_analytics.demo.findings import demo_findings
from lessons_analytics.ingestion import ingest
from lessons_analytics.options import AppContext
from lessons_analytics.report import demo_report


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("demo-workspace"),
    show_default=True,
    help="Folder for the demo workspace: empty, or an earlier demo build (rebuilt).",
)
@click.pass_obj
def demo_cmd(app: AppContext, out: Path) -> None:
    """Build the demo workspace (lesson bases in git, Claude Code and Codex transcripts),
    ingest it and print what every analysis finds.

    Example: lessons-analytics demo --out /tmp/demo
    """
    # a folder that is not the demo's is refused before anything is deleted
    workspace = build_demo(out.absolute())
    db = app.db_path if app.db_given else workspace.root / "warehouse.duckdb"
    if db.exists() and not app.db_given:
        db.unlink()
    report = ingest(db, workspace.sources, workspace.bases)
    click.echo(f"demo workspace: {workspace.root}")
    click.echo(f"warehouse:      {db}\n")
    click.echo(tables.ingest_summary(report))
    con = warehouse.connect(db, read_only=True)
    try:
        found = demo_findings(
            con, workspace.last_day + timedelta(days=1), workspace.bases, app.settings.thresholds
        )
        click.echo(tables.demo(found))
        paths = demo_report(
            con, workspace.root, workspace.last_day, thresholds=app.settings.thresholds
        )
    finally:
        con.close()
    click.echo(f"\nreport: {paths.html}")
    click.echo(tables.explore(db))
