"""``report``: the weekly audit report (Markdown, self-contained HTML, PNG charts, data.json)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click
import duckdb

from lessons_analytics import warehouse
from lessons_analytics.bases import resolve_base
from lessons_analytics.errors import BaseNotFound, LessonsAnalyticsError
from lessons_analytics.options import AppContext, echo_json
from lessons_analytics.report import last_complete_week, parse_week, write_report


def _week(value: str | None) -> str:
    if value is None:
        return last_complete_week()
    try:
        parse_week(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--week") from exc
    return value


def _bases(paths: tuple[Path, ...]) -> list[str]:
    out = []
    for path in paths:
        try:
            out.append(str(resolve_base(path)))
        except BaseNotFound:
            out.append(str(Path(path).expanduser().absolute()))
    return out


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
@click.option(
    "--base",
    "bases",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Only this LESSONS/ folder (or the project holding it); repeatable.",
)
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
    try:
        thresholds = app.settings.thresholds
        con = warehouse.connect(app.db_path, read_only=True)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        paths = write_report(
            con,
            out_dir or app.settings.paths.report_dir / chosen,
            chosen,
            _bases(bases) or None,
            day,
            thresholds=thresholds,
        )
    except (duckdb.Error, OSError) as exc:
        raise click.ClickException(f"cannot write the report: {exc}") from exc
    finally:
        con.close()
    if as_json:
        echo_json(
            {
                "schema": "lessons-analytics/report/1",
                "week": chosen,
                "directory": str(paths.directory),
                "markdown": str(paths.markdown),
                "html": str(paths.html),
                "data": str(paths.data),
                "charts": [str(p) for p in paths.charts],
            }
        )
        return
    click.echo(str(paths.html))
