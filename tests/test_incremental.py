"""An incremental refresh gives exactly the tables a full build gives.

The demo's transcripts arrive in three runs (half of the files; the rest plus a grown file;
a rewritten file), each refreshing only the sessions it touched; a second warehouse loads the
final tree at once. Every intermediate and mart table must hold the same rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from lessons_analytics.demo import build_demo
from lessons_analytics.ingestion import ingest
from lessons_analytics.sqlfiles import layer_files
from lessons_analytics.transform import materialization


def _tables() -> list[str]:
    return [p.stem for p in layer_files() if materialization(p, p.read_text()) == "table"]


def _rows(db: Path, table: str) -> list[tuple[object, ...]]:
    columns = "* exclude (loaded_at)" if table == "fct_ingest_state" else "*"
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"select {columns} from {table} order by all").fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def warehouses(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    root = tmp_path_factory.mktemp("incremental")
    ws = build_demo(root / "demo")
    tree = root / "arriving"
    files = sorted(p for p in ws.root.joinpath("claude").rglob("*") if p.is_file())
    files += sorted(p for p in ws.root.joinpath("codex").rglob("*") if p.is_file())

    def place(paths: list[Path]) -> None:
        for path in paths:
            target = tree / path.relative_to(ws.root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)

    db = root / "incremental.duckdb"
    builds = []
    place(files[::2])
    builds.append(ingest(db, [tree], ws.bases).build)
    place(files[1::2])
    grown = next(p for p in sorted(tree.rglob("*.jsonl")) if p.stat().st_size > 20_000)
    lines = grown.read_text(encoding="utf-8").splitlines(keepends=True)
    grown.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    builds.append(ingest(db, [tree], ws.bases).build)
    grown.write_text("".join(lines), encoding="utf-8")  # the rest of the file arrives
    candidates = sorted(tree.rglob("*.jsonl"))
    rewritten = next(p for p in candidates if p != grown and p.stat().st_size > 20_000)
    body = rewritten.read_text(encoding="utf-8").splitlines(keepends=True)
    rewritten.write_text("".join(body[:-3]), encoding="utf-8")  # shorter: a rewrite
    builds.append(ingest(db, [tree], ws.bases).build)
    full = root / "full.duckdb"
    ingest(full, [tree], ws.bases)
    return db, full, builds


def test_the_later_runs_were_incremental(warehouses: tuple[Path, Path, list[str]]) -> None:
    _inc, _full, builds = warehouses
    assert builds[0] == "full"
    assert builds[1:] == ["incremental", "incremental"]


@pytest.mark.parametrize("table", _tables())
def test_table_equals_the_full_build(warehouses: tuple[Path, Path, list[str]], table: str) -> None:
    incremental, full, _builds = warehouses
    assert _rows(incremental, table) == _rows(full, table)
