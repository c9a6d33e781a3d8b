"""``nightly``: the batch a cron job or systemd timer runs once a night."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics.nightly import run_nightly
from lessons_analytics.options import AppContext, echo_json, json_option


@click.command("nightly")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Path(path_type=Path),
    hidden=True,  # the PATH arguments, as `ingest` takes them; kept for existing cron lines
    help="Transcript folder; repeatable. Same as PATH.",
)
@click.option(
    "--base",
    "bases",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A LESSONS/ folder to include even without a session in it (repeatable).",
)
@click.option(
    "--report-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where weekly reports go (default: the config's, else ./reports).",
)
@click.option(
    "--mark/--no-mark",
    default=None,
    help="Refresh the sleep marker lines (default: the config's `mark`).",
)
@click.option("--wait", is_flag=True, help="Wait for a run already going instead of exiting.")
@json_option
@click.pass_obj
def nightly_cmd(
    app: AppContext,
    paths: tuple[Path, ...],
    sources: tuple[Path, ...],
    bases: tuple[Path, ...],
    report_dir: Path | None,
    mark: bool | None,
    wait: bool,
    as_json: bool,
) -> None:
    """Ingest, recompute, store every base's sleep signs, refresh markers if configured,
    write last week's report once that week has closed.

    PATHS are transcript files or folders, as for ingest (default: the config's `sources`,
    else ~/.claude/projects and ~/.codex/sessions).

    Example (cron, 03:15 every night): 15 3 * * * lessons-analytics --quiet nightly
    """
    settings = app.settings.with_overrides(
        "command line",
        sources=[*paths, *sources] or None,
        bases=[*app.settings.paths.bases, *bases] if bases else None,
        report_dir=report_dir,
        mark=mark,
    )
    result = run_nightly(
        settings,
        wait=wait,
        log=(lambda line: None) if app.quiet else (lambda line: click.echo(line, err=True)),
    )
    if as_json:
        echo_json({"schema": "lessons-analytics/nightly/1", **result.__dict__})
