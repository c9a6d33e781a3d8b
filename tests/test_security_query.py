"""``query FILE.sql`` is a sandbox: one read-only SELECT, no file, extension or other
database reachable, configuration locked; refusals are one line, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wh") / "w.duckdb"
    result = CliRunner().invoke(cli, ["--db", str(path), "ingest", str(DATA / "projects")])
    assert result.exit_code == 0, result.output
    return path


def _query(db: Path, tmp_path: Path, sql: str, *extra: str) -> tuple[int, str, str]:
    file = tmp_path / "q.sql"
    file.write_text(sql)
    result = CliRunner().invoke(cli, ["--db", str(db), "query", str(file), *extra])
    return result.exit_code, result.stdout, result.stderr


def test_a_select_runs_and_the_package_writes_csv_and_parquet(db: Path, tmp_path: Path) -> None:
    code, out, _ = _query(db, tmp_path, "select count(*) as n from fct_sessions", "--json")
    assert code == 0
    assert json.loads(out)[0]["n"] > 0
    code, out, _ = _query(db, tmp_path, "select 1 as a, 'x' as b", "--csv")
    assert (code, out) == (0, "a,b\n1,x\n")
    target = tmp_path / "rows.parquet"
    code, _, _ = _query(db, tmp_path, "select 42 as a", "--parquet", str(target))
    assert code == 0
    import polars as pl

    assert pl.read_parquet(target)["a"].to_list() == [42]


@pytest.mark.parametrize(
    ("sql", "why", "leaves"),
    [
        ("copy (select 1) to '{out}/copied.csv'", "COPY statements are not allowed", "copied.csv"),
        ("select * from read_csv('/etc/passwd')", "external access is disabled", None),
        ("select * from read_text('/etc/hostname')", "external access is disabled", None),
        ("select * from glob('/etc/*')", "external access is disabled", None),
        ("install httpfs", "LOAD statements are not allowed", None),
        ("load httpfs", "LOAD statements are not allowed", None),
        (
            "attach '{out}/other.duckdb' as other",
            "ATTACH statements are not allowed",
            "other.duckdb",
        ),
        ("set enable_external_access = true", "SET statements are not allowed", None),
        ("set lock_configuration = false", "SET statements are not allowed", None),
        ("select 1; copy (select 1) to '{out}/second.csv'", "2 statements", "second.csv"),
        ("select 1; select 2", "2 statements", None),
        ("export database '{out}/dump'", "EXPORT statements are not allowed", "dump"),
        ("create table x as select 1", "CREATE statements are not allowed", None),
        ("pragma version", "PRAGMA statements are not allowed", None),
    ],
)
def test_refused_with_one_line_saying_why(
    db: Path, tmp_path: Path, sql: str, why: str, leaves: str | None
) -> None:
    code, out, err = _query(db, tmp_path, sql.format(out=tmp_path))
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "query refused" in lines[0] and why in lines[0]
    if leaves:
        assert not (tmp_path / leaves).exists()
    assert "root:" not in err  # nothing of /etc/passwd


def test_a_named_query_runs_in_the_same_sandbox(db: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(db), "query", "coverage", "--json"])
    assert result.exit_code == 0, result.output
    assert isinstance(json.loads(result.stdout), list)
