"""``retro``: mine past failures into clusters for the judge; never writes into LESSONS/."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click
import duckdb

from lessons_analytics import metrics, warehouse
from lessons_analytics.bases import resolve_base
from lessons_analytics.errors import BaseNotFound, LessonsAnalyticsError
from lessons_analytics.options import AppContext, echo_json, json_option
from lessons_analytics.retro import RetroResult, collect, write_retro


def default_out(app: AppContext, today: datetime) -> Path:
    """``<report_dir>/retro/<date>``, report_dir from the settings."""
    return app.settings.paths.report_dir / "retro" / f"{today:%Y-%m-%d}"


def _bases(bases: tuple[Path, ...]) -> list[str]:
    out = []
    for path in bases:
        try:
            out.append(str(resolve_base(path)))
        except BaseNotFound as exc:
            raise click.BadParameter(str(exc), param_hint="--base") from exc
    return out


def run_retro(
    app: AppContext, since: str | None, bases: tuple[Path, ...], repos: tuple[Path, ...]
) -> RetroResult:
    try:
        when = metrics.parse_when(since)
    except ValueError as exc:
        raise click.BadParameter(f"not a date: {exc}", param_hint="--since") from exc
    try:
        patterns = app.settings.retro.patterns()
        con = warehouse.connect(app.db_path, read_only=True)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        return collect(con, repos=list(repos), since=when, bases=_bases(bases), patterns=patterns)
    except duckdb.Error as exc:
        raise click.ClickException(f"warehouse query failed: {exc}") from exc
    finally:
        con.close()


@click.command("retro")
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (default <report_dir>/retro/<date>/, report_dir from the settings).",
)
@click.option(
    "--since", "since", default=None, metavar="DATE", help="Only signals on or after this date."
)
@click.option(
    "--base",
    "bases",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A LESSONS/ folder (or the project holding it); repeatable.",
)
@click.option(
    "--repo",
    "repos",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="Another git repository to mine for reverts and fixes; repeatable.",
)
@json_option
@click.pass_obj
def retro_cmd(
    app: AppContext,
    out: Path | None,
    since: str | None,
    bases: tuple[Path, ...],
    repos: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Collect past failure signals and group them into clusters for the judge.

    Writes signals.jsonl and digest.md into --out; never writes into LESSONS/.

    Example: lessons-analytics retro --since 2026-10-01 --repo ~/src/app --json
    """
    result = run_retro(app, since, bases, repos)
    target = out or default_out(app, result.generated_at.astimezone(UTC))
    try:
        paths = write_retro(result, target)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    quiet = app.quiet or as_json
    for warning in result.warnings:
        if not quiet:
            click.echo(f"warning: {warning}", err=True)
    if as_json:
        echo_json(result.document())
        return
    doc = result.document()["totals"]
    click.echo(
        f"{doc['signals']} signals, {doc['clusters']} clusters: "
        f"{doc['verdict_due']} ready for a verdict, "
        f"{doc['candidate_ready'] - doc['verdict_due']} more candidate-ready, "
        f"{doc['quarantine']} quarantine"
    )
    click.echo(f"digest: {paths['digest']}")
    click.echo(f"signals: {paths['signals']}")
