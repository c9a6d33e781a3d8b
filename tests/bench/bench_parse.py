"""The transcript parse stage of a cold ingest alone, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_parse.py TREE... [--workers 2] [--runs 3]
        [--save sums.json | --check sums.json]

Lists the files under TREE as ``ingest`` does and runs ``load.load_chunks`` over all of them
as on a cold run (workers spool Parquet into a temporary folder, as ``ingest`` has them do),
without DuckDB or the SQL build. Prints per run the wall seconds and the CPU seconds of this
process and of the workers (user + system, from ``resource``), which hold on a shared
machine where wall seconds do not. ``--save`` writes each raw table's row count and an
order-free checksum (sum of Polars row hashes, ``loaded_at`` left out: the time of the run);
``--check`` compares a run against such a file, so a faster parser is shown to give the same
rows. Checksums hold for one Polars version.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from lessons_analytics.load import Chunk, discover, load_chunks, now_utc
from lessons_analytics.schema import Columns


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def _frames(chunks: list[Chunk]) -> dict[str, pl.DataFrame]:
    parts: dict[str, list[pl.DataFrame]] = {}
    for chunk in chunks:
        for table, frame in chunk.frames.items():
            if isinstance(frame, Path):
                frame = pl.read_parquet(frame)
            elif isinstance(frame, Columns):  # a small tree's checked rows (load.SMALL_BYTES)
                frame = frame.frame()
            parts.setdefault(table, []).append(frame)
    return {table: pl.concat(frames) for table, frames in sorted(parts.items())}


def sums(chunks: list[Chunk]) -> dict[str, list[int]]:
    found = {}
    for table, frame in _frames(chunks).items():
        data = frame.drop("loaded_at", strict=False)
        total = int(data.hash_rows(seed=7).cast(pl.UInt64).sum()) if data.height else 0
        found[table] = [data.height, total % 10**15]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args()
    sources = discover(args.trees)
    walls, cpus = [], []
    found: dict[str, list[int]] = {}
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-parse-") as spool:
            own0, kids0 = _cpu()
            started = time.perf_counter()
            chunks = list(
                load_chunks(sources, {}, now_utc(), workers=args.workers, spool=Path(spool))
            )
            wall = time.perf_counter() - started
            own1, kids1 = _cpu()
            cpu = own1 - own0 + kids1 - kids0
            walls.append(wall)
            cpus.append(cpu)
            lines = sum(c.outcome.lines_loaded for c in chunks)
            print(
                f"run {run + 1}: {wall:.2f} s wall, {cpu:.2f} CPU s "
                f"(parent {own1 - own0:.2f}, workers {kids1 - kids0:.2f}); "
                f"{len(sources)} files, {lines} lines",
                flush=True,
            )
            if run == 0 and (args.save or args.check):
                found = sums(chunks)
    print(f"median: {statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} CPU s")
    if args.save:
        args.save.write_text(json.dumps(found, indent=1) + "\n")
    if args.check:
        expected = json.loads(args.check.read_text())
        differ = sorted(
            t for t in expected.keys() | found.keys() if expected.get(t) != found.get(t)
        )
        for table in differ:
            print(f"DIFFERS {table}: expected {expected.get(table)}, got {found.get(table)}")
        print("rows identical" if not differ else f"{len(differ)} tables differ")
        if differ:
            sys.exit(1)


if __name__ == "__main__":
    main()
