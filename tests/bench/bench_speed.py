"""Speed benchmark of issue 14, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_speed.py [--scale 1] [--runs 3] [--work /tmp/la-speed]

Builds two corpora the same way each time, under --work (deleted at the end unless --keep):
  R  the real transcripts amplified (../shared/bench/amplify.py, seed 42) to 1.25 GB x scale;
  D  the demo workspace's transcripts amplified to the same size, its three bases in git.
On each it times, as whole CLI processes, --runs times: cold ingest, a no-op re-run, one new
session, `report`; beside `cat` of the same files and DuckDB's `read_json` of the same files,
so the ratios hold on a noisy machine. Then the scaling rows (0.25x, 1x, 2x of R) for the
no-op and +1 session, the analysis commands and --help/--version on D, and per corpus the
marts' row counts and checksums after the cold build and again after the +1 sessions were
removed (an incremental refresh must give back the cold build's marts). Medians are printed
with min-max; nothing here asserts a time. --code DIR runs another checkout's package (for a
before/after table; checksums include file paths, so compare runs with the same --work).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AMPLIFY = ROOT.parent / "shared" / "bench" / "amplify.py"
REAL = ROOT.parent / "shared" / "corpora" / "real"
BYTES_1X = 1.25e9
Marts = dict[str, tuple[int, int]]
CLI = [sys.executable, "-m", "lessons_analytics"]
# a package installed by pip has its bytecode compiled at install, and Python caches it
# otherwise: a machine that sets PYTHONDONTWRITEBYTECODE (this one does) would have every
# timed process compile the modules it imports again (about 0.1-0.2 s a command)
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
CWD = "/"


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak MB of the largest process) of one command, via GNU time."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        cwd=CWD,  # not the checkout: `python -m` puts the cwd first on sys.path
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr}")
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024


class Row:
    def __init__(self, name: str) -> None:
        self.name, self.seconds, self.peaks = name, [], []  # type: ignore[var-annotated]

    def add(self, measured: tuple[float, float]) -> None:
        self.seconds.append(measured[0])
        self.peaks.append(measured[1])

    def median(self) -> float:
        return statistics.median(self.seconds)

    def cell(self) -> str:
        lo, hi = min(self.seconds), max(self.seconds)
        return f"{self.median():.2f} s ({lo:.2f}-{hi:.2f})"

    def peak(self) -> str:
        return f"{max(self.peaks):.0f} MB"


def amplify(source: Path, out: Path, size: float) -> Path:
    subprocess.run(
        [
            sys.executable,
            str(AMPLIFY),
            "--target-bytes",
            str(size),
            "--out",
            str(out),
            "--seed",
            "42",
            "--source",
            str(source),
            "--force",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


def files_of(tree: Path) -> list[Path]:
    return sorted(tree.rglob("*.jsonl"))


def cat_cmd(tree: Path) -> list[str]:
    return ["sh", "-c", f"find '{tree}' -name '*.jsonl' -print0 | xargs -0 cat > /dev/null"]


def read_json_cmd(tree: Path) -> list[str]:
    script = (
        "import duckdb,sys; c=duckdb.connect();"
        'c.execute("select count(*), count(distinct uuid) from read_json(?,'
        " format='newline_delimited', columns={'uuid':'varchar','type':'varchar',"
        " 'sessionId':'varchar','timestamp':'varchar'},"
        ' ignore_errors=true)", [sys.argv[1]]).fetchall()'
    )
    return [sys.executable, "-c", script, str(tree / "**" / "*.jsonl")]


def ingest_cmd(db: Path, tree: Path, bases: list[Path]) -> list[str]:
    extra = [x for b in bases for x in ("--base", str(b))]
    return [*CLI, "--db", str(db), "--quiet", "ingest", str(tree), *extra]


def fresh_db(db: Path) -> None:
    for old in db.parent.glob(db.name + "*"):
        if old.is_dir():
            shutil.rmtree(old)
        else:
            old.unlink()


_IDS = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|(?:msg|req|toolu)_[A-Za-z0-9]{20,}"
)


def new_session(tree: Path, k: int) -> Path:
    """A copy of the tree's largest main transcript as a new session: every uuid and
    message, request and tool-use id rewritten (same length), so nothing deduplicates it
    against the original."""
    source = max(
        (p for p in files_of(tree) if not p.name.startswith(("agent-", "00000000-"))),
        key=lambda p: p.stat().st_size,
    )

    def fresh_id(match: re.Match[bytes]) -> bytes:
        old = match.group(0)
        digest = hashlib.blake2b(old + str(k).encode(), digest_size=32).hexdigest().encode()
        if b"_" in old:
            prefix, rest = old.split(b"_", 1)
            return prefix + b"_" + digest[: len(rest)]
        return b"-".join(digest[a:b] for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32)))

    data = _IDS.sub(fresh_id, source.read_bytes())
    session = _IDS.sub(fresh_id, source.stem.encode()).decode()
    fresh = source.with_name(f"{session}.jsonl")
    fresh.write_bytes(data)
    return fresh


_MARTS = """
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
found = {}
names = con.execute(
    "select table_name from duckdb_tables() where table_name similar to '(fct|dim)_.*'"
    " order by 1").fetchall()
for (name,) in names:
    columns = [c for (c,) in con.execute(
        "select column_name from duckdb_columns() where table_name = ? order by column_index",
        [name]).fetchall() if c != "loaded_at"]  # the time of the run, not data
    listed = ", ".join(f'"{c}"' for c in columns)
    found[name] = con.execute(
        f"select count(*), coalesce(sum(hash({listed})), 0)::varchar from {name}"
    ).fetchall()[0]
print(json.dumps(found))
"""


def marts(db: Path) -> Marts:
    """Row count and an order-free checksum (sum of row hashes) of every mart table."""
    out = subprocess.run(
        [sys.executable, "-c", _MARTS, str(db)],
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
        cwd=CWD,
    ).stdout
    return {n: (int(count), int(total) % 10**12) for n, (count, total) in json.loads(out).items()}


def bench_corpus(
    label: str, tree: Path, db: Path, bases: list[Path], runs: int, out: Path
) -> tuple[dict[str, Row], dict[str, tuple[int, int]], Marts, Marts]:
    rows = {
        name: Row(name) for name in ("cat", "read_json", "cold", "no-op", "+1 session", "report")
    }
    ingest = ingest_cmd(db, tree, bases)
    for _ in range(runs):
        rows["cat"].add(run(cat_cmd(tree)))
        rows["read_json"].add(run(read_json_cmd(tree)))
        fresh_db(db)
        rows["cold"].add(run(ingest))
    cold = marts(db)
    for _ in range(runs):
        rows["no-op"].add(run(ingest))
    added = []
    for k in range(runs):
        added.append(new_session(tree, k + 1))
        rows["+1 session"].add(run(ingest))
    incremental = marts(db)
    check = db.with_name(db.stem + "-full.duckdb")
    fresh_db(check)
    run(ingest_cmd(check, tree, bases))
    after = marts(check)
    fresh_db(check)
    for path in added:
        path.unlink()
    report = report_cmd(db, out / f"report-{label}")
    for _ in range(runs):
        rows["report"].add(run(report))
    return rows, cold, incremental, after


def report_cmd(db: Path, out: Path) -> list[str]:
    """``report`` of the week holding the warehouse's last session, into ``out``."""
    return [*CLI, "--db", str(db), "report", "--week", _report_week(db), "--out", str(out)]


def _report_week(db: Path) -> str:
    """The ISO week holding the corpus's last session (a report with data in it)."""
    script = (
        "import duckdb,sys; c=duckdb.connect(sys.argv[1], read_only=True);"
        "print(c.execute(\"select strftime(max(started_at), '%G-W%V') from fct_sessions\")"
        ".fetchall()[0][0])"
    )
    return subprocess.run(
        [sys.executable, "-c", script, str(db)],
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
        cwd=CWD,
    ).stdout.strip()


def scaling(work: Path, scales: list[float], runs: int, base_scale: float) -> list[str]:
    lines = [
        "| R at | files | cold | no-op | +1 session | peak RSS (+1) |",
        "|---|---|---|---|---|---|",
    ]
    for factor in scales:
        tree = amplify(REAL, work / f"R-{factor}", BYTES_1X * base_scale * factor)
        db = work / f"R-{factor}.duckdb"
        fresh_db(db)
        ingest = ingest_cmd(db, tree, [])
        cold, noop, plus = Row("cold"), Row("no-op"), Row("+1")
        cold.add(run(ingest))
        for _ in range(runs):
            noop.add(run(ingest))
        for k in range(runs):
            new_session(tree, k + 1)
            plus.add(run(ingest))
        lines.append(
            f"| {factor:g}x | {len(files_of(tree))} | {cold.cell()} | {noop.cell()} |"
            f" {plus.cell()} | {plus.peak()} |"
        )
        shutil.rmtree(tree)
        fresh_db(db)
    return lines


def analysis_commands(db: Path, bases: list[Path]) -> list[tuple[str, list[str]]]:
    """The commands timed against a built warehouse: (name, argv), --json where they have it."""
    held = [x for b in bases for x in ("--base", str(b))]
    analyses = [["heads"], ["coverage"], ["hits"], ["bodies"], ["cost", "^git commit"]]
    analyses += [["cost", "--rituals"], ["effect"]]
    return [
        ("--help", [*CLI, "--help"]),
        ("--version", [*CLI, "--version"]),
        *[(" ".join(argv), [*CLI, "--db", str(db), *argv, "--json"]) for argv in analyses],
        (f"stats ({len(bases)} bases)", [*CLI, "--db", str(db), "stats", *held, "--json"]),
    ]


def timed_commands(db: Path, bases: list[Path], runs: int) -> list[str]:
    lines = ["| command | median (min-max) |", "|---|---|"]
    for name, argv in analysis_commands(db, bases):
        row = Row(name)
        for _ in range(runs):
            try:
                row.add(run(argv))
            except SystemExit as exc:
                print(f"skipped {name}: {exc}", file=sys.stderr)
                break
        if row.seconds:
            lines.append(f"| {name} | {row.cell()} |")
    return lines


def table(results: dict[str, dict[str, Row]], sizes: dict[str, str]) -> list[str]:
    names = ["cat", "read_json", "cold", "no-op", "+1 session", "report"]
    lines = [
        "| corpus | " + " | ".join(names) + " | cold / cat | cold / read_json | peak RSS (cold) |",
        "|---" * (len(names) + 4) + "|",
    ]
    for label, rows in results.items():
        cells = [rows[n].cell() for n in names]
        ratio_cat = rows["cold"].median() / rows["cat"].median()
        ratio_rj = rows["cold"].median() / rows["read_json"].median()
        lines.append(
            f"| {label}: {sizes[label]} | "
            + " | ".join(cells)
            + f" | {ratio_cat:.0f}x | {ratio_rj:.1f}x | {rows['cold'].peak()} |"
        )
    return lines


def marts_lines(label: str, cold: Marts, incremental: Marts, full: Marts) -> list[str]:
    """The cold build's marts, then those after the +1 runs, where they differ from a full
    rebuild of the same files ('!')."""
    lines = [f"marts of {label}: rows, checksum after cold | after the +1 sessions"]
    for name, (count, checksum) in cold.items():
        inc = incremental.get(name)
        flag = "" if inc == full.get(name) else f"  ! full rebuild: {full.get(name)}"
        lines.append(f"  {name:32} {count:>9} {checksum:>13} | {inc}{flag}")
    return lines


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/la-speed-bench"))
    parser.add_argument(
        "--scale", type=float, default=1.0, help="corpus size as a share of 1.25 GB"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=["R", "D", "scaling", "commands"], action="append")
    parser.add_argument("--code", type=Path, help="run the package of another checkout")
    parser.add_argument("--keep", action="store_true", help="keep --work at the end")
    args = parser.parse_args()
    only = set(args.only or ["R", "D", "scaling", "commands"])
    if args.code:
        ENV["PYTHONPATH"] = str(args.code)
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    need = BYTES_1X * args.scale * (3.5 if "scaling" in only else 2.2)
    free = shutil.disk_usage(work).free
    if free < need:
        raise SystemExit(
            f"{work}: {free / 1e9:.1f} GB free, the benchmark needs {need / 1e9:.1f} GB"
        )
    print(load_line())
    # the bytecode a pip install would have compiled (see ENV)
    code = args.code or ROOT
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(code / "lessons_analytics")],
        env=ENV,
        check=True,
    )
    size = BYTES_1X * args.scale
    results: dict[str, dict[str, Row]] = {}
    sizes: dict[str, str] = {}
    out: list[str] = []
    try:
        demo = work / "demo"
        if ("D" in only or "commands" in only) and not demo.exists():
            subprocess.run(
                [*CLI, "demo", "--out", str(demo)],
                check=True,
                stdout=subprocess.DEVNULL,
                env=ENV,
                cwd=CWD,
            )
        bases = sorted((demo / "repos").rglob("LESSONS"))
        for label, source, extra in (("R", REAL, []), ("D", demo / "claude" / "projects", bases)):
            if label not in only and not (label == "D" and "commands" in only):
                continue
            tree = amplify(source, work / label, size)
            files = files_of(tree)
            sizes[label] = (
                f"{sum(p.stat().st_size for p in files) / 1e9:.2f} GB, {len(files)} files"
            )
            if label not in only:  # only the commands: one cold build
                fresh_db(work / "D.duckdb")
                run(ingest_cmd(work / "D.duckdb", tree, extra))
                continue
            rows, cold, incremental, full = bench_corpus(
                label, tree, work / f"{label}.duckdb", extra, args.runs, work
            )
            results[label] = rows
            out += marts_lines(label, cold, incremental, full)
        if results:
            out += ["", *table(results, sizes)]
        if "commands" in only:
            out += [
                "",
                "analysis commands on D (whole process, --json):",
                *timed_commands(work / "D.duckdb", bases, args.runs),
            ]
        if "scaling" in only:
            for label in ("R",):
                shutil.rmtree(work / label, ignore_errors=True)
            out += ["", *scaling(work, [0.25, 1.0, 2.0], args.runs, args.scale)]
        out.append(load_line())
        print("\n".join(out))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
