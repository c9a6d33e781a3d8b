"""Every SQL file opens with a header that parses; a garbled header is an error that says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_analytics import sqlfiles, sqlheader
from lessons_analytics.sqlheader import HeaderError, KeyColumn

MODELS = sqlfiles.layer_files()
QUERIES = sorted(sqlfiles.queries_root().glob("*.sql"))


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_every_model_header_parses(path: Path) -> None:
    header = sqlheader.model_header(path)
    assert header.name == path.stem and header.layer == path.parent.name
    assert header.purpose and header.grain.startswith("one row per")
    if header.layer != "staging":
        assert header.key, "intermediate and mart models carry a key for the audits"
    assert header.parameters == (), "models bind no parameters"


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: p.stem)
def test_every_query_header_parses(path: Path) -> None:
    header = sqlheader.query_header(path)
    assert header.kind == "query" and header.purpose and header.grain


def test_a_header_parsed_field_by_field() -> None:
    kept = sqlfiles.sql_root() / "intermediate" / "int_file_reads_kept.sql"
    paired = sqlheader.model_header(kept)
    assert paired.key == (KeyColumn("tool_use_id"), KeyColumn("read_idx"))
    assert paired.materialized == "view" and paired.incremental is None
    delivered = sqlheader.model_header(
        sqlfiles.sql_root() / "intermediate" / "int_file_reads_delivered.sql"
    )
    assert delivered.key_columns == ("tool_use_id", "read_idx", "base_path")
    assert [c.nullable for c in delivered.key] == [False, False, True]
    assert delivered.materialized == "temp" and delivered.incremental == "session_id"
    stg = sqlheader.model_header(sqlfiles.sql_root() / "staging" / "stg_events.sql")
    assert stg.materialized == "view" and stg.incremental == "session_id" and stg.key == ()
    coverage = sqlheader.query_header(sqlfiles.queries_root() / "coverage.sql")
    assert coverage.parameters == ("bases", "since", "until")
    # a grain written as a sentence inside a line
    method = sqlheader.query_header(sqlfiles.queries_root() / "heads_by_method.sql")
    assert method.grain == "one row per (base, method)"


def test_headers_list_every_file_once() -> None:
    assert [h.name for h in sqlheader.model_headers()] == [p.stem for p in MODELS]
    assert [h.name for h in sqlheader.query_headers()] == [p.stem for p in QUERIES]


GOOD = "-- m: rows.\n-- Grain: one row per x.\n-- key: x\nselect 1 as x\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("select 1 as x\n", "first line must be '-- m: <what it holds>'"),
        ("-- n: rows.\n-- Grain: one row per x.\n-- key: x\nselect 1\n", "first line"),
        ("-- m: rows.\n-- key: x\nselect 1\n", "exactly one non-empty '-- Grain:'"),
        ("-- m: rows.\n-- Grain: one row per x.\nselect 1\n", "needs a '-- key:' line"),
        ("-- m: rows.\n-- Grain: one row per x.\n-- key: x y\nselect 1\n", "'x y' is not"),
        ("-- m: rows.\n-- Grain: one row per x.\n-- key: x, x\nselect 1\n", "named twice"),
        ("-- m: rows.\n-- Grain: a.\n-- key: x\n-- key: y\nselect 1\n", "'key:' given twice"),
        (
            GOOD.replace("-- key: x", "-- key: x\n-- materialized: cube"),
            "'view', 'table' or 'temp'",
        ),
        (GOOD.replace("-- key: x", "-- key: x\n-- incremental: (x)"), "must name a column"),
        (GOOD.replace("select 1 as x", "select $since as x"), "not named in the header"),
    ],
)
def test_a_garbled_header_is_an_error(text: str, message: str) -> None:
    with pytest.raises(HeaderError, match="^m: ") as caught:
        sqlheader.parse(text, "m", "intermediate")
    assert message in str(caught.value)


def test_staging_models_are_views_and_binds_in_strings_do_not_count() -> None:
    with pytest.raises(HeaderError, match="staging models are views"):
        sqlheader.parse(GOOD.replace("-- key: x", "-- materialized: table"), "m", "staging")
    quoted = GOOD.replace("select 1 as x", "select '$since' as x -- $until")
    assert sqlheader.parse(quoted, "m", "marts").parameters == ()
    assert sqlheader.parse(GOOD, "m", "marts").materialized == "table"
