"""The Parquet contract: layout, incremental export, two machines combined."""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lessons_analytics import exchange, sqlfiles
from lessons_analytics.cli import cli
from lessons_analytics.demo import build_demo
from lessons_analytics.ingestion import ingest
from lessons_analytics.load import file_id_of
from tests.support.demo_warehouse import demo_warehouse

MARTS = sorted(p.stem for p in (sqlfiles.sql_root() / "marts").glob("*.sql"))


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two machines with different transcript sets and bases, each exported."""
    root = tmp_path_factory.mktemp("machines")
    alice, alice_db = demo_warehouse(root / "alice", 1)
    bob, bob_db = demo_warehouse(root / "bob", 2)
    shared = root / "export"  # both machines write into one folder
    exchange.export_parquet(alice_db, shared, "alice")
    bob_export = root / "export-bob"
    exchange.export_parquet(bob_db, bob_export, "bob")
    return {
        "root": root,
        "alice": alice,
        "bob": bob,
        "alice_db": alice_db,
        "shared": shared,
        "bob_export": bob_export,
    }


def _rows(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[Any, ...]]:
    # when a file was loaded is the one thing two builds of the same files differ in
    exclude = " exclude (loaded_at)" if table == "fct_ingest_state" else ""
    rows = con.execute(f"select *{exclude} from {table}").fetchall()
    return sorted(rows, key=lambda row: tuple((v is None, str(v)) for v in row))


def test_layout_partitions_types_and_version(machines: dict[str, Any]) -> None:
    shared: Path = machines["shared"]
    assert (shared / "schema_version").read_text().strip() == exchange.SCHEMA_VERSION
    for table in exchange.contract_tables():
        assert (shared / table / "machine=alice").is_dir(), table
    events = sorted((shared / "raw_events" / "machine=alice").iterdir())
    assert events and all(p.name.startswith("date=") for p in events)
    assert list((shared / "raw_lessons" / "machine=alice").glob("part-*.parquet"))
    con = duckdb.connect(str(machines["alice_db"]), read_only=True)
    con.execute("set TimeZone = 'UTC'")
    days = {
        row[0].isoformat()
        for row in con.execute("select distinct cast(ts as date) from raw_events").fetchall()
        if row[0] is not None
    }
    assert {p.name.removeprefix("date=") for p in events} - {exchange.NULL_PARTITION} == days
    # every exported row is there once
    for table in ("raw_events", "fct_sessions", "raw_lessons"):
        exported = pq.read_table(shared / table, partitioning="hive").num_rows
        assert exported == con.execute(f"select count(*) from {table}").fetchall()[0][0]
    stamp = pq.read_schema(next((shared / "raw_events").rglob("*.parquet"))).field("ts").type
    assert str(stamp) == "timestamp[us, tz=UTC]"


def test_events_carry_their_stored_gap(machines: dict[str, Any]) -> None:
    """fct_events.gap_s is part of the contract: exported as a double, row for row, and the
    gaps capped at the spec's 300 s add up to each session's exported active time."""
    shared: Path = machines["shared"]
    events = pq.read_table(shared / "fct_events", partitioning="hive")
    assert str(events.schema.field("gap_s").type) == "double"
    con = duckdb.connect(str(machines["alice_db"]), read_only=True)
    stored = con.execute("select file_id, line_no, gap_s from fct_events").fetchall()
    exported = zip(
        events.column("file_id").to_pylist(),
        events.column("line_no").to_pylist(),
        events.column("gap_s").to_pylist(),
        strict=True,
    )
    assert sorted(exported, key=str) == sorted(stored, key=str)
    assert sum(g is not None and g > 0 for *_, g in stored) > 100
    # the active time from the exported rows alone, in Python: a session's timestamped
    # events in time order, each gap capped at 300 s
    by_session: dict[str, list[Any]] = {}
    for session, ts in zip(
        events.column("session_id").to_pylist(), events.column("ts").to_pylist(), strict=True
    ):
        if ts is not None:
            by_session.setdefault(session, []).append(ts)
    sessions = pq.read_table(shared / "fct_sessions", partitioning="hive")
    active = dict(
        zip(
            sessions.column("session_id").to_pylist(),
            sessions.column("active_seconds").to_pylist(),
            strict=True,
        )
    )
    assert by_session and set(by_session) <= set(active)
    for session, stamps in by_session.items():
        stamps.sort()
        expected = sum(min((b - a).total_seconds(), 300) for a, b in pairwise(stamps))
        assert active[session] == pytest.approx(expected, abs=1e-6), session


def test_a_re_export_writes_nothing(machines: dict[str, Any]) -> None:
    shared: Path = machines["shared"]
    before = {p: p.stat().st_mtime_ns for p in shared.rglob("*.parquet")}
    report = exchange.export_parquet(machines["alice_db"], shared, "alice")
    assert report.written == [] and report.removed == []
    assert report.unchanged == len(before)
    assert {p: p.stat().st_mtime_ns for p in shared.rglob("*.parquet")} == before


def test_an_export_writes_only_the_partitions_that_changed(tmp_path: Path) -> None:
    workspace = build_demo(tmp_path / "ws", seed=3)
    db = tmp_path / "w.duckdb"
    out = tmp_path / "export"
    ingest(db, [workspace.claude_projects], workspace.bases)
    exchange.export_parquet(db, out, "m")
    before = {p: p.stat().st_mtime_ns for p in (out / "raw_events").rglob("*.parquet")}
    ingest(db, workspace.sources, workspace.bases)
    report = exchange.export_parquet(db, out, "m")
    con = duckdb.connect(str(db), read_only=True)
    con.execute("set TimeZone = 'UTC'")
    # the days with a Codex line (lines without a time go to the null partition)
    codex_days = {
        f"date={row[0]}"
        for row in con.execute(
            "select distinct coalesce(cast(cast(ts as date) as varchar), ?) from raw_events"
            " where runtime = 'codex'",
            [exchange.NULL_PARTITION],
        ).fetchall()
    }
    written = {Path(p).name for p in report.written if "/raw_events/" in p}
    assert written == codex_days
    kept = {p for p in before if p.exists()}
    assert all(p.stat().st_mtime_ns == before[p] for p in kept)
    assert all(p.parent.name not in codex_days for p in kept)


def test_two_machines_combined_equal_one_build_over_both(machines: dict[str, Any]) -> None:
    root: Path = machines["root"]
    central = root / "central.duckdb"
    first = exchange.import_parquet(central, [machines["shared"]])
    assert first.machines == ["alice"]
    report = exchange.import_parquet(central, [machines["bob_export"]])
    assert report.machines == ["alice", "bob"] and report.shared_paths == 0
    single = root / "single.duckdb"
    alice, bob = machines["alice"], machines["bob"]
    ingest(
        single,
        [*alice.sources, *bob.sources],
        [*alice.bases, *bob.bases],
    )
    a = duckdb.connect(str(central), read_only=True)
    b = duckdb.connect(str(single), read_only=True)
    sessions = b.execute("select count(*) from fct_sessions").fetchall()[0][0]
    alice_sessions = (
        duckdb.connect(str(machines["alice_db"]), read_only=True)
        .execute("select count(*) from fct_sessions")
        .fetchall()[0][0]
    )
    assert 0 < alice_sessions < sessions
    for mart in MARTS:
        assert _rows(a, mart) == _rows(b, mart), mart


def test_a_path_on_two_machines_gets_ids_of_its_own_on_each(tmp_path: Path) -> None:
    workspace, db = demo_warehouse(tmp_path / "ws", 4)
    out = tmp_path / "export"
    exchange.export_parquet(db, out, "laptop")
    # a second machine whose transcripts stand at the very same paths
    shutil.copytree(out / "raw_files" / "machine=laptop", out / "raw_files" / "machine=desk")
    for table in ("raw_events", "raw_tool_calls", "raw_subagent_meta", "raw_mentions"):
        shutil.copytree(out / table / "machine=laptop", out / table / "machine=desk")
    central = tmp_path / "central.duckdb"
    report = exchange.import_parquet(central, [out])
    con = duckdb.connect(str(central), read_only=True)
    files = con.execute("select count(*), count(distinct file_id) from raw_files").fetchall()
    paths = con.execute("select count(distinct path) from raw_files").fetchall()[0][0]
    assert files == [(2 * paths, 2 * paths)] and report.shared_paths == 2 * paths
    some_path = con.execute("select min(path) from raw_files").fetchall()[0][0]
    ids = {row[0] for row in con.execute(
        "select file_id from raw_files where path = ?", [some_path]
    ).fetchall()}  # fmt: skip
    assert ids == {file_id_of(f"laptop\0{some_path}"), file_id_of(f"desk\0{some_path}")}
    dupes = con.execute(
        "select count(*) from (select file_id, line_no from raw_events"
        " group by all having count(*) > 1)"
    ).fetchall()[0][0]
    assert dupes == 0
    # every event row still finds its file
    orphans = con.execute(
        "select count(*) from raw_events anti join raw_files using (file_id)"
    ).fetchall()[0][0]
    assert orphans == 0


def test_a_combining_warehouse_takes_no_transcripts(machines: dict[str, Any]) -> None:
    central = machines["root"] / "central-cli.duckdb"
    runner = CliRunner()
    combined = runner.invoke(
        cli, ["--db", str(central), "ingest", "--parquet", str(machines["shared"])]
    )
    assert combined.exit_code == 0, combined.output
    assert "machines: alice" in combined.output
    refused = runner.invoke(
        cli, ["--db", str(central), "ingest", str(machines["alice"].claude_projects)]
    )
    assert refused.exit_code == 1 and "ingest --parquet" in refused.output
    again = runner.invoke(
        cli, ["--db", str(machines["alice_db"]), "ingest", "--parquet", str(machines["shared"])]
    )
    assert again.exit_code == 1 and "transcripts ingested on this machine" in again.output


def test_export_command_and_a_foreign_folder(machines: dict[str, Any], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "x"
    first = runner.invoke(
        cli,
        ["--db", str(machines["alice_db"]), "export", "--parquet", str(out), "--machine", "a b"],
    )
    assert first.exit_code == 0, first.output
    assert (out / "raw_events" / "machine=a-b").is_dir()
    again = runner.invoke(
        cli,
        [
            "--db",
            str(machines["alice_db"]),
            "export",
            "--parquet",
            str(out),
            "--machine",
            "a b",
            "--json",
        ],
    )
    assert again.exit_code == 0 and '"written": 0' in again.output
    nothing = runner.invoke(cli, ["--db", str(machines["alice_db"]), "export"])
    assert nothing.exit_code == 2
    (tmp_path / "junk").mkdir()
    bad = runner.invoke(
        cli, ["--db", str(tmp_path / "c.duckdb"), "ingest", "--parquet", str(tmp_path / "junk")]
    )
    assert bad.exit_code == 1 and "schema_version" in bad.output


def test_nightly_exports_when_configured(tmp_path: Path) -> None:
    build_demo(tmp_path, seed=5)
    (tmp_path / "lessons-analytics.toml").write_text(
        'sources = ["claude/projects", "codex/sessions"]\nwarehouse = "w.duckdb"\n'
        'export_parquet = "export"\nmachine = "night"\n'
    )
    args = ["--config", str(tmp_path / "lessons-analytics.toml"), "nightly", "--json",
            "--report-dir", str(tmp_path / "reports")]  # fmt: skip
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert (tmp_path / "export" / "raw_events" / "machine=night").is_dir()
    assert '"exported": 0' not in first.output
    second = CliRunner().invoke(cli, args)
    assert second.exit_code == 0 and '"exported": 0' in second.output
