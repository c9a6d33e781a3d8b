"""The lesson-base load stage: a snapshot's rows reach the raw base tables of the schema,
every field to its table, every key to a column, nothing dropped on the way."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from lessons_analytics import effect, ingestion, metrics, warehouse
from lessons_analytics.lessonbase.loading import LINK_TABLE, snapshot_rows, table_of
from lessons_analytics.lessonbase.reader import BaseSnapshot, load_base
from lessons_analytics.schema import BASE_TABLES
from lessons_analytics.settings import Thresholds
from tests.support.basebuilder import index_text, lesson_text, make_base


def test_every_base_table_is_filled_by_one_snapshot_field_or_by_the_links() -> None:
    tables = [table_of(item.name) for item in fields(BaseSnapshot)]
    assert len(tables) == len(set(tables))  # no two fields write the same table
    assert sorted([*tables, LINK_TABLE]) == sorted(BASE_TABLES)


def test_snapshot_rows_of_a_real_base(tmp_path: Path) -> None:
    journal = [
        "- 2026-01-04 · where: a.py · what: x · caught: gate · recalled: no · defect: bug"
        " · mood: grim",  # `mood` is not a known key: it goes to `extra`
        "- not a journal line",
    ]
    base = make_base(
        tmp_path / "proj",
        lessons={
            "L-0001.md": lesson_text("L-0001", hits=journal),
            "L-0002.md": "no front matter\n",
        },
        index=index_text(active=["L-0001"]),
    )
    snapshot = load_base(base)
    rows = snapshot_rows(snapshot, "f" * 32)
    assert sorted(rows) == sorted(t for t in BASE_TABLES if t != LINK_TABLE)
    # one row per snapshot row, table by table
    for item in fields(BaseSnapshot):
        value = getattr(snapshot, item.name)
        assert len(rows[table_of(item.name)]) == (1 if item.name == "base" else len(value))
    (base_row,) = rows["raw_bases"]
    assert base_row["fingerprint"] == "f" * 32 and base_row["base_path"] == str(base)
    # 9 lines of front matter, rule, why, blank, "## Hits": the journal is lines 14-15
    assert [h["line_no"] for h in rows["raw_hits"]] == [14, 15]
    assert json.loads(rows["raw_hits"][0]["extra"]) == {"mood": "grim"}
    # the errors carry their base, which the snapshot keeps once for all of them
    errors = rows["raw_base_errors"]
    assert errors and {e["base_path"] for e in errors} == {str(base)}
    assert any(e["file"].endswith("L-0002.md") for e in errors)
    assert any(e["line"] == 15 for e in errors)  # the unparseable journal line


def test_a_row_key_that_is_no_column_is_a_loader_bug(tmp_path: Path) -> None:
    snapshot = BaseSnapshot({"base_path": "/b", "project_dir": "/", "repo_root": None,
                             "is_git": False, "head_commit": None})  # fmt: skip
    snapshot.lessons.append({"lesson_id": "L-0001", "stauts": "active"})
    with pytest.raises(KeyError, match="raw_lessons has no column 'stauts'"):
        snapshot_rows(snapshot, "x")


def test_a_ritual_the_engine_refuses_is_reported_not_loaded(tmp_path: Path) -> None:
    # Python's re (and so lint) reads a lookahead; DuckDB's RE2 does not. Loaded, such a
    # ritual stopped every command that times rituals; now the lesson loads without it and
    # the ritual is reported at its line with the engine's reason
    refused = "^git commit(?! --amend)"
    base = make_base(
        tmp_path / "proj",
        lessons={
            "L-0001.md": lesson_text("L-0001", extra_fm='ritual: "^make test"'),
            "L-0002.md": lesson_text("L-0002", extra_fm=f'ritual: "{refused}"'),
        },
        index=index_text(active=["L-0001", "L-0002"]),
    )
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    db = tmp_path / "w.duckdb"
    ingestion.ingest(db, [transcripts], [base])
    con = warehouse.connect(db, read_only=True)
    try:
        assert con.execute(
            "select lesson_id, ritual from dim_lessons order by lesson_id"
        ).fetchall() == [("L-0001", "^make test"), ("L-0002", None)]
        ((file, line, reason),) = con.execute(
            "select file, line, reason from raw_base_errors where reason like '%ritual%'"
        ).fetchall()
        # front matter: ---, id, addressee, trigger, scope, target, class, status, ritual
        assert (file, line) == (str(base / "L-0002.md"), 9)
        assert refused in reason and "RE2" in reason and "not measured" in reason
        # the commands that time rituals run, with the ritual the engine reads
        filters = metrics.Filters()
        assert set(effect.lesson_costs(con, filters, Thresholds())) == {(str(base), "L-0001")}
        cost = metrics.cost_document(con, filters, gap_cap_s=300.0)
        assert [r["pattern"] for r in cost["rituals"]] == ["^make test"]
    finally:
        con.close()


def test_a_warehouse_holding_a_refused_ritual_drops_it_at_the_next_ingest(
    tmp_path: Path,
) -> None:
    # a warehouse loaded before the check holds a ritual the engine refuses: the next run
    # reads the bases again though none changed, and the commands time the rituals again
    base = make_base(
        tmp_path / "proj",
        lessons={"L-0001.md": lesson_text("L-0001", extra_fm='ritual: "^make test"')},
        index=index_text(active=["L-0001"]),
    )
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    db = tmp_path / "w.duckdb"
    ingestion.ingest(db, [transcripts], [base])
    con = warehouse.connect(db)
    for table in ("raw_lessons", "dim_lessons"):  # as a run before the check loaded it
        con.execute(f"update {table} set ritual = '^make test(?=s)'")
    con.close()
    ingestion.ingest(db, [transcripts], [base])
    con = warehouse.connect(db, read_only=True)
    try:
        for table in ("raw_lessons", "dim_lessons"):
            assert con.execute(f"select ritual from {table}").fetchall() == [("^make test",)]
        assert not con.execute("select * from raw_base_errors").fetchall()
        assert set(effect.lesson_costs(con, metrics.Filters(), Thresholds())) == {
            (str(base), "L-0001")
        }
    finally:
        con.close()
