"""Per-model cost of a cold SQL build, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_build.py WAREHOUSE [--runs 3] [--work /tmp/la-build]

WAREHOUSE is any ingested warehouse (e.g. one `tests/bench/bench_speed.py --keep` left); only
its raw tables are used. Each run copies them into a fresh file inside one transaction, as a
cold ingest has them before its build, then times every model of ``sql/`` (CPU seconds of the
process, all of DuckDB's threads, and wall), the commit, and the file's size; last it prints
the marts' row counts and order-free checksums (as bench_speed.py does), so two checkouts can
be compared (`--code DIR` runs another checkout's models), and the most the build spilled to
disk beyond its memory limit (`--memory-limit 4GB` builds under another limit than
``warehouse.connect``'s). Medians over the runs; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[2]

_ONE_RUN = """
import inspect, json, os, sys, time
import duckdb
from lessons_analytics import transform, warehouse
from lessons_analytics.sqlfiles import layer_files, quote_identifier

source, target = sys.argv[1], sys.argv[2]
for old in (target, target + ".wal"):
    if os.path.exists(old):
        os.unlink(old)
models = {path.stem for path in layer_files()}
con = warehouse.connect(__import__("pathlib").Path(target))
if len(sys.argv) > 3:  # --memory-limit: the build's spill against another limit than connect's
    con.execute("set memory_limit = $limit", {"limit": sys.argv[3]})
con.execute(f"attach '{source}' as src (read_only)")
raw = [name for (name,) in con.execute(
    "select table_name from duckdb_tables() where database_name = 'src'"
    " order by 1").fetchall() if name not in models]
times = {}
def clock():
    return time.process_time(), time.perf_counter()
def took(name, start):
    cpu, wall = clock()
    times[name] = (cpu - start[0], wall - start[1])
con.begin()
start = clock()
for name in raw:
    con.execute(f"create table {quote_identifier(name)} as"
                f" select * from src.{quote_identifier(name)}")
took("(raw tables)", start)
# a checkout whose build drops the temp models' tables before the commit (as transform.build
# does since _build_one collects them) is timed doing so
collects = len(inspect.signature(transform._build_one).parameters) == 3
temps = []
spilled = 0
for path in layer_files():
    start = clock()
    transform._build_one(con, path, temps) if collects else transform._build_one(con, path)
    took(path.stem, start)
    # what the build holds beyond the memory limit, spilled to the temporary folder
    spilled = max(spilled, con.execute(
        "select coalesce(sum(size), 0) from duckdb_temporary_files()").fetchall()[0][0])
start = clock()
if hasattr(transform, "_settle_temps"):  # the temp models' tables are tables of the file
    transform._settle_temps(con, temps)
else:  # a checkout whose temp models are temporary tables (named by stem)
    for stem in temps:
        con.execute(f"drop table temp.main.{quote_identifier(stem)}")
con.commit()
took("(commit)", start)
con.execute("detach src")
marts = {}
for (name,) in con.execute(
        "select table_name from duckdb_tables() where table_name similar to '(fct|dim)_.*'"
        " order by 1").fetchall():
    columns = [c for (c,) in con.execute(
        "select column_name from duckdb_columns() where table_name = ? order by column_index",
        [name]).fetchall() if c != "loaded_at"]
    listed = ", ".join(f'"{c}"' for c in columns)
    count, total = con.execute(
        f"select count(*), coalesce(sum(hash({listed})), 0)::varchar from {name}").fetchall()[0]
    marts[name] = (count, int(total) % 10**12)
sizes = {name: size for name, size in con.execute(
    "select table_name, estimated_size from duckdb_tables() where not temporary").fetchall()}
con.close()
print(json.dumps({"times": times, "marts": marts, "bytes": os.path.getsize(target),
                  "stored": sizes, "spilled": spilled}))
"""


class Run(TypedDict):
    times: dict[str, list[float]]  # name -> [cpu s, wall s]
    marts: dict[str, list[int]]
    bytes: int
    stored: dict[str, int]
    spilled: int  # the most the build had spilled to disk at the end of a model


def one_run(code: Path, source: Path, target: Path, memory_limit: str | None = None) -> Run:
    env = dict(os.environ, PYTHONPATH=str(code))
    limit = [memory_limit] if memory_limit else []
    done = subprocess.run(
        [sys.executable, "-c", _ONE_RUN, str(source), str(target), *limit],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
    )
    if done.returncode != 0:
        raise SystemExit(f"the build failed ({done.returncode}):\n{done.stderr}")
    result: Run = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("warehouse", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/la-build"))
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--json", type=Path, help="also write the medians here")
    parser.add_argument(
        "--memory-limit", help="DuckDB's memory_limit for the build (default: connect's)"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    target = args.work / "build.duckdb"
    runs: list[Run] = []
    for _ in range(args.runs):
        started = time.perf_counter()
        runs.append(one_run(args.code, args.warehouse.resolve(), target, args.memory_limit))
        print(f"  run {len(runs)}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    names = list(runs[0]["times"])
    cpu = {n: statistics.median(r["times"][n][0] for r in runs) for n in names}
    wall = {n: statistics.median(r["times"][n][1] for r in runs) for n in names}
    models = [n for n in names if not n.startswith("(")]
    print(f"{'model':34} {'cpu s':>7} {'wall s':>7}")
    for name in sorted(names, key=lambda n: -cpu[n]):
        if cpu[name] >= 0.02 or name.startswith("("):
            print(f"{name:34} {cpu[name]:7.2f} {wall[name]:7.2f}")
    total_cpu, total_wall = sum(cpu[n] for n in models), sum(wall[n] for n in models)
    print(f"{'(all models)':34} {total_cpu:7.2f} {total_wall:7.2f}")
    print(f"file: {runs[0]['bytes'] / 1e6:.1f} MB")
    spilled = statistics.median(r.get("spilled", 0) for r in runs)
    print(f"spilled at most: {spilled / 1e6:.0f} MB (beyond the connection's memory limit)")
    biggest = sorted(runs[0]["stored"].items(), key=lambda item: -item[1])[:8]
    print("stored rows (k):", ", ".join(f"{n} {s / 1e3:.0f}" for n, s in biggest))
    marts = runs[0]["marts"]
    print("marts:", json.dumps(marts, sort_keys=True))
    if args.json:
        args.json.write_text(json.dumps({"cpu": cpu, "wall": wall, "marts": marts}, indent=1))


if __name__ == "__main__":
    main()
