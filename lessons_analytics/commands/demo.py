"""``demo``: build the bundled demo workspace, ingest it, run every analysis."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import click

from lessons_analytics import metrics, render, warehouse
from lessons_analytics.commands.ingest import summary_text
from lessons_analytics.demo import build_demo
from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.ingest import ingest
from lessons_analytics.options import AppContext
from lessons_analytics.report import demo_report
from lessons_analytics.settings import Settings
from lessons_analytics.stats import base_stats


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
    try:
        workspace = build_demo(out.absolute())
    except LessonsAnalyticsError as exc:  # a folder that is not the demo's: nothing deleted
        raise click.ClickException(str(exc)) from exc
    db = app.db_path if app.db_given else workspace.root / "warehouse.duckdb"
    if db.exists() and not app.db_given:
        db.unlink()
    report = ingest(db, [workspace.claude_projects, workspace.codex_sessions], workspace.bases)
    click.echo(f"demo workspace: {workspace.root}")
    click.echo(f"warehouse:      {db}\n")
    click.echo(summary_text(report))
    con = warehouse.connect(db, read_only=True)
    try:
        _analyses(con, workspace.last_day + timedelta(days=1), workspace.bases, app.settings)
        paths = demo_report(
            con, workspace.root, workspace.last_day, thresholds=app.settings.thresholds
        )
    finally:
        con.close()
    click.echo(
        f"\nexplore: lessons-analytics --db {db} heads | coverage | hits | bodies | cost --rituals"
    )
    click.echo(f"report: {paths.html}")


def _analyses(con: object, as_of: object, bases: list[Path], settings: Settings) -> None:
    t = settings.thresholds
    everything = metrics.Filters()
    heads = metrics.heads_document(con, everything)  # type: ignore[arg-type]
    coverage = {b["base"]: b for b in metrics.coverage_document(con, everything)["bases"]}  # type: ignore[arg-type]
    hits = {b["base"]: b for b in metrics.hits_document(con, everything)["bases"]}  # type: ignore[arg-type]
    bodies = {
        b["base"]: b
        for b in metrics.bodies_document(
            con,  # type: ignore[arg-type]
            everything,
            t.chars_per_token,
            t.large_body_bytes,
        )["bases"]
    }
    rows = []
    for b in heads["bases"]:
        base = b["base"]
        c, h, d = coverage[base], hits[base], bodies[base]
        rows.append(
            [
                Path(base).parent.name,
                render.share(b["head_20_60"], b["reads"]),
                render.share(b["blind_sessions"], b["sessions_reading_index"]),
                render.share(c["sessions_recalled"], c["sessions_in_scope"]),
                render.share(h["by_recall"]["recalled"], h["hits"]),
                f"{d['tokens']:,} ({render.fmt(d['large_share'])} large)",
            ]
        )
    click.echo("")
    click.echo(
        render.table(
            rows,
            [
                "base",
                "head -20..60 reads",
                "blind sessions",
                "coverage",
                "hits recalled",
                "body tokens",
            ],
        )
    )
    rituals = metrics.cost_document(con, everything, gap_cap_s=t.gap_cap_s)["rituals"]  # type: ignore[arg-type]
    click.echo("")
    click.echo(
        render.table(
            [
                [
                    Path(r["base"]).parent.name,
                    r["lesson"],
                    r["pattern"],
                    r["calls"],
                    r["hours_per_week"],
                    r["median_s"],
                ]
                for r in rituals
            ],
            ["base", "lesson", "ritual", "calls", "hours/week", "median s"],
        )
    )
    click.echo("")
    for base in bases:
        stats = base_stats(base, as_of, t, con)  # type: ignore[arg-type]
        fired = [s.name for s in stats.signs if s.fired]
        click.echo(
            f"sleep signs {base.parent.name}: {'due' if stats.sleep_due else 'not due'}"
            f" ({', '.join(fired) or 'none fired'})"
        )
