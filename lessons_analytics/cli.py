"""The ``lessons-analytics`` command line: parse options, call the library, render."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import click

from lessons_analytics import __version__
from lessons_analytics.errors import ConfigError
from lessons_analytics.options import AppContext
from lessons_analytics.paths import CONFIG_NAME
from lessons_analytics.settings import CONFIG_ENV, build_settings

_COMMANDS = {
    "ingest": "ingest:ingest_cmd",
    "demo": "demo:demo_cmd",
    "nightly": "nightly:nightly_cmd",
    "heads": "analyses:heads_cmd",
    "coverage": "analyses:coverage_cmd",
    "hits": "analyses:hits_cmd",
    "bodies": "analyses:bodies_cmd",
    "cost": "analyses:cost_cmd",
    "effect": "effect:effect_cmd",
    "recalled": "analyses:recalled_cmd",
    "query": "analyses:query_cmd",
    "check": "judge:check_cmd",
    "lint": "judge:lint_cmd",
    "stats": "stats:stats_cmd",
    "cards": "judge:cards_cmd",
    "report": "report:report_cmd",
    "retro": "retro:retro_cmd",
    "export": "export:export_cmd",
    "config": "config:config_cmd",
}


def _load(name: str) -> click.Command:
    module, attr = _COMMANDS[name].split(":")
    command: click.Command = getattr(import_module(f"lessons_analytics.commands.{module}"), attr)
    return command


class _LazyGroup(click.Group):
    """Imports a command's module only when it runs, so `ingest` does not pay for matplotlib."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS and cmd_name not in self.commands:
            self.add_command(_load(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    help=f"TOML config (default: ${CONFIG_ENV}, else ./{CONFIG_NAME} if present).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress or summaries on stderr.")
@click.pass_context
def cli(ctx: click.Context, db_path: Path | None, config_path: Path | None, quiet: bool) -> None:
    """Measure whether the lessons given to AI coding agents actually work."""
    try:
        settings = build_settings(config_path, db_path=db_path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    ctx.obj = AppContext(settings=settings, quiet=quiet, db_given=db_path is not None)


def main() -> None:
    cli()
