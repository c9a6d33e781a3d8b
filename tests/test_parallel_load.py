"""The two-process load (workers spooling Parquet) gives the same warehouse as one process."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from lessons_analytics import load
from lessons_analytics.ingestion import ingest
from lessons_analytics.schema import RAW_TABLES

DATA = Path(__file__).parent / "data"
TABLES = [t for t in RAW_TABLES if t not in ("raw_files", "raw_load_errors")] + [
    "fct_events", "fct_tool_calls", "fct_sessions", "dim_agent_runs", "fct_file_reads",
]  # fmt: skip


def _dump(db: Path) -> dict[str, list[tuple[object, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        found = {t: con.execute(f"select * from {t} order by all").fetchall() for t in TABLES}
        # the files' states (a big load writes them as a frame, a small one as lists), but
        # for the time of the run
        found["raw_files"] = con.execute(
            "select * exclude (loaded_at) from raw_files order by all"
        ).fetchall()
        return found
    finally:
        con.close()


def test_pool_and_spool_equal_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [DATA / "projects", DATA / "codex"]
    serial = tmp_path / "serial.duckdb"
    ingest(serial, sources)
    monkeypatch.setattr(load, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(load, "CHUNK_BYTES", 4096)  # many small chunks, two workers
    parallel = tmp_path / "parallel.duckdb"
    report = ingest(parallel, sources)
    assert report.files_loaded == 25
    assert _dump(parallel) == _dump(serial)
    assert not list(tmp_path.glob(".spool-*"))  # the spool is removed


def test_a_load_of_many_chunks_forgets_the_rows_of_rewritten_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each chunk asks which of its files read from the top have rows to forget
    # (warehouse.files_with_rows: a cold run's have none): every file rewritten under a
    # loaded warehouse, a chunk each, still replaces its rows
    tree = tmp_path / "tree"
    for source in ("projects", "codex"):
        shutil.copytree(DATA / source, tree / source)
    sources = [tree / "projects", tree / "codex"]
    monkeypatch.setattr(load, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(load, "CHUNK_BYTES", 4096)
    db = tmp_path / "w.duckdb"
    ingest(db, sources)
    rewritten = 0
    for path in sorted(tree.rglob("*.jsonl")):
        lines = path.read_text().splitlines(keepends=True)
        if len(lines) > 1:
            # another head, read again from the top; a byte longer, so that it is a chunk
            path.write_text("".join(lines[::-1]) + "\n")
            rewritten += 1
    assert rewritten > 4
    monkeypatch.setattr(load, "CHUNK_BYTES", 1)  # a chunk per file
    ingest(db, sources)
    fresh = tmp_path / "fresh.duckdb"
    ingest(fresh, sources)
    assert _dump(db) == _dump(fresh)
