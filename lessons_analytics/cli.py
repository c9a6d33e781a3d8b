"""The ``lessons-analytics`` command line: parse options, call the library, render."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import click
import duckdb

from lessons_analytics import __version__
from lessons_analytics.config import load_config
from lessons_analytics.errors import ConfigError, InvalidValue, LessonsAnalyticsError
from lessons_analytics.options import AppContext
from lessons_analytics.paths import CONFIG_NAME, default_db_path

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
    "check-warehouse": "check_warehouse:check_warehouse_cmd",
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

    def invoke(self, ctx: click.Context) -> object:
        """The one error boundary: a library error, an OS error on a named path or an input
        the warehouse refuses becomes one ``Error: ...`` line and exit 1 (2 for a bad
        value); anything else keeps its traceback, because it is a bug."""
        try:
            return super().invoke(ctx)
        except InvalidValue as exc:
            raise _BadValue(str(exc)) from exc
        except LessonsAnalyticsError as exc:
            raise _OneLine(str(exc)) from exc
        except OSError as exc:
            if isinstance(exc, FileExistsError) and exc.filename is not None:
                # mkdir(exist_ok=True) over a file: "File exists" would read as a success
                raise _OneLine(f"{exc.filename}: is a file, not a folder") from exc
            if exc.filename is not None:
                raise _OneLine(f"{exc.filename}: {exc.strerror or exc}") from exc
            if isinstance(exc, _PATH_ERRORS):  # a writer that names the path in its text only
                raise _OneLine(_first_line(exc)) from exc
            raise  # not about a path the user named
        except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
            # what a user typed (a value bound into a query) that the engine refuses
            raise _OneLine(_first_line(exc)) from exc


_PATH_ERRORS = (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)


class _OneLine(click.ClickException):
    """``Error: <message>`` on stderr, exit 1."""


class _BadValue(click.ClickException):
    """``Error: <message>`` on stderr, exit 2 as for a usage error, without the usage text
    (the message names the option or argument already)."""

    exit_code = 2


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


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
