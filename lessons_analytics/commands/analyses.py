"""The analysis commands: heads, coverage, hits, bodies, cost, recalled, query."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lessons_analytics import metrics, sqlfiles, tables
from lessons_analytics.commands.common import analysis, when
from lessons_analytics.documents import RecalledDocument
from lessons_analytics.options import AppContext, echo_json, filter_options, json_option
from lessons_analytics.redact import redact_frame
from lessons_analytics.settings import query_params
from lessons_analytics.tables import grid

if TYPE_CHECKING:
    import polars as pl


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
    doc = analysis(app, metrics.heads_document, bases, since, until)
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
    doc = analysis(app, metrics.coverage_document, bases, since, until)
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
    doc = analysis(app, metrics.hits_document, bases, since, until)
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.hits(doc))


@click.command("bodies")
@filter_options
@click.option(
    "--divisor",
    type=float,
    default=None,
    help="Characters per token (default: the setting thresholds.chars_per_token).",
)
@click.option(
    "--large-bytes",
    type=int,
    default=None,
    help="A body above this is large (default: the setting thresholds.large_body_bytes).",
)
@json_option
@click.pass_obj
def bodies_cmd(
    app: AppContext,
    bases: tuple[Path, ...],
    since: str | None,
    until: str | None,
    divisor: float | None,
    large_bytes: int | None,
    as_json: bool,
) -> None:
    """Body-read token cost: what re-reading lesson bodies costs.

    Example: lessons-analytics bodies --large-bytes 16384 --json
    """
    t = app.settings.with_overrides(
        "command line",
        thresholds__chars_per_token=divisor,
        thresholds__large_body_bytes=large_bytes,
    ).thresholds
    doc = analysis(
        app,
        lambda con, chosen: metrics.bodies_document(
            con, chosen, t.chars_per_token, t.large_body_bytes
        ),
        bases,
        since,
        until,
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
    "--gap-cap",
    type=float,
    default=None,
    help="Seconds an idle gap counts at most (default: the setting thresholds.gap_cap_s).",
)
@filter_options
@json_option
@click.pass_obj
def cost_cmd(
    app: AppContext,
    pattern: str | None,
    lesson: str | None,
    rituals: bool,
    gap_cap: float | None,
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
    cap = app.settings.with_overrides("command line", thresholds__gap_cap_s=gap_cap)
    doc = analysis(
        app,
        lambda con, chosen: metrics.cost_document(
            con, chosen, pattern, lesson, gap_cap_s=cap.thresholds.gap_cap_s
        ),
        bases,
        since,
        until,
        # a regex's ritual time counts sessions with or without a base (metrics.md §5)
        needs_base=pattern is None,
    )
    if lesson is not None and not doc["rituals"]:
        raise click.ClickException(
            f"lesson {lesson} declares no ritual (or is not in the warehouse)"
        )
    if as_json:
        echo_json(doc)
        return
    click.echo(tables.cost(doc))


# The answer is in the exit code, apart from errors (1) and usage errors (2), so a script
# can tell "not recalled" from "could not tell": spec cli.md's "1 otherwise" kept its
# meaning (every answer but recalled is non-zero) and gained room for the error codes.
RECALLED_EXIT = {"recalled": 0, "not_recalled": 3, "index_only": 4}


@click.command("recalled")
@click.argument("lesson_id")
@click.option(
    "--session",
    "session",
    required=True,
    help="Session id, or a unique prefix of one (as retro's digest prints).",
)
@click.option(
    "--before",
    default=None,
    metavar="TS",
    help="Only evidence before this time (YYYY-MM-DD or ISO timestamp, UTC if no zone).",
)
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
    """Had a lesson surfaced in a session before a time?

    Exit codes: 0 recalled, 3 not recalled, 4 index only (its INDEX.md row was read, not
    its body), 1 error (such as a session id or prefix that names no session, or several),
    2 usage error.

    Example: lessons-analytics recalled L-0007 --session 5b1d0c2e --before 2026-11-02T10:00:00Z
    """
    app: AppContext = ctx.obj
    before_at = when(before, "--before")

    def build(con: Any, chosen: metrics.Filters) -> RecalledDocument:
        full = metrics.resolve_session(con, session)
        return metrics.recalled_document(con, lesson_id, full, before_at, chosen)

    doc = analysis(app, build, bases, since, until)
    if as_json:
        echo_json(doc)
    else:
        click.echo(tables.recalled(doc))
    # "unknown" (a session without a row) cannot come back once the id was resolved
    ctx.exit(RECALLED_EXIT.get(doc["status"], 1))


@click.command("query")
@click.argument("name", required=False)
@click.option("--list", "list_all", is_flag=True, help="List the queries: purpose and parameters.")
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
    name: str | None,
    list_all: bool,
    params: tuple[tuple[str, str], ...],
    as_json: bool,
    as_csv: bool,
    parquet: Path | None,
    engine: str,
    contracts: tuple[Path, ...],
) -> None:
    """Run a named query of queries/ (or a .sql file) and print or save its rows.

    Example: lessons-analytics query heads_reads -p bases '[]' --csv

    Example: lessons-analytics query --list
    """
    if list_all or name is None:
        if name is not None:
            raise click.UsageError("give NAME or --list, not both")
        if not list_all:
            raise click.UsageError("give a query NAME (see `lessons-analytics query --list`)")
        _list_queries(as_json)
        return
    # parameters that are settings (divisor, large_bytes, gap_cap_s) get the settings' values
    bound: dict[str, Any] = {
        **query_params(app.settings.thresholds),
        **{key: _param_value(value) for key, value in params},
    }
    if engine == "spark":
        if not contracts:
            raise click.UsageError("--engine spark reads --contract DIR (an export --parquet)")
        if name.endswith(".sql"):
            # Spark has no sandbox like DuckDB's external-access switch: only the package's own
            # queries run there
            raise click.UsageError("--engine spark runs the named queries of queries/ only")
        import polars as pl

        from lessons_analytics.spark_engine import analyse

        rows = pl.from_arrow(analyse(list(contracts), sqlfiles.load(name), bound))
        assert isinstance(rows, pl.DataFrame)
        _emit(redact_frame(rows), parquet, as_json, as_csv)
        return
    from lessons_analytics.sandbox import run_user_sql  # it imports Polars: only here

    # a named query is the package's own SQL, and runs in the same sandbox
    sql = Path(name).read_text(encoding="utf-8") if name.endswith(".sql") else sqlfiles.load(name)
    # what leaves the warehouse is redacted, in every format
    frame = redact_frame(run_user_sql(app.db_path, sql, bound))
    _emit(frame, parquet, as_json, as_csv)


def _list_queries(as_json: bool) -> None:
    catalog = sqlfiles.query_catalog()
    if as_json:
        echo_json({"schema": "lessons-analytics/query-list/1", "queries": catalog})
        return
    for item in catalog:
        params = " ".join(f"${p}" for p in item["parameters"]) or "none"
        click.echo(f"{item['name']}  {item['purpose']}\n    parameters: {params}")


def _emit(frame: pl.DataFrame, parquet: Path | None, as_json: bool, as_csv: bool) -> None:
    if parquet is not None:
        with parquet.open("wb") as out:  # open() names the path in its OSError; polars not
            frame.write_parquet(out)
        click.echo(f"{frame.height} rows -> {parquet}", err=True)
    elif as_json:
        echo_json(frame.to_dicts())
    elif as_csv:
        click.echo(frame.write_csv(), nl=False)
    else:
        click.echo(grid.table(frame.rows(), frame.columns))


def _param_value(text: str) -> Any:
    if text.startswith("["):
        import orjson

        return orjson.loads(text) or None
    if text.lower() == "null":
        return None
    return text


COMMANDS = [heads_cmd, coverage_cmd, hits_cmd, bodies_cmd, cost_cmd, recalled_cmd, query_cmd]
