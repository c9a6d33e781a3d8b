"""The public entry points: ``la.connect`` takes what a notebook user types."""

from __future__ import annotations

from pathlib import Path

import pytest

import lessons_analytics as la
from lessons_analytics.errors import NoWarehouse

DATA = Path(__file__).parent / "data"


def test_connect_takes_a_str_a_path_and_a_home_relative_str(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "w.duckdb"
    sessions = la.ingest(db, [DATA / "projects"]).totals["sessions"]
    assert sessions > 0
    monkeypatch.setenv("HOME", str(tmp_path))
    for given in (str(db), db, "~/w.duckdb"):
        con = la.connect(given, read_only=True)
        try:
            # the warehouse ingest just wrote, whichever way its path was spelt
            assert con.sql("select count(*) from fct_sessions").fetchall() == [(sessions,)]
        finally:
            con.close()


def test_connect_read_only_to_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(NoWarehouse, match="no warehouse yet"):
        la.connect(str(tmp_path / "none.duckdb"), read_only=True)
