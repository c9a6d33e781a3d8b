"""A small run's rows go to DuckDB as bound lists, without Polars (``load.SMALL_BYTES``):
the raw tables they make are those the frame path makes, value for value, and a run that
adds one small transcript to a warehouse does not import Polars."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_analytics import warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.schema import RAW_TABLES, Columns, create_sql
from tests.test_cli_startup import LAYER
from tests.test_instants import SHAPES
from tests.test_load_hostile import SESSION, claude_call

_INT64 = st.one_of(
    st.sampled_from([-(1 << 63), (1 << 63) - 1, 0, -1]),
    st.integers(-(1 << 63), (1 << 63) - 1),
)
_TEXT = st.one_of(st.text(), st.sampled_from(["", "\x00", "a\x00b", "'", '"', "\\", "é∂😀"]))
_FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([-0.0, 0.0, float("inf"), float("-inf"), float("nan")]),
    st.integers(-(1 << 53) + 1, (1 << 53) - 1),  # an integer in a float column fits
)
_INSTANT = st.one_of(
    st.sampled_from(SHAPES),
    st.builds(
        lambda day, secs, frac, zone: (
            f"2026-01-{day:02d}T{secs // 3600:02d}:"
            f"{secs // 60 % 60:02d}:{secs % 60:02d}{frac}{zone}"
        ),
        st.integers(1, 28),
        st.integers(0, 86399),
        st.sampled_from(["", ".5", ".123456", ".123456789"]),
        st.sampled_from(["", "Z", "+00:00", "-05:30", "+1400"]),
    ),
)
_VALUES = {"str": _TEXT, "int": _INT64, "bool": st.booleans(), "float": _FLOAT, "ts": _INSTANT}


@st.composite
def batches(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    table = draw(st.sampled_from(sorted(RAW_TABLES)))
    columns = RAW_TABLES[table]
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        row: dict[str, Any] = {}
        for name, kind in columns.items():
            choice = draw(st.integers(0, 5))
            if choice == 0:
                continue  # absent: null
            row[name] = None if choice == 1 else draw(_VALUES[kind])
        rows.append(row)
    return table, rows


def _table(path: Path, table: str) -> tuple[list[Any], list[str]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        types = con.execute(f"describe {table}").fetchall()
        # repr tells -0.0 from 0.0 and shows nan, which equality would not
        rows = sorted(repr(row) for row in con.execute(f"select * from {table}").fetchall())
    finally:
        con.close()
    return types, rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_bound_lists_make_the_table_the_frame_makes(case: tuple[str, list[dict[str, Any]]]) -> None:
    table, rows = case
    columns: Columns[Any] = Columns(table)
    for row in rows:
        columns.add(row)  # checked, as a small run adds them
    with tempfile.TemporaryDirectory() as folder:
        framed, listed = Path(folder) / "frame.duckdb", Path(folder) / "lists.duckdb"
        for path in (framed, listed):
            con = warehouse.connect(path)
            con.execute(create_sql(table))
            if path == framed:
                warehouse.append(con, table, columns.frame())
            else:
                warehouse.insert_lists(con, table, RAW_TABLES[table], columns.lists())
            con.close()
        assert _table(listed, table) == _table(framed, table)


def _session(folder: Path, name: str, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(claude_call(k, sessionId=name, timestamp=SHAPES[k % len(SHAPES)]))
        for k in range(n, n + 5)
    ]
    (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n")


def _ingest_elsewhere(db: Path, projects: Path) -> tuple[object, list[str]]:
    """``ingest`` in a fresh process: its exit code, and which of Polars, PyArrow and
    DuckDB's Python layer it imported."""
    script = (
        "import sys\n"
        "from lessons_analytics.cli import cli\n"
        "try:\n"
        f"    cli(['--db', {str(db)!r}, '--quiet', 'ingest', {str(projects)!r}])\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"loaded = [m for m in ('polars', 'pyarrow', *{LAYER!r}) if m in sys.modules]\n"
        "print(repr((code, loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    code, loaded = ast.literal_eval(done.stderr.splitlines()[-1])
    return code, loaded


def test_adding_a_small_transcript_does_not_import_polars(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _session(projects / "-home-dev-shop", SESSION, 1)
    db = tmp_path / "w.duckdb"
    ingest(db, [projects])
    other = "e0000000-0000-4000-8000-0000000000e0"
    _session(projects / "-home-dev-shop", other, 20)
    assert _ingest_elsewhere(db, projects) == (0, [])
    con = duckdb.connect(str(db), read_only=True)
    found = con.execute(
        "select count(*), count(ts) from raw_tool_calls where session_id = ?", [other]
    ).fetchall()
    assert found == [(5, 5)]


def test_new_links_of_unchanged_bases_are_written_without_polars(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "LESSONS").mkdir(parents=True)
    (repo / "LESSONS" / "INDEX.md").write_text("# Lessons\n\n## Active\n")
    projects = tmp_path / "projects"
    first = projects / "-repo-a"
    (repo / "a").mkdir()
    # the sessions work in folders of the repository, under its base
    for folder, name, cwd in ((first, SESSION, "a"), (projects / "-repo-b", "e1", "b")):
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            json.dumps(claude_call(k, sessionId=name, cwd=str(repo / cwd))) for k in range(1, 3)
        ]
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        if name == SESSION:
            db = tmp_path / "w.duckdb"
            ingest(db, [projects])
            (repo / "b").mkdir()
    assert _ingest_elsewhere(db, projects) == (0, [])
    cold = tmp_path / "cold.duckdb"
    ingest(cold, [projects])
    links = []
    for path in (db, cold):
        con = duckdb.connect(str(path), read_only=True)
        links.append(con.execute("select * from raw_cwd_bases order by all").fetchall())
        con.close()
    assert links[0] == links[1]
    assert [cwd for cwd, _base, _depth in links[0]] == [str(repo / "a"), str(repo / "b")]
