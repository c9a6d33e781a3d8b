"""Two builds of the same rows give identical models, whatever the physical row order.

The raw tables of one ingest are copied, their rows shuffled (seeded) and the layers rebuilt
with another thread count: every intermediate table and mart must hash the same, row for
row. An ``arg_min``/``row_number`` that breaks ties by scan order fails here. Once on the
fixtures alone, once (marked ``real``, when present) with both real corpora as well: real
logs are full of tied timestamps.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import pytest

from lessons_analytics import transform, warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.schema import RAW_TABLES

DATA = Path(__file__).parent / "data"
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def _sources(corpora: bool) -> list[Path]:
    found = [DATA / "projects", DATA / "codex"]
    if corpora:
        found += [CORPORA / name for name in ("real", "real2") if (CORPORA / name).is_dir()]
    return found


def _models(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute(
        "select table_name from duckdb_tables()"
        " where regexp_matches(table_name, '^(int|fct|dim)_') order by 1"
    ).fetchall()
    return [row[0] for row in rows]


def _digest(con: duckdb.DuckDBPyConnection, table: str) -> tuple[int, str]:
    rows = con.execute(f"select * from {table} order by all").fetchall()
    return len(rows), hashlib.blake2b(repr(rows).encode(), digest_size=16).hexdigest()


def _rebuild(db: Path, threads: int, shuffle_seed: float | None) -> dict[str, tuple[int, str]]:
    con = warehouse.connect(db)
    try:
        con.execute(f"set threads = {threads}")
        if shuffle_seed is not None:
            con.execute("select setseed(?)", [shuffle_seed])
            for table in RAW_TABLES:
                con.execute(
                    f"create or replace table {table} as select * from {table} order by random()"
                )
        transform.build(con)
        return {table: _digest(con, table) for table in _models(con)}
    finally:
        con.close()


@pytest.fixture(
    scope="module",
    params=[
        "fixtures",
        # the real corpora too: real logs are full of tied timestamps (`pytest -m real`)
        pytest.param(
            "corpora",
            marks=[
                pytest.mark.real,
                pytest.mark.skipif(not CORPORA.is_dir(), reason="real corpora not present"),
            ],
        ),
    ],
)
def loaded(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    db = tmp_path_factory.mktemp("det") / "w.duckdb"
    report = ingest(db, _sources(request.param == "corpora"))
    assert report.document()["load_errors"] == 0
    return db


@pytest.mark.parametrize("seed", [0.25, 0.75])
def test_shuffled_rows_and_other_threads_build_the_same_models(
    loaded: Path, tmp_path: Path, seed: float
) -> None:
    first, second = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    shutil.copy(loaded, first)
    shutil.copy(loaded, second)
    one = _rebuild(first, threads=1, shuffle_seed=None)
    other = _rebuild(second, threads=4, shuffle_seed=seed)
    assert one.keys() == other.keys()
    assert len(one) > 20  # every intermediate table and mart, not a handful
    differ = {t: (one[t], other[t]) for t in one if one[t] != other[t]}
    assert differ == {}
