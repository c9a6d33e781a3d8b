"""``retro``: mine past failures into clusters for the judge; never writes into LESSONS/."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from lessons_analytics import warehouse
from lessons_analytics.commands.common import when
from lessons_analytics.lessonbase.locate import resolve_base
from lessons_analytics.options import AppContext, base_option, echo_json, json_option, since_option
from lessons_analytics.retro import RetroResult, collect, write_retro


def default_out(app: AppContext, today: datetime) -> Path:
    """``<report_dir>/retro/<date>``, report_dir from the settings."""
    return app.settings.paths.report_dir / "retro" / f"{today:%Y-%m-%d}"


def run_retro(
    app: AppContext, since: str | None, bases: tuple[Path, ...], repos: tuple[Path, ...]
) -> RetroResult:
    start = when(since, "--since")
    # retro reads the base files themselves: a base must be on disk
    chosen = [str(resolve_base(path)) for path in bases]
    patterns = app.settings.retro.patterns()
    con = warehouse.connect(app.db_path, read_only=True)
    try:
        return collect(con, repos=list(repos), since=start, bases=chosen, patterns=patterns)
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
@since_option
@base_option
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
    paths = write_retro(result, target)
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
