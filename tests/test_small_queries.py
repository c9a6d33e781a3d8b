"""The small read queries moved out of Python, on rows written here (in-memory DuckDB)."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from lessons_analytics.metrics import query


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create table dim_bases (base_path varchar, project_dir varchar)")
    con.execute("insert into dim_bases values ('/b/LESSONS', '/b'), ('/a/LESSONS', null)")
    con.execute(
        "create table dim_index_versions (base_path varchar, version_id varchar,"
        " committed_at timestamptz, active_heading_line bigint)"
    )
    con.execute(
        "insert into dim_index_versions values"
        " ('/a/LESSONS', 'worktree', null, 9),"
        " ('/b/LESSONS', 'c2', '2026-11-02 10:00:00+00', 7),"
        " ('/b/LESSONS', 'c1', '2026-11-01 10:00:00+00', 5),"
        " ('/b/LESSONS', 'c0', '2026-11-02 10:00:00+00', 6)"
    )
    con.execute("create table fct_sessions (session_id varchar, started_at timestamptz)")
    con.execute(
        "insert into fct_sessions values ('s2', '2026-11-03 08:00:00+00'),"
        " ('s1', '2026-10-30 23:30:00+00')"
    )
    con.execute(
        "create table dim_lessons (base_path varchar, lesson_id varchar, status varchar,"
        " lesson_class varchar, rule varchar, target varchar, triggers varchar[],"
        " ritual varchar)"
    )
    con.execute(
        "insert into dim_lessons values"
        " ('/b/LESSONS', 'L-2', 'active', 'c', 'r', 't', ['x'], 'make check'),"
        " ('/b/LESSONS', 'L-1', 'active', 'c', 'r', 't', [], null),"
        " ('/a/LESSONS', 'L-9', 'candidate', null, null, null, [], 'pytest')"
    )
    return con


def test_bases(con: duckdb.DuckDBPyConnection) -> None:
    assert query(con, "bases").rows() == [("/a/LESSONS", None), ("/b/LESSONS", "/b")]
    assert query(con, "bases", bases=["/b/LESSONS", "/gone"]).rows() == [("/b/LESSONS", "/b")]
    assert query(con, "bases", bases=[]).rows() == []


def test_index_versions_oldest_first_ties_by_id_worktree_last(
    con: duckdb.DuckDBPyConnection,
) -> None:
    frame = query(con, "index_versions", bases=["/b/LESSONS"])
    assert frame["version_id"].to_list() == ["c1", "c0", "c2"]
    assert frame["active_heading_line"].to_list() == [5, 6, 7]
    assert query(con, "index_versions")["version_id"].to_list() == ["worktree", "c1", "c0", "c2"]


def test_sessions(con: duckdb.DuckDBPyConnection) -> None:
    first = query(con, "first_session")["first_started_at"][0]
    assert first == datetime(2026, 10, 30, 23, 30, tzinfo=UTC)
    assert query(con, "session_known", session="s1").rows() == [(1,)]
    assert query(con, "session_known", session="nope").rows() == [(0,)]
    con.execute("delete from fct_sessions")
    assert query(con, "first_session")["first_started_at"][0] is None


def test_lessons_and_rituals(con: duckdb.DuckDBPyConnection) -> None:
    lessons = query(con, "lessons", bases=["/b/LESSONS"])
    assert lessons["lesson_id"].to_list() == ["L-1", "L-2"]
    assert query(con, "lessons")["base_path"].to_list() == [
        "/a/LESSONS",
        "/b/LESSONS",
        "/b/LESSONS",
    ]
    rituals = query(con, "lesson_rituals", bases=None, lesson=None).rows()
    assert rituals == [("/a/LESSONS", "L-9", "pytest"), ("/b/LESSONS", "L-2", "make check")]
    assert query(con, "lesson_rituals", bases=["/b/LESSONS"], lesson="L-1").rows() == []
