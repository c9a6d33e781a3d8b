"""The analysis commands: heads, coverage, hits, bodies, cost, recalled, query."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import duckdb
import polars as pl

from lessons_analytics import metrics, render, sqlfiles, warehouse
from lessons_analytics.bases import resolve_base
from lessons_analytics.errors import BaseNotFound, LessonsAnalyticsError
from lessons_analytics.options import AppContext, echo_json, filter_options, json_option
from lessons_analytics.redact import redact_frame
from lessons_analytics.sandbox import run_user_sql
from lessons_analytics.settings import query_params


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


def _run(
    app: AppContext, build: Callable[[duckdb.DuckDBPyConnection], dict[str, Any]]
) -> dict[str, Any]:
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
    rows = [
        [
            b["base"],
            b["reads"],
            b["head_reads"],
            b["head_20_60"],
            b["prefix_reads"],
            b["blind_reads"],
            b["truncated_reads"],
            render.share(b["blind_sessions"], b["sessions_reading_index"]),
        ]
        for b in doc["bases"]
    ]
    click.echo(
        render.table(
            rows,
            [
                "base",
                "reads",
                "head",
                "head 20-60",
                "prefix",
                "blind",
                "truncated",
                "blind sessions",
            ],
        )
    )


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
    rows = [
        [
            b["base"],
            b["sessions_in_scope"],
            render.share(b["sessions_reading_index"], b["sessions_in_scope"]),
            render.share(b["sessions_recalled"], b["sessions_in_scope"]),
        ]
        for b in doc["bases"]
    ]
    click.echo(render.table(rows, ["base", "sessions", "read index", "recalled"]))
    for b in doc["bases"]:
        if b["by_week"]:
            click.echo(f"\n{b['base']}")
            click.echo(
                render.table(
                    [
                        [
                            w["week"],
                            w["sessions_in_scope"],
                            render.share(w["sessions_recalled"], w["sessions_in_scope"]),
                        ]
                        for w in b["by_week"]
                    ],
                    ["week", "sessions", "recalled"],
                )
            )


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
    rows = []
    for b in doc["bases"]:
        r = b["by_recall"]
        rows.append(
            [
                b["base"],
                b["hits"],
                render.share(r["recalled"], b["hits"]),
                render.share(r["index_only"], b["hits"]),
                render.share(r["not_recalled"], b["hits"]),
                render.share(r["unknown"], b["hits"]),
                b["top3_share"],
                len(b["disagreements"]),
            ]
        )
    click.echo(
        render.table(
            rows,
            [
                "base",
                "hits",
                "recalled",
                "index only",
                "not recalled",
                "unknown",
                "top3 share",
                "disagreements",
            ],
        )
    )
    for b in doc["bases"]:
        if b["lessons"]:
            click.echo(f"\n{b['base']}")
            click.echo(
                render.table(
                    [
                        [
                            item["id"],
                            item["hits"],
                            item["independent"],
                            item["recalled"],
                            item["index_only"],
                            item["not_recalled"],
                            item["unknown"],
                        ]
                        for item in b["lessons"]
                    ],
                    [
                        "lesson",
                        "hits",
                        "independent",
                        "recalled",
                        "index only",
                        "not recalled",
                        "unknown",
                    ],
                )
            )


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
    doc = _run(
        app,
        lambda con: metrics.bodies_document(
            con, _filters(bases, since, until), t.chars_per_token, t.large_body_bytes
        ),
    )
    if as_json:
        echo_json(doc)
        return
    rows = [
        [b["base"], b["reads"], b["tokens"], b["large_reads"], b["large_tokens"], b["large_share"]]
        for b in doc["bases"]
    ]
    click.echo(
        render.table(
            rows, ["base", "reads", "tokens", "large reads", "large tokens", "large share"]
        )
    )
    for b in doc["bases"]:
        if b["lessons"]:
            click.echo(f"\n{b['base']}")
            click.echo(
                render.table(
                    [
                        [i["id"], i["reads"], i["tokens"], i["body_bytes"], i["journal_share"]]
                        for i in b["lessons"][:15]
                    ],
                    ["lesson", "reads", "tokens", "body bytes", "journal share"],
                )
            )


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
    doc = _run(
        app,
        lambda con: metrics.cost_document(
            con, _filters(bases, since, until), pattern, lesson,
            gap_cap_s=cap.thresholds.gap_cap_s,
        ),
    )  # fmt: skip
    if lesson is not None and not doc["rituals"]:
        raise click.ClickException(
            f"lesson {lesson} declares no ritual (or is not in the warehouse)"
        )
    if as_json:
        echo_json(doc)
        return
    rows = [
        [
            r["pattern"],
            r["lesson"],
            r["calls"],
            r["untimed_calls"],
            r["total_hours"],
            r["hours_per_week"],
            r["median_s"],
            r["p90_s"],
            r["share_of_active_time"],
        ]
        for r in doc["rituals"]
    ]
    click.echo(
        render.table(
            rows,
            [
                "pattern",
                "lesson",
                "calls",
                "untimed",
                "hours",
                "hours/week",
                "median s",
                "p90 s",
                "share of active",
            ],
        )
    )


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
        click.echo(doc["status"])
        for e in doc["evidence"]:
            click.echo(
                f"  {e['surfaced_at']}  {e['kind']:<9}  {e['agent_run_id']}"
                f"  {e['tool_use_id'] or '-'}  {e['evidence']}"
                f"  {e['transcript_file']}:{e['transcript_line']}"
            )
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
