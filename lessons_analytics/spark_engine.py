"""The same analyses on Apache Spark, over the Parquet contract of ``exchange``.

There is one SQL source, the DuckDB SQL of ``sql/`` and ``queries/``; sqlglot transpiles it
to Spark SQL when it runs. Where a construct would not mean the same on Spark, the DuckDB
SQL is rewritten into a form both engines read alike (``portable_problems`` names what is
refused, and tests/test_spark_lint.py runs it over every file). Exactness is checked by
running: tests/test_spark_differential.py compares every mart and query on both engines.

The contract is combined exactly as ``exchange.import_parquet`` combines it in DuckDB: the
same file-id qualification, the same choice of one machine for a base several exported.

Needs the ``spark`` extra (pyspark, sqlglot); a local session by default, any cluster
through the usual Spark configuration (``spark-submit``, ``SPARK_*`` variables).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from lessons_analytics import exchange, sqlfiles, transform
from lessons_analytics.schema import BASE_TABLES, RAW_TABLES

if TYPE_CHECKING:  # the spark extra (mypy without it: unknown types, left unchecked)
    import pyarrow
    from pyspark.sql import Column, DataFrame, SparkSession

_PARAM = re.compile(r"\$([a-z_]+)")

# the Spark type of each query parameter (DuckDB infers it from the bound value)
PARAM_TYPES: dict[str, str] = {
    "bases": "array<string>",
    "since": "timestamp",
    "until": "timestamp",
    "before": "timestamp",
    "divisor": "double",
    "gap_cap_s": "double",
    "large_bytes": "bigint",
    "lesson": "string",
    "session": "string",
    "sessions": "array<string>",  # the export_* queries: ids from export_sessions
    "call_ids": "array<string>",  # cost_active: the tool_use_ids cost_calls matched
    "pattern": "string",
    "retire_window_days": "bigint",  # effect_lessons
    "window_sessions": "bigint",  # effect_interventions
    "hits_only": "boolean",  # effect_evidence: the report's proofs
    "shown": "int",  # ingest_errors' limit: Spark takes only an int there
}


def session(master: str = "local[2]", app_name: str = "lessons-analytics") -> SparkSession:
    """A SparkSession set as the analyses need: UTC session time zone, few shuffle
    partitions (the marts are small), non-ANSI arithmetic as DuckDB's (x / 0 is null)."""
    from pyspark.sql import SparkSession

    # Python workers (the parse job's tasks) run this interpreter, where the package is
    # installed, unless the deployment names another
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.ansi.enabled", "false")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.executor.extraJavaOptions", "-Duser.timezone=UTC")
        .getOrCreate()
    )


ISO_WEEK = "%G-W%V"


def to_spark(sql: str) -> str:
    """Spark SQL for one DuckDB statement; raises where sqlglot cannot translate. Each
    ``$name`` parameter becomes ``cast(:name as <PARAM_TYPES[name]>)``: Spark binds only
    literals, and a null literal has no type of its own."""
    tree = _parse(sql)
    tree = tree.transform(_iso_week).transform(_typed_parameter).transform(_unhinted)
    return str(tree.sql(dialect="spark", unsupported_level=ErrorLevel.RAISE))


def _parse(sql: str) -> exp.Expression:
    """One DuckDB statement as sqlglot reads it, with the DuckDB functions it does not know
    but Spark has under another name (``_SPARK_NAMES``) named as Spark's."""
    return sqlglot.parse_one(sql, read="duckdb").transform(_spark_named)


def _spark_named(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() in _SPARK_NAMES:
        return _SPARK_NAMES[node.name.lower()](*node.expressions)
    return node


# DuckDB functions sqlglot reads as unknown, by what they are on Spark: an instant's
# microseconds since the epoch (a difference of two in SQL is exact and, unlike a
# date_diff of two zoned times, needs no calendar: fct_events' gaps)
_SPARK_NAMES: dict[str, Callable[..., exp.Expression]] = {
    "epoch_us": lambda instant: exp.UnixMicros(this=instant),
}


def _unhinted(node: exp.Expression) -> exp.Expression:
    """A common table expression without DuckDB's ``[not] materialized``: advice to
    DuckDB's planner (queries/effect_lessons.sql), which Spark's grammar has no place for
    (sqlglot writes it as it read it) and whose rows it does not change."""
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)
    return node


def _typed_parameter(node: exp.Expression) -> exp.Expression:
    if not isinstance(node, exp.Placeholder) or not node.name:
        return node
    kind = PARAM_TYPES.get(node.name)
    if kind is None:
        raise KeyError(f"parameter ${node.name} has no Spark type in PARAM_TYPES")
    return exp.Cast(this=node.copy(), to=exp.DataType.build(kind, dialect="spark"))


def _iso_week(node: exp.Expression) -> exp.Expression:
    """``strftime(ts, '%G-W%V')``, the ISO week every weekly figure is keyed by: Spark 3+
    refuses week-based datetime patterns, but has the ISO week-year and week as fields."""
    if not isinstance(node, exp.TimeToStr):
        return node
    fmt = node.args.get("format")
    if not isinstance(fmt, exp.Literal) or fmt.name != ISO_WEEK:
        return node
    x = node.this.sql(dialect="spark")
    week = sqlglot.parse_one(
        f"concat(cast(extract(YEAROFWEEK FROM {x}) as string), '-W',"
        f" lpad(cast(weekofyear({x}) as string), 2, '0'))",
        read="spark",
    )
    return cast(exp.Expression, week)


# ---------------------------------------------------------------- what does not translate

_WEEK_PATTERN = re.compile(r"%[GVUWuw]")


def portable_problems(sql: str) -> list[str]:
    """What in one DuckDB statement would not mean the same on Spark. The silent traps
    found while preparing the Spark engine are refused here, because sqlglot translates
    them without an error: an exact quantile turned approximate, a LIMIT moved inside the
    subquery sqlglot makes of QUALIFY, an ordered aggregate whose order Spark drops,
    ``epoch`` truncated to whole seconds, and functions sqlglot does not know (passed
    through under their DuckDB name)."""
    try:
        tree = _parse(sql)
    except sqlglot.errors.ParseError as exc:
        return [f"does not parse as DuckDB SQL: {exc}"]
    problems: list[str] = []
    for join in tree.find_all(exp.Join):
        if "ASOF" in str(join.args.get("method") or "").upper():
            problems.append("ASOF JOIN: Spark has none; join on a range and rank instead")
    for select in tree.find_all(exp.Select):
        if select.args.get("qualify") and select.args.get("limit"):
            problems.append(
                "QUALIFY with LIMIT: sqlglot moves the LIMIT inside the QUALIFY subquery;"
                " filter in a CTE, then limit"
            )
    for kind in (exp.PercentileCont, exp.PercentileDisc, exp.Quantile, exp.Median):
        for node in tree.find_all(kind):
            problems.append(
                f"{node.sql(dialect='duckdb')}: quantiles may turn approximate on Spark;"
                " compute them in Python from the rows"
            )
    for agg in tree.find_all(exp.AggFunc):
        if agg.find(exp.Order) is not None:
            problems.append(
                f"{agg.sql(dialect='duckdb')}: an ordered aggregate loses its order on Spark"
                " (collect_list); sort the result (list_sort) instead"
            )
    for unix in tree.find_all(exp.TimeToUnix):
        problems.append(
            f"{unix.sql(dialect='duckdb')}: Spark's unix_timestamp drops the fraction;"
            " use date_diff('microsecond', a, b)"
        )
    for stamp in tree.find_all(exp.TimeToStr):
        fmt = stamp.args.get("format")
        text = fmt.name if isinstance(fmt, exp.Literal) else ""
        if text != ISO_WEEK and _WEEK_PATTERN.search(text):
            problems.append(
                f"strftime pattern {text!r}: Spark refuses week-based patterns"
                f" (only {ISO_WEEK!r} is translated)"
            )
    for call in tree.find_all(exp.Anonymous):
        problems.append(f"{call.name}(): unknown to sqlglot, would reach Spark untranslated")
    try:
        to_spark(sql)
    except (sqlglot.errors.UnsupportedError, KeyError) as exc:
        problems.append(f"does not transpile: {exc}")
    return problems


# ---------------------------------------------------------------- the contract as views


_SPARK_TYPES = {
    "str": "string",
    "int": "bigint",
    "bool": "boolean",
    "float": "double",
    "date": "date",
    "ts": "timestamp",
    "str[]": "array<string>",
}


def _spark_type(dtype: object) -> str:
    """The Spark type of a column kind of the raw schema (``schema.DType``)."""
    found = _SPARK_TYPES.get(str(dtype))
    if found is None:
        raise TypeError(dtype)
    return found


def _schema(columns: Mapping[str, object]) -> str:
    return ", ".join(f"`{name}` {_spark_type(dtype)}" for name, dtype in columns.items())


def _read_table(
    spark: SparkSession, folders: list[Path], table: str, columns: Mapping[str, object]
) -> DataFrame:
    """One raw table from every export, with the ``machine`` it came from."""
    from pyspark.sql import functions as F

    frames = []
    for folder in folders:
        root = folder / table
        if not any(root.glob("machine=*/**/part-*.parquet")):
            continue
        frame = spark.read.option("basePath", str(root)).parquet(str(root))
        frames.append(
            frame.select(
                *[F.col(f"`{c}`").cast(_spark_type(t)).alias(c) for c, t in columns.items()],
                F.col("machine").cast("string").alias("machine"),
            )
        )
    if not frames:
        return spark.createDataFrame([], f"{_schema(columns)}, machine string")
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


def register_contract(spark: SparkSession, folders: list[Path]) -> list[str]:
    """Temp views named after the raw tables, combining the exports in ``folders``."""
    from pyspark.sql import functions as F

    for folder in folders:
        exchange.check_export(folder)
    files = _read_table(spark, folders, "raw_files", RAW_TABLES["raw_files"])
    errors = _read_table(spark, folders, "raw_load_errors", RAW_TABLES["raw_load_errors"])
    pairs = (
        files.select("machine", "file_id", "path")
        .unionByName(errors.select("machine", "file_id", "path"))
        .where(F.col("file_id").isNotNull())
        .distinct()
        .collect()
    )
    ids = exchange.qualified_file_ids(sorted((r.machine, r.file_id, r.path) for r in pairs))
    id_rows = [(m, old, new) for (m, old), new in ids.items() if old != new]
    id_frame = spark.createDataFrame(id_rows, "machine string, old_id bigint, new_id bigint")
    for table, columns in RAW_TABLES.items():
        frame = _read_table(spark, folders, table, columns)
        if not id_rows:
            _materialize(frame.select(*columns), table)
            continue
        joined = frame.join(
            F.broadcast(id_frame),
            (frame["machine"] == id_frame["machine"]) & (frame["file_id"] == id_frame["old_id"]),
            "left",
        )
        frame = joined.select(
            *[
                F.coalesce(id_frame["new_id"], frame["file_id"]).alias("file_id")
                if c == "file_id"
                else frame[f"`{c}`"]
                for c in columns
            ]
        )
        _materialize(frame, table)
    bases = _read_table(spark, folders, "raw_bases", BASE_TABLES["raw_bases"])
    keep = bases.groupBy("base_path").agg(F.min("machine").alias("machine"))
    for table, columns in BASE_TABLES.items():
        frame = _read_table(spark, folders, table, columns)
        if table == "raw_cwd_bases":
            frame = frame.select(*columns).distinct()
        else:
            frame = frame.join(F.broadcast(keep), ["machine", "base_path"], "left_semi")
            frame = frame.select(*columns)
        _materialize(frame, table)
    return [*RAW_TABLES, *BASE_TABLES]


def _materialize(frame: DataFrame, name: str) -> None:
    """Keep once computed (the layers read each model several times) and cut the lineage,
    so a mart's plan starts from the models it reads instead of repeating the whole chain
    (kept plans grow until the driver runs out of memory). Computed on first use."""
    frame.localCheckpoint(eager=False).createOrReplaceTempView(name)


# ---------------------------------------------------------------- layers and queries


def build(spark: SparkSession) -> list[str]:
    """Every model of ``sql/`` in build order: staging as views, the rest computed once."""
    names = []
    for path in sqlfiles.layer_files():
        body = path.read_text(encoding="utf-8").strip().rstrip(";")
        frame = spark.sql(to_spark(body))
        if transform.materialization(path, body) == "view":
            frame.createOrReplaceTempView(path.stem)
        else:
            _materialize(frame, path.stem)
        names.append(path.stem)
    return names


def query(spark: SparkSession, name: str, **params: object) -> pyarrow.Table:
    """Run ``queries/<name>.sql`` on Spark, binding the parameters it names (absent: null);
    returns the rows as a pyarrow Table."""
    return run_sql(spark, sqlfiles.load(name), params)


def run_sql(spark: SparkSession, sql: str, params: Mapping[str, object]) -> pyarrow.Table:
    from pyspark.sql import functions as F

    args: dict[str, Column] = {}
    for name in sorted(set(_PARAM.findall(sql))):
        value = params.get(name)
        if isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)  # as DuckDB reads a naive time: UTC
        if isinstance(value, list | tuple):
            args[name] = F.array(*[F.lit(v) for v in value])
        else:
            args[name] = F.lit(value)
    return spark.sql(to_spark(sql), args=args).toArrow()


def analyse(folders: list[Path], sql: str, params: Mapping[str, object]) -> pyarrow.Table:
    """One query over the exports in ``folders``: a session, the contract, the layers."""
    spark = session()
    register_contract(spark, folders)
    build(spark)
    return run_sql(spark, sql, params)
