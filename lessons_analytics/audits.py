"""Audits of a built warehouse, generated from the models' headers.

Each audit is a query that returns the offending rows (none = pass), in the manner of dbt's
data tests and SQLMesh's audits:

- from a model's ``-- key:`` line: the key is unique, and its columns not marked
  ``(nullable)`` are never null;
- wherever the columns exist: ``ended_at >= started_at``, and no negative token count, byte
  size, character count or duration.

The audits cover the intermediate and mart models (staging is the raw tables renamed, whose
grain is the loaded row). A model missing from the warehouse is itself a failure: a user's
warehouse built by an older version has to be re-ingested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict

from lessons_analytics.engine import duckdb
from lessons_analytics.sqlfiles import quote_identifier as q
from lessons_analytics.sqlheader import Header, model_headers

AUDITED_LAYERS = ("intermediate", "marts")
# tokens, sizes and durations: a negative one is a parser or arithmetic fault
_NON_NEGATIVE = re.compile(r"(_tokens|bytes|_chars|duration_s|_seconds)$")
_NUMERIC = re.compile(r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|U\w*INT|DOUBLE|FLOAT|DECIMAL)")


@dataclass(frozen=True)
class Audit:
    model: str
    name: str
    sql: str  # the offending rows; the key columns (when the model has a key) come first


class AuditRow(TypedDict):
    """One audit in ``check-warehouse --json``."""

    model: str
    audit: str
    failing_rows: int
    sample: dict[str, object] | None
    ok: bool


@dataclass(frozen=True)
class AuditResult:
    model: str
    audit: str
    failing_rows: int
    sample: dict[str, object] | None  # the first offending row (key columns), or None

    @property
    def ok(self) -> bool:
        return self.failing_rows == 0

    def to_dict(self) -> AuditRow:
        return AuditRow(
            model=self.model,
            audit=self.audit,
            failing_rows=self.failing_rows,
            sample=self.sample,
            ok=self.ok,
        )


def audits_for(header: Header, columns: dict[str, str]) -> list[Audit]:
    """The audits of one model, given its columns (name -> DuckDB type) in the warehouse."""
    table = q(header.name)
    key = [q(c) for c in header.key_columns]
    found: list[Audit] = []
    if key:
        keys = ", ".join(key)
        found.append(
            Audit(
                header.name,
                f"unique ({', '.join(header.key_columns)})",
                f"select {keys}, count(*) as copies from {table} group by all having count(*) > 1",
            )
        )
    for col in header.key:
        if not col.nullable:
            found.append(
                Audit(
                    header.name,
                    f"not null {col.name}",
                    f"select {', '.join(key)} from {table} where {q(col.name)} is null",
                )
            )
    shown = ", ".join(key) + ", " if key else ""
    if "started_at" in columns and "ended_at" in columns:
        found.append(
            Audit(
                header.name,
                "ended_at >= started_at",
                f"select {shown}started_at, ended_at from {table} where ended_at < started_at",
            )
        )
    for name, kind in columns.items():
        if _NON_NEGATIVE.search(name) and _NUMERIC.match(kind):
            found.append(
                Audit(
                    header.name,
                    f"{name} >= 0",
                    f"select {shown}{q(name)} from {table} where {q(name)} < 0",
                )
            )
    return found


def warehouse_columns(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, str]]:
    """Column name -> type of every table and view of the warehouse's main schema."""
    rows = con.execute(
        "select table_name, column_name, data_type from information_schema.columns"
        " where table_schema = 'main' order by table_name, ordinal_position"
    ).fetchall()
    tables: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        tables.setdefault(table, {})[column] = kind
    return tables


def run_audits(con: duckdb.DuckDBPyConnection) -> list[AuditResult]:
    """Every audit of every intermediate and mart model, run over the warehouse of ``con``."""
    tables = warehouse_columns(con)
    results: list[AuditResult] = []
    for header in model_headers():
        if header.layer not in AUDITED_LAYERS:
            continue
        columns = tables.get(header.name)
        if columns is None:
            results.append(AuditResult(header.name, "exists", 1, None))
            continue
        missing = [c for c in header.key_columns if c not in columns]
        if missing:
            results.append(AuditResult(header.name, f"has key columns {missing}", 1, None))
            continue
        results.extend(_run(con, audit) for audit in audits_for(header, columns))
    return results


def _run(con: duckdb.DuckDBPyConnection, audit: Audit) -> AuditResult:
    count_row = con.execute(f"select count(*) from ({audit.sql})").fetchone()
    count = int(count_row[0]) if count_row else 0
    sample = None
    if count:
        cursor = con.execute(f"select * from ({audit.sql}) order by all limit 1")
        names = [d[0] for d in cursor.description]
        first = cursor.fetchone()
        sample = dict(zip(names, first, strict=True)) if first else None
    return AuditResult(audit.model, audit.name, count, sample)
