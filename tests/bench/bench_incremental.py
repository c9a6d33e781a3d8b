"""The incremental runs of issue 14 at several warehouse sizes, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_incremental.py --work /tmp/la-incr-bench \\
        [--scales 0.25,0.5,1,2] [--runs 5] [--code DIR] [--check] [--corpus D] [--steady]

For each scale (a share of 1.25 GB) it builds R (the real transcripts amplified, as
bench_speed.py does; with --corpus D the demo's transcripts amplified, with its three
lesson bases) under --work once, and a warehouse of it with a cold ingest once, by the
checkout timed (both kept: later runs reuse them, and each checkout has its own warehouse,
as one built by other sql/ models would make the first no-op a full rebuild). Each run then
copies that warehouse (with its no-op sidecar, mtimes kept), times a no-op ingest, adds one
new session (a copy of the largest main transcript with fresh ids) and times the +1 ingest,
and removes the session again. So each +1 is the first after a cold build, which can pay
DuckDB's one-off merge of the row groups the cold load left part-full (on D, 0.3-0.9 CPU s
of the commit); --steady also times +1 runs one after another on one copy, as a nightly
run meets them. Printed: medians of wall and CPU seconds (user + system, every thread) and
the peak RSS, as whole CLI processes; on a shared machine read the CPU column. --code DIR
times another checkout's package (on its own warehouse of the same files). --check
compares every mart's row count and checksum after one more +1 run with a cold build of
the same files.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_speed as bench  # noqa: E402


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, cpu s, peak MB) of one command, via GNU time."""
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M", *argv],
        env=env,
        cwd="/",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr}")
    wall, user, system, peak = done.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(peak) // 1024


def copy_warehouse(source: Path, target: Path) -> None:
    bench.fresh_db(target)
    shutil.copy2(source, target)  # mtime kept: the sidecar holds the warehouse's stat
    for suffix in (".unchanged.json", ".unchanged.files.json"):  # the sidecar and its listing
        shutil.copy2(f"{source}{suffix}", f"{target}{suffix}")


def line(label: str, runs: list[tuple[float, float, int]]) -> str:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    walls = ", ".join(f"{r[0]:.2f}" for r in runs)
    return (
        f"{label}: wall {wall:.2f} s, cpu {cpu:.2f} s, peak {max(r[2] for r in runs)} MB ({walls})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/la-incr-bench"))
    parser.add_argument("--scales", default="0.25,0.5,1")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--code", type=Path, help="time another checkout's package")
    parser.add_argument("--check", action="store_true", help="marts after +1 == a cold build")
    parser.add_argument("--corpus", choices=["R", "D"], default="R")
    parser.add_argument("--steady", action="store_true", help="also +1 runs one after another")
    args = parser.parse_args()
    # timed with the bytecode a pip install compiles (bench_speed.py does the same): on a
    # machine that sets PYTHONDONTWRITEBYTECODE every process would compile the package again
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if args.code:
        env["PYTHONPATH"] = str(args.code.resolve())
    code = args.code.resolve() if args.code else bench.ROOT
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(code / "lessons_analytics")],
        env=env,
        check=True,
    )
    cli = [sys.executable, "-m", "lessons_analytics"]
    args.work.mkdir(parents=True, exist_ok=True)
    source, bases = bench.REAL, []
    if args.corpus == "D":
        demo = args.work / "demo"
        if not demo.exists():
            bench.run([*cli, "demo", "--out", str(demo)])
        source, bases = demo / "claude" / "projects", sorted((demo / "repos").rglob("LESSONS"))
    label = args.corpus
    for scale in [float(s) for s in args.scales.split(",")]:
        tree = args.work / f"{label}-{scale}"
        if not tree.is_dir():
            bench.amplify(source, tree, bench.BYTES_1X * scale)
        # one cold warehouse per checkout, built by the checkout timed: a warehouse built by
        # other sql/ models would make its first no-op a full rebuild
        tag = hashlib.blake2b(str(code).encode(), digest_size=4).hexdigest()
        pristine = args.work / f"{label}-{scale}-{tag}.pristine.duckdb"
        if not pristine.exists():
            subprocess.run(
                bench.ingest_cmd(pristine, tree, bases),
                env=env,
                check=True,
                cwd="/",
                stdout=subprocess.DEVNULL,
            )
        db = args.work / f"{label}-{scale}.duckdb"
        ingest = [*bench.ingest_cmd(db, tree, bases)]
        noop, plus = [], []
        for k in range(args.runs):
            copy_warehouse(pristine, db)
            noop.append(timed(ingest, env))
            session = bench.new_session(tree, 100 + k)
            try:
                plus.append(timed(ingest, env))
            finally:
                session.unlink()
        files = len(bench.files_of(tree))
        print(f"{label} at {scale:g}x ({files} files)", flush=True)
        print("  " + line("no-op", noop), flush=True)
        print("  " + line("+1 session", plus), flush=True)
        if args.steady:
            copy_warehouse(pristine, db)
            added = [bench.new_session(tree, 200)]
            try:
                subprocess.run(ingest, env=env, check=True, cwd="/")  # the first, not timed
                steady = []
                for k in range(args.runs):
                    added.append(bench.new_session(tree, 201 + k))
                    steady.append(timed(ingest, env))
            finally:
                for session in added:
                    session.unlink()
            print("  " + line("+1 session, one after another", steady), flush=True)
        if args.check:
            copy_warehouse(pristine, db)
            session = bench.new_session(tree, 1000)
            try:
                subprocess.run(ingest, env=env, check=True, cwd="/")
                full = args.work / f"{label}-{scale}.full.duckdb"
                bench.fresh_db(full)
                subprocess.run(bench.ingest_cmd(full, tree, bases), env=env, check=True, cwd="/")
            finally:
                session.unlink()
            incremental, rebuilt = bench.marts(db), bench.marts(full)
            differ = sorted(n for n in rebuilt if incremental.get(n) != rebuilt[n])
            print(f"  marts after +1 == cold build: {not differ} {differ or ''}", flush=True)
            bench.fresh_db(full)
        bench.fresh_db(db)


if __name__ == "__main__":
    main()
