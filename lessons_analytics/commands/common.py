"""What the analysis commands share: the time window, the base filter, one warehouse
connection per command, and the first-run note. Errors are not mapped here: the group's
boundary in ``cli.py`` does that for every command."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import click

from lessons_analytics import metrics
from lessons_analytics.engine import duckdb
from lessons_analytics.options import AppContext, warn

T = TypeVar("T")

NO_BASE = (
    "no lesson base in the warehouse: ingest again with --base PATH (a project holding"
    " LESSONS/), or run `lessons-analytics retro` to find the failure signals that can"
    " seed a base"
)


def window(since: str | None, until: str | None) -> tuple[datetime | None, datetime | None]:
    """``--since``/``--until`` as UTC times; a wrong value or an empty window is a usage
    error naming the option(s)."""
    start = when(since, "--since")
    end = when(until, "--until", end_of_day=True)
    if start is not None and end is not None and start >= end:
        raise click.UsageError(
            f"--since {since} is not before --until {until}: the window is empty"
        )
    return start, end


def when(text: str | None, option: str, *, end_of_day: bool = False) -> datetime | None:
    """One time option's value as UTC; a wrong value is a usage error naming the option."""
    try:
        return metrics.parse_when(text, end_of_day=end_of_day)
    except ValueError as exc:
        raise click.BadParameter(
            f"{text!r} is not a date (YYYY-MM-DD) or an ISO timestamp", param_hint=f"'{option}'"
        ) from exc


def filters(
    con: duckdb.DuckDBPyConnection, bases: tuple[Path, ...], since: str | None, until: str | None
) -> metrics.Filters:
    start, end = window(since, until)
    return metrics.Filters(metrics.filter_bases(con, bases), start, end)


def run(app: AppContext, build: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """``build`` over the warehouse opened read-only, closed afterwards."""
    con = app.read_warehouse()
    try:
        return build(con)
    finally:
        con.close()


def analysis(
    app: AppContext,
    build: Callable[[duckdb.DuckDBPyConnection, metrics.Filters], T],
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    *,
    needs_base: bool = True,
) -> T:
    """The document of one analysis command. Over a warehouse without any base (a first
    run over logs alone) it says so on stderr with the next step, and the document is the
    empty one (exit 0: the answer "nothing to measure yet" is not an error)."""

    def build_all(con: duckdb.DuckDBPyConnection) -> T:
        document = build(con, filters(con, bases, since, until))
        if needs_base and not metrics.has_bases(con):
            warn(NO_BASE, app)
        return document

    return run(app, build_all)
