"""``ingest``: transcripts and bases into the warehouse."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.ingest import IngestReport, ingest
from lessons_analytics.options import AppContext, echo_json, json_option


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
    show = not (app.quiet or as_json) and sys.stderr.isatty()
    bars: list[Any] = []
    try:
        report = ingest(app.db_path, sources, bases, progress=_progress_bar(bars) if show else None)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        for bar in bars:
            bar.__exit__(None, None, None)
    if as_json:
        echo_json(report.document())
    elif not app.quiet:
        click.echo(summary_text(report))
    errors = report.totals.get("load_errors", 0)
    if errors and not app.quiet and not as_json:
        for error in report.totals["errors"][:20]:
            click.echo(f"{error['file']}:{error['line']}: {error['reason']}", err=True)
    if strict and errors:
        raise click.ClickException(f"{errors} input(s) could not be loaded (--strict)")


def summary_text(report: IngestReport) -> str:
    t: dict[str, Any] = report.totals
    tools = ", ".join(f"{name} {count}" for name, count in list(t["by_tool"].items())[:8])
    return "\n".join(
        [
            f"files: {report.files_seen} seen, {report.files_loaded} loaded, "
            f"{report.lines_loaded} new lines",
            f"sessions: {t['sessions']}  agent runs: {t['agent_runs']}  "
            f"tool calls: {t['tool_calls']}" + (f" ({tools})" if tools else ""),
            f"file reads: {t['file_reads']}  bases: {t['bases']}  lessons: {t['lessons']}  "
            f"hits: {t['hits']}",
            f"load errors: {t['load_errors']}",
        ]
    )


def _progress_bar(bars: list[Any]) -> Callable[[int, int], Callable[[int], None]]:
    """A progress bar on stderr, closed by the caller (unchanged files never tick)."""

    def start(total: int, _done: int) -> Callable[[int], None]:
        bar = click.progressbar(length=total, label="ingest", file=sys.stderr)
        bar.__enter__()
        bars.append(bar)
        return bar.update

    return start


def _ingest_parquet(app: AppContext, folders: list[Path], as_json: bool) -> None:
    from lessons_analytics.exchange import import_parquet

    try:
        report = import_parquet(app.db_path, folders)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        echo_json(report.document())
    elif not app.quiet:
        rows = report.rows
        click.echo(
            f"machines: {', '.join(report.machines) or 'none'}  files: {rows.get('raw_files', 0)}"
            f"  events: {rows.get('raw_events', 0)}  lessons: {rows.get('raw_lessons', 0)}"
            f"  paths on several machines: {report.shared_paths}"
        )
