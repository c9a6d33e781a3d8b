"""The ``lessons-analytics`` command line: parse options, call the library, render."""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import click

from lessons_analytics import __version__
from lessons_analytics.errors import ConfigError, InvalidValue, LessonsAnalyticsError
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
    "check": "base_files:check_cmd",
    "lint": "base_files:lint_cmd",
    "stats": "stats:stats_cmd",
    "cards": "base_files:cards_cmd",
    "report": "report:report_cmd",
    "retro": "retro:retro_cmd",
    "export": "export:export_cmd",
    "check-warehouse": "check_warehouse:check_warehouse_cmd",
    "config": "config:config_cmd",
}


# The commands whose one connection to the warehouse is ``AppContext.read_warehouse``'s
# (and no writer's: DuckDB refuses a second configuration of an open file). Opening it
# ahead saves what the command's imports take, up to the opening's own 30-50 ms.
_READ_WAREHOUSE = frozenset(
    {"heads", "coverage", "hits", "bodies", "cost", "effect", "recalled", "stats", "report"}
)
_HELP = frozenset({"-h", "--help"})
# ctx.meta key of what _open_ahead began: (the settings it resolved, the opening)
_AHEAD = "lessons_analytics.opening"


def _open_ahead(ctx: click.Context) -> None:
    """Resolve the settings as the group's callback will and begin opening the warehouse
    they name, read-only; the group's context closes it if no command takes it. Settings
    in error open nothing."""
    try:
        settings = build_settings(ctx.params["config_path"], db_path=ctx.params["db_path"])
    except Exception:  # noqa: BLE001 - the callback builds them again, and says what is wrong
        return
    from lessons_analytics.warehouse import Opening

    opening = Opening(settings.paths.warehouse, read_only=True)
    ctx.call_on_close(opening.close)
    ctx.meta[_AHEAD] = (settings, opening)


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

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Before a command that reads the warehouse is imported, begin opening it: DuckDB
        opens the file without the GIL while the command's modules are imported."""
        if args and args[0] in _READ_WAREHOUSE and not _HELP.intersection(args[1:]):
            _open_ahead(ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """`--help` lists the commands from their docstrings read as source (``_short_help``),
        so it imports no command module (and none of Polars, DuckDB, matplotlib)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            text = _short_help(name, limit)
            if text is None:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                text = command.get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
        except Exception as exc:
            # what a user typed (a value bound into a query) that the engine refuses; DuckDB
            # is looked up, not imported, so that `--help` stays free of it (an exception
            # of DuckDB's implies it was imported). The engine module first: a read path
            # imports it alone (engine.py), without the package that re-exports its classes
            duckdb = sys.modules.get("_duckdb") or sys.modules.get("duckdb")
            if duckdb is not None and isinstance(
                exc, duckdb.InvalidInputException | duckdb.ConversionException
            ):
                raise _OneLine(_first_line(exc)) from exc
            raise


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


def _short_help(name: str, limit: int) -> str | None:
    """A lazy command's short help from its module's source: the docstring of the decorated
    function, shortened as click shortens it; None when the decorator sets a help of its own
    (or anything else is unusual: the command is then imported)."""
    import ast
    from importlib.util import find_spec

    from click.utils import _make_default_short_help

    if name not in _COMMANDS:
        return None
    module, attr = _COMMANDS[name].split(":")
    spec = find_spec(f"lessons_analytics.commands.{module}")
    if spec is None or spec.origin is None:
        return None
    tree = _SOURCES.get(spec.origin) or ast.parse(Path(spec.origin).read_bytes())
    _SOURCES[spec.origin] = tree
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == attr:
            for decorator in node.decorator_list:
                func = decorator.func if isinstance(decorator, ast.Call) else decorator
                if not (isinstance(func, ast.Attribute) and func.attr == "command"):
                    continue
                if not isinstance(decorator, ast.Call) or any(
                    k.arg in {"help", "short_help", "hidden", "deprecated", "cls"}
                    for k in decorator.keywords
                ):
                    return None
            doc = ast.get_docstring(node)
            return _make_default_short_help(doc.split("\f", 1)[0], limit) if doc else None
    return None


_SOURCES: dict[str, Any] = {}


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
    ahead = ctx.meta.pop(_AHEAD, None)
    if ahead is not None:  # resolved just before, from these same options
        settings, opening = ahead
    else:
        try:
            settings = build_settings(config_path, db_path=db_path)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from exc
        opening = None
    ctx.obj = AppContext(
        settings=settings, quiet=quiet, db_given=db_path is not None, opening=opening
    )


def main() -> None:
    cli()
