"""Given rows -> expected rows for one model, in the manner of SQLMesh's unit tests.

``check(model, case)`` opens an empty in-memory DuckDB, creates only the tables the model
reads (with the column types they have in a real warehouse), inserts the case's given rows
(a column a row leaves out is null), runs the model's SQL and compares its rows with the
expected ones: as a multiset, on the columns the expected rows name. Values are written as
Python literals or strings DuckDB casts to the column's type ('2026-11-02 10:00:00+00').

``check_mutants`` proves the cases can fail: each mutant (a text replacement in the model's
SQL) must make at least one case fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import duckdb

from lessons_analytics import sqlfiles, transform, warehouse

Rows = list[dict[str, object]]


@dataclass(frozen=True)
class Case:
    name: str
    given: dict[str, Rows]
    expected: Rows


@cache
def _warehouse_types() -> dict[str, dict[str, str]]:
    """Column name -> DuckDB type of every raw table and model of an empty warehouse."""
    con = duckdb.connect(":memory:")
    try:
        warehouse.ensure_raw_tables(con)
        transform.build(con)
        names = [row[0] for row in con.execute("select table_name from duckdb_tables()").fetchall()]
        names += [
            row[0]
            for row in con.execute(
                "select view_name from duckdb_views() where not internal"
            ).fetchall()
        ]
        return {
            name: {col: typ for col, typ, *_ in con.execute(f'describe "{name}"').fetchall()}
            for name in names
        }
    finally:
        con.close()


def model_sql(model: str) -> str:
    for path in sqlfiles.layer_files():
        if path.stem == model:
            return path.read_text(encoding="utf-8").strip().rstrip(";")
    raise KeyError(model)


def upstream(model: str, sql: str | None = None) -> list[str]:
    """The tables and models the SQL of ``model`` names (its inputs)."""
    known = _warehouse_types()
    words = set(re.findall(r"\b[a-z_][a-z0-9_]*\b", sql or model_sql(model)))
    return sorted(w for w in words if w in known and w != model)


def run(model: str, given: dict[str, Rows], sql: str | None = None) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory DuckDB holding the model's inputs and its output as table ``actual``."""
    sql = sql or model_sql(model)
    inputs = upstream(model, sql)
    unknown = sorted(set(given) - set(inputs))
    if unknown:
        raise AssertionError(f"{model} does not read {unknown}; it reads {inputs}")
    types = _warehouse_types()
    con = duckdb.connect(":memory:")
    con.execute("set TimeZone = 'UTC'")
    for table in inputs:
        _create(con, table, types[table], given.get(table, []))
    con.execute(f"create table actual as select * from (\n{sql}\n)")
    return con


def _create(con: duckdb.DuckDBPyConnection, table: str, types: dict[str, str], rows: Rows) -> None:
    con.execute(f'create table "{table}" ({", ".join(f"{_q(c)} {t}" for c, t in types.items())})')
    for row in rows:
        bad = sorted(set(row) - set(types))
        if bad:
            raise AssertionError(f"{table} has no column {bad}")
        cols = list(row)
        marks = ", ".join("?" for _ in cols)
        con.execute(
            f'insert into "{table}" ({", ".join(map(_q, cols))}) values ({marks})',
            [row[c] for c in cols],
        )


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def differences(model: str, case: Case, sql: str | None = None) -> str:
    """Empty when the model gives exactly the expected rows; else what differs."""
    con = run(model, case.given, sql)
    try:
        out = {c: t for c, t, *_ in con.execute("describe actual").fetchall()}
        cols = list(case.expected[0]) if case.expected else list(out)
        missing = [c for c in cols if c not in out]
        if missing:
            return f"{model} has no output column {missing}"
        if any(list(row) != cols for row in case.expected):
            raise AssertionError(f"{case.name}: every expected row names the same columns")
        _create(con, "expected", {c: out[c] for c in cols}, case.expected)
        sel = ", ".join(map(_q, cols))
        extra = con.execute(f"select {sel} from actual except all select {sel} from expected")
        extra_rows = extra.fetchall()
        lacking = con.execute(f"select {sel} from expected except all select {sel} from actual")
        lacking_rows = lacking.fetchall()
    finally:
        con.close()
    if not extra_rows and not lacking_rows:
        return ""
    return (
        f"{model} / {case.name} on columns {cols}:\n"
        f"  unexpected rows: {extra_rows}\n  missing rows:    {lacking_rows}"
    )


def check(model: str, case: Case) -> None:
    problem = differences(model, case)
    assert not problem, problem


def check_mutants(model: str, cases: list[Case], mutants: list[tuple[str, str]]) -> None:
    """Each (old, new) replacement in the model's SQL makes at least one case fail. ``old``
    matches whatever the layout: a space in it stands for any whitespace (or none next to a
    bracket or comma), so reformatting the SQL does not orphan a mutant."""
    sql = model_sql(model)
    for old, new in mutants:
        pattern = _layout_free(old)
        found = len(pattern.findall(sql))
        assert found == 1, f"mutant {old!r} must occur once in {model}, found {found}"
        mutated = pattern.sub(lambda _, repl=new: repl, sql)
        failed = []
        for case in cases:
            try:
                failed.append(bool(differences(model, case, mutated)))
            except duckdb.Error:
                failed.append(True)
        assert any(failed), f"no case of {model} fails when {old!r} becomes {new!r}"


def _layout_free(text: str) -> re.Pattern[str]:
    parts = re.split(r"(\s+|[(),])", text)
    out = []
    for part in parts:
        if not part:
            continue
        if part.isspace():
            out.append(r"\s+")
        elif part in "(),":
            out.append(r"\s*" + re.escape(part) + r"\s*")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out).replace(r"\s+\s*", r"\s*").replace(r"\s*\s+", r"\s*"))
