"""The session-scoped refresh reads and writes only the affected sessions' rows.

On the hand-worked scenario (tests/support/scenario.py: one base, S1..S7), S4 and S6 arrive
after the first run. S4 is a new session; S6 resumes S1 (its file replays S1's first three
lines, same uuids), so its arrival must refresh S1 too. Two warehouses take the same runs:

- in one, before each refresh, a copy of an S2 row under a session id no file holds is
  planted in incremental tables, a row of a file no run writes in fct_ingest_state
  (refreshed by file), and a lesson's rule is marked in a table built from the base alone:
  a refresh that rebuilt a whole table would remove them, one whose scope were too narrow
  would miss the new sessions' rows, and one too wide would duplicate the other
  sessions' rows (the real rows must equal a full build's);
- the other, untouched, must then equal a full build of the same files in every table.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from lessons_analytics import refresh, warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.sqlfiles import layer_files
from lessons_analytics.transform import materialization
from tests.support.scenario import S1, S2, S4, S6, build

# incremental tables, and one built from the base alone (a lesson's rule marked)
PLANTED = ("fct_sessions", "fct_events", "int_agent_runs_identified", "fct_messages")
GHOST = "00000000-planted-by-the-test"
MARK = "marked by the test"


def _tables() -> list[str]:
    return [p.stem for p in layer_files() if materialization(p, p.read_text()) == "table"]


def _rows(db: Path, table: str, where: str = "true") -> list[tuple[object, ...]]:
    columns = "* exclude (loaded_at)" if table == "fct_ingest_state" else "*"
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            f"select {columns} from {table} where {where} order by all",
            [] if where == "true" else [GHOST],
        ).fetchall()


def _plant(db: Path) -> None:
    with duckdb.connect(str(db)) as con:
        for table in PLANTED:
            con.execute(
                f"insert into {table} select * replace (? as session_id) from {table}"
                " where session_id = ? limit 1",
                [GHOST, S2],
            )
        con.execute("update dim_lessons set rule = ? where lesson_id = 'L-0003'", [MARK])
        # a row of a file no run writes: a refresh by file keeps it, a rebuild would not
        con.execute(
            "insert into fct_ingest_state select * replace (-1 as file_id, ? as path)"
            " from fct_ingest_state limit 1",
            [GHOST],
        )


def _survivors(db: Path) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        found = {
            table: con.execute(
                f"select count(*) from {table} where session_id = ?", [GHOST]
            ).fetchall()[0][0]
            for table in PLANTED
        }
        marked = con.execute("select count(*) from dim_lessons where rule = ?", [MARK])
        found["dim_lessons"] = marked.fetchall()[0][0]
        files = con.execute("select count(*) from fct_ingest_state where path = ?", [GHOST])
        found["fct_ingest_state"] = files.fetchall()[0][0]
    return found


def _sessions(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {row[0] for row in con.execute("select session_id from fct_sessions").fetchall()}


Runs = tuple[Path, Path, Path, list[str | None], list[dict[str, int]]]


@pytest.fixture(scope="module", params=["bound", "joined"])
def runs(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Runs:
    """Both ways of naming the scope: a few sessions bound as a list, more joined with
    their table (refresh.FEW_SESSIONS 0: every refresh here has more than that)."""
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "joined":
            patch.setattr(refresh, "FEW_SESSIONS", 0)
        return _runs(tmp_path_factory.mktemp("scoped"))


def _runs(root: Path) -> Runs:
    world = build(root / "world")
    aside = root / "aside"
    aside.mkdir()
    later = {name: world.sessions[name].path() for name in ("S4", "S6")}  # type: ignore[union-attr]
    for name, path in later.items():
        shutil.move(path, aside / name)
    sources = [world.projects, world.codex]
    plain, planted = root / "plain.duckdb", root / "planted.duckdb"
    builds = [ingest(plain, sources).build]
    ingest(planted, sources)
    assert S4 not in _sessions(plain)
    survived = []
    for name in ("S4", "S6"):
        _plant(planted)
        shutil.move(aside / name, later[name])
        builds.append(ingest(plain, sources).build)
        ingest(planted, sources)
        survived.append(_survivors(planted))
    full = root / "full.duckdb"
    ingest(full, sources)
    return plain, planted, full, builds, survived


def test_the_arrivals_were_refreshed_not_rebuilt(runs: Runs) -> None:
    plain, _planted, _full, builds, _survived = runs
    assert builds == ["full", "incremental", "incremental"]
    assert {S1, S4, S6} <= _sessions(plain)


def test_rows_of_other_sessions_and_of_the_base_are_left_alone(runs: Runs) -> None:
    _plain, _planted, _full, _builds, survived = runs
    # one ghost row per table after the first refresh, two after the second (planted again);
    # the marked rule stays: no base changed, so nothing rebuilt dim_lessons
    assert survived == [
        {**dict.fromkeys(PLANTED, 1), "dim_lessons": 1, "fct_ingest_state": 1},
        {**dict.fromkeys(PLANTED, 2), "dim_lessons": 1, "fct_ingest_state": 2},
    ]


@pytest.mark.parametrize("table", PLANTED)
def test_the_refreshed_rows_are_exactly_the_full_builds(runs: Runs, table: str) -> None:
    _plain, planted, full, _builds, _survived = runs
    real = "session_id is distinct from ?"
    assert _rows(planted, table, real) == _rows(full, table, real)


@pytest.mark.parametrize("table", _tables())
def test_table_equals_the_full_build(runs: Runs, table: str) -> None:
    plain, _planted, full, _builds, _survived = runs
    assert _rows(plain, table) == _rows(full, table)


def test_a_failing_refresh_reports_its_own_error(tmp_path: Path) -> None:
    # the layers were never built: the first refreshed model's insert fails, and the
    # clean-up of the temporary tables must not hide that error behind its own
    con = warehouse.connect(tmp_path / "w.duckdb")
    warehouse.ensure_raw_tables(con)
    con.execute("create temp table scope (session_id varchar)")
    con.begin()
    with pytest.raises(duckdb.CatalogException, match=r"Table with name int_\w+ does not exist"):
        refresh.build_sessions(con, "scope")
    con.close()
