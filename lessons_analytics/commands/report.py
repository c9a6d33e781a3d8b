"""``report``: the weekly audit report (Markdown, self-contained HTML, PNG charts, data.json)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from lessons_analytics import metrics
from lessons_analytics.commands.common import NO_BASE
from lessons_analytics.documents import ReportDocument
from lessons_analytics.options import AppContext, base_option, echo_json, warn
from lessons_analytics.report import last_complete_week, parse_week, write_report


def _week(value: str | None) -> str:
    if value is None:
        return last_complete_week()
    try:
        parse_week(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--week") from exc
    return value


@click.command("report")
@click.option(
    "--week",
    default=None,
    metavar="YYYY-Www",
    help="ISO week to report (default: the last complete week, UTC).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Output folder (default: <report_dir>/<week>/, report_dir from the settings).",
)
@base_option
@click.option(
    "--as-of",
    "as_of",
    default=None,
    metavar="DATE",
    help="Measure the sleep signs' ages at DATE (default: the day after the week).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the paths written as JSON.")
@click.pass_obj
def report_cmd(
    app: AppContext,
    week: str | None,
    out_dir: Path | None,
    bases: tuple[Path, ...],
    as_of: str | None,
    as_json: bool,
) -> None:
    """Write the weekly audit report: report.md, a self-contained report.html, the charts
    as PNG and data.json; print the report's path.

    Example: lessons-analytics report --week 2026-W48 --out reports/2026-W48
    """
    chosen = _week(week)
    try:
        day = date.fromisoformat(as_of) if as_of else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--as-of") from exc
    thresholds = app.settings.thresholds
    con = app.read_warehouse()
    try:
        chosen_bases = list(metrics.filter_bases(con, bases)) or None
        if not metrics.has_bases(con):
            warn(NO_BASE, app)
        paths = write_report(
            con,
            out_dir or app.settings.paths.report_dir / chosen,
            chosen,
            chosen_bases,
            day,
            thresholds=thresholds,
        )
    finally:
        con.close()
    if as_json:
        doc: ReportDocument = {
            "schema": "lessons-analytics/report/1",
            "week": chosen,
            "directory": str(paths.directory),
            "markdown": str(paths.markdown),
            "html": str(paths.html),
            "data": str(paths.data),
            "charts": [str(p) for p in paths.charts],
        }
        echo_json(doc)
        return
    click.echo(str(paths.html))
