"""Cold ingest and +1 session of two checkouts, alternating, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_pair.py BEFORE AFTER [--work /tmp/la-speed-bench]
        [--scale 0.25] [--cold 3] [--plus 5] [--commands 0]

BEFORE and AFTER are checkouts (e.g. `git archive 5fafd54 | tar -x -C /tmp/before`). On the
corpora `tests/bench/bench_speed.py --keep` left in --work (R is amplified again, at --scale,
when the scaling step removed it: give the scale that run used), each warehouse is built cold
--cold times and then takes --plus new sessions, the two checkouts alternating and swapping who
goes first, so a machine that drifts (this one does) slows both alike. Prints wall and CPU
seconds (whole process, workers included), medians; the first +1 after a cold build pays
DuckDB's one-off merge of the row groups a parallel load leaves and is left out of the +1
median. With --commands N, each checkout's D warehouse then answers `report` and the analysis
commands of bench_speed.py N times, alternating too (a machine that drifts between two
bench_speed.py runs makes their tables disagree by more than the change). Nothing here asserts
a time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_speed as speed  # noqa: E402  (a sibling script, not a package)


def timed(code: Path, argv: list[str]) -> tuple[float, float]:
    """(wall, CPU s of the process and its children) of one command run with ``code``."""
    env = {**speed.ENV, "PYTHONPATH": str(code)}
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S", *argv],
        env=env,
        cwd=speed.CWD,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr}")
    user, system = done.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system)


def cell(runs: list[tuple[float, float]]) -> str:
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    return f"{wall:.2f} s ({cpu:.2f} CPU s)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/la-speed-bench"))
    parser.add_argument("--scale", type=float, default=0.25, help="R's size, if amplified")
    parser.add_argument("--cold", type=int, default=3)
    parser.add_argument("--plus", type=int, default=5)
    parser.add_argument("--commands", type=int, default=0, help="pairs of analysis commands")
    args = parser.parse_args()
    if args.cold < 1 or args.plus < 2:
        raise SystemExit("--cold must be at least 1 and --plus at least 2")
    codes = {"before": args.before.resolve(), "after": args.after.resolve()}
    for code in codes.values():  # the bytecode a pip install would have compiled
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(code / "lessons_analytics")],
            env=speed.ENV,
            check=True,
        )
    work: Path = args.work
    bases = sorted((work / "demo" / "repos").rglob("LESSONS"))
    if not bases:
        raise SystemExit(f"{work}: no demo bases; run bench_speed.py --keep --work {work} first")
    print(speed.load_line())
    lines = [
        "| corpus | cold before | cold after | +1 before | +1 after |",
        "|---|---|---|---|---|",
    ]
    commands: list[str] = []
    for label, extra in (("R", []), ("D", bases)):
        tree = work / label
        if not tree.exists():
            speed.amplify(speed.REAL, tree, speed.BYTES_1X * args.scale)
        dbs = {name: work / f"pair-{label}-{name}.duckdb" for name in codes}
        cold: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
        plus: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
        for k in range(args.cold):
            for name in list(codes)[:: 1 if k % 2 == 0 else -1]:
                speed.fresh_db(dbs[name])
                cold[name].append(timed(codes[name], speed.ingest_cmd(dbs[name], tree, extra)))
        added = []
        try:
            for k in range(args.plus):
                added.append(speed.new_session(tree, 100 + k))
                for name in list(codes)[:: 1 if k % 2 == 0 else -1]:
                    plus[name].append(timed(codes[name], speed.ingest_cmd(dbs[name], tree, extra)))
        finally:
            for path in added:
                path.unlink()
        if label == "D" and args.commands:
            commands = paired_commands(codes, dbs, extra, work, args.commands)
        for db in dbs.values():
            speed.fresh_db(db)
        lines.append(
            f"| {label} | {cell(cold['before'])} | {cell(cold['after'])} |"
            f" {cell(plus['before'][1:])} | {cell(plus['after'][1:])} |"
        )
    if args.commands:
        lines += ["", "| D: command | before | after |", "|---|---|---|", *commands]
    lines.append(speed.load_line())
    print("\n".join(lines))


def paired_commands(
    codes: dict[str, Path], dbs: dict[str, Path], bases: list[Path], work: Path, pairs: int
) -> list[str]:
    """Rows of `report` and the analysis commands, each checkout on its own warehouse."""
    argvs = {
        name: [
            ("report", speed.report_cmd(dbs[name], work / f"pair-report-{name}")),
            *speed.analysis_commands(dbs[name], bases),
        ]
        for name in codes
    }
    rows = []
    for at, (command, _) in enumerate(argvs["before"]):
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
        for k in range(pairs):
            for name in list(codes)[:: 1 if k % 2 == 0 else -1]:
                runs[name].append(timed(codes[name], argvs[name][at][1]))
        rows.append(f"| {command} | {cell(runs['before'])} | {cell(runs['after'])} |")
    return rows


if __name__ == "__main__":
    main()
