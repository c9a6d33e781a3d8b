"""``ingest``: transcripts and bases into the warehouse."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lessons_analytics import unchanged
from lessons_analytics.lessonbase.locate import resolve_base
from lessons_analytics.options import AppContext, echo_json, json_option, warn
from lessons_analytics.unchanged import IngestReport

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    Bars = list[ProgressBar[int]]


@click.command("ingest")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--base",
    "bases",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A LESSONS/ folder to load even if no session stands in it; repeatable.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when any input could not be loaded.")
@click.option(
    "--parquet",
    "parquet_dirs",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Another machine's `export --parquet` folder to combine in; repeatable.",
)
@json_option
@click.pass_obj
def ingest_cmd(
    app: AppContext,
    paths: tuple[Path, ...],
    bases: tuple[Path, ...],
    strict: bool,
    parquet_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Load transcripts into the warehouse, incrementally.

    Default PATHS: the setting `sources`, else ~/.claude/projects (or
    $CLAUDE_CONFIG_DIR/projects) and ~/.codex/sessions. Bases: the setting `bases` and --base.

    Example: lessons-analytics ingest ~/.claude/projects --base ~/src/app/LESSONS
    """
    if parquet_dirs:
        _ingest_parquet(app, list(parquet_dirs), as_json)
        return
    sources = list(paths) or app.settings.sources_or_default()
    bases = (*app.settings.paths.bases, *bases)
    for base in bases:  # a typo in --base fails before anything is loaded
        resolve_base(base)
    show = not (app.quiet or as_json) and sys.stderr.isatty()
    bars: Bars = []
    # a no-op run is told from the file system alone, before Polars and DuckDB are imported
    answer = unchanged.ask(app.db_path, sources, list(bases))
    try:
        report = answer.report or _ingest(
            app,
            sources,
            list(bases),
            _progress_bar(bars) if show else None,
            _stage_line(bars) if show else None,
            answer,
        )
    finally:
        for bar in bars:
            bar.__exit__(None, None, None)
    if as_json:
        echo_json(report.document())
    elif not app.quiet:
        from lessons_analytics import tables  # imports a --quiet run does without (6 ms)

        click.echo(tables.ingest_summary(report))
    errors = report.totals.get("load_errors", 0)
    if errors and not app.quiet and not as_json:
        for error in report.totals["errors"][:20]:
            click.echo(f"{error['file']}:{error['line']}: {error['reason']}", err=True)
    for line in closing_lines(report, app, as_json):
        warn(line, app)
    if strict and errors:
        raise click.ClickException(f"{errors} input(s) could not be loaded (--strict)")


def closing_lines(report: IngestReport, app: AppContext, as_json: bool) -> list[str]:
    """On a run that leaves the warehouse without any base, what to do next (under --json
    too: it is advice on stderr, not data); then, but for --json, where the warehouse is."""
    lines = []
    if not report.totals.get("bases"):
        lines.append(
            "no lesson base found: no session ran in a folder holding LESSONS/. Give one with"
            " `lessons-analytics ingest --base PATH`, or run `lessons-analytics retro` to find"
            " the failure signals that can seed a base."
        )
    if not as_json:
        lines.append(f"warehouse: {app.db_path.absolute()}")
    return lines


def _ingest(
    app: AppContext,
    sources: list[Path],
    bases: list[Path],
    progress: Callable[[int, int], Callable[[int], None]] | None,
    stage: Callable[[str], None] | None,
    asked: unchanged.Answer,
) -> IngestReport:
    from lessons_analytics import warehouse

    # the writer opens the file on a thread of its own while the loading modules are
    # imported (34 ms beside 29 ms of imports, on a +1 of R)
    with warehouse.Opening(app.db_path) as opening:
        from lessons_analytics.ingestion import ingest_changed

        return ingest_changed(app.db_path, sources, bases, progress, stage, asked, opening)


def _progress_bar(bars: Bars) -> Callable[[int, int], Callable[[int], None]]:
    """A progress bar on stderr, closed by the caller (unchanged files never tick)."""

    def start(total: int, _done: int) -> Callable[[int], None]:
        bar = click.progressbar(length=total, label="ingest: reading", file=sys.stderr)
        bar.__enter__()
        bars.append(bar)
        return bar.update

    return start


def _stage_line(bars: Bars) -> Callable[[str], None]:
    """After the reading bar, one line per later stage: the bar ends where reading does."""

    def stage(name: str) -> None:
        for bar in bars:
            bar.__exit__(None, None, None)
        bars.clear()
        click.echo(f"ingest: {name} ...", err=True)

    return stage


def _ingest_parquet(app: AppContext, folders: list[Path], as_json: bool) -> None:
    from lessons_analytics.exchange import import_parquet

    report = import_parquet(app.db_path, folders)
    if as_json:
        echo_json(report.document())
    elif not app.quiet:
        rows = report.rows
        click.echo(
            f"machines: {', '.join(report.machines) or 'none'}  files: {rows.get('raw_files', 0)}"
            f"  events: {rows.get('raw_events', 0)}  lessons: {rows.get('raw_lessons', 0)}"
            f"  paths on several machines: {report.shared_paths}"
        )
