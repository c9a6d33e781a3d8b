"""Audits from the headers' keys, and ``check-warehouse``, over tiny tables, the demo
warehouse, the real corpora and a warehouse corrupted on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import orjson
import pytest
from click.testing import CliRunner

from lessons_analytics import sqlheader
from lessons_analytics.audits import audits_for, run_audits
from lessons_analytics.cli import cli
from lessons_analytics.ingestion import ingest
from tests.support.demo_warehouse import demo_warehouse

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def _results(con: duckdb.DuckDBPyConnection, header_text: str, name: str) -> dict[str, int]:
    header = sqlheader.parse(header_text, name, "marts")
    columns = {c: t for c, t, *_ in con.execute(f"describe {name}").fetchall()}
    return {a.name: len(con.execute(a.sql).fetchall()) for a in audits_for(header, columns)}


def test_audits_count_offending_rows_worked_out_by_hand() -> None:
    con = duckdb.connect(":memory:")
    con.execute(
        "create table runs (run_id varchar, part int, started_at timestamp, ended_at timestamp,"
        " input_tokens bigint, size_bytes bigint, label varchar)"
    )
    con.execute(
        """insert into runs values
        ('a', 1, '2026-01-01 10:00', '2026-01-01 11:00', 5, 0, 'x'),
        ('a', 1, '2026-01-01 10:00', '2026-01-01 09:00', -1, 3, 'x'),  -- copy of (a, 1)
        ('b', null, '2026-01-01 10:00', '2026-01-01 10:00', 0, -2, 'y'),
        ('b', null, '2026-01-01 10:00', null, null, 1, 'y'),  -- copy of (b, null)
        (null, 2, null, null, 7, 8, 'z')"""
    )
    text = "-- runs: r.\n-- Grain: one row per part.\n-- key: run_id, part (nullable)\nselect 1\n"
    # the key (a, 1) repeats and (b, null) repeats (nulls group together): 2 offending keys;
    # one null run_id; one run ending before it starts (an end equal to the start is fine,
    # a null end is not judged); one negative token count and one negative size; the
    # varchar label is not a size
    assert _results(con, text, "runs") == {
        "unique (run_id, part)": 2,
        "not null run_id": 1,
        "ended_at >= started_at": 1,
        "input_tokens >= 0": 1,
        "size_bytes >= 0": 1,
    }


def test_identifiers_are_quoted() -> None:
    con = duckdb.connect(":memory:")
    con.execute('create table "odd name" ("select" int, "a""b_tokens" int)')
    con.execute('insert into "odd name" values (1, -1), (1, 2)')
    text = "-- odd: o.\n-- Grain: one row per x.\n-- key: select\nselect 1\n"
    header = sqlheader.parse(text, "odd", "marts")
    header = sqlheader.Header(**{**header.__dict__, "name": "odd name"})
    columns = {"select": "INTEGER", 'a"b_tokens': "INTEGER"}
    counts = {a.name: len(con.execute(a.sql).fetchall()) for a in audits_for(header, columns)}
    assert counts == {"unique (select)": 1, "not null select": 0, 'a"b_tokens >= 0': 1}


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, db = demo_warehouse(tmp_path_factory.mktemp("audit-demo"))
    return db


def _audited_models() -> list[sqlheader.Header]:
    return [h for h in sqlheader.model_headers() if h.layer in ("intermediate", "marts")]


def test_every_audit_passes_on_the_demo_warehouse(demo_db: Path) -> None:
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        results = run_audits(con)
    finally:
        con.close()
    assert [r for r in results if not r.ok] == []
    unique = {r.model for r in results if r.audit.startswith("unique (")}
    assert unique == {h.name for h in _audited_models()}
    # one not-null audit per key column not marked nullable
    not_null = sum(1 for r in results if r.audit.startswith("not null "))
    assert not_null == sum(not c.nullable for h in _audited_models() for c in h.key)
    assert {r.model for r in results if r.audit == "ended_at >= started_at"} >= {
        "fct_sessions",
        "dim_agent_runs",
    }
    assert any(r.model == "fct_messages" and r.audit == "input_tokens >= 0" for r in results)


@pytest.mark.real
@pytest.mark.skipif(not (CORPORA / "real").is_dir(), reason="real corpus not present")
def test_every_audit_passes_on_the_real_corpora(tmp_path: Path) -> None:
    db = tmp_path / "real.duckdb"
    ingest(db, [p for p in (CORPORA / "real", CORPORA / "real2") if p.is_dir()])
    result = CliRunner().invoke(cli, ["--db", str(db), "check-warehouse", "--json"])
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.output)
    assert document["totals"]["failed"] == 0
    assert document["totals"]["audits"] == len(document["audits"]) > 100
    # the corpus has real rows to audit: the key audits are not passing on empty tables
    con = duckdb.connect(str(db), read_only=True)
    try:
        sessions = con.execute("select count(*) from fct_sessions").fetchone()
        calls = con.execute("select count(*) from fct_tool_calls").fetchone()
    finally:
        con.close()
    assert sessions and sessions[0] > 100 and calls and calls[0] > 1000


def _corrupt(src: Path, dst: Path, *statements: tuple[str, list[object]]) -> Path:
    shutil.copy(src, dst)
    con = duckdb.connect(str(dst))
    try:
        for sql, params in statements:
            con.execute(sql, params)
    finally:
        con.close()
    return dst


def test_check_warehouse_passes_then_flags_a_corrupted_copy(demo_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["--db", str(demo_db), "check-warehouse"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.endswith(" audits passed, 0 failed\n")
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        first = con.execute("select min(session_id) from fct_sessions").fetchone()
        message = con.execute("select session_id, message_key from fct_messages limit 1").fetchone()
    finally:
        con.close()
    assert first and message
    bad = _corrupt(
        demo_db,
        tmp_path / "bad.duckdb",
        # the same session twice
        ("insert into fct_sessions select * from fct_sessions where session_id = ?", [first[0]]),
        # a message with negative tokens
        (
            "update fct_messages set input_tokens = -3 where session_id = ? and message_key = ?",
            list(message),
        ),
    )
    result = runner.invoke(cli, ["--db", str(bad), "check-warehouse", "--json"])
    assert result.exit_code == 1, result.output
    document = orjson.loads(result.output)
    failed = [a for a in document["audits"] if not a["ok"]]
    assert [(a["model"], a["audit"], a["failing_rows"]) for a in failed] == [
        ("fct_messages", "input_tokens >= 0", 1),
        ("fct_sessions", "unique (session_id)", 1),
        # the scope view reads fct_sessions, so it shows the copy as well
        ("dim_session_scope", "unique (session_id, base_path)", 1),
    ]
    assert failed[1]["sample"] == {"session_id": first[0], "copies": 2}
    assert document["totals"]["failed"] == 3
    table = runner.invoke(cli, ["--db", str(bad), "check-warehouse"])
    assert table.exit_code == 1
    assert "fct_sessions" in table.output and f"session_id={first[0]}, copies=2" in table.output
    assert table.output.rstrip().endswith("audits passed, 3 failed")


def test_check_warehouse_without_a_warehouse(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.duckdb"), "check-warehouse"])
    assert result.exit_code == 1
    assert "no warehouse yet" in result.output
