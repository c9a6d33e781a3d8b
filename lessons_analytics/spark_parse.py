"""Parsing scaled out: a Spark job maps the package's own parsers over transcript files.

The driver only lists the files. Each Spark task gets a batch of paths (``mapInArrow``),
parses them with ``load.load_files`` exactly as a local ingest does, and writes the raw
tables straight into the Parquet contract (``machine=<m>/date=<d>`` for event tables), so
no transcript passes through the driver and a bucket of transcripts needs no single
machine that reads them all. The tasks return only a manifest (table, file, rows).

The folder is then read like any export (``exchange.import_parquet``, the Spark engine).
It holds transcripts only: the lesson bases are git repositories on the machines that
have them and come from those machines' exports. A task writes one file per partition it
touches, so a partition may hold several files; readers take every ``part-*.parquet``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from lessons_analytics import exchange
from lessons_analytics.load import SourceFile, discover, load_files, now_utc
from lessons_analytics.schema import RAW_TABLES, Batch, Columns, FileRow

if TYPE_CHECKING:  # the spark extra (mypy without it: an unknown type, left unchecked)
    from pyspark.sql import SparkSession

MANIFEST = "table string, file string, rows bigint"


def parse_to_contract(
    spark: SparkSession, sources: list[Path], out: Path, machine: str, files_per_task: int = 16
) -> dict[str, int]:
    """Parse every transcript under ``sources`` on Spark into ``out``; rows per table."""
    found = discover(sources)
    out.mkdir(parents=True, exist_ok=True)
    exchange.write_version(out)
    rows = [(s.path, s.runtime, s.kind) for s in found]
    tasks = max(1, -(-len(rows) // files_per_task))
    paths = spark.createDataFrame(rows, "path string, runtime string, kind string")
    loaded_at = now_utc()
    target, name = str(out), machine

    def parse(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield parse_batch(batch, target, name, loaded_at)

    manifest = paths.repartition(tasks).mapInArrow(parse, MANIFEST).collect()
    totals = dict.fromkeys(RAW_TABLES, 0)
    for row in manifest:
        totals[row.table] += row.rows
    return totals


def parse_batch(batch: pa.RecordBatch, out: str, machine: str, loaded_at: str) -> pa.RecordBatch:
    """One task: parse these files, write their rows as contract partitions."""
    sources = [
        SourceFile(path, runtime, kind)
        for path, runtime, kind in zip(
            batch.column("path").to_pylist(),
            batch.column("runtime").to_pylist(),
            batch.column("kind").to_pylist(),
            strict=True,
        )
    ]
    parsed = Batch()
    outcome = load_files(sources, {}, parsed, loaded_at)
    states: Columns[FileRow] = Columns("raw_files")
    for state in outcome.states:
        states.add(state)
    parsed.tables["raw_files"] = states
    tag = hashlib.blake2b("\n".join(s.path for s in sources).encode(), digest_size=8).hexdigest()
    tables: list[str] = []
    files: list[str] = []
    counts: list[int] = []
    for table, columns in parsed.tables.items():
        if not len(columns):
            continue
        for path, rows in _write(columns.frame().to_arrow(), Path(out) / table, machine, tag):
            tables.append(table)
            files.append(path)
            counts.append(rows)
    return pa.RecordBatch.from_pydict(
        {"table": tables, "file": files, "rows": counts},
        schema=pa.schema([("table", pa.string()), ("file", pa.string()), ("rows", pa.int64())]),
    )


def _write(table: pa.Table, root: Path, machine: str, tag: str) -> list[tuple[str, int]]:
    folder = root / f"machine={machine}"
    column = exchange.EVENT_TIME.get(root.name)
    if column is None:
        return [(_put(table, folder, tag), table.num_rows)]
    import pyarrow.compute as pc

    days = pc.strftime(table.column(column), format="%Y-%m-%d")
    found = []
    for day in sorted(set(days.to_pylist()), key=lambda d: (d is None, d or "")):
        mask = pc.is_null(days) if day is None else pc.equal(days, day)
        part = table.filter(mask)
        name = day or exchange.NULL_PARTITION
        found.append((_put(part, folder / f"date={name}", tag), part.num_rows))
    return found


def _put(table: pa.Table, folder: Path, tag: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"part-{tag}.parquet"
    tmp = folder / f".part-{tag}.tmp"
    pq.write_table(table, tmp)
    tmp.replace(path)
    return str(path)
