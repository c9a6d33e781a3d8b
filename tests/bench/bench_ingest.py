"""Ingest and analysis benchmark, run by hand (never by CI):

    .venv/bin/python tests/bench/bench_ingest.py [--work /tmp/la-bench] [--bytes 1.25e9]

1. Amplifies the real corpus (../shared/bench/amplify.py: fresh ids, shifted dates) to
   --bytes and times, on the same files: `cat`, orjson over every line, DuckDB's
   `read_json` extraction of events, then our cold ingest, a no-op re-run and one new
   session, each in a fresh process with its peak memory (the largest process of the tree).
2. Amplifies the demo workspace's transcripts (which stand in real lesson bases) to the
   same size and times every analysis command over that warehouse.
Prints one line per figure; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AMPLIFY = ROOT.parent / "shared" / "bench" / "amplify.py"
CLI = [sys.executable, "-m", "lessons_analytics"]


def timed(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak MB of the largest process of the command's tree) of one command."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - started
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024


def amplify(source: Path, out: Path, size: float) -> Path:
    if not out.exists():
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
            ],
            check=True,
        )
    return out


def files_of(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.jsonl"))


def bench_baselines(tree: Path) -> None:
    files = files_of(tree)
    total = sum(p.stat().st_size for p in files)
    print(f"corpus: {len(files)} files, {total / 1e9:.2f} GB")
    started = time.perf_counter()
    for path in files:
        path.read_bytes()
    print(f"cat (read every file): {time.perf_counter() - started:.2f} s")
    import orjson

    started = time.perf_counter()
    for path in files:
        for line in path.read_bytes().splitlines():
            if line.strip():
                orjson.loads(line)
    print(f"orjson over every line, one process: {time.perf_counter() - started:.2f} s")
    script = (
        "import duckdb,sys; c=duckdb.connect();"
        'c.execute("select count(*), count(distinct uuid) from read_json(?,'
        " format='newline_delimited', columns={'uuid':'varchar','type':'varchar',"
        " 'sessionId':'varchar','timestamp':'varchar'},"
        ' ignore_errors=true)", [sys.argv[1]]).fetchall()'
    )
    seconds, peak = timed([sys.executable, "-c", script, str(tree / "**" / "*.jsonl")])
    print(f"duckdb read_json (events only): {seconds:.2f} s, peak {peak:.0f} MB")


def bench_ingest(tree: Path, db: Path) -> None:
    for old in db.parent.glob(db.name + "*"):
        old.unlink()
    total = sum(p.stat().st_size for p in files_of(tree))
    seconds, peak = timed([*CLI, "--db", str(db), "--quiet", "ingest", str(tree)])
    print(f"cold ingest: {seconds:.2f} s ({total / 1e6 / seconds:.0f} MB/s), peak {peak:.0f} MB")
    seconds, peak = timed([*CLI, "--db", str(db), "--quiet", "ingest", str(tree)])
    print(f"no-op re-run (whole CLI process): {seconds:.2f} s, peak {peak:.0f} MB")
    script = (
        "import time,sys; from pathlib import Path; from lessons_analytics.ingestion import ingest;"
        "t=time.perf_counter(); ingest(Path(sys.argv[1]),[Path(sys.argv[2])]);"
        "print(f'{time.perf_counter()-t:.3f}')"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(db), str(tree)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"no-op re-run (inside the library): {out} s")
    source = max(files_of(tree), key=lambda p: p.stat().st_size if "agent-" not in p.name else 0)
    fresh = source.with_name("00000000-feed-4bee-8000-000000000001.jsonl")
    text = source.read_text(encoding="utf-8")
    session = json.loads(next(line for line in text.splitlines() if '"sessionId"' in line))[
        "sessionId"
    ]
    fresh.write_text(
        text.replace(session, "00000000-feed-4bee-8000-000000000001"), encoding="utf-8"
    )
    try:
        seconds, peak = timed([*CLI, "--db", str(db), "--quiet", "ingest", str(tree)])
        size_kb = fresh.stat().st_size / 1e3
        print(f"one new session ({size_kb:.0f} KB): {seconds:.2f} s, peak {peak:.0f} MB")
    finally:
        fresh.unlink()
        timed([*CLI, "--db", str(db), "--quiet", "ingest", str(tree)])


def bench_analyses(db: Path) -> None:
    for argv in (
        ["heads"],
        ["coverage"],
        ["hits"],
        ["bodies"],
        ["cost", "^git commit"],
        ["cost", "--rituals"],
    ):
        seconds, _ = timed([*CLI, "--db", str(db), *argv, "--json"])
        print(f"{' '.join(argv)} --json: {seconds:.2f} s (whole process)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/la-bench"))
    parser.add_argument("--bytes", type=float, default=1.25e9)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    real = amplify(ROOT.parent / "shared" / "corpora" / "real", args.work / "real", args.bytes)
    bench_baselines(real)
    bench_ingest(real, args.work / "real.duckdb")
    demo_root = args.work / "demo"
    if not demo_root.exists():
        subprocess.run(
            [*CLI, "demo", "--out", str(demo_root)], check=True, stdout=subprocess.DEVNULL
        )
    demo = amplify(demo_root / "claude" / "projects", args.work / "demo-amplified", args.bytes)
    db = args.work / "demo.duckdb"
    for old in db.parent.glob(db.name + "*"):
        old.unlink()
    seconds, peak = timed(
        [
            *CLI,
            "--db",
            str(db),
            "--quiet",
            "ingest",
            str(demo),
            *[
                x
                for b in sorted((demo_root / "repos").rglob("LESSONS"))
                for x in ("--base", str(b))
            ],
        ]
    )
    print(f"demo-amplified cold ingest (3 bases): {seconds:.2f} s, peak {peak:.0f} MB")
    bench_analyses(db)


if __name__ == "__main__":
    main()
