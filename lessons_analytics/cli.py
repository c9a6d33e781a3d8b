"""The ``lessons-analytics`` command line: parse options, call the library, render."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics import __version__
from lessons_analytics.config import load_config
from lessons_analytics.errors import ConfigError
from lessons_analytics.options import AppContext
from lessons_analytics.paths import CONFIG_NAME, default_db_path


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lessons-analytics")
@click.option(
    "--db",
    "db_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="DuckDB warehouse (default: $XDG_DATA_HOME/lessons-analytics/warehouse.duckdb).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help=f"TOML config (default: ./{CONFIG_NAME} if present).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress or summaries on stderr.")
@click.pass_context
def cli(ctx: click.Context, db_path: Path | None, config_path: Path | None, quiet: bool) -> None:
    """Measure whether the lessons given to AI coding agents actually work."""
    if config_path is None and Path(CONFIG_NAME).is_file():
        config_path = Path(CONFIG_NAME)
    try:
        config = load_config(config_path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    ctx.obj = AppContext(
        db_path=db_path or config.warehouse or default_db_path(),
        config_path=config_path,
        quiet=quiet,
        db_given=db_path is not None,
        config=config.raw,
    )


def main() -> None:
    cli()


def _register() -> None:
    from lessons_analytics.commands.analyses import COMMANDS
    from lessons_analytics.commands.demo import demo_cmd
    from lessons_analytics.commands.ingest import ingest_cmd
    from lessons_analytics.commands.judge import cards_cmd, check_cmd, lint_cmd
    from lessons_analytics.commands.nightly import nightly_cmd
    from lessons_analytics.commands.report import report_cmd
    from lessons_analytics.commands.retro import retro_cmd
    from lessons_analytics.commands.stats import stats_cmd

    commands = [ingest_cmd, demo_cmd, nightly_cmd, *COMMANDS, check_cmd, lint_cmd, stats_cmd,
                cards_cmd, report_cmd, retro_cmd]
    for command in commands:
        cli.add_command(command)


_register()
