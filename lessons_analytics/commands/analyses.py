"""The analysis commands: heads, coverage, hits, bodies, cost, recalled, query."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import duckdb
import polars as pl

from lessons_analytics import metrics, render, sqlfiles, tables, warehouse
from lessons_analytics.bases import resolve_base
from lessons_analytics.errors import BaseNotFound, LessonsAnalyticsError
from lessons_analytics.options import AppContext, echo_json, filter_options, json_option
from lessons_analytics.redact import redact_frame
from lessons_analytics.sandbox import run_user_sql


def _filters(bases: tuple[Path, ...], since: str | None, until: str | None) -> metrics.Filters:
    resolved = []
    for path in bases:
        try:
            resolved.append(str(resolve_base(path)))
        except BaseNotFound:
            resolved.append(str(Path(path).expanduser().absolute()))
    try:
        return metrics.Filters(
            tuple(resolved),
            metrics.parse_when(since),
            metrics.parse_when(until, end_of_day=True),
        )
    except ValueError as exc:
        raise click.BadParameter(f"not a date: {exc}") from exc


def _open(app: AppContext) -> duckdb.DuckDBPyConnection:
    try:
        return warehouse.connect(app.db_path, read_only=True)
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc


D = TypeVar("D")


def _run(app: AppContext, build: Callable[[duckdb.DuckDBPyConnection], D]) -> D:
    con = _open(app)
    try:
        return build(con)
    except duckdb.Error as exc:
        raise click.ClickException(f"warehouse query failed: {exc}") from exc
    finally:
        con.close()


@click.command("heads")
@filter_options
@json_option
@click.pass_obj
def heads_cmd(
    app: AppContext, bases: tuple[Path, ...], since: str | None, until: str | None, as_json: bool
) -> None:
    """Head-read truncation: how index reads cut off the Active section.

    Example: lessons-analytics heads --since 2026-10-01 --json
    """
    doc = _run(app, lambda con: metrics.heads_document(con, _filters(bases, since, until)))
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.heads(doc))


@click.command("coverage")
@filter_options
@json_option
@click.pass_obj
def coverage_cmd(
    app: AppContext, bases: tuple[Path, ...], since: str | None, until: str | None, as_json: bool
) -> None:
    """Recall coverage: sessions that recalled an active lesson of their base.

    Example: lessons-analytics coverage --base ~/src/app --json
    """
    doc = _run(app, lambda con: metrics.coverage_document(con, _filters(bases, since, until)))
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.coverage(doc))


@click.command("hits")
@filter_options
@json_option
@click.pass_obj
def hits_cmd(
    app: AppContext, bases: tuple[Path, ...], since: str | None, until: str | None, as_json: bool
) -> None:
    """Hit attribution: was the lesson recalled before each repeated failure?

    Example: lessons-analytics hits --json
    """
    doc = _run(app, lambda con: metrics.hits_document(con, _filters(bases, since, until)))
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.hits(doc))


@click.command("bodies")
@filter_options
@click.option("--divisor", default=4.0, show_default=True, help="Characters per token.")
@click.option("--large-bytes", default=20480, show_default=True, help="A body above this is large.")
@json_option
@click.pass_obj
def bodies_cmd(
    app: AppContext,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    divisor: float,
    large_bytes: int,
    as_json: bool,
) -> None:
    """Body-read token cost: what re-reading lesson bodies costs.

    Example: lessons-analytics bodies --large-bytes 16384 --json
    """
    doc = _run(
        app,
        lambda con: metrics.bodies_document(
            con, _filters(bases, since, until), divisor, large_bytes
        ),
    )
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.bodies(doc))


@click.command("cost")
@click.argument("pattern", required=False)
@click.option("--lesson", default=None, help="The ritual of this lesson.")
@click.option("--rituals", is_flag=True, help="Every lesson that declares a ritual.")
@click.option(
    "--gap-cap", default=300.0, show_default=True, help="Seconds an idle gap counts at most."
)
@filter_options
@json_option
@click.pass_obj
def cost_cmd(
    app: AppContext,
    pattern: str | None,
    lesson: str | None,
    rituals: bool,
    gap_cap: float,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    as_json: bool,
) -> None:
    """Ritual time: session hours spent in a prescribed command.

    Example: lessons-analytics cost '^git commit' --json
    """
    if sum([pattern is not None, lesson is not None, rituals]) != 1:
        raise click.UsageError("give exactly one of PATTERN, --lesson ID or --rituals")
    doc = _run(
        app,
        lambda con: metrics.cost_document(
            con, _filters(bases, since, until), pattern, lesson, gap_cap
        ),
    )
    if lesson is not None and not doc["rituals"]:
        raise click.ClickException(
            f"lesson {lesson} declares no ritual (or is not in the warehouse)"
        )
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.cost(doc))


@click.command("recalled")
@click.argument("lesson_id")
@click.option("--session", "session", required=True, help="Session id.")
@click.option("--before", default=None, metavar="TS", help="Only evidence before this time.")
@filter_options
@json_option
@click.pass_context
def recalled_cmd(
    ctx: click.Context,
    lesson_id: str,
    session: str,
    before: str | None,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    as_json: bool,
) -> None:
    """Had a lesson surfaced in a session before a time? Exit 0 only when recalled.

    Example: lessons-analytics recalled L-0007 --session 5b1d0c2e-... --before 2026-11-02T10:00:00Z
    """
    app: AppContext = ctx.obj
    try:
        before_at = metrics.parse_when(before)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--before") from exc
    doc = _run(
        app,
        lambda con: metrics.recalled_document(
            con, lesson_id, session, before_at, _filters(bases, since, until)
        ),
    )
    if as_json:
        echo_json(doc)
    else:
        click.echo(tables.recalled(doc))
    ctx.exit(0 if doc["status"] == "recalled" else 1)


@click.command("query")
@click.argument("name")
@click.option(
    "-p",
    "--param",
    "params",
    nargs=2,
    multiple=True,
    metavar="NAME VALUE",
    help="Bind $NAME to VALUE; repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Rows as a JSON list.")
@click.option("--csv", "as_csv", is_flag=True, help="Rows as CSV.")
@click.option(
    "--parquet",
    "parquet",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the rows to this Parquet file.",
)
@click.option(
    "--engine",
    type=click.Choice(["duckdb", "spark"]),
    default="duckdb",
    show_default=True,
    help="spark: build the layers on Spark from the --contract folders and run it there.",
)
@click.option(
    "--contract",
    "contracts",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="An `export --parquet` folder for --engine spark; repeatable.",
)
@click.pass_obj
def query_cmd(
    app: AppContext,
    name: str,
    params: tuple[tuple[str, str], ...],
    as_json: bool,
    as_csv: bool,
    parquet: Path | None,
    engine: str,
    contracts: tuple[Path, ...],
) -> None:
    """Run a named query of queries/ (or a .sql file) and print or save its rows.

    Example: lessons-analytics query heads_reads -p bases '[]' --csv
    """
    bound: dict[str, Any] = {key: _param_value(value) for key, value in params}
    if engine == "spark":
        if not contracts:
            raise click.UsageError("--engine spark reads --contract DIR (an export --parquet)")
        if name.endswith(".sql"):
            # Spark has no sandbox like DuckDB's external-access switch: only the package's own
            # queries run there
            raise click.UsageError("--engine spark runs the named queries of queries/ only")
        from lessons_analytics.spark_engine import analyse

        rows = pl.from_arrow(analyse(list(contracts), sqlfiles.load(name), bound))
        assert isinstance(rows, pl.DataFrame)
        _emit(redact_frame(rows), parquet, as_json, as_csv)
        return
    try:
        # a named query is the package's own SQL, and runs in the same sandbox
        sql = (
            Path(name).read_text(encoding="utf-8") if name.endswith(".sql") else sqlfiles.load(name)
        )
        # what leaves the warehouse is redacted, in every format
        frame = redact_frame(run_user_sql(app.db_path, sql, bound))
    except LessonsAnalyticsError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"{name}: cannot read the query: {exc.strerror}") from exc
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(f"query failed: {first}") from exc
    _emit(frame, parquet, as_json, as_csv)


def _emit(frame: pl.DataFrame, parquet: Path | None, as_json: bool, as_csv: bool) -> None:
    if parquet is not None:
        frame.write_parquet(parquet)
        click.echo(f"{frame.height} rows -> {parquet}", err=True)
    elif as_json:
        echo_json(frame.to_dicts())
    elif as_csv:
        click.echo(frame.write_csv(), nl=False)
    else:
        click.echo(render.table(frame.rows(), frame.columns))


def _param_value(text: str) -> Any:
    if text.startswith("["):
        import orjson

        return orjson.loads(text) or None
    if text.lower() == "null":
        return None
    return text


COMMANDS = [heads_cmd, coverage_cmd, hits_cmd, bodies_cmd, cost_cmd, recalled_cmd, query_cmd]
