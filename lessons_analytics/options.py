"""Shared click option decorators and the per-invocation context every command receives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from lessons_analytics.settings import Settings

if TYPE_CHECKING:
    from lessons_analytics.engine import duckdb
    from lessons_analytics.warehouse import Opening

F = TypeVar("F", bound=Callable[..., object])


@dataclass
class AppContext:
    """What the global options resolved to; commands read it with ``click.pass_obj``."""

    settings: Settings = field(default_factory=Settings)
    quiet: bool = False
    db_given: bool = False  # --db on the command line (demo keeps its own warehouse otherwise)
    # the warehouse being opened read-only while the command's modules were imported (cli.py)
    opening: Opening | None = None

    @property
    def db_path(self) -> Path:
        return self.settings.paths.warehouse

    def read_warehouse(self) -> duckdb.DuckDBPyConnection:
        """The warehouse opened read-only, for the caller to close: the connection the CLI
        began opening before it imported the command, else a new one."""
        opening, self.opening = self.opening, None
        if opening is not None:
            return opening.take()
        from lessons_analytics import warehouse  # the engine: imports `--help` does without

        return warehouse.connect(self.db_path, read_only=True)

    @property
    def config_path(self) -> Path | None:
        return self.settings.config_path


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(func)


def base_option(func: F) -> F:
    """``--base PATH`` (repeatable), the same on every command that reads bases."""
    return click.option(
        "--base",
        "bases",
        multiple=True,
        type=click.Path(path_type=Path),
        help="A LESSONS/ folder (or the project holding it); repeatable.",
    )(func)


def since_option(func: F) -> F:
    return click.option(
        "--since",
        "since",
        default=None,
        metavar="DATE",
        help="Only data at or after DATE: YYYY-MM-DD (00:00 UTC) or an ISO timestamp"
        " (UTC unless it names a zone).",
    )(func)


def until_option(func: F) -> F:
    return click.option(
        "--until",
        "until",
        default=None,
        metavar="DATE",
        help="Only data before DATE: YYYY-MM-DD (that whole day included) or an ISO"
        " timestamp (UTC unless it names a zone).",
    )(func)


def filter_options(func: F) -> F:
    """``--base`` (repeatable), ``--since``, ``--until`` on every analysis command."""
    return base_option(since_option(until_option(func)))


def echo_json(document: object) -> None:
    """The single JSON document of a command, on stdout, every string in it redacted (the
    evidence of ``hits``/``recalled`` quotes transcripts)."""
    from lessons_analytics.redact import encode_json

    click.echo(encode_json(document))


def warn(message: str, ctx: AppContext | None = None) -> None:
    if ctx is not None and ctx.quiet:
        return
    click.echo(message, err=True)
